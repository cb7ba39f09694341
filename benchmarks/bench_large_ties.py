#!/usr/bin/env python3
"""Large ties in the Plackett-Luce fit: 2k orders by seat against the exact average over all orders.

    python benchmarks/bench_large_ties.py [--games 300] [--seats 10] [--fault-share 0.2] [--seed 1]

A tie of more than `stats.EXACT_TIE_MAX` players is rated by 2k of its orders (the rotations
of its seat order and of the reverse) instead of the exact average over all its orders (2^k
subsets): docs/statistics.md. This
draws `--games` rankings of `--seats` players from a Plackett-Luce model with known strengths
(spread over 600 Elo, a fixed seed); in a `--fault-share` of them a random seat faults on the
first move, so it is last and the other `seats - 1` players tie for first (seats are drawn
at random, so the seat order is not the strength order). With `--seats 10`
that tie of 9 is just beyond EXACT_TIE_MAX, so both methods can be run on the same games: the
exact one by raising the limit for the baseline run. It prints the largest difference between
the two fits' ratings (Elo), the largest error of each against the true strengths, and the
time of each fit as a ratio to the exact one (best of `--repeat`; the exact fit of a tie of 9
already takes seconds, and doubles with each further player). It also renames every
player (a permutation of the names) and prints how far that moves any rating: the earlier
method, rotations in name order, moved them by up to 6 Elo (issue 27); this one should not.
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

from arbiter import stats  # noqa: E402
from arbiter.stats import ELO_PER_NAT, plackett_luce  # noqa: E402


def best_seconds(action: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return min(times), result


def draw_rankings(players: list[str], strength: dict[str, float], seats: int, games: int, fault_share: float,
                  rng: random.Random) -> list[dict[str, int]]:
    """Rankings drawn from the model; a `fault_share` of games end on a first-move fault."""
    rankings = []
    for _ in range(games):
        table = rng.sample(players, seats)
        if rng.random() < fault_share:
            offender = rng.choice(table)
            rankings.append({name: seats if name == offender else 1 for name in table})
            continue
        left, ranking = list(table), {}
        for place in range(1, seats + 1):
            weights = [math.exp(strength[name]) for name in left]
            chosen = rng.choices(left, weights)[0]
            ranking[chosen] = place
            left.remove(chosen)
        rankings.append(ranking)
    return rankings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--fault-share", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    players = [f"p{k:02d}" for k in range(args.players)]
    strength = {name: rng.uniform(-300, 300) / ELO_PER_NAT for name in players}
    rankings = draw_rankings(players, strength, args.seats, args.games, args.fault_share, rng)
    tie = args.seats - 1
    limit = stats.EXACT_TIE_MAX
    if tie <= limit:
        sys.exit(f"a tie of {tie} is rated exactly already (EXACT_TIE_MAX = {limit}): use more --seats")
    by_seat_s, by_seat = best_seconds(lambda: plackett_luce(players, rankings), args.repeat)
    stats.EXACT_TIE_MAX = tie  # the baseline: the same games, the tie expanded exactly
    exact_s, exact = best_seconds(lambda: plackett_luce(players, rankings), args.repeat)
    stats.EXACT_TIE_MAX = limit
    renamed = dict(zip(players, rng.sample(players, len(players))))
    moved_rankings = [{renamed[name]: place for name, place in ranking.items()} for ranking in rankings]
    moved = plackett_luce([renamed[name] for name in players], moved_rankings)
    centre = sum(strength.values()) / len(players)

    def error(fit: dict[str, stats.Rating]) -> float:
        return max(abs(fit[name].elo - (strength[name] - centre) * ELO_PER_NAT) for name in players)

    print(f"{args.games} games of {args.seats} seats among {args.players} players, "
          f"{sum(len(set(r.values())) == 2 for r in rankings)} ending in a tie of {tie}")
    print(f"largest rating difference, 2k orders vs exact: "
          f"{max(abs(by_seat[n].elo - exact[n].elo) for n in players):.2f} Elo")
    print(f"largest interval-width difference: "
          f"{max(abs((by_seat[n].high - by_seat[n].low) - (exact[n].high - exact[n].low)) for n in players):.2f} Elo")
    print(f"largest error against the true strengths: 2k orders {error(by_seat):.1f} Elo, exact {error(exact):.1f} Elo")
    print(f"fit time: exact {exact_s * 1000:.1f} ms, 2k orders {by_seat_s * 1000:.1f} ms "
          f"({by_seat_s / exact_s:.3f} of exact)")
    print(f"largest change of a rating when every player is renamed: "
          f"{max(abs(moved[renamed[n]].elo - by_seat[n].elo) for n in players):.2e} Elo")


if __name__ == "__main__":
    main()
