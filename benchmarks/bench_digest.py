#!/usr/bin/env python3
"""What a player's program digest costs a run's start, against starting one Python.

    python benchmarks/bench_digest.py [--rounds 5]

A run works out each player's digest once (arbiter/tournament/programs.py) before its first
game. Three homes are hashed, each afresh every round (the cache cleared): the bundled
`players/` folder (a bot's sources), a folder of 200 source files with a 40 MiB weights
file (past the content cap: hashed up to it, the rest counted by size and time), and a
whole checkout of this repository as a `cwd` (the 2,000-entry cap). The baseline, measured
alternately in the same rounds, is starting and ending one Python interpreter
(`python -c pass`), the least a bot's launch costs. Medians over the rounds, and each
digest as a multiple of the baseline.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.tournament.programs import program_digest  # noqa: E402


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        big = Path(folder) / "net"
        big.mkdir()
        for index in range(200):
            (big / f"module{index:03d}.py").write_text(f"VALUE = {index}\n" * 50)
        (big / "weights.bin").write_bytes(os.urandom(40 << 20))
        homes = {
            "players/ (bundled sources)": ((sys.executable, str(ROOT / "players" / "random_bot.py")), str(ROOT)),
            "200 sources + 40 MiB weights": ((sys.executable, str(big / "module000.py")), str(big)),
            "a checkout as cwd (java -cp . Bot)": (("java", "-cp", ".", "Bot"), str(ROOT)),
        }
        figures: dict[str, list[float]] = {name: [] for name in ["python -c pass", *homes]}
        for _ in range(args.rounds):
            figures["python -c pass"].append(timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)))
            for name, (command, cwd) in homes.items():
                program_digest.cache_clear()
                figures[name].append(timed(lambda: program_digest(command, cwd, None, ())))
    base = statistics.median(figures["python -c pass"])
    for name, values in figures.items():
        median = statistics.median(values)
        print(f"{name:<36} {median:8.1f} ms  {median / base:5.1f} x python -c pass")


if __name__ == "__main__":
    main()
