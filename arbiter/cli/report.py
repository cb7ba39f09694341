"""`arbiter report RESULTS_DIR`: recompute standings from games.jsonl alone."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..reports.html import write_tournament_report
from ..reports.results import report_results


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help="recompute the standings of a results folder",
                                   description="Recompute standings.txt, standings.md and summary.json "
                                               "from a results folder's games.jsonl.")
    parser.add_argument("results_dir", type=Path, help="a tournament's results folder")
    parser.add_argument("--anchor", default=None, help="rate this player 0 (default: the mean rating is 0)")
    parser.add_argument("--html", action="store_true",
                        help="also write report.html: standings, crosstable, rating chart and a viewer "
                             "for every game, whose games are in report-games/ beside it (docs/report.md)")
    parser.add_argument("--audit", action="store_true",
                        help="replay every record again, those the checkpoint covers too (without it, they are "
                             "checked by the digest of their bytes and only later records are replayed; "
                             "docs/records.md)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Rewrite the standings files (and the page), then print the standings."""
    standings = report_results(args.results_dir, anchor=args.anchor, whole=args.audit)
    page = write_tournament_report(args.results_dir) if args.html else None  # files before stdout
    print(standings, end="")
    if page is not None:
        print(f"wrote {page}")
    return 0
