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
The four take turns, run by run, so that the machine's load weighs on each alike.
"""
from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import tracemalloc
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from arbiter.records import record_problem  # noqa: E402
from arbiter.reports.standings import compute_standings  # noqa: E402
from arbiter.tournament.audit import replay_problem  # noqa: E402
from arbiter.tournament.store import GameStore  # noqa: E402
from report_samples import write_sample_tournament  # noqa: E402

PLAYERS = tuple(f"bot{n}" for n in range(1, 9))


def json_objects(path: Path) -> list[Any]:
    objects = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert all(record_problem(data) is None for data in objects)
    return objects


def best_interleaved(actions: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Each action's best of `repeat` runs in CPU seconds, the actions taking turns run by run,
    so that a neighbour's burst on the shared machine weighs on all of them alike, each run
    after a full collection, so that none pays for the garbage of the one before."""
    best = {name: float("inf") for name in actions}
    for _ in range(repeat):
        for name, action in actions.items():
            gc.collect()  # each starts from the same heap: no garbage of the one before to collect
            started = time.process_time()
            action()
            best[name] = min(best[name], time.process_time() - started)
    return best


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
        timed = best_interleaved({
            "baseline": lambda: json_objects(games),
            "typed (GameStore.load)": lambda: GameStore(games).load(),
            "audited (load with replay_problem)": lambda: GameStore(games, audit=replay_problem).load(),
            "standings (compute_standings)": lambda: compute_standings(records, players=PLAYERS),
        }, args.repeat)
        baseline = timed.pop("baseline")
        figures = timed
        print(f"  {'baseline (json.loads + record_problem)':40} {baseline:6.3f} s")
        for name, seconds in figures.items():
            print(f"  {name:40} {seconds:6.3f} s = {seconds / baseline:4.2f} x baseline "
                  f"({(seconds - baseline) / len(records) * 1e6:+.0f} us a game)")
        records = []  # the timed ones let go before the memory is traced
        for name, read in (("the JSON objects", lambda: json_objects(games)),
                           ("the typed records", lambda: GameStore(games).load())):
            gc.collect()
            tracemalloc.start()
            held = read()
            size = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            del held
            print(f"  memory held by {name:26} {size / 1e6:6.1f} MB")


if __name__ == "__main__":
    main()
