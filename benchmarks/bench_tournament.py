#!/usr/bin/env python3
"""Tournament throughput: games per second for random vs random on the 4-row triangle board,
at concurrency 1 and 2, and the share of the time spent starting bot processes.

    python benchmarks/bench_tournament.py [--games 40]

Start-up cost is measured in the same run: a bot process launched, sent `Game ...` and
`Quit`, and reaped, timed over the same number of launches a tournament makes.
"""
from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.tournament.config import load_config  # noqa: E402
from arbiter.tournament.progress import Progress  # noqa: E402
from arbiter.tournament.runner import run_tournament  # noqa: E402

BOT = ROOT / "players" / "random_bot.py"


def tournament_seconds(folder: Path, games: int, concurrency: int) -> float:
    config_path = folder / f"bench-c{concurrency}.yaml"
    config_path.write_text(
        f"name: bench-c{concurrency}\nresults: out-c{concurrency}\ngame: dots-and-triangles\n"
        f"games_per_pairing: {games}\nconcurrency: {concurrency}\nopenings: {{random_moves: 2, seed: 1}}\n"
        f"players:\n  - {{name: a, command: python {BOT} --seed 1}}\n"
        f"  - {{name: b, command: python {BOT} --seed 2}}\n"
    )
    config = load_config(config_path)
    started = time.perf_counter()
    run_tournament(config, Progress(io.StringIO(), quiet=True, tty=False), fresh=True)
    return time.perf_counter() - started


def startup_seconds(launches: int) -> float:
    """Wall time to start, greet and reap `launches` bot processes one after another."""
    started = time.perf_counter()
    for _ in range(launches):
        proc = subprocess.Popen([sys.executable, str(BOT)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        proc.communicate(b"Game dots-and-triangles rows=4 players=2 seat=1 time_ms=30000\nQuit\n")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40, help="games per concurrency level (even)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        one = tournament_seconds(folder, args.games, 1)
        two = tournament_seconds(folder, args.games, 2)
    startup = startup_seconds(2 * args.games)
    print(f"random vs random, dots-and-triangles rows=4, {args.games} games per run")
    print(f"concurrency 1: {one:.2f} s, {args.games / one:.2f} games/s")
    print(f"concurrency 2: {two:.2f} s, {args.games / two:.2f} games/s  (speed-up {one / two:.2f}x)")
    print(f"bot start-up: {1000 * startup / (2 * args.games):.1f} ms per process; "
          f"{100 * startup / one:.0f}% of the concurrency-1 run")


if __name__ == "__main__":
    main()
