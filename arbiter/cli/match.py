"""`arbiter match GAME CMD_A CMD_B --games N`: a two-player match from the command line.

A thin layer over the tournament runner: the flags become the equivalent round-robin config
of two players (validated like a YAML file, and copied into the results folder), so the
schedule (each opening twice, seats swapped), the records, the resume and the standings
files are those of `arbiter run`. While games finish it prints the running score of A
against B with the Elo difference, its 95% interval and the likelihood of superiority.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, TextIO

from ..errors import UsageError
from ..records import GameRecord
from ..reports.html import write_tournament_report
from ..reports.results import report_results
from ..reports.standings import head_to_head_estimate
from ..tournament.config import COMMAND_LINE, config_from_data
from ..tournament.schema import MAX_NAME_BYTES
from ..tournament.validate import KeyPath
from ..tournament.progress import Progress, describe_result
from ..tournament.runner import Interrupted, run_tournament, sandbox_line, stopped_note
from ..tournament.tally import PlayerTally, Tally
from .players import (TOURNAMENT_FLAGS, PlayerArg, add_engine_option, add_series_options, command_line_players, flag_namer, game_params,
                      openings_entry)
from .outputs import add_results_options, check_results_flags
from .sandbox_options import add_sandbox_options


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `match` subcommand."""
    parser = subparsers.add_parser(
        "match", help="play a match between two bot commands (resumable)",
        description="Play N games between two bots, each opening twice with the seats swapped, printing the "
                    "running score with Elo, its 95% interval and the likelihood of superiority; then the "
                    "standings and report of `arbiter run`. Running the same command again resumes the match. "
                    "Exit status 0 when the match is played, 2 for a usage error, 130 when interrupted.",
    )
    parser.add_argument("game", metavar="GAME", help="the game, e.g. dots-and-triangles")
    parser.add_argument("commands", metavar="CMD", nargs="*",
                        help="CMD_A CMD_B: the two bots' commands, each one string split like a shell would "
                             "(the shorthand of --engine cmd=CMD)")
    add_engine_option(parser)
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a game parameter (repeatable), e.g. -p rows=5")
    parser.add_argument("--games", type=int, required=True, metavar="N", help="games to play (even)")
    add_series_options(parser, openings=None)
    add_results_options(parser, None)
    parser.add_argument("--results", default=None, metavar="DIR",
                        help="the results folder, relative to the current folder (default "
                             "results/match-NAME_A-vs-NAME_B, after the players); the same command again resumes it")
    parser.add_argument("--quiet", action="store_true", help="no running score, only the final standings")
    add_sandbox_options(parser, paths=False)
    parser.set_defaults(func=run)


def match_players(args: argparse.Namespace) -> list[PlayerArg]:
    """The two players, from CMD_A CMD_B and --engine, in seat-list order."""
    given = command_line_players(args.commands, args.engine, lambda index: ("CMD_A", "CMD_B")[min(index, 1)])
    if len(given) != 2:
        raise UsageError(f"a match is between two bots, and {len(given)} {'was' if len(given) == 1 else 'were'} "
                         "given: arbiter match GAME CMD_A CMD_B (or two --engine)")
    return given


def flags_to_config(args: argparse.Namespace) -> tuple[dict[str, Any], Callable[[KeyPath], str | None]]:
    """The command line as the equivalent round-robin config of two players, and how each of
    its keys is said on the command line (for errors)."""
    given = match_players(args)
    names = [player.name or _fit(player.default_name()) for player in given]
    if names[0].casefold() == names[1].casefold() and not (given[0].name and given[1].name):
        # The same bot twice (say with other options): the derived names get a suffix.
        names = [name if player.name else f"{_fit(name, MAX_NAME_BYTES - 2)}-{suffix}"
                 for name, player, suffix in zip(names, given, "ab")]
    time = {key: value for key, value in (("time_ms", args.time_ms), ("move_ms", args.move_ms),
                                          ("startup_ms", args.startup_ms)) if value is not None}
    data: dict[str, Any] = {
        # A match's folder is named after its players by default, so that a match against another
        # opponent is a folder of its own instead of a refused resume of this one.
        "name": "match", "results": str(Path(args.results or f"results/match-{names[0]}-vs-{names[1]}").resolve()),
        "game": args.game,
        "params": game_params(args.param), "format": "round-robin", "games_per_pairing": args.games,
        "openings": openings_entry(args.openings, args.openings_seed), "time": time,
        # The bots run from here (a command line's config is read from the current folder), which
        # their boxes do not show for being here: only a `dir=` is shown as the bot's own.
        "players": [player.entry(name) for name, player in zip(names, given)],
    }
    if args.seed is not None:
        data["seed"] = args.seed
    if args.concurrency is not None:
        data["concurrency"] = args.concurrency
    if args.check:
        data["check"] = True
    if args.no_sandbox:
        data["sandbox"] = "off"
    if args.reuse:
        data["reuse"] = True
    if args.cluster is not None:
        data["cluster"] = args.cluster
    flags = flag_namer({**TOURNAMENT_FLAGS, ("games_per_pairing",): "--games"},
                       {("players", index): player for index, player in enumerate(given)})
    return data, flags


def _fit(name: str, room: int = MAX_NAME_BYTES) -> str:
    """`name` cut to `room` bytes of UTF-8, whole characters only: a bot whose file name is
    long still gets a valid player name (names are part of log file names)."""
    return name.encode("utf-8")[:room].decode("utf-8", "ignore")


def run(args: argparse.Namespace) -> int:
    """Play (or resume) the match, then print and write the standings."""
    check_results_flags(args)
    data, flags = flags_to_config(args)
    config = config_from_data(data, COMMAND_LINE, flags)
    first, second = (p.name for p in config.players)
    progress = MatchProgress(first, second, quiet=args.quiet)
    line = sandbox_line(config)
    if line:
        progress.note(line)
    progress.note(f"match of {first} against {second} at {config.game_name}, {config.games_per_pairing} games, "
                  f"results in {config.results_dir}")
    try:
        run_tournament(config, progress, fresh=args.fresh, backup=args.backup)
    except Interrupted:
        progress.note(stopped_note(config.results_dir, "the same arbiter match command"))
        return 130
    standings = report_results(config.results_dir)
    page = write_tournament_report(config.results_dir)
    print(standings, end="")
    print(progress.score_line())
    print(f"Report: {page}")
    sys.stdout.flush()
    return 0


class MatchProgress(Progress):
    """A line per finished game with the running score of the first player against the second."""

    def __init__(self, first: str, second: str, stream: TextIO | None = None, *, quiet: bool = False) -> None:
        super().__init__(stream, quiet=quiet, tty=False)
        self.first, self.second = first, second
        self.wins = self.draws = self.losses = self.void = 0
        self.tally = Tally()

    def start(self, planned: int, tally: Tally) -> None:
        first = tally.players.get(self.first, PlayerTally())
        self.wins, self.draws, self.losses, self.void = first.wins, first.draws, first.losses, first.void
        self.tally = tally
        super().start(planned, tally)

    def _tally(self, record: GameRecord) -> None:
        winner = record.winner
        if record.termination.is_void:  # no win, draw or loss: counted for no one
            self.void += 1
        elif winner is None:
            self.draws += 1
        elif record.seat_names()[winner] == self.first:
            self.wins += 1
        else:
            self.losses += 1

    def game_done(self, record: GameRecord, tally: Tally) -> None:
        self.done += 1
        self._count(record)
        self._tally(record)
        self.tally = tally
        if not self.quiet:
            print(f"[{self.done}/{self.planned}] {describe_result(record)}; {self.score_line()}",
                  file=self.stream, flush=True)

    def score_line(self) -> str:
        """`greedy vs random: +7 =1 -2, Elo +147 [+12, +320] (pentanomial), LOS 99.1%`: the Elo of
        the first over the second, the figure the standings will show (`head_to_head_estimate`)."""
        estimate = head_to_head_estimate(self.tally.head_to_head, self.first)
        void = f" ({self.void} void)" if self.void else ""
        return (f"{self.first} vs {self.second}: +{self.wins} ={self.draws} -{self.losses}{void}, "
                f"Elo {estimate.text()} ({estimate.interval}), LOS {100 * estimate.los:.1f}%")


__all__ = ["MatchProgress", "flags_to_config", "register", "run"]
