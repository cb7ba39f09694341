#!/usr/bin/env python3
"""A thief's victim, against an honest opponent in the same run: does a box that leaves
processes forking their successors and exiting every 2 ms (tests/bots/fork_hop_thief_bot.py)
steal CPU from its opponent between turns?

The victim (benchmarks/bots/busy_bot.py, BUSY_CLOCK=cpu) spends 20 ms of its own CPU on each
move under the wall clock, so whatever else runs on its CPU shows in its wall time per move.
Games alternate: victim against the thief, victim against the random bot, `--games` of each,
all boxed, with the processes of each game pinned to one CPU (where a thief hurts most). For
each suspension (the freezer, the SIGSTOP walks a machine without a freezer gets, and a single
walk, as suspension was before it was repeated), the victim's median wall ms per move against
each opponent, its losses on time, and the CPU the thief used while suspended.

Run: python benchmarks/bench_thief.py [--games 12]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import arbiter.transport.process as process_module  # noqa: E402
import arbiter.transport.sandbox as sandbox_module  # noqa: E402
from arbiter.games import find_game  # noqa: E402
from arbiter.referee import PlayerSpec, TimeControl, play_game  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec  # noqa: E402
from referee_support import bot, honest, new_marker  # noqa: E402

VICTIM_CLOCK = TimeControl(time_ms=60000)  # ample: its wall time a move is the figure, not a verdict


def victim(marker: str) -> PlayerSpec:
    return PlayerSpec(name="victim", command=(sys.executable, str(ROOT / "benchmarks" / "bots" / "busy_bot.py")),
                      env={"ARBITER_TEST_MARK": marker, "BUSY_CLOCK": "cpu", "BUSY_MS": "20"},
                      time=VICTIM_CLOCK, sandbox=SandboxSpec())


def one_game(opponent: str) -> tuple[list[float], bool, float]:
    """The victim's wall ms per move, whether it lost on time, the opponent's suspended CPU."""
    marker = new_marker()
    other = bot("fork_hop_thief_bot.py", "thief", marker) if opponent == "thief" else honest(marker)
    record = play_game(find_game("dots-and-boxes"), [other, victim(marker)], time=TimeControl(time_ms=20000))
    walls = [move.wall_ms for move in record.moves if move.seat == 1 and not move.forced]
    lost_on_time = record.termination.value == "timeout" and record.offender == 1
    return walls, lost_on_time, record.suspended_cpu_ms[0] if record.suspended_cpu_ms else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=12, help="games against each opponent, per suspension")
    args = parser.parse_args()
    os.sched_setaffinity(0, {0})  # the arbiter and every bot it starts: one CPU
    support = sandbox_module.support()
    print(f"{args.games} games each; load average {os.getloadavg()[0]:.1f}; {support.describe()}\n")
    print("| suspension | victim's wall ms a move, vs honest | vs thief | victim lost on time, vs honest | vs thief "
          "| thief's CPU while suspended, ms a game (median, max) |")
    print("|---|---:|---:|---:|---:|---|")
    for name in ("freezer", "SIGSTOP walks", "one SIGSTOP walk (before)"):
        sandbox_module._SUPPORT = support if name == "freezer" else replace(support, freezer=None)
        process_module.SUSPEND_TRIES = 1 if name.startswith("one") else 250
        walls: dict[str, list[float]] = {"honest": [], "thief": []}
        lost = {"honest": 0, "thief": 0}
        stolen: list[float] = []
        for _ in range(args.games):
            for opponent in ("thief", "honest"):
                moves, timed_out, suspended_ms = one_game(opponent)
                walls[opponent] += moves
                lost[opponent] += timed_out
                if opponent == "thief":
                    stolen.append(suspended_ms)
        print(f"| {name} | {statistics.median(walls['honest']):.1f} | {statistics.median(walls['thief']):.1f} "
              f"| {lost['honest']} of {args.games} | {lost['thief']} of {args.games} "
              f"| {statistics.median(stolen):.1f}, {max(stolen):.1f} |")


if __name__ == "__main__":
    main()
