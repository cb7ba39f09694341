#!/usr/bin/env python3
"""The referee's own cost per move, beside a bare pipe ping-pong in the same run.

- Baseline: this process and an echo process exchange one line at a time over pipes
  (raw os.read/os.write here; the echo's loop is the same as the game bots'). The round
  trip per line is the physical floor of a move: the arbiter hands over the turn and
  reads the move, one round trip.
- Refereed: `play_game` on limit-nim with one pile of N stones and limit 1, so every move
  is `1 1`, between two bots that answer at once (the same loop as the echo). Per move:
  the time between turns (from `on_turn` timestamps), the bot's share of it (the move's
  recorded `wall_ms`, the bot's clock: from the hand-over's first byte to the move's
  arrival, so the relay write, SIGCONT, the pipe both ways and the read of the line are
  all in it), and the arbiter's own overhead = the difference, move by move (everything
  from a move's arrival to the next hand-over: CPU reading, rules, record, SIGSTOP, the
  looks for output out of turn). The default (bots sandboxed, suspend_idle: true), the
  same without suspension, and the same with the sandbox off (docs/security.md).
- Placements: what a pipe round trip costs depends on whether the two processes share a
  CPU (a wake-up on another CPU can cost far more, in a virtual machine most of all), and
  the scheduler decides that differently from moment to moment. So every measurement is
  made three ways, the ping-pong and the games alike: all processes pinned to one CPU,
  the arbiter (or the ping-pong's driver) on one CPU and the bots (the echo) on another,
  and unpinned.
- Medians throughout: on a shared machine the means carry other people's load spikes.
  Every repeat runs each kind once, interleaved, so a load spike hits every kind alike.
  Times are medians of every move of every repeat; ratios are the median (and range)
  of each repeat's ratio, a game beside the ping-pong measured just before it.
- Cut-off: a bot that sleeps through its turn with a 200 ms budget; how far past the
  budget the referee declares the timeout (its `time_used_ms`, measured from the hand-off).

Run: python benchmarks/bench_referee.py [--moves 1000] [--repeats 5]
(The sandbox needs bubblewrap; without it the "boxed" rows are not boxed, and say so.)
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arbiter.games import find_game  # noqa: E402
from arbiter.referee import PlayerSpec, TimeControl, play_game  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec, support  # noqa: E402

# Every helper process pins itself to the CPU in BENCH_CPU, when set.
PIN = 'import os\nif "BENCH_CPU" in os.environ: os.sched_setaffinity(0, {int(os.environ["BENCH_CPU"])})\n'
# Answers `Start` and every `1 1` with `1 1` while stones are left; skips Game/Opening lines.
TAKER = PIN + r"""
import os, sys
stones = int(os.environ["STONES"])
out = sys.stdout
for line in sys.stdin:
    if line == "1 1\n":
        stones -= 1
    elif line == "Quit\n":
        break
    elif line != "Start\n":
        continue
    if stones > 0:
        out.write("1 1\n")
        out.flush()
        stones -= 1
"""
ECHO = PIN + r"""
import sys
out = sys.stdout
for line in sys.stdin:
    out.write(line)
    out.flush()
"""
# Reads its `Game` line, then waits for `Start` (so it has finished starting: docs/protocol.md,
# Start-up), then sleeps through its turn.
SLEEPER = "import sys, time\nsys.stdin.readline()\nsys.stdin.readline()\ntime.sleep(3600)\n"


@dataclass(frozen=True)
class Placement:
    """Where the measuring process and its helpers run: CPU numbers, or None for the scheduler's choice."""

    label: str
    own_cpu: int | None
    helper_cpu: int | None

    def pin_self(self, all_cpus: set[int]) -> None:
        """Pin the calling thread (threads it starts inherit it), or let it run anywhere."""
        os.sched_setaffinity(0, all_cpus if self.own_cpu is None else {self.own_cpu})

    def helper_env(self) -> dict[str, str]:
        return {} if self.helper_cpu is None else {"BENCH_CPU": str(self.helper_cpu)}


@dataclass
class Samples:
    """Per-move samples (microseconds) of one kind of run, pooled over the repeats, and each repeat's medians."""

    per_move: list[float] = field(default_factory=list)
    bots: list[float] = field(default_factory=list)
    overhead: list[float] = field(default_factory=list)
    repeat_medians: list[tuple[float, float]] = field(default_factory=list)  # (overhead, per move)


def ping_pong_us(exchanges: int, env: dict[str, str]) -> list[float]:
    """Microseconds of each round trip of one line between this process and an echo process."""
    echo = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                            env={**os.environ, **env})
    assert echo.stdin is not None and echo.stdout is not None
    write_fd, read_fd = echo.stdin.fileno(), echo.stdout.fileno()
    line = b"1 1\n"
    for _ in range(50):  # warm up
        os.write(write_fd, line)
        os.read(read_fd, 64)
    trips = []
    for _ in range(exchanges):
        started = time.perf_counter()
        os.write(write_fd, line)
        os.read(read_fd, 64)
        trips.append((time.perf_counter() - started) * 1e6)
    echo.stdin.close()
    echo.wait()
    return trips


@dataclass(frozen=True)
class Kind:
    """One way of refereeing the benchmark's games."""

    label: str
    suspend_idle: bool
    boxed: bool


KINDS = (Kind("sandboxed, suspend_idle: true (default)", True, True),
         Kind("sandboxed, suspend_idle: false", False, True),
         Kind("sandbox off, suspend_idle: true", True, False))


def refereed_us(moves: int, suspend_idle: bool, env: dict[str, str], *,
                boxed: bool = True) -> tuple[list[float], list[float]]:
    """Per move of one game of `moves` moves: (microseconds between turns, the bot's share)."""
    game = find_game("limit-nim", piles=f"{moves}/1")
    taker = PlayerSpec(name="taker", command=(sys.executable, "-c", TAKER), env={"STONES": str(moves), **env},
                       sandbox=SandboxSpec() if boxed else None)
    stamps: list[float] = []
    record = play_game(game, [taker, taker], time=TimeControl(time_ms=600000, suspend_idle=suspend_idle),
                       on_turn=lambda state: stamps.append(time.perf_counter()))
    assert record.termination.value == "normal" and len(record.moves) == moves, record.detail
    # Turns 2..N (the first includes the bots' start-up); each turn is one move here.
    between_us = [(b - a) * 1e6 for a, b in zip(stamps, stamps[1:])]
    bots_us = [m.wall_ms * 1000 for m in record.moves[1:]]
    return between_us, bots_us


def cut_off_ms(budget_ms: int) -> float:
    """How long past `budget_ms` the referee took to declare a sleeping bot's timeout."""
    sleeper = PlayerSpec(name="sleeper", command=(sys.executable, "-c", SLEEPER))
    taker = PlayerSpec(name="taker", command=(sys.executable, "-c", TAKER), env={"STONES": "10"})
    record = play_game(find_game("limit-nim", piles="10/1"), [sleeper, taker], time=TimeControl(time_ms=budget_ms))
    assert record.termination.value == "timeout" and record.offender == 0, record.detail
    return record.time_used_ms[0] - budget_ms


def placements(cpus: list[int]) -> list[Placement]:
    """One CPU, two CPUs (when there are two), and the scheduler's choice."""
    chosen = [Placement("one CPU", cpus[0], cpus[0])]
    if len(cpus) > 1:
        chosen.append(Placement("two CPUs", cpus[0], cpus[1]))
    return chosen + [Placement("unpinned", None, None)]


def _ratio(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f}x ({min(ratios):.2f} to {max(ratios):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=1000, help="moves per refereed game (and exchanges per ping-pong)")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each; medians are reported")
    parser.add_argument("--budget-ms", type=int, default=200, help="the sleeping bot's budget")
    args = parser.parse_args()

    all_cpus = os.sched_getaffinity(0)
    where = placements(sorted(all_cpus))
    floors: dict[str, list[float]] = {p.label: [] for p in where}
    floor_medians: dict[str, list[float]] = {p.label: [] for p in where}
    games = {(p.label, k): Samples() for p in where for k in KINDS}
    cuts = []
    try:
        for _ in range(args.repeats):  # interleaved, so a load spike hits every kind alike
            for placement in where:
                placement.pin_self(all_cpus)
                trips = ping_pong_us(args.moves, placement.helper_env())
                floors[placement.label] += trips
                floor_medians[placement.label].append(statistics.median(trips))
                for kind in KINDS:
                    between, bots = refereed_us(args.moves, kind.suspend_idle, placement.helper_env(),
                                                boxed=kind.boxed)
                    overhead = [b - w for b, w in zip(between, bots)]  # paired, move by move
                    samples = games[placement.label, kind]
                    samples.per_move += between
                    samples.bots += bots
                    samples.overhead += overhead
                    samples.repeat_medians.append((statistics.median(overhead), statistics.median(between)))
            Placement("unpinned", None, None).pin_self(all_cpus)
            cuts.append(cut_off_ms(args.budget_ms))
    finally:
        os.sched_setaffinity(0, all_cpus)

    print(f"{args.repeats} repeats x {args.moves} moves; Python {sys.version.split()[0]}; "
          f"{len(all_cpus)} CPUs; load average {os.getloadavg()[0]:.1f}; sandbox: {support().describe()}")
    print()
    print("| placement | run, medians per move | per move (us) | bot's share (us) | arbiter overhead (us) "
          "| overhead / ping-pong (range over repeats) | per move / ping-pong (range) |")
    print("|---|---|---|---|---|---|---|")
    for placement in where:
        label = placement.label
        floor_us = statistics.median(floors[label])
        print(f"| {label} | bare pipe ping-pong (round trip) | {floor_us:.1f} | | | | 1x |")
        for kind in KINDS:
            samples = games[label, kind]
            overhead_ratios = [o / f for (o, _), f in zip(samples.repeat_medians, floor_medians[label])]
            per_move_ratios = [m / f for (_, m), f in zip(samples.repeat_medians, floor_medians[label])]
            print(f"| {label} | {kind.label} | {statistics.median(samples.per_move):.1f} "
                  f"| {statistics.median(samples.bots):.1f} | {statistics.median(samples.overhead):.1f} "
                  f"| {_ratio(overhead_ratios)} | {_ratio(per_move_ratios)} |")
    print()
    print(f"sleeping bot, {args.budget_ms} ms budget: cut off {statistics.median(cuts):.2f} ms past it "
          f"(median; max {max(cuts):.2f} ms; {args.repeats} runs)")


if __name__ == "__main__":
    main()
