#!/usr/bin/env python3
"""What a watched game's turn costs its referee now that games are played in worker
processes: the worker's `on_turn` (`workers._Forward`: the new moves pickled and written to
the parent's pipe) beside the in-process note it replaced (`reports/live.py`'s `_TurnNotes`:
one slice and one deque append), in the same run.

    python benchmarks/bench_forward.py [--turns 20000]

The pipe's other end is drained by a thread of this process, as the pool's thread drains it.
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import threading
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arbiter.tournament.workers import _Forward  # noqa: E402


class _State:
    """What an `on_turn` reads of the referee's state: its moves so far."""

    def __init__(self) -> None:
        self.history: list[int] = []


def per_turn_us(turns: int, note: object) -> float:
    """Microseconds a turn for `note` called after each of `turns` one-move turns."""
    state = _State()
    started = time.perf_counter()
    for move in range(turns):
        state.history.append(move)
        note(state)  # type: ignore[operator]
    return (time.perf_counter() - started) / turns * 1e6


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

    def send(message: tuple[object, ...]) -> None:
        with lock:
            there.send(message)

    notes: deque[tuple[object, ...]] = deque()

    class InProcess:  # _TurnNotes's work: a slice and an append
        seen = 0

        def __call__(self, state: _State) -> None:
            moves = state.history[self.seen:]
            self.seen += len(moves)
            notes.append(("turn", "001-a-b", time.monotonic(), moves))

    rounds = [(per_turn_us(args.turns, InProcess()), per_turn_us(args.turns, _Forward(send, 0))) for _ in range(3)]
    there.close()
    local, forwarded = (sorted(r[i] for r in rounds)[1] for i in (0, 1))  # medians of 3
    print(f"{args.turns} turns, medians of 3: in-process note {local:.2f} us a turn; "
          f"forwarded from a worker {forwarded:.2f} us a turn")


if __name__ == "__main__":
    main()
