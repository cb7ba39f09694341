#!/usr/bin/env python3
"""Remote games' throughput: games per second of a tournament between a local random bot and
a remote one (a `players/random_bot.py --serve` connected over loopback TCP, as a student's
bot would be), beside the same games between two local random bots in the same run.

    python benchmarks/bench_remote.py [--games 40] [--repeats 3]

Each run is what `arbiter run` does: the check-in (timed on its own: opening the seat and
waiting for the bot, which is already running), then `run_tournament` at concurrency 1
(timed: the rate). The baseline is the same number of games of the same game with both bots
local. Runs alternate, so that load that comes and goes hits both alike; rates are medians
over the repeats. To compare two checkouts: benchmarks/alternate.sh BEFORE AFTER 2 --
benchmarks/bench_remote.py (each checkout its own copy of this script).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.tournament.check_in import check_in_remote_players  # noqa: E402
from arbiter.tournament.config import load_config  # noqa: E402
from arbiter.tournament.progress import Progress  # noqa: E402
from arbiter.tournament.runner import run_tournament  # noqa: E402

BOT = ROOT / "players" / "random_bot.py"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def one_run(folder: Path, name: str, games: int, guest: str) -> tuple[float, float]:
    """(seconds of the check-in, seconds of the games) of one tournament of `games` games."""
    config_path = folder / f"{name}.yaml"
    config_path.write_text(
        f"name: {name}\nresults: {folder / name}\ngame: dots-and-triangles\nparams: {{rows: 4}}\n"
        f"games_per_pairing: {games}\nconcurrency: 1\nsandbox: off\n"
        f"players:\n  - {{name: house, command: python {BOT}}}\n  - {guest}\n")
    config = load_config(config_path)
    progress = Progress(io.StringIO(), quiet=True, tty=False)
    started = time.perf_counter()
    held = check_in_remote_players(config, progress.note, fresh=True)  # a plain call before the remote worker
    with held if held is not None else contextlib.nullcontext():
        checked_in = time.perf_counter()
        outcome = run_tournament(config, progress, fresh=True, backup=False)
        ended = time.perf_counter()
    assert outcome.played_now == games and all(r.termination.value == "normal" for r in outcome.records), \
        [r.detail for r in outcome.records if r.termination.value != "normal"]
    return checked_in - started, ended - checked_in


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    port = free_port()
    bot = subprocess.Popen([sys.executable, str(BOT), "--connect", f"tcp://127.0.0.1:{port}", "--serve"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    remote = f"{{name: student, transport: remote, bind: 'tcp://127.0.0.1:{port}', connect_wait_ms: 30000}}"
    local = f"{{name: guest, command: python {BOT}}}"
    rates: dict[str, list[float]] = {"remote": [], "local": []}
    check_ins: list[float] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-remote-") as tmp:
            one_run(Path(tmp), "warm", 2, remote)  # the bot connected, the workers' server started
            for repeat in range(args.repeats):
                for kind, guest in (("remote", remote), ("local", local)):
                    check_in_s, games_s = one_run(Path(tmp), f"{kind}{repeat}", args.games, guest)
                    rates[kind].append(args.games / games_s)
                    if kind == "remote":
                        check_ins.append(check_in_s)
    finally:
        os.killpg(bot.pid, signal.SIGKILL)
        bot.wait()
    remote_rate, local_rate = statistics.median(rates["remote"]), statistics.median(rates["local"])
    print(f"dots-and-triangles rows=4, {args.games} games per run, concurrency 1, {args.repeats} runs of each, "
          f"medians; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print("| run | games/s | / local | check-in |")
    print("|---|---:|---:|---:|")
    print(f"| house vs a remote bot | {remote_rate:.2f} | {remote_rate / local_rate:.2f}x | "
          f"{statistics.median(check_ins) * 1000:.0f} ms |")
    print(f"| house vs a local bot | {local_rate:.2f} | 1.00x | |")


if __name__ == "__main__":
    main()
