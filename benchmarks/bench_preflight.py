#!/usr/bin/env python3
"""What checking a player in a process of its own costs (`check: true`, preflight.check_apart):
the same check of `players/random_bot.py` on Limit Nim, under the tournament's duties
(PREFLIGHT_DUTIES), run in this process (`run_check`, the baseline) and in a child forked by
the workers' zygote, rounds alternating the two ways so that load that comes and goes hits
both. The zygote is started before the first round (once per arbiter process, as a run's
first game or check starts it).

    python benchmarks/bench_preflight.py [--rounds 5] [--boxed]

Prints each way's median wall time per check and the ratio apart / in-process.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.check import CheckTarget, run_check  # noqa: E402
from arbiter.referee import PlayerSpec  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec  # noqa: E402
from arbiter.tournament import workers  # noqa: E402
from arbiter.tournament.preflight import PREFLIGHT_DUTIES, check_apart  # noqa: E402


def main() -> None:
    """Run the rounds and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--boxed", action="store_true", help="the bot sandboxed (needs bubblewrap)")
    args = parser.parse_args()
    bot = PlayerSpec("random", (sys.executable, str(ROOT / "players" / "random_bot.py")),
                     sandbox=SandboxSpec() if args.boxed else None)
    target = CheckTarget("limit-nim", {"piles": "5/3,4/4"}, bot, time_ms=3000, duties=PREFLIGHT_DUTIES)
    process, conn = workers.fork_worker("check")  # the zygote started, as by a run's first game
    conn.close()
    process.join()
    ways = {
        "in-process": lambda folder: run_check(target, log_dir=folder, concurrency=2),
        "apart": lambda folder: check_apart(target, folder, 2, 2),
    }
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, check in ways.items():
            with tempfile.TemporaryDirectory() as folder:
                started = time.perf_counter()
                report = check(Path(folder))
                times[name].append(time.perf_counter() - started)
                assert report.passed, [item.id for item in report.items if item.status == "fail"]
    for name, taken in times.items():
        print(f"{name:>10}: {statistics.median(taken) * 1000:7.1f} ms a check (median of {args.rounds})")
    ratio = statistics.median(times["apart"]) / statistics.median(times["in-process"])
    print(f"apart / in-process: {ratio:.2f}x")


if __name__ == "__main__":
    main()
