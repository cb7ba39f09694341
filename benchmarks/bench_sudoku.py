#!/usr/bin/env python3
"""CodeCup Sudoku: what the referee's solution checks cost per move, over full games.

Games are played in-process between the three sample strategies (every ordered pairing,
`--rounds` times, seeded). Then every move of every game is replayed the way the referee
applies it, `state.play(text)` on a copy of the position before it: parse, the sudoku
rules, and the solution checks (is there still a solution; did the move reduce the
solutions, i.e. is there a solution with another digit in that cell; for a claim, is
there exactly one). The baseline, timed on the same moves in the same run, is the rules
alone without the solution checks (parse, occupied cell, digit already in its row,
column or box, place the digit). A plain backtracker without propagation is no usable
baseline: it does not finish the claim positions in minutes.

The same is measured on `--blind-games` games of uniformly random moves the sudoku rules
allow, blind to solutions (as a solver-less entry like tests/bots/codecup_style_sudoku.py
plays): they end by leaving no solution, often on a sparse grid, which the referee must
prove. Also reported: the strategies' own thinking time per move, and the per-game total
of the referee's checks as a share of one player's 30 s budget.

    python benchmarks/bench_sudoku.py              # 27 + 100 games, about 20 s
    python benchmarks/bench_sudoku.py --rounds 1 --blind-games 20
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout

from arbiter.bot import BotContext  # noqa: E402
from arbiter.games import find_game  # noqa: E402
from arbiter.games.codecup_sudoku import CodecupSudoku, CodecupSudokuState  # noqa: E402
from players.strategies.sudoku import choose_claimer, choose_random, choose_winner  # noqa: E402

STRATEGIES = {"random": choose_random, "claimer": choose_claimer, "winner": choose_winner}
BUDGET_MS = 30_000.0  # one player's time for a whole CodeCup game


def play_games(game: CodecupSudoku, rounds: int) -> tuple[list[list[tuple[CodecupSudokuState, str]]],
                                                          dict[str, list[float]]]:
    """Seeded games of every ordered pairing: per game, (position before, move text) pairs;
    and each strategy's thinking times in ms."""
    games = []
    think_ms: dict[str, list[float]] = {name: [] for name in STRATEGIES}
    for round_ in range(rounds):
        for first in STRATEGIES:
            for second in STRATEGIES:
                names = [first, second]
                contexts = [BotContext(game=game, seat=s, rng=random.Random(round_ * 100 + s)) for s in (0, 1)]
                state = game.new_state()
                moves = []
                while not state.is_over():
                    seat = state.current_player
                    started = time.perf_counter()
                    move = STRATEGIES[names[seat]](state, contexts[seat])
                    think_ms[names[seat]].append((time.perf_counter() - started) * 1000)
                    moves.append((state.clone(), game.format_move(move)))
                    state.apply(move)
                games.append(moves)
    return games, think_ms


def play_blind_games(game: CodecupSudoku, count: int) -> list[list[tuple[CodecupSudokuState, str]]]:
    """Seeded games of uniformly random rule-legal placements: per game, (position, move text)."""
    games = []
    for seed in range(count):
        rng = random.Random(seed)
        state = game.new_state()
        moves = []
        while not state.is_over():
            move = rng.choice(state.legal_moves())
            moves.append((state.clone(), game.format_move(move)))
            state.apply(move)
        games.append(moves)
    return games


def referee_ms(before: CodecupSudokuState, text: str) -> float:
    """One move as the referee applies it: parse, rules, solution checks."""
    state = before.clone()
    started = time.perf_counter()
    state.play(text)
    return (time.perf_counter() - started) * 1000


def rules_only_ms(before: CodecupSudokuState, text: str) -> float:
    """The baseline: parse and the sudoku rules, placing the digit, no solution checks."""
    state = before.clone()
    started = time.perf_counter()
    move = state.game.parse_move(text)
    if state.illegal_reason(move) is None and move.cell is not None:
        state._place(move.cell, move.digit)
    return (time.perf_counter() - started) * 1000


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (f"mean {statistics.fmean(values):7.3f}  median {statistics.median(values):7.3f}  "
            f"p99 {p99:7.3f}  max {ordered[-1]:7.3f}")


def report(title: str, games: list[list[tuple[CodecupSudokuState, str]]]) -> None:
    """Replay every move as the referee and as the baseline; print the figures."""
    moves = [move for moves in games for move in moves]
    referee = [referee_ms(before, text) for before, text in moves]
    baseline = [rules_only_ms(before, text) for before, text in moves]
    per_game: list[float] = []
    at = 0
    for moves_of_game in games:
        per_game.append(sum(referee[at:at + len(moves_of_game)]))
        at += len(moves_of_game)
    claims = [ms for ms, (_, text) in zip(referee, moves) if text.endswith("!")]
    print(f"{title}: {len(games)} games, {len(moves)} moves ({len(claims)} claims), "
          f"{statistics.fmean(len(g) for g in games):.1f} moves per game")
    print("  per move, ms:")
    print(f"    referee (parse, rules, solution checks)  {summary(referee)}")
    if claims:
        print(f"      of which claim moves                   {summary(claims)}")
    print(f"    baseline (parse, rules, no solver)       {summary(baseline)}")
    print(f"    ratio of medians, referee / baseline     {statistics.median(referee) / statistics.median(baseline):.0f}x")
    print(f"  per game, the referee's checks, ms:        {summary(per_game)}")
    print(f"  the most expensive game's checks are {max(per_game) / BUDGET_MS:.3%} of one player's "
          f"{BUDGET_MS / 1000:.0f} s budget")


def main() -> int:
    """Play, replay, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="games per ordered pairing (default 3)")
    parser.add_argument("--blind-games", type=int, default=100, help="games of random rule-legal moves (default 100)")
    args = parser.parse_args()
    game: CodecupSudoku = find_game("codecup-sudoku")  # type: ignore[assignment]
    games, think_ms = play_games(game, args.rounds)
    report("sample players", games)
    report("blind random placements", play_blind_games(game, args.blind_games))
    print("strategies' thinking per move, ms:")
    for name, values in think_ms.items():
        print(f"  {name:<8} {summary(values)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
