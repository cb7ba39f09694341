"""`arbiter export RESULTS_DIR`: a folder per entrant with its own games and logs alone (docs/report.md)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UsageError
from ..reports.export import LOG_CHARS, export_entrants


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("export", help="give each entrant a folder of its own games and logs",
                                   description="Write a folder per player of a results folder: its games "
                                               "(games.jsonl), its own stderr logs cut as a contest cuts them, "
                                               "and report.html with the standings and its games; no other "
                                               "entrant's log is in it. See docs/report.md.")
    parser.add_argument("results_dir", type=Path, help="a tournament's results folder")
    parser.add_argument("--to", type=Path, default=None, metavar="DIR",
                        help="where the folders go (default: RESULTS_DIR-entrants beside the results folder)")
    parser.add_argument("--player", action="append", default=[], metavar="NAME",
                        help="export only this player (repeatable; default every player)")
    parser.add_argument("--log-chars", type=int, default=LOG_CHARS, metavar="N",
                        help="characters of each game's log kept (default %(default)s, as CodeCup shows)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the folders and say where each went."""
    if args.log_chars < 0:
        raise UsageError(f"--log-chars must be 0 or more, not {args.log_chars}")
    results = Path(args.results_dir)
    to = args.to if args.to is not None else results.parent / f"{results.resolve().name}-entrants"
    for done in export_entrants(results, to, log_chars=args.log_chars, only=args.player):
        if done.kept_out:
            print(f"{done.name}: kept out of the tournament; its verdict and logs in {done.folder}")
        else:
            print(f"{done.name}: {done.games} games, {done.logs} logs in {done.folder}")
    return 0
