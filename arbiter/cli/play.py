"""`arbiter play`: referee one game between bot commands and print the result and the reason."""
from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, TextIO

from ..errors import ExitCode, UsageError, show_path
from ..games import CHANCE, State
from ..protocol import DIALECTS
from ..records import GameRecord, game_places, score_text
from ..reports.html import write_game_page
from ..referee import TimeControl, play_game
from ..tournament.progress import TolerantStream, ordinal
from .outputs import check_output_file, check_output_folder
from .players import add_engine_option, command_line_game, ms_flag, command_line_players, game_params, seat_players
from .sandbox_options import add_sandbox_options, warn_if_unsandboxed

DEFAULT_LOG_DIR = Path("results") / "play"
# The exit status of a game that could not be decided: its own rules failed (a void game,
# docs/records.md); no bot is blamed. `arbiter check` says the same with it.
RULES_FAILED_STATUS = ExitCode.VOID


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `play` subcommand."""
    parser = subparsers.add_parser(
        "play", help="referee one game between bot commands",
        description="Referee one game between bot programs (the first command moves first) and print "
                    "the result and the reason. Exit status 0 whenever the game was refereed, "
                    "whoever won or faulted; 5 when it could not be decided because the game's own rules "
                    "failed (a void game: no bot is blamed); 2 for a usage error.",
    )
    parser.add_argument("game", metavar="GAME", help="the game's name, e.g. dots-and-triangles")
    parser.add_argument("commands", metavar="CMD", nargs="*",
                        help="one command per seat, in seat order, each one string split like a shell would "
                             "(the shorthand of --engine cmd=CMD)")
    add_engine_option(parser)
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a game parameter (repeatable), e.g. -p rows=5")
    parser.add_argument("--time-ms", type=ms_flag("--time-ms"), default=TimeControl.time_ms, metavar="N",
                        help="each bot's time budget for the whole game (default %(default)s)")
    parser.add_argument("--move-ms", type=ms_flag("--move-ms"), default=None, metavar="N", help="a cap on each move")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="what the budget counts (default wall)")
    parser.add_argument("--startup-ms", type=ms_flag("--startup-ms"), default=TimeControl.startup_ms, metavar="N",
                        help="how long each bot may take to start, off the clock, before it first waits "
                             "for its input (default %(default)s)")
    parser.add_argument("--dialect", choices=DIALECTS, default="arbiter",
                        help="every seat's dialect: codecup bots get no Game line (default arbiter)")
    parser.add_argument("--dialect-a", choices=DIALECTS, default=None, help="seat 0's dialect")
    parser.add_argument("--dialect-b", choices=DIALECTS, default=None, help="seat 1's dialect")
    parser.add_argument("--transport", choices=("pipe", "zmq"), default="pipe",
                        help="pipe: stdin/stdout (default); zmq: each bot connects to a loopback ZeroMQ "
                             "socket named in $ARBITER_ENDPOINT (docs/protocol.md, Sockets)")
    parser.add_argument("--show", action="store_true", help="print the board after each turn")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="write the game record as JSON to FILE, or to stdout with -")
    parser.add_argument("--html", metavar="FILE", type=Path, default=None,
                        help="write a self-contained page with the game viewer to FILE")
    parser.add_argument("--log-dir", type=Path, default=DEFAULT_LOG_DIR, metavar="DIR",
                        help="where the bots' stderr logs go (default %(default)s)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable for every bot (a sandboxed bot's environment is "
                             "otherwise cleared); repeatable")
    add_sandbox_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Validate the command line, play the game, report it."""
    params = game_params(args.param)
    game = command_line_game(args.game, params)
    given = command_line_players(args.commands, args.engine, lambda seat: f"seat {seat}'s command")
    if len(given) != game.num_players:
        raise UsageError(
            f"{game.describe()} has {game.num_players} seats: give {game.num_players} players (commands or "
            f"--engine), not {len(given)}"
        )
    for option in ("time_ms", "move_ms", "startup_ms"):
        value = getattr(args, option)
        if value is not None and value <= 0:
            raise UsageError(f"--{option.replace('_', '-')} must be a positive number of milliseconds, not {value}")
    json_path = None if args.json in (None, "-") else Path(args.json)
    for flag, path in (("--json", json_path), ("--html", args.html)):
        if path is not None:
            check_output_file(flag, path)
    check_output_folder("--log-dir", args.log_dir)
    dialects = [args.dialect] * game.num_players
    for seat, override in enumerate((args.dialect_a, args.dialect_b)):
        if override is not None and seat < game.num_players:
            dialects[seat] = override
    warn_if_unsandboxed(not args.no_sandbox, "play")
    time = TimeControl(time_ms=args.time_ms, move_ms=args.move_ms, clock=args.clock, startup_ms=args.startup_ms)
    players = seat_players(given, sandbox=not args.no_sandbox, read=args.sandbox_read, write=args.sandbox_write,
                           env=_env(args.env), transport=args.transport, dialects=dialects, time=time,
                           hidden=[args.log_dir, *(path for path in (json_path, args.html) if path is not None)])

    # With the record on stdout, everything for people goes to stderr, and a stderr that cannot
    # be written must not cost the record.
    out: TextIO = TolerantStream(sys.stderr) if args.json == "-" else sys.stdout  # type: ignore[assignment]
    on_turn = None
    if args.show:  # the board as the game goes, like progress: a closed pipe stops it, not the game
        board: TextIO = TolerantStream(out)  # type: ignore[assignment]
        on_turn = _board_printer(board, [p.name for p in players])
        print(game.new_state().render(), file=board, end="\n\n", flush=True)
    prefix = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-%f-")
    try:
        record = play_game(game, players, time=time, log_dir=args.log_dir, log_prefix=prefix, on_turn=on_turn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    # The files first: a closed stdout must not cost the record that was asked for.
    written = _write_files(record, json_path, args.html)
    print(describe_record(record), file=out, flush=True)
    if args.json == "-":
        json.dump(record.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    if written is not None:
        print(f"viewer: {written}", file=out, flush=True)
    return RULES_FAILED_STATUS if record.termination.is_void else 0


def _write_files(record: GameRecord, json_path: Path | None, html_path: Path | None) -> Path | None:
    """Write the --json and --html files (checked before the game); the page's path, if any.
    A write that fails now (the disk filled during the game) is a UsageError naming its flag."""
    for flag, path in (("--json", json_path), ("--html", html_path)):
        if path is None:
            continue
        try:
            if flag == "--json":
                path.write_text(json.dumps(record.to_json(), indent=2) + "\n", encoding="utf-8")
            else:
                html_path = write_game_page(record, path)
        except OSError as exc:
            raise UsageError(f"{flag} {show_path(path)}: cannot write it ({exc.strerror}); the game was "
                             f"played: {record.detail}") from None
    return html_path


def _env(pairs: list[str]) -> dict[str, str]:
    """`--env NAME=VALUE` words as a mapping; UsageError naming a malformed one."""
    env = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name or "\0" in pair:
            raise UsageError(f"--env {pair!r}: write NAME=VALUE")
        env[name] = value
    return env


def _board_printer(out: TextIO, names: list[str]) -> Callable[[State[Any]], None]:
    """The `--show` callback: each move of the turn with the seat that made it and the scores
    after it, then the board (a dots game gives a seat that completes a cell the next move too)."""
    shadow: list[State[Any]] = []  # follows the game move by move, to know who was to move

    def show(state: State[Any]) -> None:
        try:
            draw(state)
        except Exception as exc:  # noqa: BLE001 - the rules' failure; the referee judges the game itself
            print(f"(the board cannot be shown: the rules raised {type(exc).__name__}: {exc})", file=out, flush=True)

    def draw(state: State[Any]) -> None:
        if not shadow:
            shadow.append(state.game.new_state())
        follower = shadow[0]
        for move in state.history[len(follower.history):]:
            mover = follower.current_player
            follower.apply(move)
            by = "drawn by chance" if mover == CHANCE else f"by seat {mover} ({names[mover]})"
            print(f"after {state.game.format_move(move)} {by}: "
                  f"scores {' - '.join(map(str, follower.scores))}", file=out)
        print(state.render(), file=out, end="\n\n", flush=True)

    return show


def describe_record(record: GameRecord) -> str:
    """The human summary printed at the end: players, result, reason, logs."""
    # A switch as on the Game line (OpenSpiel's games have them): `piglet=false`, not `piglet=False`.
    lines = [" ".join([record.game, *(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                                      for k, v in record.params.items())])]
    for seat, player in enumerate(record.players):
        lines.append(f"  seat {seat}: {player.name}  ({player.command})")
    scores = score_text(record.scores)
    if record.termination.is_fault:  # the scores are those of the position the fault ended
        scores += f" when seat {record.offender}'s {record.termination.value} ended it"
    if record.termination.is_void:
        result = "void: the game could not be decided, and counts for no one"
    elif record.winner is None:
        result = f"draw, {scores}"
    else:
        result = f"seat {record.winner} ({record.players[record.winner].name}) wins, {scores}"
    if record.outcome:
        result += f" [{record.outcome}]"
    lines.append(f"result: {result}")
    if len(record.players) > 2 and not record.termination.is_void:
        places = game_places(record.scores, record.winner, record.offender)
        ranking = sorted(range(len(places)), key=lambda seat: (places[seat], seat))
        lines.append("places: " + ", ".join(f"{ordinal(places[seat])} seat {seat} ({record.players[seat].name}) "
                                            f"{record.scores[seat]}" for seat in ranking))
    lines.append(f"reason: {record.termination.value}: {record.detail}")
    played = sum(1 for m in record.moves if not m.forced and m.seat != CHANCE)  # the players' own
    used = ", ".join(f"seat {k} {ms:.0f} ms" for k, ms in enumerate(record.time_used_ms))
    lines.append(f"moves: {played} in {record.duration_s:.2f} s; clock used: {used}")
    if any(ms is not None for ms in record.startup_ms):
        lines.append("start-up (off the clock): " + ", ".join(
            f"seat {k} " + ("not watched" if ms is None else f"{ms:.0f} ms") for k, ms in enumerate(record.startup_ms)))
    for seat, log in enumerate(record.logs):
        if log:
            lines.append(f"  log seat {seat}: {log}")
    return "\n".join(lines)
