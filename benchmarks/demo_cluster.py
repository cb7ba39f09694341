#!/usr/bin/env python3
"""The bundled demo here and on a local two-worker Dask cluster that loses a worker mid-run:
issue 16's "Done when" (the same standings; a killed worker costs no game).

    python benchmarks/demo_cluster.py [--kill-after 24]

Plays configs/demo.yaml (72 games, concurrency 2) in this process, then on a Dask cluster
the script starts on loopback: a scheduler and 2 worker processes under nannies, 1 thread
and `cores=1` each (2 games at once, as here). When the cluster run has recorded
`--kill-after` games, the process of a worker holding games gets SIGKILL; its nanny starts
a new worker process and Dask plays the lost games again. Then both runs are compared:
records in games.jsonl (72 each), game ids recorded twice, faults (timeouts, crashes, ...)
the local run does not have, what decides each game (seats, opening, every move, result,
seed: tests/tournament_helpers.played) and the standings (compute_standings, less move times).
A script, not a test: the two runs take minutes.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # what decides a game, as the cluster tests compare it

from distributed import Client, LocalCluster  # noqa: E402

from arbiter.records import GameRecord  # noqa: E402
from arbiter.tournament.config import TournamentConfig, load_config, with_cluster  # noqa: E402
from arbiter.tournament.progress import Progress  # noqa: E402
from arbiter.tournament.runner import run_tournament  # noqa: E402
from tournament_helpers import played, table  # noqa: E402


@dataclass
class Kill:
    """The worker killed mid-run: its address and pid, the games it held, and when."""

    worker: str = ""
    pid: int = 0
    games: list[str] = field(default_factory=list)
    after_games: int = 0
    at_s: float = 0.0


class KillAWorker(Progress):
    """Silent progress that, once `after` games are recorded, SIGKILLs a worker holding games."""

    def __init__(self, client: Client, after: int) -> None:
        super().__init__(io.StringIO(), quiet=True, tty=False)
        self.client, self.after = client, after
        self.began = time.monotonic()
        self.kill = Kill()
        self.killer: threading.Thread | None = None

    def game_done(self, record: GameRecord, records: Sequence[GameRecord]) -> None:
        super().game_done(record, records)
        if self.done == self.after:  # from another thread: the runner's loop goes on meanwhile
            self.killer = threading.Thread(target=self._kill_one)
            self.killer.start()

    def _kill_one(self) -> None:
        held = {worker: keys for worker, keys in self.client.processing().items() if keys}
        worker = sorted(held)[0]
        pid = self.client.run(os.getpid, workers=[worker])[worker]
        os.kill(pid, signal.SIGKILL)
        self.kill = Kill(worker, pid, sorted(key.split("-", 2)[2] for key in held[worker]), self.done,
                         time.monotonic() - self.began)


@dataclass(frozen=True)
class Run:
    records: list[GameRecord]
    lines: int  # records in games.jsonl, as written
    wall_s: float

    @property
    def repeated(self) -> int:
        """Game ids recorded more than once."""
        ids = [record.id for record in self.records]
        return len(ids) - len(set(ids))

    @property
    def faults(self) -> set[tuple[str, str, Any]]:
        return {(r.id, r.termination.value, r.offender) for r in self.records if r.termination.is_fault}


def play(config: TournamentConfig, progress: Progress) -> Run:
    started = time.perf_counter()
    run_tournament(config, progress, fresh=True)
    wall = time.perf_counter() - started
    lines = (config.results_dir / "games.jsonl").read_text().splitlines()
    return Run([GameRecord.from_json(json.loads(line)) for line in lines], len(lines), wall)


def differences(here: list[tuple[Any, ...]], there: list[tuple[Any, ...]]) -> list[str]:
    """Per game that differs: its id and the fields that differ."""
    fields = ("id", "names", "opening", "moves", "scores", "winner", "termination", "offender", "points", "seed")
    found = []
    for mine, theirs in zip(here, there):
        if mine != theirs:
            found.append(f"{mine[0]}: " + ", ".join(name for name, a, b in zip(fields, mine, theirs) if a != b))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kill-after", type=int, default=24, metavar="N",
                        help="kill a worker when the cluster run has recorded N games (default %(default)s)")
    args = parser.parse_args()
    demo = load_config(ROOT / "configs" / "demo.yaml")
    with tempfile.TemporaryDirectory(prefix="demo-cluster-") as tmp:
        here = play(replace(demo, results_dir=Path(tmp) / "here"), Progress(io.StringIO(), quiet=True, tty=False))
        print(f"here: {len(here.records)} games in {here.wall_s:.1f} s", flush=True)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, resources={"cores": 1},
                          host="127.0.0.1", dashboard_address=":0") as cluster, \
                Client(cluster.scheduler_address, set_as_default=False) as client:
            before = sorted(client.run(os.getpid).values())
            client.get_task_stream()  # the scheduler records which worker finishes each task from now on
            progress = KillAWorker(client, args.kill_after)
            there = play(with_cluster(replace(demo, results_dir=Path(tmp) / "there"), cluster.scheduler_address),
                         progress)
            assert progress.killer is not None, "the run ended before a worker was killed"
            progress.killer.join()
            client.wait_for_workers(2, timeout=60)
            after = sorted(client.run(os.getpid).values())
            finished = {entry["key"].split("-", 2)[2]: entry["worker"] for entry in client.get_task_stream()
                        if entry["key"].startswith("arbiter-") and entry["status"] == "OK"}
    kill = progress.kill
    print(f"cluster: {len(there.records)} games in {there.wall_s:.1f} s; worker {kill.worker} (pid {kill.pid}) "
          f"killed {kill.at_s:.1f} s in, after {kill.after_games} games, holding games {', '.join(kill.games)}; "
          f"worker pids {before} before, {after} after; "
          + ", ".join(f"{game} then finished on {finished.get(game, 'no worker')}" for game in kill.games) + "\n")
    decided = differences(played(here.records), played(there.records))
    standings_here, standings_there = table(here.records, demo), table(there.records, demo)
    rows = [
        ("records in games.jsonl", here.lines, there.lines),
        ("game ids recorded twice", here.repeated, there.repeated),
        ("faults (timeout, crash, ...)", len(here.faults), len(there.faults)),
        ("faults the local run did not have", "", len(there.faults - here.faults)),
        ("games decided the same (seats, opening, moves, result, seed)", "",
         f"{len(here.records) - len(decided)} of {len(here.records)}"),
        ("standings identical", "", "yes" if standings_here == standings_there else "NO"),
        ("wall s", f"{here.wall_s:.1f}", f"{there.wall_s:.1f}"),
    ]
    print("| | here | cluster, a worker killed |\n|---|---:|---:|")
    for name, mine, theirs in rows:
        print(f"| {name} | {mine} | {theirs} |")
    print("\n| rank | player | games | W | D | L | points | faults |\n|---:|---|---:|---:|---:|---:|---:|---:|")
    for rank, name, games, wins, draws, losses, points, faults in standings_there:
        print(f"| {rank} | {name} | {games} | {wins} | {draws} | {losses} | {points:g} | {sum(faults.values())} |")
    for line in decided:
        print(f"differs: {line}")
    if standings_here != standings_there:
        print(f"standings here: {standings_here}")


if __name__ == "__main__":
    main()
