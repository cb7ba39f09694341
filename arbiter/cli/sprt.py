"""`arbiter sprt`: is the candidate better than the baseline? A sequential test with a CI exit code.

Exit codes: 0 H1 accepted (better by the margin), 1 H0 accepted, 2 a usage error, 3 a
fault by the candidate or a problem in its logs, 4 inconclusive at max games. The same test runs
from a config file with `format: sprt` (`arbiter run CONFIG`). See docs/release-checking.md.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

from ..errors import UsageError
from ..reports.results import report_results
from ..tournament.config import COMMAND_LINE, SprtSettings, TournamentConfig, config_from_data
from ..tournament.schema import DEFAULT_LOG_PATTERN, SPRT
from ..tournament.validate import KeyPath
from ..tournament.sprt import FaultCount, Interrupted, SprtOutcome, SprtProgress, run_sprt
from ..tournament.runner import GameWatch, sandbox_line, stopped_note
from .outputs import add_results_options, check_results_flags
from .players import (TOURNAMENT_FLAGS, PlayerArg, add_engine_option, add_series_options, command_line_players, flag_namer, game_params,
                      openings_entry, parse_engine)
from .sandbox_options import add_sandbox_options
from .serve import add_serve_options, served

DEFAULTS = SprtSettings()
ROLES = ("candidate", "baseline")  # the players' roles, in seat-list order


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sprt", help="test a release candidate against a baseline (sequential probability ratio test)",
        description="Play game pairs (each opening twice, seats swapped) between CANDIDATE and BASELINE until "
                    "a sequential test decides between H0: nElo = ELO0 and H1: nElo = ELO1, or MAX_GAMES are "
                    "played. Exit status: 0 H1 accepted, 1 H0 accepted, 2 a usage error, 3 a fault by the "
                    "candidate or a warning/error line in its logs, 4 inconclusive. Running the same command "
                    "again resumes. See docs/release-checking.md.")
    parser.add_argument("game", metavar="GAME", nargs="?", default=None, help="the game, e.g. dots-and-triangles")
    parser.add_argument("commands", metavar="CMD", nargs="*",
                        help="CANDIDATE BASELINE: the new and the old version's commands, each one string split "
                             "like a shell would (the shorthand of --engine cmd=CMD; the first player is the "
                             "candidate)")
    add_engine_option(parser)
    parser.add_argument("--game", dest="game_flag", default=None, help=argparse.SUPPRESS)  # before GAME came first
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a game parameter (repeatable), e.g. -p rows=4")
    parser.add_argument("--candidate", nargs="+", default=None, metavar="CMD|KEY=VALUE",
                        help="the candidate, as a command or as --engine's KEY=VALUE words (instead of the "
                             "first player)")
    parser.add_argument("--baseline", nargs="+", default=None, metavar="CMD|KEY=VALUE",
                        help="the baseline, likewise (instead of the second player)")
    parser.add_argument("--elo0", type=float, default=DEFAULTS.elo0, help="H0's normalized Elo (default %(default)s)")
    parser.add_argument("--elo1", type=float, default=DEFAULTS.elo1, help="H1's normalized Elo (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=DEFAULTS.alpha,
                        help="chance of accepting H1 when H0 holds (default %(default)s)")
    parser.add_argument("--beta", type=float, default=DEFAULTS.beta,
                        help="chance of accepting H0 when H1 holds (default %(default)s)")
    parser.add_argument("--max-games", type=int, default=DEFAULTS.max_games,
                        help="stop, inconclusive, after this many games (even; default %(default)s)")
    add_series_options(parser, openings="random:2")
    add_results_options(parser, "results/sprt")
    parser.add_argument("--fail-on-fault", action=argparse.BooleanOptionalAction, default=DEFAULTS.fail_on_fault,
                        help="fail (exit 3) at the candidate's first timeout, crash, illegal, malformed or "
                             "protocol fault (default on)")
    parser.add_argument("--log-pattern", default=DEFAULT_LOG_PATTERN, metavar="REGEX",
                        help="case-insensitive pattern of problem lines in the candidate's stderr logs; "
                             "'' turns the check off (default %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="no progress output, only the final report")
    add_sandbox_options(parser, paths=False)
    add_serve_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run (or resume) the test the flags describe; the exit code says its verdict."""
    check_results_flags(args)
    data, flags = flags_to_config(args)
    config = config_from_data(data, COMMAND_LINE, flags)
    with served(args, config.results_dir, lambda line: print(line, file=sys.stderr, flush=True),
                [p.name for p in config.players]) as watch:
        return run_config(config, fresh=args.fresh, backup=args.backup, quiet=args.quiet,
                          again=f"the same arbiter sprt command (same --results {args.results})", watch=watch)


def sprt_players(args: argparse.Namespace) -> tuple[str, list[PlayerArg]]:
    """The game and the two players (candidate first), from GAME CANDIDATE BASELINE and
    --engine, or from the older --game, --candidate and --baseline."""
    commands = list(args.commands)
    game = args.game
    if args.game_flag is not None:
        print("arbiter sprt: note: --game is deprecated; give the game first: arbiter sprt GAME ...",
              file=sys.stderr)
        if game is not None:  # the first command was read as the game
            commands.insert(0, game)
        game = args.game_flag
    if game is None:
        raise UsageError("give the game first: arbiter sprt GAME CANDIDATE BASELINE")
    given = command_line_players(commands, args.engine,
                                 lambda index: ("CANDIDATE", "BASELINE")[min(index, 1)])
    roles = [(flag, words) for flag, words in (("--candidate", args.candidate), ("--baseline", args.baseline))
             if words is not None]
    if roles and given:
        raise UsageError(f"give the players either as {' and '.join(flag for flag, _ in roles)} or as "
                         "positional commands and --engine, not both")
    if roles:
        given = [parse_engine(words, flag) for flag, words in roles]
    if len(given) != 2:
        raise UsageError(f"an SPRT compares two bots, and {len(given)} {'was' if len(given) == 1 else 'were'} given: "
                         "give the game first: arbiter sprt GAME CANDIDATE BASELINE (or two --engine)")
    return game, given


def flags_to_config(args: argparse.Namespace) -> tuple[dict[str, Any], Callable[[KeyPath], str | None]]:
    """The command line as the equivalent `format: sprt` config (the results folder keeps a
    copy), and how each of its keys is said on the command line (for errors)."""
    game, given = sprt_players(args)
    params = game_params(args.param)
    if params.get("players", "2").lstrip("0") != "2":
        raise UsageError(f"-p players={params['players']} is not allowed: the SPRT compares a candidate with a "
                         "baseline in two-seat games; rate games of more seats with a tournament (arbiter run)")
    time = {key: value for key, value in (("time_ms", args.time_ms), ("move_ms", args.move_ms),
                                          ("startup_ms", args.startup_ms)) if value is not None}
    data: dict[str, Any] = {
        "name": "sprt", "results": str(Path(args.results).resolve()), "game": game, "params": params,
        "format": "sprt", "openings": openings_entry(args.openings, args.openings_seed), "time": time,
        # The bots run from here (a command line's config is read from the current folder), which
        # their boxes do not show for being here: only a `dir=` is shown as the bot's own.
        **{role: player.entry(player.name or role) for role, player in zip(ROLES, given)},
        "sprt": {"elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta,
                 "max_games": args.max_games, "fail_on_fault": args.fail_on_fault, "log_pattern": args.log_pattern},
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
    flags = flag_namer({**TOURNAMENT_FLAGS, **{("sprt", key): f"--{key.replace('_', '-')}" for key in SPRT.names}},
                       {(role,): player for role, player in zip(ROLES, given)})
    return data, flags


def run_config(config: TournamentConfig, *, fresh: bool, quiet: bool, again: str, backup: bool = True,
               watch: GameWatch | None = None) -> int:
    """Run (or resume) the test of a `format: sprt` config, print the report, return the exit code."""
    assert config.sprt is not None
    progress = SprtProgress(quiet=quiet)
    line = sandbox_line(config)
    if line:
        progress.note(line)
    candidate, baseline = (p.name for p in config.players)
    progress.note(f"SPRT of {candidate} against {baseline} at {config.game_name}, "
                  f"at most {config.sprt.max_games} games, results in {config.results_dir}")
    try:
        outcome = run_sprt(config, progress, fresh=fresh, backup=backup, watch=watch)
    except Interrupted:
        progress.note(stopped_note(config.results_dir, again))
        return 130
    print(report_results(config.results_dir), end="")
    print()
    print(describe_outcome(outcome))
    sys.stdout.flush()
    return outcome.exit_code


def describe_outcome(outcome: SprtOutcome) -> str:
    """The final report: the test's figures, faults, the log check, and the verdict sentence."""
    test = outcome.test
    s = test.settings
    elo, (nelo, nlow, nhigh) = test.elo(), test.nelo()
    lines = [
        f"SPRT {test.candidate} (candidate) vs {test.baseline} (baseline): H0 nElo = {s.elo0:g}, "
        f"H1 nElo = {s.elo1:g}, alpha {s.alpha:g}, beta {s.beta:g}",
        f"  counted: {test.games_counted} games in {test.pairs_counted} pairs; {test.candidate} "
        f"won {test.wins}, drew {test.draws}, lost {test.losses}",
        f"  pairs scoring 0, 1/4, 1/2, 3/4, 1: {' '.join(map(str, test.pentanomial))}",
        f"  Elo of {test.candidate} over {test.baseline} {elo.text()}, nElo {nelo:+.1f} [{nlow:+.1f}, {nhigh:+.1f}] "
        f"(95% intervals, {elo.interval}), likelihood of superiority {100 * elo.los:.1f}%",
        f"  LLR {test.state.llr:+.3f}, bounds [{test.state.lower:+.3f}, {test.state.upper:+.3f}]",
    ]
    if test.pairs_void:
        lines.append(f"  {test.pairs_void} pair{'s' if test.pairs_void > 1 else ''} left out: a game of "
                     f"{'each' if test.pairs_void > 1 else 'it'} is void (its rules failed or its worker died; "
                     "counted for no one, docs/records.md)")
    extra = test.games_recorded - test.games_counted - 2 * test.pairs_void
    if extra:
        lines.append(f"  {extra} more recorded game{'s' if extra > 1 else ''} not counted (finished after the "
                     "verdict was reached, or in a pair without its second game)")
    lines.append(f"  faults: {_faults_text(test.candidate_faults, test.candidate)}; "
                 f"{_faults_text(test.baseline_faults, test.baseline)}")
    logs = outcome.logs
    if not logs.pattern:
        lines.append("  log check: off (empty --log-pattern)")
    else:
        missing = f", {logs.logs_missing} missing" if logs.logs_missing else ""
        lines.append(f"  log check: {logs.logs_scanned} logs of {test.candidate} scanned{missing}; "
                     f"{logs.lines_matched} lines in {logs.logs_matched} logs match /{logs.pattern}/i")
        lines.extend(f"    {line}" for line in logs.first_lines)
    lines.append(verdict_sentence(outcome))
    return "\n".join(lines)


def _faults_text(faults: FaultCount, name: str) -> str:
    if not faults:
        return f"none by {name}"
    first = faults[0]
    return f"{len(faults)} by {name} (first: {first.id}: {first.termination.value}: {first.detail})"


def verdict_sentence(outcome: SprtOutcome) -> str:
    """One sentence: what was decided, and why the exit code is what it is."""
    test = outcome.test
    s, llr = test.settings, test.state
    games = f"{test.games_counted} games"
    statistical = {
        "H1": f"H1 accepted after {games}: {test.candidate} is better than {test.baseline} "
              f"(nElo {s.elo1:g} is favoured over {s.elo0:g}; LLR {llr.llr:+.2f} >= {llr.upper:+.2f})",
        "H0": f"H0 accepted after {games}: {test.candidate} is not better than {test.baseline} by the margin "
              f"(nElo {s.elo0:g} is favoured over {s.elo1:g}; LLR {llr.llr:+.2f} <= {llr.lower:+.2f})",
        "inconclusive": f"inconclusive after {games} (max games {s.max_games}): LLR {llr.llr:+.2f} is still "
                        f"between {llr.lower:+.2f} and {llr.upper:+.2f}; to continue, raise the maximum "
                        "(--max-games, or max_games: in a config) and run again; to widen elo0..elo1, start a "
                        "new test: another results folder (--results DIR, or results: in a config), or --fresh "
                        "(the games so far are kept in a dated backup)",
    }
    verdict = test.verdict
    if verdict == "fault":
        first = test.candidate_faults[0]
        text = f"FAILED: {test.candidate} faulted ({first.termination.value} in game {first.id}: {first.detail})"
        if outcome.logs.problem:
            text += f", and its logs have {outcome.logs.lines_matched} problem lines"
    elif outcome.logs.problem:
        text = (f"FAILED: {test.candidate}'s logs have {outcome.logs.lines_matched} lines matching "
                f"/{outcome.logs.pattern}/i; the test itself: {statistical[verdict]}")  # type: ignore[index]
    else:
        text = statistical[verdict]  # type: ignore[index]
    return f"Verdict: {text}. (exit {outcome.exit_code})"


__all__ = ["describe_outcome", "flags_to_config", "register", "run_config", "verdict_sentence"]
