"""The test suite beside CPU burners: does it pass on a busy machine? (issue 28)

Starts `--per-core` processes per core that spin forever (as `stress --cpu` does), runs the
suite `--runs` times in a row with them beside it, and stops them. Prints each run's result
and duration, then the tests that failed in any run. Exit status 0 when every run passed.

    python benchmarks/suite_under_load.py --runs 3             # two burners per core
    python benchmarks/suite_under_load.py --runs 1 -- tests/test_startup.py

Arguments after `--` go to pytest (default: the whole suite, `-q`). Each run's whole output
is kept in `--logs` (default: a new temporary folder, printed), so that a failure seen once
can be read. Not a timed test: it measures whether tests hold their timing margins, which
only a loaded machine shows.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def burn() -> None:
    """Spin on the CPU until killed."""
    while True:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--per-core", type=int, default=2, help="burners per core (default 2)")
    parser.add_argument("--logs", type=Path, help="folder for each run's output (default: a new temporary one)")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    args = parser.parse_args()
    logs = args.logs or Path(tempfile.mkdtemp(prefix="suite-under-load-"))
    logs.mkdir(parents=True, exist_ok=True)
    cores = len(os.sched_getaffinity(0))
    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(cores * args.per_core)]
    for burner in burners:
        burner.start()
    print(f"{len(burners)} burners on {cores} cores; each run's output in {logs}", flush=True)
    failed_anywhere: dict[str, int] = {}
    passed_runs = 0
    try:
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                     *(args.pytest_args or [])], cwd=ROOT, capture_output=True, text=True)
            took = time.monotonic() - started
            (logs / f"run-{run}.txt").write_text(result.stdout + result.stderr)
            summary = (result.stdout.strip().splitlines() or ["(no output)"])[-1]
            failures = re.findall(r"^(?:FAILED|ERROR) (\S+)", result.stdout, re.MULTILINE)
            for test in failures:
                failed_anywhere[test] = failed_anywhere.get(test, 0) + 1
            passed_runs += result.returncode == 0
            print(f"run {run}: {summary} ({took:.0f} s, load {os.getloadavg()[0]:.1f})", flush=True)
            for test in failures:
                print(f"  run {run} failed: {test}", flush=True)
    finally:
        for burner in burners:
            burner.kill()
    for test, count in sorted(failed_anywhere.items()):
        print(f"  failed in {count} of {args.runs}: {test}")
    print(f"{passed_runs} of {args.runs} runs passed")
    return 0 if passed_runs == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
