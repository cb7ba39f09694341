#!/usr/bin/env python3
"""What suspending a bot between turns costs: one turn of a boxed `/bin/cat` (resume, a line
there and back, suspend), pinned to one CPU, with each suspension the machine can use, beside
the same turn of an unboxed `/bin/cat` stopped by SIGSTOP. Medians of `--repeats` runs of
`--turns` turns each, the kinds alternating.

- freezer: the box's freezer control group (the default where there is one);
- SIGSTOP walks: a box on a machine without a freezer (walks of its tree until one finds
  every process stopped, none new and no pid handed out meanwhile);
- unboxed: a bot without a box (its process group stopped by one signal).

Run: python benchmarks/bench_suspend.py [--turns 2000] [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arbiter.transport.sandbox as sandbox_module  # noqa: E402
from arbiter.transport.pipe import launch_pipe_bot  # noqa: E402
from arbiter.transport.process import end_all  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec  # noqa: E402


def turn_us(kind: str, turns: int) -> float:
    """Microseconds a turn, for one kind of suspension."""
    support = sandbox_module.support()
    sandbox_module._SUPPORT = replace(support, freezer=None) if kind == "SIGSTOP walks" else support
    try:
        channel, process = launch_pipe_bot(["/bin/cat"], sandbox=None if kind == "unboxed" else SandboxSpec())
        channel.send_lines(["x"], time.monotonic() + 5)
        channel.read_line(time.monotonic() + 5)
        started = time.perf_counter()
        for _ in range(turns):
            process.resume()
            channel.send_lines(["x"], time.monotonic() + 5)
            channel.read_line(time.monotonic() + 5)
            process.suspend()
        elapsed = time.perf_counter() - started
        process.resume()
        channel.close_input()
        end_all([process], grace_s=1, term_grace_s=0.3)
        channel.close()
        return elapsed / turns * 1e6
    finally:
        sandbox_module._SUPPORT = support


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.sched_setaffinity(0, {0})
    kinds = ["freezer", "SIGSTOP walks", "unboxed"]
    if sandbox_module.support().freezer is None:
        kinds.remove("freezer")
    runs: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(args.repeats):
        for kind in kinds:
            runs[kind].append(turn_us(kind, args.turns))
    print(f"{args.repeats} x {args.turns} turns, one CPU; load average {os.getloadavg()[0]:.1f}; "
          f"{sandbox_module.support().describe()}\n")
    print("| suspension | us a turn (median) | runs |")
    print("|---|---:|---|")
    for kind, values in runs.items():
        print(f"| {kind} | {statistics.median(values):.1f} | {', '.join(f'{v:.1f}' for v in values)} |")


if __name__ == "__main__":
    main()
