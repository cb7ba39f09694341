#!/usr/bin/env python3
"""A soak of boxed launches: what the arbiter's process holds must not grow with the boxes it
has kept (docs/performance.md, One keeper per box).

    python benchmarks/soak_boxes.py [--launches 2000] [--every 200] [--concurrency 2]

Each launch is a boxed bot as a game has one (`launch_pipe_bot` with the default sandbox, then
`end_all` as the referee ends its bots), of one of three kinds in turn: one that crashes at
once (SIGSEGV before reading anything), one that forks a child that sleeps and exits (the child
is left in its box), and one that exits once it reads `Quit`. `--concurrency` launches run side
by side, on threads of this process, as games do. Every `--every` launches it prints this
process's zombie children, open descriptors, threads, and the boxes' control groups still
present: zombies and groups must stay 0, descriptors and threads constant.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.transport.pipe import launch_pipe_bot  # noqa: E402
from arbiter.transport.procfs import children, stat_fields  # noqa: E402
from arbiter.transport.process import end_all  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec, support  # noqa: E402

KINDS = {
    "crashes at once": ["/bin/sh", "-c", "kill -SEGV $$"],
    "forks and exits": ["/bin/sh", "-c", "sleep 60 & exit 0"],
    "exits after Quit": ["/bin/sh", "-c", "read line; exit 0"],
}


def one_launch(number: int) -> None:
    """Launch a bot of kind `number` % 3, tell it to quit, and end it as the referee does."""
    command = list(KINDS.values())[number % len(KINDS)]
    channel, process = launch_pipe_bot(command, sandbox=SandboxSpec())
    try:
        channel.send_lines(["Quit"], time.monotonic() + 2.0)
        channel.close_input()
    finally:
        channel.close()
        end_all([process], grace_s=1.0, term_grace_s=0.3)


def held() -> tuple[int, int, int, int]:
    """(zombie children, open descriptors, threads, boxes' control groups) of this process."""
    zombies = sum(1 for pid in children(os.getpid()) if (stat_fields(pid) or [b""])[0] == b"Z")
    descriptors = len(os.listdir("/proc/self/fd"))
    threads = len(os.listdir("/proc/self/task"))
    places = support()
    parents = {place.parent for place in (places.memory, places.pids, places.cpu, places.cpu_cap, places.freezer)
               if place is not None}
    prefix = f"arbiter-{os.getpid()}-"
    groups = sum(1 for parent in parents for name in os.listdir(parent) if name.startswith(prefix))
    return zombies, descriptors, threads, groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--every", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    if not support().usable:
        sys.exit(f"no box on this machine: {support().describe()}")
    print(f"{support().describe()}\n{args.launches} boxed launches, {args.concurrency} at once, kinds: "
          f"{', '.join(KINDS)}; Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
    print("| launches | zombies | descriptors | threads | boxes' groups | launches/s |")
    print("|---:|---:|---:|---:|---:|---:|")
    started = time.monotonic()
    done = 0
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        while done < args.launches:
            batch = min(args.every, args.launches - done)
            list(pool.map(one_launch, range(done, done + batch)))
            done += batch
            zombies, descriptors, threads, groups = held()
            rate = done / (time.monotonic() - started)
            print(f"| {done} | {zombies} | {descriptors} | {threads} | {groups} | {rate:.1f} |", flush=True)
    print(f"threads alive: {', '.join(sorted(thread.name for thread in threading.enumerate()))}")


if __name__ == "__main__":
    main()
