"""`arbiter check GAME CMD`: is this bot ready? Its compliance with the protocol, scenario by scenario."""
from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from ..check import CheckReport, CheckTarget, RulesFailure, run_check
from ..check.scenarios import DUTIES
from ..errors import UsageError, show_path
from ..protocol import DIALECTS
from ..tournament.preflight import CheckEnded, check_apart
from ..tournament.progress import TolerantStream
from ..tournament.rules_host import hosted
from .outputs import check_output_file, check_output_folder
from ..referee import TimeControl
from .play import RULES_FAILED_STATUS
from .players import add_engine_option, command_line_game, command_line_players, game_params, ms_flag, seat_players
from .sandbox_options import add_sandbox_options, warn_if_unsandboxed

DEFAULT_LOG_DIR = Path("results") / "check"
MARKS = {"pass": "ok  ", "fail": "FAIL", "skip": " -  "}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `check` subcommand."""
    duties = "; ".join(title for _, title in DUTIES)
    parser = subparsers.add_parser(
        "check", help="check that a bot follows the protocol, scenario by scenario",
        description="Run a bot through scripted scenarios in real games, the arbiter playing the other seats, "
                    "and print a checklist: a mark per scenario, the clock and memory the bot used, and for "
                    f"each failure a hint and the last lines exchanged. Scenarios: {duties}. Exit status 0 if "
                    "every scenario passed, 1 if one failed, 2 for a usage error, 5 if none failed but the "
                    "game's own rules failed (the games they could not decide check nothing). See "
                    "docs/writing-a-bot.md.",
    )
    parser.add_argument("game", metavar="GAME", help="the game, e.g. dots-and-triangles")
    parser.add_argument("command", metavar="CMD", nargs="?", default=None,
                        help="the bot's command, one string split like a shell would (or give it with --engine)")
    add_engine_option(parser)
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a game parameter (repeatable), e.g. -p rows=5")
    parser.add_argument("--dialect", choices=DIALECTS, default="arbiter",
                        help="the bot's dialect: codecup bots get no Game line (default arbiter)")
    parser.add_argument("--time-ms", type=ms_flag("--time-ms"), default=10_000, metavar="N",
                        help="the bot's budget in every game but the small-clock one (default %(default)s)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="what every game's clock counts (default wall; cpu on a machine busy with other work)")
    parser.add_argument("--transport", choices=("pipe", "zmq"), default="pipe",
                        help="pipe: stdin/stdout (default); zmq: the bot connects to $ARBITER_ENDPOINT")
    parser.add_argument("--concurrency", type=int, default=1, metavar="K",
                        help="games at once (default 1: the timing scenarios are fairest alone)")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write the checklist as JSON to FILE, or to stdout with -")
    parser.add_argument("--log-dir", type=Path, default=DEFAULT_LOG_DIR, metavar="DIR",
                        help="where the bot's stderr logs go, one per game (default %(default)s/<time>/)")
    add_sandbox_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the bot and print the checklist; 0 if every scenario passed, 1 if one failed, 5 if
    none failed but the game's rules did (RULES_FAILED_STATUS)."""
    params = game_params(args.param)
    game = command_line_game(args.game, params)  # an unknown game or parameter is a usage error, before any bot runs
    if args.time_ms <= 0:
        raise UsageError(f"--time-ms must be a positive number of milliseconds, not {args.time_ms}")
    if args.concurrency < 1:
        raise UsageError(f"--concurrency must be at least 1, not {args.concurrency}")
    json_path = None if args.json in (None, "-") else Path(args.json)
    if json_path is not None:  # before the first game: no check is run into a file it cannot write
        check_output_file("--json", json_path)
    check_output_folder("--log-dir", args.log_dir)
    given = command_line_players([args.command] if args.command is not None else [], args.engine, lambda _: "CMD")
    if len(given) != 1:
        raise UsageError(f"give one bot to check (CMD or one --engine), not {len(given)}")
    warn_if_unsandboxed(not args.no_sandbox, "check")
    # The box shows what `play`, `match` and `sprt` show from here: the bot's own folders
    # (never the current folder for being current), read-only, with the logs covered.
    player, = seat_players(given, sandbox=not args.no_sandbox, read=args.sandbox_read,
                           write=args.sandbox_write, transport=args.transport, dialects=[args.dialect],
                           time=TimeControl(time_ms=args.time_ms), hidden=[args.log_dir])
    # The scenarios set each game's clock themselves: an --engine's tc= is the check's --time-ms.
    target = CheckTarget(game_name=args.game, params=params, player=player, time_ms=given[0].time_ms or args.time_ms,
                         clock=args.clock)
    # With the checklist on stdout, the text for people goes to stderr, and a stderr that cannot
    # be written must not cost the checklist.
    out: TextIO = TolerantStream(sys.stderr) if args.json == "-" else sys.stdout  # type: ignore[assignment]
    log_dir = args.log_dir / datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-%f")
    header = " ".join([args.game, *(f"{k}={v}" for k, v in params.items())])
    print(f"checking {player.command_text()} on {header} ({player.dialect} dialect, {args.transport})",
          file=out, flush=True)
    try:
        if hosted(args.game):  # rules not the arbiter's own (native ones): played in a process of their own
            report = check_apart(target, log_dir, args.concurrency, game.num_players)
        else:
            report = run_check(target, log_dir=log_dir, concurrency=args.concurrency)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except (RulesFailure, CheckEnded) as exc:  # nothing (more) was checked, and no bot is to blame
        print(f"not checked: {exc}", file=out, flush=True)
        return RULES_FAILED_STATUS
    if json_path is not None:  # the file first: a closed stdout must not cost the checklist asked for
        try:
            json_path.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        except OSError as exc:  # the disk filled during the games
            raise UsageError(f"--json {show_path(json_path)}: cannot write it ({exc.strerror})") from None
    print(describe_report(report), file=out, flush=True)
    if args.json == "-":
        json.dump(report.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 1 if not report.passed else RULES_FAILED_STATUS if report.void or report.seat_failed else 0


def describe_report(report: CheckReport) -> str:
    """The checklist as people read it: a mark and a note per scenario, hints and transcripts of failures."""
    width = max(len(item.title) for item in report.items)
    lines = []
    for item in report.items:
        lines.append(f"  {MARKS[item.status]} {item.title:<{width}}  {item.note}".rstrip())
        if item.status == "fail":
            lines.append(f"         hint: {item.hint}")
            if item.transcript:
                lines.append("         last lines (> to the bot, < from it):")
                lines += [f"           {line}" for line in item.transcript]
            if item.log:
                lines.append(f"         log: {item.log}")
    failed = report.failed()
    counted = sum(1 for item in report.items if item.status != "skip")
    peak = f"{report.peak_memory_kb / 1024:.0f} MB" if report.peak_memory_kb is not None else "not measured"
    first = f"{report.first_reply_ms:.0f} ms" if report.first_reply_ms is not None else "none"
    for sentence in report.void:  # not the bot's doing: said apart from its checklist
        lines.append(f"  void game: {sentence} (no bot is blamed; the game checks nothing)")
    verdict = (f"FAILED: {len(failed)} of {counted} scenarios ({', '.join(failed)})" if failed
               else f"passed: all {counted} scenarios that apply")
    for sentence in report.seat_failed:
        lines.append(f"  the arbiter's own seat failed: {sentence} (not the bot's doing; the game checks nothing)")
    if report.void and not failed:
        verdict = (f"passed: all {counted} scenarios checked; the others not checked: the game's own rules "
                   "failed (void games above)")
    elif report.seat_failed and not failed:
        verdict = (f"passed: all {counted} scenarios checked; the others not checked: the arbiter's own seat "
                   "failed (above; its log says why)")
    lines.append(f"{verdict}; {report.games} games in {report.duration_s:.1f} s; clock used "
                 f"{report.clock_used_ms:.0f} ms; first reply {first}; peak memory {peak}")
    lines.append(f"logs: {report.log_dir}")
    return "\n".join(lines)


__all__ = ["describe_report", "register", "run"]
