#!/usr/bin/env python3
"""Reading games.jsonl as typed records: what GameRecords cost over the JSON objects alone.

    python benchmarks/bench_records.py [--games 3000] [--repeat 5]

Writes a results folder of `--games` random dots-and-triangles games among 8 players (played
in-process by tests/report_samples.py) and times, in CPU seconds of this process (the machine
is shared: wall time would measure the neighbours), the best of `--repeat` runs of:
- baseline: each line parsed by json.loads and checked by records.record_problem, the JSON
  objects a reader had before records were typed;
- typed: GameStore.load, each line read into a GameRecord (records.read_record);
- audited: GameStore.load with the tamper check (audit.replay_problem), as `arbiter report`,
  the end of a run and a resume read a folder;
- standings: reports.standings.compute_standings over the typed records.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from arbiter.records import record_problem  # noqa: E402
from arbiter.reports.standings import compute_standings  # noqa: E402
from arbiter.tournament.audit import replay_problem  # noqa: E402
from arbiter.tournament.store import GameStore  # noqa: E402
from bench_report import best_seconds  # noqa: E402
from report_samples import write_sample_tournament  # noqa: E402

PLAYERS = tuple(f"bot{n}" for n in range(1, 9))


def json_objects(path: Path) -> list[Any]:
    objects = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert all(record_problem(data) is None for data in objects)
    return objects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pairings = len(PLAYERS) * (len(PLAYERS) - 1) // 2
        folder = write_sample_tournament(Path(tmp) / "results", players=PLAYERS, game_name="dots-and-triangles",
                                         params={"rows": 4}, games_per_pairing=-(-args.games // pairings),
                                         opening=2, timeouts=3, seed=5)
        games = folder / "games.jsonl"
        records = GameStore(games).load()
        moves = sum(len(r.moves) for r in records)
        print(f"{len(records)} games, {moves} moves (games.jsonl {games.stat().st_size / 1e6:.1f} MB), "
              f"best of {args.repeat}, CPU seconds")
        baseline = best_seconds(lambda: json_objects(games), args.repeat, time.process_time)
        figures = {
            "typed (GameStore.load)": best_seconds(lambda: GameStore(games).load(), args.repeat, time.process_time),
            "audited (load with replay_problem)": best_seconds(
                lambda: GameStore(games, audit=replay_problem).load(), args.repeat, time.process_time),
            "standings (compute_standings)": best_seconds(
                lambda: compute_standings(records, players=PLAYERS), args.repeat, time.process_time),
        }
        print(f"  {'baseline (json.loads + record_problem)':40} {baseline:6.3f} s")
        for name, seconds in figures.items():
            print(f"  {name:40} {seconds:6.3f} s = {seconds / baseline:4.2f} x baseline "
                  f"({(seconds - baseline) / len(records) * 1e6:+.0f} us a game)")


if __name__ == "__main__":
    main()
