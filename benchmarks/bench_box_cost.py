#!/usr/bin/env python3
"""What a box costs the machine: bubblewrap's command line for a Python bot's box around
`/bin/true`, as the arbiter builds it (`sandbox.Box`), and variants of it, in the same
run, rounds alternating the ways so that load that comes and goes hits all.

    python benchmarks/bench_box_cost.py [--runs 200] [--rounds 3]

Each way is run `--runs` times in a row, one after another (no box waits for another), and
what it cost is the machine's CPU time over the runs (every CPU's busy time from
/proc/stat, so the kernel's workers count too: a network namespace is torn down by one),
a pause of 0.3 s included for work that lands after the last run; ms a run, each round's.
The ways:

- `box`: the command line as a bot's box has it (without the system-call filter, which
  comes on a descriptor the arbiter opens);
- `no network namespace`, `no /dev`: the same less `--unshare-net`, less `--dev /dev`
  (neither is a box the arbiter would make: they say what those parts cost);
- `kernel floor`: benchmarks/box_floor.c, compiled here with `cc`: the same namespaces and
  mounts in as few system calls as the kernel allows, without bubblewrap (a measuring aid,
  not a sandbox: it drops no right and loads no filter);
- `bare`: `/bin/true` alone, started the same way (what starting any process costs here).

Needs root, bubblewrap and the cgroup places the arbiter's box needs (`sandbox.support()`).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.transport import sandbox  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec  # noqa: E402


def busy_ms() -> float:
    """Every CPU's busy time so far (user, nice, system, irq, softirq, steal), in ms."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields) - idle) * 1000 / os.sysconf("SC_CLK_TCK")


def box_argv() -> list[str]:
    """bubblewrap's command line for a Python bot's box, ending with /bin/true."""
    box = sandbox.Box([sys.executable, str(ROOT / "players" / "random_bot.py")], cwd=str(ROOT),
                      env={}, spec=SandboxSpec(), memory_mb=256)
    argv = box.argv[box.argv.index("--") + 1:]  # bubblewrap's, after the keeper's own
    box.remove()
    if "--seccomp" in argv:  # the filter comes on a descriptor the keeper opens for each box
        at = argv.index("--seccomp")
        del argv[at:at + 2]
    return argv[:argv.index("--")] + ["--", "/bin/true"]


def without(argv: list[str], option: str, values: int) -> list[str]:
    at = argv.index(option)
    return argv[:at] + argv[at + 1 + values:]


def floor_argv(argv: list[str], folder: str) -> list[str] | None:
    """box_floor.c, compiled into `folder`, showing what the box's command line binds."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    program = os.path.join(folder, "box_floor")
    subprocess.run([compiler, "-O2", "-o", program, str(ROOT / "benchmarks" / "box_floor.c")], check=True)
    shown = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--ro-bind" and argv[i + 1] == argv[i + 2]]
    root = os.path.join(folder, "root")
    os.mkdir(root)
    return [program, root, *shown]


def cost_ms(argv: list[str], runs: int) -> float:
    """Machine CPU ms a run of `argv`, run `runs` times in a row."""
    before = busy_ms()
    for _ in range(runs):
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
    time.sleep(0.3)
    return (busy_ms() - before) / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs of each way per round (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    args = parser.parse_args()
    places = sandbox.support()
    if not places.usable or os.geteuid() != 0:
        sys.exit(f"needs root and a machine that makes boxes: {places.describe()}")
    box = box_argv()
    with tempfile.TemporaryDirectory() as folder:
        ways = {"box": box, "no network namespace": without(box, "--unshare-net", 0),
                "no /dev": without(box, "--dev", 1)}
        floor = floor_argv(box, folder)
        if floor is not None:
            ways["kernel floor"] = floor
        ways["bare"] = ["/bin/true"]
        costs: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, argv in ways.items():
                costs[name].append(cost_ms(argv, args.runs))
    with open("/proc/loadavg") as loadavg:
        load = loadavg.read().split()[0]
    print(f"{args.runs} runs of each way, {args.rounds} rounds; {os.cpu_count()} CPUs; load average {load}")
    print("| way | machine CPU, ms a run (each round) | median |")
    print("|---|---|---:|")
    for name, values in costs.items():
        print(f"| {name} | {', '.join(f'{v:.2f}' for v in values)} | {statistics.median(values):.2f} |")


if __name__ == "__main__":
    main()
