"""`arbiter run CONFIG`: play a tournament (or resume it), then write and print the standings."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from ..reports.html import write_tournament_report
from ..reports.results import report_results
from ..tournament.check_in import check_in_remote_players
from ..tournament.config import load_config, without_sandbox
from ..tournament.progress import Progress
from ..tournament.runner import Interrupted, run_tournament, sandbox_line, stopped_note
from .outputs import add_results_options, check_results_flags
from .sandbox_options import add_sandbox_options
from .serve import DEFAULT_ADDRESS, add_serve_options, served
from .sprt import run_config as run_sprt_config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="run (or resume) a tournament from a YAML config",
                                   description="Run a tournament from a YAML config. Running the same "
                                               "command again resumes it: only games without a record are played.")
    # Optional to argparse so that `arbiter run --serve CONFIG` (where --serve's optional address
    # takes the config) is read as meant: `_config_argument` says what is missing otherwise.
    parser.add_argument("config", nargs="?", help="the tournament's YAML file (see docs/config.md)")
    add_results_options(parser, None)
    parser.add_argument("--concurrency", type=int, default=None, help="games at once (overrides the config)")
    parser.add_argument("--quiet", action="store_true", help="no progress output, only the final standings")
    parser.add_argument("--cluster", default=None, metavar="tls://HOST:PORT",
                        help="play the games on this Dask scheduler's workers, overriding the config's "
                             "cluster: (tcp:// on this machine only; see docs/cluster.md)")
    add_sandbox_options(parser, paths=False)
    add_serve_options(parser)
    # Not an option of `run`: accepted only to say where reuse is set for a tournament.
    parser.add_argument("--reuse", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def _config_argument(args: argparse.Namespace) -> str:
    """The config's path: the positional one, or the value `--serve` took from in front of it
    (`arbiter run --serve CONFIG` serves on the default address); a usage error without one."""
    if args.config is not None:
        return args.config
    given = args.serve
    if given not in (None, DEFAULT_ADDRESS) and (given.endswith((".yaml", ".yml")) or Path(given).is_file()):
        args.serve = DEFAULT_ADDRESS
        return given
    raise UsageError("a config file is required: arbiter run CONFIG [options] (docs/config.md)")


def run(args: argparse.Namespace) -> int:
    args.config = _config_argument(args)
    if args.reuse:
        raise UsageError("--reuse is a flag of arbiter match and arbiter sprt; a tournament sets it in its "
                         "config: `reuse: true` at the top, or in a player's entry (docs/config.md, reuse)")
    check_results_flags(args)
    config = load_config(args.config, concurrency=args.concurrency, cluster=args.cluster)
    if args.no_sandbox:
        config = without_sandbox(config)
    progress = Progress(quiet=args.quiet)
    line = sandbox_line(config)
    if line and line.startswith("WARNING"):
        print(f"arbiter run: {line}", file=sys.stderr)  # even with --quiet
    elif line:
        progress.note(line)
    # Before any game, or refuse to start; the remote seats then stay with the run's remote worker.
    with check_in_remote_players(config, progress.note, fresh=args.fresh), \
            served(args, config.results_dir, progress.note, [p.name for p in config.players]) as watch:
        if config.format == "sprt":  # a release check, not a tournament: its own report and exit codes
            return run_sprt_config(config, fresh=args.fresh, backup=args.backup, quiet=args.quiet,
                                   again=f"arbiter run {args.config}", watch=watch)
        progress.note(f"{config.name}: {config.format} of {config.game_name} with {len(config.players)} players, "
                      f"results in {config.results_dir}")
        try:
            run_tournament(config, progress, fresh=args.fresh, backup=args.backup, watch=watch)
        except Interrupted:
            progress.note(stopped_note(config.results_dir, f"arbiter run {args.config}"))
            return 130
        standings = report_results(config.results_dir)
        page = write_tournament_report(config.results_dir)  # every file before the first line on stdout
    print(standings, end="")
    print(f"Report: {page}")
    sys.stdout.flush()
    return 0
