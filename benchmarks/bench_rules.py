#!/usr/bin/env python3
"""Rules micro-benchmark: random playouts per second, per game and size.

Two ways of playing a whole game from the initial position are timed:
- bot: `legal_moves()`, a random choice, `apply(move)` -- what a playout bot does;
- referee: `play(text)` of a recorded game's move texts -- parse, validate, apply,
  which is what the referee does for every move a bot sends.
The baseline, run in the same process and interleaved with them, is a bare loop of
random choices from a list, appended, with no rules at all. The last column, a bot
move's cost in baseline loop steps, is the figure to compare across machines and
commits; the raw rates depend on the machine and its load.

    python benchmarks/bench_rules.py            # about 1 s per measurement
    python benchmarks/bench_rules.py --seconds 0.2
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from arbiter.games import Game, find_game  # noqa: E402

CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("dots-and-triangles", {"rows": 4}),
    ("dots-and-triangles", {"rows": 8}),
    ("dots-and-triangles", {"rows": 4, "players": 3}),
    ("dots-and-boxes", {"rows": 3, "cols": 3}),
    ("dots-and-boxes", {"rows": 8, "cols": 8}),
    ("limit-nim", {}),
    ("limit-nim", {"piles": "30/20,30/20,30/20,30/20"}),
)


def rates(runners: list[Callable[[], int]], seconds: float, rounds: int = 5) -> list[tuple[float, float]]:
    """For each runner: calls per second (the best of `rounds` short slices, interleaved
    with the other runners' so that a busy machine slows all of them alike) and the mean
    of what it returned (moves per playout). About `seconds` in all per runner."""
    best = [0.0] * len(runners)
    totals = [0] * len(runners)
    calls = [0] * len(runners)
    for run in runners:
        run()  # warm up caches and lazy tables
    for _ in range(rounds):
        for i, run in enumerate(runners):
            count, start = 0, time.perf_counter()
            deadline = start + seconds / rounds
            while True:
                totals[i] += run()
                count += 1
                now = time.perf_counter()
                if now >= deadline:
                    break
            best[i] = max(best[i], count / (now - start))
            calls[i] += count
    return [(best[i], totals[i] / calls[i]) for i in range(len(runners))]


def bot_playout(game: Game[Any], rng: random.Random) -> Callable[[], int]:
    """A playout choosing uniformly among `legal_moves()` and applying with `apply`."""

    def run() -> int:
        state = game.new_state()
        while not state.is_over():
            state.apply(rng.choice(state.legal_moves()))
        return len(state.history)

    return run


def referee_playout(game: Game[Any], texts: list[str]) -> Callable[[], int]:
    """Replaying one recorded game's move texts with `play(text)`."""

    def run() -> int:
        state = game.new_state()
        for text in texts:
            state.play(text)
        return len(state.history)

    return run


def bare_loop(moves: int, rng: random.Random) -> Callable[[], int]:
    """The baseline: `moves` random choices from a list, appended, and no rules."""
    pool = list(range(moves))

    def run() -> int:
        taken: list[int] = []
        for _ in range(moves):
            taken.append(rng.choice(pool))
        return len(taken)

    return run


def recorded_texts(game: Game[Any], rng: random.Random) -> list[str]:
    """The move texts of one random game."""
    state = game.new_state()
    while not state.is_over():
        state.apply(rng.choice(state.legal_moves()))
    return [game.format_move(move) for move in state.history]


def main() -> int:
    """Measure every case and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement (default 1.0)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"python {sys.version.split()[0]}, about {args.seconds:g} s per measurement\n")
    print(
        "| game | moves/game | bot playouts/s | bot µs/move | referee playouts/s "
        "| referee µs/move | bot move / baseline step |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, params in CASES:
        game = find_game(name, **params)
        texts = recorded_texts(game, rng)
        (bot, moves), (referee, _), (baseline, steps) = rates(
            [bot_playout(game, rng), referee_playout(game, texts), bare_loop(len(texts), rng)],
            args.seconds,
        )
        bot_us, referee_us = 1e6 / (bot * moves), 1e6 / (referee * len(texts))
        baseline_us = 1e6 / (baseline * steps)
        print(
            f"| {game.describe()} | {moves:.0f} | {bot:,.0f} | {bot_us:.2f} | {referee:,.0f} "
            f"| {referee_us:.2f} | {bot_us / baseline_us:.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
