#!/usr/bin/env python3
"""The rating fit at tournament scale: Plackett-Luce on 10,000 games of 2, 3 and 4 seats.

    python benchmarks/bench_ratings.py [--games 10000] [--repeat 3]

For each field size and number of seats it draws `--games` rankings from a Plackett-Luce
model with known strengths (spread over 600 Elo, seats filled at random, a fixed seed; no
ties, which the model does not draw) and times `plackett_luce` on them.
The baseline, in the same run, is `bradley_terry` (the pairwise fit the standings used
before) on the same number of two-seat games of the same field. It also prints how far the
fitted ratings are from the true strengths (the largest error, in Elo), which shrinks with
more seats because a game of N seats ranks N players at once. Times are the best of `--repeat`.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.stats import ELO_PER_NAT, bradley_terry, plackett_luce  # noqa: E402


def best_seconds(action: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def draw_rankings(players: list[str], strength: dict[str, float], seats: int, games: int,
                  rng: random.Random) -> list[dict[str, int]]:
    """Rankings sampled from the Plackett-Luce model: each place chosen in proportion to exp(theta)."""
    rankings = []
    for _ in range(games):
        left = rng.sample(players, seats)
        order = []
        while left:
            weights = [math.exp(strength[p]) for p in left]
            chosen = rng.choices(left, weights)[0]
            order.append(chosen)
            left.remove(chosen)
        rankings.append({name: place for place, name in enumerate(order, 1)})
    return rankings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| players | seats | games | Plackett-Luce fit | / Bradley-Terry, 2 seats | largest error (Elo) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for size in (8, 32):
        rng = random.Random(size)
        players = [f"p{k:02d}" for k in range(size)]
        strength = {p: (k / (size - 1) - 0.5) * 600 / ELO_PER_NAT for k, p in enumerate(players)}
        pairs = draw_rankings(players, strength, 2, args.games, rng)
        results = [(a, b, 1.0 if r[a] < r[b] else 0.0) for r in pairs for a, b in [list(r)]]
        baseline = best_seconds(lambda: bradley_terry(players, results), args.repeat)
        print(f"| {size} | 2 | {args.games:,} | Bradley-Terry (baseline): {baseline * 1000:.0f} ms | 1.00 | "
              f"{error(bradley_terry(players, results), strength):.0f} |")
        for seats in (2, 3, 4):
            rankings = pairs if seats == 2 else draw_rankings(players, strength, seats, args.games, rng)
            fit = best_seconds(lambda: plackett_luce(players, rankings), args.repeat)
            print(f"| {size} | {seats} | {args.games:,} | {fit * 1000:.0f} ms | {fit / baseline:.2f} | "
                  f"{error(plackett_luce(players, rankings), strength):.0f} |", flush=True)


def error(ratings: dict[str, Any], strength: dict[str, float]) -> float:
    """The largest distance between a fitted rating and the true strength (both mean 0), in Elo."""
    mean = sum(strength.values()) / len(strength)
    return max(abs(ratings[p].elo - (s - mean) * ELO_PER_NAT) for p, s in strength.items())


if __name__ == "__main__":
    main()
