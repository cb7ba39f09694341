#!/usr/bin/env python3
"""What the rules host costs: the tamper check and the report's pictures of OpenSpiel games,
in this process (as before the host) and through the rules host (tournament/rules_host.py).

    python benchmarks/bench_rules_host.py [--games 2000] [--repeat 3] [--game openspiel:connect_four]

Writes a results folder of `--games` random games of `--game` among 8 players (made by
tests/report_samples.py) and times, in wall seconds (the host's work is in another process,
so this process's CPU time would not see it), the best of `--repeat` runs of:
- replay here: GameStore.load with audit.replay_problem run in this process;
- replay in the host: GameStore.load with audit.RecordAudit, each record one call to the host;
- pictures here: each game's frames (board_geometry's text board) drawn in this process;
- pictures in the host: the same through the host (board_for's hosted board).
The runs take turns, so that the shared machine's load weighs on each alike; the host is
started before the first run and recycled every RECYCLE_AFTER_CALLS calls as in a real run
(those starts are in the figures).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from arbiter.games import find_game  # noqa: E402
from arbiter.reports.board_geometry import board_for, text_board  # noqa: E402
from arbiter.tournament.audit import RecordAudit, replay_problem  # noqa: E402
from arbiter.tournament.rules_host import RULES_HOST  # noqa: E402
from arbiter.tournament.store import GameStore  # noqa: E402
from report_samples import write_sample_tournament  # noqa: E402

PLAYERS = tuple(f"bot{n}" for n in range(1, 9))


def best_interleaved(actions: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Each action's best of `repeat` runs in wall seconds, the actions taking turns run by run."""
    best = {name: float("inf") for name in actions}
    for _ in range(repeat):
        for name, action in actions.items():
            started = time.perf_counter()
            action()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--game", default="openspiel:connect_four")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pairings = len(PLAYERS) * (len(PLAYERS) - 1) // 2
        folder = write_sample_tournament(Path(tmp) / "results", players=PLAYERS, game_name=args.game, params={},
                                         games_per_pairing=-(-args.games // pairings), opening=0, timeouts=0, seed=5)
        games = folder / "games.jsonl"
        records = GameStore(games).load()
        moves = sum(len(r.moves) for r in records)
        here_board = text_board(find_game(args.game))
        hosted_board = board_for(args.game, {})
        assert hosted_board.hosted and not here_board.hosted
        texts = [[m.move for m in record.moves] for record in records]
        assert hosted_board.frames(texts[0], "warm") == here_board.frames(texts[0])  # the host started, and alike
        print(f"{args.game}: {len(records)} games, {moves} moves; best of {args.repeat}, wall seconds")
        timed = best_interleaved({
            "replay here": lambda: GameStore(games, audit=replay_problem).load(),
            "replay in the host": lambda: GameStore(games, audit=RecordAudit()).load(),
            "pictures here": lambda: [here_board.frames(t) for t in texts],
            "pictures in the host": lambda: [hosted_board.frames(t, "g") for t in texts],
        }, args.repeat)
        RULES_HOST.close()
    for name, seconds in timed.items():
        print(f"  {name:22s} {seconds:7.3f} s  {seconds / len(records) * 1e6:7.0f} us a game")
    for what in ("replay", "pictures"):
        here, there = timed[f"{what} here"], timed[f"{what} in the host"]
        print(f"  {what}: the host costs {(there - here) / len(records) * 1e6:.0f} us a game more, {there / here:.2f}x")


if __name__ == "__main__":
    main()
