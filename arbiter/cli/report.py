"""`arbiter report RESULTS_DIR`: recompute standings from games.jsonl alone."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..reports.results import report_results


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help="recompute the standings of a results folder",
                                   description="Recompute standings.txt, standings.md and summary.json "
                                               "from a results folder's games.jsonl.")
    parser.add_argument("results_dir", type=Path, help="a tournament's results folder")
    parser.add_argument("--anchor", default=None, help="rate this player 0 (default: the mean rating is 0)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print(report_results(args.results_dir, anchor=args.anchor), end="")
    return 0
