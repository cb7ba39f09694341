#!/usr/bin/env python3
"""What a watched game's turn costs its worker: the news the live page is sent
(`turn_news.TurnReporter`: each new move's seat, from a copy of the game fed the same moves, and
its text, the scores and who is to move, pickled and written to the parent's pipe) beside the
forward it replaced (the new moves alone, sliced from the referee's state and sent the same
way, whose seats and texts the arbiter's process then worked out with the rules), in the same
run, on the same real games: the callback's own work (its messages sent nowhere), and with
its messages sent over a pipe.

    python benchmarks/bench_forward.py [--turns 20000]

Each turn is one move, applied to the referee's state outside the timing; only the callback
is timed. The pipe's other end is drained by a thread of this process, as the pool's thread
drains it.
"""
from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arbiter.games import Game, find_game  # noqa: E402
from arbiter.tournament.turn_news import TurnReporter  # noqa: E402
from arbiter.tournament.workers import TURN  # noqa: E402


class MovesOnly:
    """The forward before the news: the moves since the last turn, sent as they are."""

    __slots__ = ("send", "seen")

    def __init__(self, send: Callable[[tuple[Any, ...]], None]) -> None:
        self.send = send
        self.seen = 0

    def __call__(self, state: Any) -> None:
        moves = state.history[self.seen:]
        self.seen += len(moves)
        self.send((TURN, moves))


def per_turn_us(game: Game[Any], turns: int, note: Callable[[Any], None]) -> float:
    """Microseconds a call of `note` after each of up to `turns` one-move turns of a game
    played by taking the first legal move."""
    state = game.new_state()
    elapsed, calls = 0.0, 0
    while calls < turns and not state.is_over():
        state.apply(state.legal_moves()[0])  # the referee's work, not the note's
        started = time.perf_counter()
        note(state)
        elapsed += time.perf_counter() - started
        calls += 1
    return elapsed / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20000)
    args = parser.parse_args()
    here, there = multiprocessing.Pipe()

    def drain() -> None:
        try:
            while True:
                here.recv()
        except EOFError:
            pass

    threading.Thread(target=drain, daemon=True).start()
    lock = threading.Lock()

    def send(message: tuple[Any, ...]) -> None:
        with lock:
            there.send(message)

    games = {"limit-nim, 20 piles of 1000/1": find_game("limit-nim", piles=",".join(["1000/1"] * 20)),
             "dots-and-boxes 20x20": find_game("dots-and-boxes", rows=20, cols=20)}
    print(f"up to {args.turns} one-move turns a game, medians of 5 (microseconds a turn): the callback's own work "
          "(sent nowhere), then sent over the pipe")
    print(f"{'game':<32}{'moves only':>12}{'news':>8}{'ratio':>8}{'moves only, sent':>20}{'news, sent':>12}{'ratio':>8}")
    for label, game in games.items():
        row = []
        for to in (lambda message: None, send):
            rounds = [(per_turn_us(game, args.turns, MovesOnly(to)),
                       per_turn_us(game, args.turns, TurnReporter(lambda *news, to=to: to((TURN, *news)), game, ())))
                      for _ in range(5)]
            before, after = (statistics.median(r[i] for r in rounds) for i in (0, 1))
            row.append(f"{before:>{12 if not row else 20}.2f}{after:>{8 if not row else 12}.2f}{after / before:>7.2f}x")
        print(f"{label:<32}{''.join(row)}")
    there.close()


if __name__ == "__main__":
    main()
