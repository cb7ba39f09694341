#!/usr/bin/env python3
"""Strength of the reference bots: each against the next weaker one.

Pairs: perfect_dp vs double_cross, double_cross vs greedy, greedy vs random, on the
4-row triangle board and on 3 x 3 boxes; nim_perfect vs nim_greedy and nim_greedy vs
random on Limit Nim's default piles. Each pair plays `--games` games (default 100):
openings of two random legal moves, each opening played twice with the seats swapped.
Games are played in-process, by calling the bots' strategy functions (the same
`choose(state, ctx)` the bot programs run) on rules-library states: no processes, no
referee, the same moves. The score is the stronger bot's (win 1, draw 1/2) in percent,
with a 95% Wilson score interval over the games (which stays sensible at 0% and 100%).

It also checks the claim on perfect play from perfect_dp's own log: in every game, the
final margin it guaranteed at its first move (`value V margin M`) must be met (so it
never loses a game it could win from its first move, nor draws one).

    python benchmarks/bench_strength.py                 # 100 games per pair, a few minutes
    python benchmarks/bench_strength.py --games 20 --board triangles

With `--seats N` (3 or more) the dots bots play N-seat games instead: every group of N
of the four dots bots, each group in every seat order (N! orders) from the same random
openings, `--games` openings per group. Per bot: its places (ties share the better one),
its share of first places (shared on a tie for first), mean cells per game, and its
Plackett-Luce rating over the whole rankings (`arbiter.stats.plackett_luce`, as the
tournament's standings) with its 95% interval. `--exact-edges` is perfect_dp's
(configs/boxes-3players.yaml gives it 20).

    python benchmarks/bench_strength.py --seats 3 --board boxes --games 50 --seed 3 --exact-edges 20
"""
from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from arbiter.bot import BotContext  # noqa: E402
from arbiter.games import Game, find_game  # noqa: E402
from arbiter.stats import plackett_luce  # noqa: E402
from players.random_bot import choose as choose_random  # noqa: E402
from players.strategies.double_cross import choose_double_cross  # noqa: E402
from players.strategies.greedy import choose_greedy  # noqa: E402
from players.strategies.nim import choose_nim_greedy, make_nim_perfect_chooser  # noqa: E402
from players.strategies.perfect import MAX_EXACT_EDGES, VALUE_LINE, choose_perfect, make_perfect_chooser  # noqa: E402

BOTS: dict[str, Callable[[Any, BotContext], Any]] = {
    "perfect_dp": choose_perfect,
    "double_cross": choose_double_cross,
    "greedy": choose_greedy,
    "random": choose_random,
    "nim_perfect": make_nim_perfect_chooser(),
    "nim_greedy": choose_nim_greedy,
}
DOTS_PAIRS = (("perfect_dp", "double_cross"), ("double_cross", "greedy"), ("greedy", "random"))
BOARDS: dict[str, tuple[str, dict[str, Any], tuple[tuple[str, str], ...]]] = {
    "triangles": ("dots-and-triangles", {"rows": 4}, DOTS_PAIRS),
    "boxes": ("dots-and-boxes", {"rows": 3, "cols": 3}, DOTS_PAIRS),
    "nim": ("limit-nim", {}, (("nim_perfect", "nim_greedy"), ("nim_greedy", "random"))),
}
OPENING_MOVES = 2


class LoggingContext(BotContext):
    """A bot context that keeps the bot's stderr lines instead of printing them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)


@dataclass
class PairResult:
    """One pairing's games, from the first-named (stronger) bot's side."""

    strong: str
    weak: str
    game_scores: list[float] = field(default_factory=list)  # 1 win, 1/2 draw, 0 loss
    seconds: dict[str, float] = field(default_factory=dict)  # thinking time per bot
    perfect_checked: int = 0  # games where perfect_dp logged a value at its first move
    perfect_could_win: int = 0  # ... that promised a positive final margin
    perfect_won: int = 0  # ... of those, the games it won
    perfect_broken: list[str] = field(default_factory=list)

    def interval(self) -> tuple[float, float, float]:
        """Score percent and its 95% Wilson score interval."""
        n, z = len(self.game_scores), 1.96
        p = sum(self.game_scores) / n
        center = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return 100 * p, 100 * (center - half), 100 * (center + half)


def play_game(game: Game[Any], opening: list[Any], seats: tuple[str, str], seed: int,
              result: PairResult) -> list[int]:
    """Play one game in-process; returns the final scores per seat."""
    state = game.new_state()
    for move in opening:
        state.apply(move)
    contexts = [
        LoggingContext(game=game, seat=seat, rng=random.Random(seed * 2 + seat), time_ms=30_000)
        for seat in range(2)
    ]
    while not state.is_over():
        seat = state.current_player
        started = time.perf_counter()
        move = BOTS[seats[seat]](state, contexts[seat])
        result.seconds[seats[seat]] = result.seconds.get(seats[seat], 0.0) + time.perf_counter() - started
        state.apply(move)
    for seat, name in enumerate(seats):
        if name == "perfect_dp":
            check_perfect(contexts[seat].lines, state.scores[seat] - state.scores[1 - seat], result)
    return list(state.scores)


def check_perfect(lines: list[str], final_margin: int, result: PairResult) -> None:
    """The margin promised at the first exact move must be met (perfect play by us)."""
    for line in lines:
        match = VALUE_LINE.fullmatch(line)
        if match:
            result.perfect_checked += 1
            promised = int(match[2])
            if promised > 0:
                result.perfect_could_win += 1
                result.perfect_won += final_margin > 0
            if final_margin < promised:
                result.perfect_broken.append(f"promised margin {promised}, got {final_margin}")
            return


def play_pair(game: Game[Any], strong: str, weak: str, games: int, seed: int) -> PairResult:
    """`games` games, two per random opening, seats swapped."""
    rng = random.Random(seed)
    result = PairResult(strong, weak)
    for k in range(games // 2):
        state = game.new_state()
        opening = []
        for _ in range(OPENING_MOVES):
            move = rng.choice(state.legal_moves())
            state.apply(move)
            opening.append(move)
        for strong_seat in (0, 1):
            seats = (strong, weak) if strong_seat == 0 else (weak, strong)
            scores = play_game(game, opening, seats, seed * 100_003 + 2 * k + strong_seat, result)
            mine, theirs = scores[strong_seat], scores[1 - strong_seat]
            result.game_scores.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    return result


def play_seats(game: Game[Any], group: tuple[str, ...], games: int, seed: int,
               bots: dict[str, Callable[[Any, BotContext], Any]]) -> list[dict[str, tuple[int, int]]]:
    """N-seat games of one group, in every seat order from the same openings: per game each
    bot's place (1 is first, ties share the better place) and cells."""
    rng = random.Random(seed)
    results = []
    for k in range(games):
        state = game.new_state()
        for _ in range(OPENING_MOVES):
            state.apply(rng.choice(state.legal_moves()))
        opened = state
        for order_number, order in enumerate(itertools.permutations(group)):
            state = opened.clone()
            contexts = [LoggingContext(game=game, seat=seat, rng=random.Random(seed + 1009 * k + 7 * seat + order_number),
                                       time_ms=30_000) for seat in range(len(order))]
            while not state.is_over():
                seat = state.current_player
                state.apply(bots[order[seat]](state, contexts[seat]))
            scores = state.scores
            results.append({name: (1 + sum(other > scores[seat] for other in scores), scores[seat])
                            for seat, name in enumerate(order)})
    return results


def seat_table(names: tuple[str, ...], results: list[dict[str, tuple[int, int]]]) -> list[str]:
    """Markdown rows: per bot its games, places, first places (a tie for first shared), mean
    cells and Plackett-Luce rating over the whole rankings, best rating first."""
    ratings = plackett_luce(list(names), [{name: place for name, (place, _) in game.items()} for game in results])
    rows = []
    for name in sorted(names, key=lambda n: -ratings[n].elo):
        mine = [game[name] for game in results if name in game]
        seats = max(len(game) for game in results)
        places = "-".join(str(sum(place == p for place, _ in mine)) for p in range(1, seats + 1))
        firsts = sum(1 / sum(p == 1 for p, _ in game.values()) for game in results
                     if name in game and game[name][0] == 1)
        rating = ratings[name]
        rows.append(f"| {name} | {len(mine)} | {places} | {100 * firsts / len(mine):.1f}% | "
                    f"{sum(cells for _, cells in mine) / len(mine):.2f} | "
                    f"{rating.elo:+.0f} [{rating.low:+.0f}, {rating.high:+.0f}] |")
    return rows


def main_seats(seats: int, boards: list[str], games: int, seed: int, exact_edges: int,
               bots: dict[str, Callable[[Any, BotContext], Any]] | None = None) -> int:
    """The N-seat table: every group of `seats` dots bots, in every seat order."""
    if bots is None:
        bots = {"perfect_dp": make_perfect_chooser(exact_edges), "double_cross": choose_double_cross,
                "greedy": choose_greedy, "random": choose_random}
    names = tuple(bots)
    print(f"{seats} seats: every group of {seats} of {', '.join(names)}, each in all {math.factorial(seats)} "
          f"seat orders, {games} openings of {OPENING_MOVES} random moves, seed {seed}, "
          f"perfect_dp --exact-edges {exact_edges}")
    for board in boards:
        name, params, _ = BOARDS[board]
        game = find_game(name, players=seats, **params)
        started = time.perf_counter()
        results = []
        for group in itertools.combinations(names, seats):
            results += play_seats(game, group, games, seed, bots)
        print(f"\n{game.describe()}, {len(results)} games in {time.perf_counter() - started:.0f} s")
        print(f"| bot | games | {'-'.join(str(p) for p in range(1, seats + 1))} | first places | mean cells "
              "| Elo, Plackett-Luce [95%] |")
        print("|---|---:|---|---:|---:|---|")
        for row in seat_table(names, results):
            print(row, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per pair (even), default 100")
    parser.add_argument("--seed", type=int, default=1, help="seed of the openings and the bots")
    parser.add_argument("--board", choices=sorted(BOARDS), action="append",
                        help="only this board (repeatable); default all")
    parser.add_argument("--seats", type=int, default=2, help="players per game (default 2)")
    parser.add_argument("--exact-edges", type=int, default=MAX_EXACT_EDGES, metavar="N",
                        help=f"perfect_dp's --exact-edges with --seats (default {MAX_EXACT_EDGES})")
    args = parser.parse_args(argv)
    if args.seats > 2:
        boards = [b for b in args.board or list(BOARDS) if b != "nim"]
        return main_seats(args.seats, boards, args.games, args.seed, args.exact_edges)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be an even number >= 2")
    print(f"{args.games} games per pair, openings of {OPENING_MOVES} random moves, seats swapped, seed {args.seed}")
    print("| board | pair | games | score of the first | 95% interval | thinking s/game (first, second) |")
    print("|---|---|---:|---:|---|---|")
    broken = 0
    for board in args.board or list(BOARDS):
        name, params, pairs = BOARDS[board]
        game = find_game(name, **params)
        for strong, weak in pairs:
            result = play_pair(game, strong, weak, args.games, args.seed)
            score, low, high = result.interval()
            per_game = [result.seconds.get(bot, 0.0) / args.games for bot in (strong, weak)]
            print(f"| {game.describe()} | {strong} vs {weak} | {args.games} | {score:.1f}% | "
                  f"{low:.1f}-{high:.1f}% | {per_game[0]:.3f}, {per_game[1]:.3f} |", flush=True)
            if result.perfect_checked:
                print(f"|  | perfect_dp: {result.perfect_checked} games checked against the margin logged at "
                      f"its first move; could win {result.perfect_could_win}, won {result.perfect_won}; "
                      f"margin not met in {len(result.perfect_broken)} | | | | |", flush=True)
            broken += len(result.perfect_broken)
            for line in result.perfect_broken:
                print(f"BROKEN: {line}", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
