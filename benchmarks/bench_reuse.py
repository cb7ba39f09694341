#!/usr/bin/env python3
"""Many games per bot process (`reuse`) against one process per game, beside the floor.

    python benchmarks/bench_reuse.py [--games 60] [--repeats 3] [--sandbox] [--match-games 200]

Two measurements, each against its baseline in the same run:

1. Games per second of random vs random on the 4-row triangle board (2-move openings), a real
   `run_tournament` at concurrency 1 and 2: with `reuse: true` and without (one process per
   game, the contest's default), and the floor of `bench_tournament.py` (the same games
   replayed by two bare interpreters per game, started and reaped by threads of this
   process). Unboxed, like that floor; `--sandbox` runs both tournaments boxed as well. Kinds
   alternate within each repeat, so load that comes and goes hits them alike; rates are
   medians over the repeats.
2. `--match-games N` (default 200; 0 skips it): the wall time of `arbiter match` of
   `players/perfect_dp.py` against `players/double_cross.py` on 3 x 3 boxes, N games, with
   `--reuse` and without, each run as the command a user types (boxed, default concurrency,
   its own results folder), alternating, medians over `--match-repeats`. A boxed bot's only
   writable cache is its box's `/tmp`, which lives as long as its process: one process per
   game solves perfect_dp's table of the whole board (2^24 states) in every game; with
   `--reuse`, once per process.

The bots are run by this interpreter (`sys.executable`), not by whatever `python` is first on
PATH: a version manager's shim (pyenv's) does not run inside a box.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tournament import CpuUse, floor_seconds, tournament_run  # noqa: E402


PYTHON = sys.executable


def throughput(args: argparse.Namespace) -> None:
    kinds = ["one process per game", "reuse", "floor"]
    if args.sandbox:
        kinds += ["one process per game, boxed", "reuse, boxed"]
    seconds: dict[tuple[str, int], list[float]] = {(kind, c): [] for kind in kinds for c in (1, 2)}
    cpu: dict[tuple[str, int], list[CpuUse]] = {(kind, c): [] for kind in kinds for c in (1, 2)}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeats):
            for concurrency in (1, 2):
                records: list[dict] = []
                for kind in kinds:
                    use = CpuUse()
                    if kind == "floor":
                        seconds[kind, concurrency].append(floor_seconds(records, concurrency))
                    else:
                        elapsed, played = tournament_run(Path(tmp), args.games, concurrency,
                                                         reuse=kind.startswith("reuse"), sandbox="boxed" in kind)
                        faults = [r["detail"] for r in played if r["termination"] != "normal"]
                        assert not faults, faults
                        seconds[kind, concurrency].append(elapsed)
                        records = records or played
                    cpu[kind, concurrency].append(use.stop())
    print(f"random vs random, dots-and-triangles rows=4, {args.games} games per run, {args.repeats} runs of each, "
          f"medians; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print("| run | concurrency | games/s | / one process per game | / floor | bots' CPU a game "
          "| the arbiter's (floor: the harness's) CPU a game |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for concurrency in (1, 2):
        rate = {kind: args.games / statistics.median(seconds[kind, concurrency]) for kind in kinds}
        for kind in kinds:
            base = rate["one process per game, boxed" if "boxed" in kind else "one process per game"]
            uses = cpu[kind, concurrency]
            bots_ms = statistics.median(u.children_s for u in uses) / args.games * 1000
            own_ms = statistics.median(u.own_s for u in uses) / args.games * 1000
            print(f"| {kind} | {concurrency} | {rate[kind]:.2f} | {rate[kind] / base:.2f}x "
                  f"| {rate[kind] / rate['floor']:.2f}x | {bots_ms:.1f} ms | {own_ms:.1f} ms |")


def match(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        seconds: dict[bool, list[float]] = {False: [], True: []}
        for repeat in range(args.match_repeats):
            for reuse in (False, True):
                command = [sys.executable, "-m", "arbiter", "match", "dots-and-boxes", "-p", "rows=3", "-p", "cols=3",
                           f"{PYTHON} {ROOT / 'players' / 'perfect_dp.py'}",
                           f"{PYTHON} {ROOT / 'players' / 'double_cross.py'}",
                           "--games", str(args.match_games), "--quiet", "--fresh",
                           "--results", str(Path(tmp) / f"match-{reuse}-{repeat}"), *(["--reuse"] if reuse else [])]
                started = time.perf_counter()
                subprocess.run(command, cwd=tmp, check=True, stdout=subprocess.DEVNULL)
                seconds[reuse].append(time.perf_counter() - started)
                results = Path(tmp) / f"match-{reuse}-{repeat}" / "games.jsonl"
                faults = [line for line in results.read_text().splitlines()
                          if json.loads(line)["termination"] != "normal"]
                print(f"{'--reuse' if reuse else 'one process per game'}: {seconds[reuse][-1]:.1f} s, "
                      f"{len(faults)} games ended by a fault", flush=True)
    without, with_reuse = statistics.median(seconds[False]), statistics.median(seconds[True])
    print(f"\narbiter match perfect_dp vs double_cross, dots-and-boxes rows=3 cols=3, {args.match_games} games, "
          f"boxed, default concurrency; medians of {args.match_repeats}; load average {os.getloadavg()[0]:.1f}")
    print("| run | seconds | games/s | speed-up |")
    print("|---|---:|---:|---:|")
    print(f"| one process per game | {without:.1f} | {args.match_games / without:.1f} | 1.00x |")
    print(f"| --reuse | {with_reuse:.1f} | {args.match_games / with_reuse:.1f} | {without / with_reuse:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games per tournament run (even; default 60)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each kind (default 3)")
    parser.add_argument("--sandbox", action="store_true", help="also run both tournaments boxed")
    parser.add_argument("--match-games", type=int, default=200, help="games of the perfect_dp match (0: skip it)")
    parser.add_argument("--match-repeats", type=int, default=1, help="runs of the match each way (default 1)")
    args = parser.parse_args()
    if args.games:
        throughput(args)
    if args.match_games:
        match(args)


if __name__ == "__main__":
    main()
