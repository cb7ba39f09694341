#!/usr/bin/env python3
"""What a bot's launch costs, with the launch helper (arbiter/transport/spawn.py) and without it
(the way it replaced: Python between fork and exec unboxed, a /bin/sh shim and setpriv in a
box), in the same run: rounds alternate the four ways, so load that comes and goes hits all.

    python benchmarks/bench_launch.py [--launches 20] [--rounds 5] [--bot true|python]

Each launch is `BotProcess.launch` as the referee makes it, of `/bin/true` (the launch alone)
or of `python -c pass` (`--bot python`: a start like a Python bot's), waited for and closed.
Per launch: the arbiter's CPU (this process, every thread: the fork or vfork, the box's
making), the launched processes' CPU (every reaped child: the bot, and in a box its keeper,
bubblewrap's two processes and the helper or the shell and setpriv; the keeper reaps the box
and is reaped by this process, so the box's CPU counts as a reaped child's), and the wall time
from the launch to the end of the bot's box; medians over the rounds.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.transport import process, sandbox, spawn  # noqa: E402
from arbiter.transport.process import BotProcess  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec  # noqa: E402

BOTS = {"true": ["/bin/true"], "python": [sys.executable, "-c", "pass"]}


def cpu_s() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def launches(command: list[str], count: int, boxed: bool) -> tuple[float, float, float]:
    """(the arbiter's CPU ms, the launched processes' CPU ms, wall ms), each a launch."""
    (own0, children0), started = cpu_s(), time.perf_counter()
    for _ in range(count):
        bot, stdin_fd, stdout_fd = BotProcess.launch(command, sandbox=SandboxSpec() if boxed else None)
        os.close(stdin_fd)
        os.close(stdout_fd)
        bot.wait_exit(10.0)
        bot.close()
    wall = time.perf_counter() - started
    own1, children1 = cpu_s()
    return (own1 - own0) * 1000 / count, (children1 - children0) * 1000 / count, wall * 1000 / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=20, help="launches of each way per round (default 20)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--bot", choices=sorted(BOTS), default="true", help="what is launched (default true)")
    args = parser.parse_args()
    helper = spawn.helper()
    if helper is None:
        sys.exit("the launch helper cannot be built here (no C compiler, or no cache folder): nothing to compare")
    usable = sandbox.support()
    ways = {"unboxed, helper": (False, helper), "unboxed, Python between fork and exec": (False, None)}
    if usable.usable:
        ways |= {"boxed, helper": (True, helper), "boxed, /bin/sh shim and setpriv": (True, None)}
    process._set_child_subreaper()  # as every launch makes it: a box's orphaned init is reaped here
    process._write_kit_bytecode()
    results: dict[str, list[tuple[float, float, float]]] = {way: [] for way in ways}
    for _ in range(args.rounds):
        for way, (boxed, with_helper) in ways.items():
            spawn.helper = lambda with_helper=with_helper: with_helper  # type: ignore[assignment]
            sandbox._SUPPORT = replace(usable, spawn=with_helper)
            results[way].append(launches(BOTS[args.bot], args.launches, boxed))
    print(f"{args.launches} launches of {' '.join(BOTS[args.bot])} x {args.rounds} rounds, medians; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print("| launch | the arbiter's CPU ms | the launched processes' CPU ms | together | wall ms, launch to exit |")
    print("|---|---:|---:|---:|---:|")
    for way, rows in results.items():
        own, children, wall = (statistics.median(row[k] for row in rows) for k in range(3))
        print(f"| {way} | {own:.2f} | {children:.2f} | {own + children:.2f} | {wall:.2f} |")


if __name__ == "__main__":
    main()
