#!/usr/bin/env python3
"""False timeouts under load: a tournament of many games, more at once than there are cores,
between bots that each spend a fixed share of their per-move cap and never more; every
timeout recorded is one the bot did not cause.

    python benchmarks/bench_timeouts.py --clock cpu [--games 10000] [--move-ms 20] [--share 0.8]
                                        [--concurrency 2xCPUs] [--sandbox on|off] [--keep DIR]

The bots are benchmarks/bots/busy_bot.py: on every move, busy on the CPU until `share` of
`move_ms` has passed on the clock the tournament uses (`--clock cpu`: its CPU time; `wall`:
monotonic time), counted from the moment the turn reached it (its start-up is off the
clock, docs/protocol.md). The game is limit-nim with one pile of 2 stones, limit 1: one move
per bot per game, so a game is two bot starts and two timed moves, and 10,000 games stay
within the hour on 2 cores. The
time control: `move_ms` per move, `time_ms` 10 s per game (never binding), the tournament's
sandbox setting (default on, as every run's default).

It prints the games, timeouts and what each said, games per second, the load average
sampled through the run, and the moves' recorded clock use against the cap.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.tournament.config import load_config  # noqa: E402
from arbiter.tournament.progress import Progress  # noqa: E402
from arbiter.tournament.runner import run_tournament  # noqa: E402

BOT = ROOT / "benchmarks" / "bots" / "busy_bot.py"


class LoadSampler(threading.Thread):
    """The 1-minute load average every few seconds while the run lasts."""

    def __init__(self, every_s: float = 5.0) -> None:
        super().__init__(daemon=True)
        self.every_s = every_s
        self.samples: list[float] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.every_s):
            self.samples.append(os.getloadavg()[0])


def steal_s() -> float:
    """Seconds the hypervisor has run something else while this machine's CPUs were busy (the
    steal column of /proc/stat; 0 on bare metal)."""
    with open("/proc/stat") as stat:
        return int(stat.readline().split()[8]) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clock", choices=("cpu", "wall"), required=True, help="the tournament's clock")
    parser.add_argument("--games", type=int, default=10_000, help="games (even; default 10000)")
    parser.add_argument("--move-ms", type=int, default=20, help="the per-move cap (default 20)")
    parser.add_argument("--share", type=float, default=0.8, help="the share of it each move uses (default 0.8)")
    parser.add_argument("--concurrency", type=int, default=2 * (os.cpu_count() or 1),
                        help="games at once (default: twice the CPUs)")
    parser.add_argument("--sandbox", choices=("on", "off"), default="on", help="the run's sandbox (default on)")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="keep the results folder here (default: a temporary folder, removed)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = (args.keep or Path(tmp)).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        name = f"timeouts-{args.clock}"
        config_path = folder / f"{name}.yaml"
        config_path.write_text(
            f"name: {name}\nresults: {folder / name}\ngame: limit-nim\nparams: {{piles: '2/1'}}\n"
            f"games_per_pairing: {args.games}\nconcurrency: {args.concurrency}\nsandbox: {args.sandbox}\n"
            f"time: {{time_ms: 10000, move_ms: {args.move_ms}, clock: {args.clock}}}\n"
            f"players:\n"
            f"  - {{name: a, command: python {BOT}, env: {{BUSY_CLOCK: {args.clock}, BUSY_SHARE: '{args.share}'}}}}\n"
            f"  - {{name: b, command: python {BOT}, env: {{BUSY_CLOCK: {args.clock}, BUSY_SHARE: '{args.share}'}}}}\n"
        )
        config = load_config(config_path)
        sampler = LoadSampler()
        sampler.start()
        stolen_before = steal_s()
        started = time.perf_counter()
        run_tournament(config, Progress(io.StringIO(), quiet=True, tty=False), fresh=True)
        elapsed = time.perf_counter() - started
        stolen = steal_s() - stolen_before
        sampler.stopped.set()
        records = [json.loads(line) for line in (folder / name / "games.jsonl").read_text().splitlines()]
    terminations = Counter(r["termination"] for r in records)
    timeouts = [r for r in records if r["termination"] == "timeout"]
    # What each timeout said, its numbers left out, so alike ones are counted together.
    kinds = Counter("".join("N" if c.isdigit() else c for c in r["detail"]).replace("N.N", "N") for r in timeouts)
    moves = [m for r in records for m in r["moves"] if not m["forced"]]
    used = [m["cpu_ms" if args.clock == "cpu" else "wall_ms"] for m in moves]
    loads = sampler.samples or [os.getloadavg()[0]]
    print(f"{len(records)} games of limit-nim piles=2/1, busy_bot vs busy_bot using {args.share:g} of "
          f"move_ms={args.move_ms} on the {args.clock} clock; concurrency {args.concurrency} on "
          f"{os.cpu_count()} CPUs, sandbox {args.sandbox}; Python {sys.version.split()[0]}")
    print(f"{elapsed:.0f} s, {len(records) / elapsed:.1f} games/s; load average (1 min) over the run: "
          f"min {min(loads):.1f}, median {statistics.median(loads):.1f}, max {max(loads):.1f}; "
          f"CPU time stolen by the hypervisor: {stolen:.1f} s")
    print(f"terminations: {dict(terminations)}")
    print(f"timeouts the bots did not cause: {len(timeouts)} in {len(records)} games")
    for kind, count in kinds.most_common():
        print(f"  {count} x {kind}")
    if used:
        print(f"each move's recorded {args.clock} time, ms: median {statistics.median(used):.1f}, "
              f"p99 {percentile(used, 0.99):.1f}, p99.9 {percentile(used, 0.999):.1f}, max {max(used):.1f} "
              f"(cap {args.move_ms}, share used {args.share * args.move_ms:g})")


if __name__ == "__main__":
    main()
