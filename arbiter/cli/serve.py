"""`arbiter serve RESULTS_DIR`: the live page of a results folder (a run elsewhere, or a finished
one), and the `--serve` options of the commands that run games (docs/live.md)."""
from __future__ import annotations

import argparse
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from ..errors import UsageError

if TYPE_CHECKING:
    from ..reports.live import RunFeed

# arbiter.reports.live (and aiohttp, half a second to import) is imported only when a page is served.

DEFAULT_ADDRESS = "127.0.0.1:0"  # loopback, a free port


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("serve", help="watch a results folder live in the browser",
                                   description="Serve the live page of a results folder: the report's page, "
                                               "updated as records land in games.jsonl (a run started "
                                               "elsewhere), or a finished tournament to browse. Read-only; "
                                               "runs until Ctrl-C. See docs/live.md.")
    parser.add_argument("results_dir", type=Path, help="a tournament's results folder")
    parser.add_argument("--address", default=DEFAULT_ADDRESS, metavar="HOST:PORT",
                        help="where to listen (default: loopback, a free port; 0.0.0.0:PORT shows the page "
                             "to other machines)")
    parser.add_argument("--serve-logs", action="store_true",
                        help="also serve the bots' stderr logs (hidden by default: they may hold secrets)")
    add_entrant_links_option(parser)
    parser.set_defaults(func=run)


def add_entrant_links_option(parser: argparse.ArgumentParser) -> None:
    """`--entrant-links`: print each entrant's own link to the page (its logs alone)."""
    parser.add_argument("--entrant-links", action="store_true",
                        help="print each player's own link to the live page, which opens that player's logs "
                             "and no other's (hand each entrant its link; docs/live.md)")


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    """`--serve [HOST:PORT]` and `--serve-logs`, for commands that play games."""
    parser.add_argument("--serve", nargs="?", const=DEFAULT_ADDRESS, default=None, metavar="HOST:PORT",
                        help="watch the run live in the browser (docs/live.md); default loopback on a free "
                             "port, its address printed at the start; 0.0.0.0:PORT shows it to other machines")
    parser.add_argument("--serve-logs", action="store_true",
                        help="with --serve: also serve the bots' stderr logs (hidden by default)")
    add_entrant_links_option(parser)


def announce(url: str, host: str, logs: bool) -> str:
    """The line that gives the page's address and says who can see what."""
    from ..reports.live import is_loopback
    shown = "bot logs shown" if logs else "bot logs hidden (--serve-logs shows them)"
    if is_loopback(host):
        return f"live page: {url} (read-only, this machine only, {shown})"
    return (f"live page: {url} WARNING: open to other machines on {host} (read-only, {shown}); "
            "anyone who reaches this address sees the games")


def note_entrant_links(url: str, folder: Path, players: Sequence[str], note: Callable[[str], None]) -> None:
    """Each player's own link (reports/entrant_keys.py), one line each."""
    from ..reports.entrant_keys import entrant_link
    for name in players:
        note(f"link for {name} (its own logs only): {entrant_link(url, folder, name)}")


@contextmanager
def served(args: argparse.Namespace, folder: Path, note: Callable[[str], None],
           players: Sequence[str] = ()) -> Iterator[RunFeed | None]:
    """With --serve: the live page of `folder` while the body runs, and the runner's watch;
    with --entrant-links, each of `players`' own link is noted."""
    if args.serve is None:
        for flag, given in (("--serve-logs", args.serve_logs), ("--entrant-links", args.entrant_links)):
            if given:
                raise UsageError(f"{flag}: only with --serve (it says what the live page shows)")
        yield None
        return
    from ..reports.live import LiveServer, RunFeed, parse_address
    host, port = parse_address(args.serve)
    feed = RunFeed()
    server = LiveServer(folder, host=host, port=port, feed=feed, logs=args.serve_logs)
    url = server.start()
    note(announce(url, host, args.serve_logs))
    if args.entrant_links:
        note_entrant_links(url, folder, players, note)
    try:
        yield feed
    finally:
        server.stop()


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (then exit 130, as every interrupted command does)."""
    from ..reports.live import LiveServer, check_results_folder, parse_address
    host, port = parse_address(args.address, "--address")
    players = check_results_folder(args.results_dir)
    server = LiveServer(args.results_dir, host=host, port=port, logs=args.serve_logs, option="--address")
    url = server.start()
    print(announce(url, host, args.serve_logs), flush=True)
    if args.entrant_links:
        note_entrant_links(url, args.results_dir, players, lambda line: print(line, flush=True))
    try:
        wait_for_ctrl_c()
    finally:
        server.stop(ended=False)
    return 0  # not reached: only Ctrl-C ends the wait


def wait_for_ctrl_c() -> None:
    """Block this thread until KeyboardInterrupt (the server runs in its own thread)."""
    threading.Event().wait()
