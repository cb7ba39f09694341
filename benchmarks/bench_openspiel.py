#!/usr/bin/env python3
"""The referee's own cost per move on OpenSpiel's games, beside the same on our own rules.

Baseline: dots-and-boxes on our rules (`dots-and-boxes rows=5 cols=5`); beside it the same
game on OpenSpiel's rules through the adapter (`openspiel:dots_and_boxes num_rows=5
num_cols=5`), then OpenSpiel's Connect Four, and backgammon, where the referee also draws
every roll and sends it as a `Chance` line to both seats. Each game is played by two
bundled random bots (the Python kit: the bot's own rules are on its clock, not in the
figure), sandboxed and suspended as in a tournament.

Per turn, the arbiter's own time is the time between two turns' ends (`on_turn` timestamps)
less the bot's recorded `wall_ms` of the turn's moves (the bot's clock runs from the
hand-over's first byte to the move's arrival, so it holds the pipe and SIGCONT; what is left
is the arbiter's: reading the move, the rules' parse, legality check and apply, chance's
draws, the record, SIGSTOP, the looks for output out of turn), divided by the turn's moves
(chance's draws not counted as moves). Medians over every turn, as bench_referee.py does: a
shared machine's load spikes land in a few turns. Every repeat plays each game
once, interleaved (after a warm-up game of each, in an order that turns each repeat), so a
load spike hits all alike; the table gives medians over repeats and each game's ratio to the
baseline of the same repeat.

Run: python benchmarks/bench_openspiel.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.games import CHANCE, find_game  # noqa: E402
from arbiter.referee import PlayerSpec, TimeControl, play_game  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec  # noqa: E402

GAMES = [  # (label, game, parameters); the first is the baseline
    ("dots-and-boxes 5x5, our rules", "dots-and-boxes", {"rows": 5, "cols": 5}),
    ("dots_and_boxes 5x5, OpenSpiel's", "openspiel:dots_and_boxes", {"num_rows": 5, "num_cols": 5}),
    ("connect_four, OpenSpiel's", "openspiel:connect_four", {}),
    ("backgammon, OpenSpiel's (with dice)", "openspiel:backgammon", {}),
]


def arbiter_us_per_move(name: str, params: dict[str, object], seed: int, log_dir: Path) -> tuple[list[float], int]:
    """One game between two random bots: the arbiter's microseconds per move, turn by turn
    (the second turn on), and the game's moves."""
    players = [PlayerSpec(name=f"random{k}", command=(sys.executable, str(ROOT / "players" / "random_bot.py"),
                                                       "--seed", str(seed + k)),
                          sandbox=SandboxSpec(read=(str(ROOT),))) for k in range(2)]
    stamps: list[tuple[float, int]] = []  # (when a turn ended, moves and draws recorded by then)

    def on_turn(state: Any) -> None:
        stamps.append((time.monotonic(), len(state.history)))

    record = play_game(find_game(name, **params), players, time=TimeControl(time_ms=120000), log_dir=log_dir,
                       on_turn=on_turn, chance_seed=seed)
    assert record.termination.value == "normal", record.detail
    per_turn = []
    for (before, done), (now, count) in zip(stamps, stamps[1:]):
        moves = [m for m in record.moves[done:count] if m.seat != CHANCE]
        per_turn.append(((now - before) * 1000 - sum(m.wall_ms for m in moves)) * 1000 / len(moves))
    return per_turn, sum(1 for m in record.moves if m.seat != CHANCE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    per_game: dict[str, list[float]] = {label: [] for label, _, _ in GAMES}  # every turn of every repeat
    ratios: dict[str, list[float]] = {label: [] for label, _, _ in GAMES}
    counts: dict[str, list[int]] = {label: [] for label, _, _ in GAMES}
    with tempfile.TemporaryDirectory() as folder:
        for _, name, params in GAMES:  # warm-up: every module loaded, every bot command started once
            arbiter_us_per_move(name, params, 0, Path(folder))
        for repeat in range(args.repeats):
            figures: dict[str, float] = {}
            order = GAMES[repeat % len(GAMES):] + GAMES[:repeat % len(GAMES)]  # no game always first
            for label, name, params in order:
                turns, moves = arbiter_us_per_move(name, params, 100 * repeat + 1, Path(folder))
                figures[label] = statistics.median(turns)
                per_game[label] += turns
                counts[label].append(moves)
            for label, _, _ in GAMES:
                ratios[label].append(figures[label] / figures[GAMES[0][0]])
    print(f"| game | moves a game (median) | arbiter per move (µs, median over every turn) | ratio to our rules "
          f"(median of {args.repeats} repeats, range) |")
    print("|---|---:|---:|---:|")
    for label, _, _ in GAMES:
        r = ratios[label]
        print(f"| {label} | {statistics.median(counts[label]):.0f} | {statistics.median(per_game[label]):.0f} | "
              f"{statistics.median(r):.2f} ({min(r):.2f} to {max(r):.2f}) |")


if __name__ == "__main__":
    main()
