#!/usr/bin/env python3
"""What the sandbox costs: bot start-up and a tournament's games per second, boxed beside
unboxed in the same run (the per-move cost is bench_referee.py's, which measures both).

- Start-up: a bot launched the way the referee launches it (`launch_pipe_bot`), sent one
  line and timed until its answer arrives; then ended the referee's way (end of input,
  `end_all`) and timed until every process of it is gone. Two bots: a compiled program
  (`/bin/cat`, which answers a line with itself) and a Python one (a bare interpreter
  echoing a line). Boxed and unboxed launches alternate, so load hits both alike; the
  figures are medians, and the box's cost is the difference of the medians.
- Tournament: random vs random on the 4-row triangle board (`players/random_bot.py`), the
  same games with `sandbox: on` and `sandbox: off`, at concurrency 1, alternating.

Run: python benchmarks/bench_sandbox.py [--launches 40] [--games 20] [--repeats 2]
"""
from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.transport import TIMEOUT  # noqa: E402
from arbiter.transport.pipe import launch_pipe_bot  # noqa: E402
from arbiter.transport.process import end_all  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec, support  # noqa: E402
from arbiter.tournament.config import load_config  # noqa: E402
from arbiter.tournament.progress import Progress  # noqa: E402
from arbiter.tournament.runner import run_tournament  # noqa: E402

ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"
BOTS = {"compiled (/bin/cat)": ("/bin/cat",), "Python (echo loop)": (sys.executable, "-c", ECHO)}


def one_launch_ms(command: tuple[str, ...], sandbox: SandboxSpec | None) -> tuple[float, float]:
    """(ms from launch to the bot's first answer, ms from launch until it is gone), boxed as
    `sandbox` says (None: unboxed); bench_write_cap.py times its boxes with it too."""
    started = time.perf_counter()
    channel, process = launch_pipe_bot(command, sandbox=sandbox)
    assert channel.send_lines(["ping"], time.monotonic() + 10) is None
    answer = channel.read_line(time.monotonic() + 10)
    assert answer == "ping", answer if answer is not TIMEOUT else "no answer in 10 s"
    answered = time.perf_counter()
    channel.close()
    end_all([process], grace_s=1.0, term_grace_s=0.3)
    return (answered - started) * 1000, (time.perf_counter() - started) * 1000


def tournament_games_per_s(folder: Path, games: int, boxed: bool, run: int) -> float:
    name = f"bench-{'on' if boxed else 'off'}-{run}"
    path = folder / f"{name}.yaml"
    bot = ROOT / "players" / "random_bot.py"
    path.write_text(
        f"name: {name}\nresults: {folder / name}\ngame: dots-and-triangles\ngames_per_pairing: {games}\n"
        f"concurrency: 1\nsandbox: {'on' if boxed else 'off'}\nopenings: {{random_moves: 2, seed: 1}}\n"
        f"players:\n  - {{name: a, command: python {bot} --seed 1}}\n  - {{name: b, command: python {bot} --seed 2}}\n"
    )
    config = load_config(path)
    started = time.perf_counter()
    run_tournament(config, Progress(io.StringIO(), quiet=True, tty=False), fresh=True)
    return games / (time.perf_counter() - started)


def migration_setting() -> str:
    """What decides the cost of a bot joining its box's control groups (docs/performance.md,
    Sandbox): cgroup v2's favordynmods mount option and the kernel's expedited RCU."""
    mounts = Path("/proc/mounts").read_text().splitlines()
    favoured = any(line.split()[2] == "cgroup2" and "favordynmods" in line.split()[3] for line in mounts)
    try:
        expedited = Path("/sys/kernel/rcu_expedited").read_text().strip() == "1"
    except OSError:
        expedited = False
    return (f"cgroup2 favordynmods {'on' if favoured else 'off'}, rcu_expedited {'on' if expedited else 'off'} "
            "(as mounted now; see docs/performance.md, Sandbox)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=40, help="launches of each bot, boxed and unboxed")
    parser.add_argument("--games", type=int, default=20, help="games per tournament run (even)")
    parser.add_argument("--repeats", type=int, default=2, help="tournament runs of each kind")
    args = parser.parse_args()
    if not support().usable:
        sys.exit(f"this machine cannot sandbox bots ({support().describe()}): nothing to compare")

    print(f"Python {sys.version.split()[0]}; {os.cpu_count()} CPUs; sandbox: {support().describe()}")
    print(f"kernel: {migration_setting()}")
    print()
    print("| bot | first answer, unboxed (ms) | boxed (ms) | box adds (ms) | launch to gone, unboxed (ms) "
          "| boxed (ms) | box adds (ms) |")
    print("|---|---|---|---|---|---|---|")
    for label, command in BOTS.items():
        samples: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for _ in range(args.launches):
            for boxed in (False, True):
                samples[boxed].append(one_launch_ms(command, SandboxSpec() if boxed else None))
        answer = {boxed: statistics.median(s[0] for s in samples[boxed]) for boxed in samples}
        gone = {boxed: statistics.median(s[1] for s in samples[boxed]) for boxed in samples}
        print(f"| {label} | {answer[False]:.1f} | {answer[True]:.1f} | {answer[True] - answer[False]:+.1f} "
              f"| {gone[False]:.1f} | {gone[True]:.1f} | {gone[True] - gone[False]:+.1f} |")

    rates: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.repeats):
            for boxed in (False, True):
                rates[boxed].append(tournament_games_per_s(Path(tmp), args.games, boxed, run))
    off, on = statistics.median(rates[False]), statistics.median(rates[True])
    print()
    print(f"tournament, random vs random, dots-and-triangles rows=4, {args.games} games x {args.repeats} runs, "
          f"concurrency 1: sandbox off {off:.2f} games/s, on {on:.2f} games/s ({on / off:.2f}x); "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
