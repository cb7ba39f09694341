#!/usr/bin/env python3
"""Exact dots solver: time to solve whole boards from the empty position, states/second.

For each board, `build_table` (the numpy bottom-up DP the perfect_dp bot uses) solves
all 2^edges positions, single process, best of `--repeat` runs; the value of the empty
board is checked against the published one. The baseline, in the same run, is the plain
memoized recursion over the same values (pure Python, a dict keyed by the drawn-edge
bitmask) on the 4-row triangle board: the ratio says how much the vectorized DP gains.
Then the perfect_dp bot itself is timed as a process answering `Start` on 3 x 3 boxes,
with an empty table cache (it must solve first) and with the table cached. Last, on
boards too big to solve from the start, one in-process game of perfect_dp against
double_cross under the default 30 s budget: when perfect_dp switched to exact play, and
the clock each side used. Also the max-n solve for 3 and 4 seats (the same boards, one
int8 plane per seat), as a ratio against the two-seat solve of the same board in this run.

    python benchmarks/bench_solver.py
    python benchmarks/bench_solver.py --repeat 1 --no-bot
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout

from arbiter.games import find_game  # noqa: E402
from arbiter.games.dots import DotsGame  # noqa: E402
from arbiter.bot import BotContext  # noqa: E402
from players.strategies.double_cross import choose_double_cross  # noqa: E402
from players.strategies.exact import build_table  # noqa: E402
from players.strategies.perfect import choose_perfect  # noqa: E402

BIG_BOARDS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("dots-and-triangles", {"rows": 6}),  # 45 edges
    ("dots-and-boxes", {"rows": 5, "cols": 5}),  # 60 edges
    ("dots-and-boxes", {"rows": 15, "cols": 15}),  # 480 edges
)
BOARDS: tuple[tuple[str, dict[str, Any], int], ...] = (  # game, parameters, published value
    ("dots-and-triangles", {"rows": 4}, -3),
    ("dots-and-boxes", {"rows": 2, "cols": 3}, -2),
    ("dots-and-boxes", {"rows": 3, "cols": 3}, -3),
)


def memoized_value(game: DotsGame) -> int:
    """The baseline: the empty board's value by plain memoized recursion in Python."""
    sys.setrecursionlimit(10_000)
    memo: dict[int, int] = {}
    full = game.full_mask
    edges = range(len(game.edges))

    def value(drawn: int) -> int:
        if drawn == full:
            return 0
        known = memo.get(drawn)
        if known is not None:
            return known
        best = -(1 << 30)
        for edge in edges:
            if not (drawn >> edge) & 1:
                completed = game.completed_by(drawn, edge)
                child = value(drawn | (1 << edge))
                best = max(best, completed + child if completed else -child)
        memo[drawn] = best
        return best

    return value(0)


def best_seconds(run: Any, repeat: int) -> tuple[float, Any]:
    """The fastest of `repeat` runs (seconds) and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - started)
    return best, result


def bot_first_move_seconds(cache: str) -> tuple[float, str]:
    """Wall time of a perfect_dp process answering Start on 3 x 3 boxes, and its log."""
    lines = "Game dots-and-boxes rows=3 cols=3 players=2 seat=0 time_ms=30000\nStart\nQuit\n"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "players" / "perfect_dp.py")], input=lines,
                          capture_output=True, text=True, env={**os.environ, "ARBITER_CACHE": cache},
                          check=True, timeout=120)
    return time.perf_counter() - started, done.stderr.strip().splitlines()[0]


class LogKeeper(BotContext):
    """A bot context that keeps the log lines."""

    def __init__(self, game: DotsGame, seat: int) -> None:
        super().__init__(game=game, seat=seat, rng=random.Random(seat), time_ms=30_000)
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)


def big_board_game(game: DotsGame) -> str:
    """One game perfect_dp (seat 0) vs double_cross, in-process: the switch and the clocks."""
    state = game.new_state()
    contexts = [LogKeeper(game, 0), LogKeeper(game, 1)]
    players = (choose_perfect, choose_double_cross)
    used_s = [0.0, 0.0]
    while not state.is_over():
        seat = state.current_player
        started = time.perf_counter()
        move = players[seat](state, contexts[seat])
        used_s[seat] += time.perf_counter() - started
        state.apply(move)
    lines = contexts[0].lines
    heuristic = sum(line.startswith("heuristic move") for line in lines)
    switch = next((line for line in lines if line.startswith("exact play")), "never solved")
    return (f"| {game.describe()} | {len(game.edges)} | {heuristic} | {switch} | "
            f"{used_s[0]:.2f} | {used_s[1]:.2f} | {state.scores[0]}-{state.scores[1]} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per board; the best counts (default 3)")
    parser.add_argument("--no-bot", action="store_true", help="skip timing the bot process")
    args = parser.parse_args(argv)
    wrong = 0
    print("| board | edges | states | solve s (best of %d) | states/s | value | published |" % args.repeat)
    print("|---|---:|---:|---:|---:|---:|---:|")
    numpy_seconds: dict[str, float] = {}
    for name, params, published in BOARDS:
        game = find_game(name, **params)
        seconds, table = best_seconds(lambda: build_table(game), args.repeat)
        value = table.value(0)
        wrong += value != published
        states = 1 << len(game.edges)
        numpy_seconds[game.describe()] = seconds
        print(f"| {game.describe()} | {len(game.edges)} | {states:,} | {seconds:.3f} | "
              f"{states / seconds / 1e6:.1f} M | {value:+d} | {published:+d} |", flush=True)
    triangles = find_game("dots-and-triangles", rows=4)
    seconds, value = best_seconds(lambda: memoized_value(triangles), 1)
    wrong += value != -3
    ratio = seconds / numpy_seconds[triangles.describe()]
    print(f"\nbaseline: plain memoized recursion (pure Python) on {triangles.describe()}: "
          f"{seconds:.2f} s, value {value:+d}; the numpy DP is {ratio:.0f}x faster")
    if not args.no_bot:
        with tempfile.TemporaryDirectory() as cache:
            cold, cold_log = bot_first_move_seconds(cache)
            warm, warm_log = bot_first_move_seconds(cache)
        print(f"perfect_dp process, 3x3 boxes, Game+Start+Quit: {cold:.2f} s with an empty cache "
              f"({cold_log!r}), {warm:.2f} s with the table cached ({warm_log!r})")
    print("\n| board | seats | max-n solve s | x the two-seat solve | states/s | vector of the empty board |")
    print("|---|---:|---:|---:|---:|---|")
    for name, params, _ in BOARDS:
        for seats in (3, 4):
            game = find_game(name, players=seats, **params)
            seconds, table = best_seconds(lambda: build_table(game), args.repeat)
            states = 1 << len(game.edges)
            two_seats = numpy_seconds[find_game(name, **params).describe()]
            print(f"| {game.describe()} | {seats} | {seconds:.3f} | {seconds / two_seats:.1f} | "
                  f"{states / seconds / 1e6:.1f} M | {table.vector(0)} |", flush=True)
    print("\n| board (perfect_dp vs double_cross) | edges | double-cross moves | then | perfect_dp s "
          "| double_cross s | score |")
    print("|---|---:|---:|---|---:|---:|---|")
    for name, params in BIG_BOARDS:
        print(big_board_game(find_game(name, **params)), flush=True)
    if wrong:
        print(f"{wrong} value(s) differ from the published ones", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
