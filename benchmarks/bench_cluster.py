#!/usr/bin/env python3
"""Dask dispatch overhead per game: the same tournament played here and on a local Dask cluster.

    python benchmarks/bench_cluster.py [--games 60] [--slots 1 2] [--rounds 2]

For K slots, the tournament (random vs random on the 4-row triangle board, sandboxed as by
default) is played with concurrency K in this process's threads, and on a Dask cluster
started here with K worker processes of one core each, alternately, `--rounds` times.

Each record says when its game started and how long it took. Matching each game's start
with the earliest earlier end not yet matched gives the gaps in which a slot stood idle
between two games (the result travelling back, recorded, the next game sent and started);
the first K starts have no gap. A run's figure is its median gap, which a load spike on
this shared machine moves less than a mean; the games' own lengths, which vary from run
to run, do not enter it. The Dask dispatch overhead per game is the median gap on the
cluster minus the median gap here, over runs alternated in
one process. Connecting to the cluster and checking its workers is a once-per-run cost,
shown apart. For scale, the same run measures Dask's own gap between two tasks queued on
one worker (a 200 ms busy loop each, no arbiter code): the floor under any game's dispatch.
"""
from __future__ import annotations

import argparse
import io
from datetime import datetime
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from distributed import Client, LocalCluster  # noqa: E402

from arbiter.records import GameRecord  # noqa: E402
from arbiter.tournament.cluster import connect  # noqa: E402
from arbiter.tournament.config import TournamentConfig, load_config, with_cluster  # noqa: E402
from arbiter.tournament.progress import Progress  # noqa: E402
from arbiter.tournament.runner import TournamentRunner, prepare_results  # noqa: E402

BOT = ROOT / "players" / "random_bot.py"


@dataclass(frozen=True)
class Run:
    wall_s: float
    idle_ms: float  # the median gap between a slot's games
    connect_s: float = 0.0


def idle_per_game_ms(records: list[GameRecord], slots: int) -> float:
    """The median idle gap of a slot: each game's start less the earliest earlier game end not
    yet taken by another start (a freed slot takes the next game)."""
    spans = sorted((start := datetime.fromisoformat(r.started_at).timestamp(), start + r.duration_s)
                   for r in records)
    free: list[float] = []  # ends of games whose slot has not started another game yet
    gaps: list[float] = []
    for start, end in spans:
        # A record's start is kept to the millisecond: a game that started within a
        # millisecond of another's end (as the next game of a slot does here) may read as
        # starting before it.
        earlier = [when for when in free if when <= start + 0.001]
        if earlier:
            free.remove(min(earlier))
            gaps.append(max(0.0, start - min(earlier)))
        free.append(end)
    return 1000 * statistics.median(gaps)


def config_for(folder: Path, games: int, slots: int) -> TournamentConfig:
    path = folder / "bench.yaml"
    path.write_text(
        f"name: bench\nresults: out\ngame: dots-and-triangles\ngames_per_pairing: {games}\nconcurrency: {slots}\n"
        f"openings: {{random_moves: 2, seed: 1}}\nplayers:\n  - {{name: a, command: python {BOT}}}\n"
        f"  - {{name: b, command: python {BOT}}}\n"
    )
    return load_config(path)


def play(config: TournamentConfig, slots: int) -> Run:
    progress = Progress(io.StringIO(), quiet=True, tty=False)
    store = prepare_results(config, fresh=True)
    if config.cluster is None:
        runner = TournamentRunner(config, store, progress)
        started = time.perf_counter()
        outcome = runner.run()
        wall, connected = time.perf_counter() - started, 0.0
    else:
        began = time.perf_counter()
        with connect(config, lambda _: None) as cluster:
            assert cluster.slots == slots
            connected = time.perf_counter() - began
            runner = TournamentRunner(config, store, progress, cluster=cluster)
            started = time.perf_counter()
            outcome = runner.run()
            wall = time.perf_counter() - started
    assert outcome.played_now == len(outcome.records) == config.games_per_pairing
    return Run(wall, idle_per_game_ms(outcome.records, slots), connected)


def busy_200ms(_: int) -> tuple[float, float]:
    """A task that keeps its core busy for 200 ms; returns when it started and ended."""
    began = time.time()
    while time.time() - began < 0.2:
        pass
    return began, time.time()


def dask_gap_ms(cluster: LocalCluster, tasks: int = 30) -> float:
    """Median time between one task's end and the next one's start, both queued on one worker."""
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        worker = next(iter(client.scheduler_info()["workers"]))
        futures = [client.submit(busy_200ms, k, pure=False, workers=[worker], resources={"cores": 1})
                   for k in range(tasks)]
        spans = sorted(future.result() for future in futures)
    return 1000 * statistics.median(after[0] - before[1] for before, after in zip(spans, spans[1:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60, help="games per run (even)")
    parser.add_argument("--slots", type=int, nargs="+", default=[1, 2], help="games at once (worker processes)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each kind, alternated")
    args = parser.parse_args()
    print(f"{args.games} games of random vs random (dots-and-triangles rows=4), {args.rounds} rounds\n")
    print("| slots | where | wall s (median) | games/s | median idle gap between games, ms | dispatch overhead, ms/game "
          "| connect + check, s |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for slots in args.slots:
            config = replace(config_for(Path(tmp), args.games, slots), results_dir=Path(tmp) / f"out-{slots}")
            with LocalCluster(n_workers=slots, threads_per_worker=1, processes=True, resources={"cores": 1},
                              host="127.0.0.1", dashboard_address=":0") as cluster:
                remote = with_cluster(config, cluster.scheduler_address)
                here, there = [], []
                for _ in range(args.rounds):
                    here.append(play(config, slots))
                    there.append(play(remote, slots))
                gap = dask_gap_ms(cluster)
            local_ms = statistics.median(r.idle_ms for r in here)
            cluster_ms = statistics.median(r.idle_ms for r in there)
            for where, runs, overhead in (("here", here, ""), ("cluster", there, f"{cluster_ms - local_ms:+.1f}")):
                wall = statistics.median(r.wall_s for r in runs)
                connected = f"{statistics.median(r.connect_s for r in runs):.2f}" if where == "cluster" else ""
                print(f"| {slots} | {where} | {wall:.2f} | {args.games / wall:.1f} | "
                      f"{statistics.median(r.idle_ms for r in runs):.1f} | {overhead} | {connected} |", flush=True)
            print(f"|  | Dask alone: gap between two tasks queued on a worker | | | {gap:.1f} | | |", flush=True)


if __name__ == "__main__":
    main()
