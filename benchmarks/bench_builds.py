#!/usr/bin/env python3
"""What building an entrant costs a run, built afresh and found from an earlier run.

    python benchmarks/bench_builds.py [--rounds 5]

Each round builds the C entrant of tests/entries (CodeCup's C preset, gcc, in a box where
the machine makes boxes) into a fresh builds folder, then asks for the same build again,
which finds it by the digest of its sources (arbiter/tournament/build.py) and builds
nothing. The baseline, in the same rounds, is running the preset's gcc command directly in a
scratch folder, unboxed: the compiler's own cost. Medians over the rounds, each as a
multiple of the baseline.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.tournament.build import BuildSpec, build, plan_build  # noqa: E402
from arbiter.transport.sandbox import support  # noqa: E402
from bench_digest import timed  # noqa: E402  (this folder, the script's own, is on the path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sources = ROOT / "tests" / "entries" / "carol_c"
    command, runs, preset = plan_build("c", sources)
    assert runs is not None
    spec = BuildSpec("carol_c", str(sources), command, preset)
    direct, fresh, found = [], [], []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "copy"
            shutil.copytree(sources, copy)
            direct.append(timed(lambda: subprocess.run(command, cwd=copy, check=True)))
            builds = Path(scratch) / "builds"
            fresh.append(timed(lambda: build(spec, builds, runs)))
            found.append(timed(lambda: build(spec, builds, runs)))
    base = statistics.median(direct)
    print(f"machine: {support().describe()}")
    print(f"gcc directly (baseline): {base:8.1f} ms")
    for name, times in (("a fresh build, boxed", fresh), ("an earlier build found", found)):
        median = statistics.median(times)
        print(f"{name:<24} {median:8.1f} ms  {median / base:6.2f} x the baseline")


if __name__ == "__main__":
    main()
