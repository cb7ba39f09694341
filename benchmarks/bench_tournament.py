#!/usr/bin/env python3
"""Tournament throughput: games per second for random vs random on the 4-row triangle board,
at concurrency 1 and 2, beside a floor measured in the same run.

    python benchmarks/bench_tournament.py [--games 40] [--repeats 2] [--sandbox]

The tournament is a real `run_tournament` (2-move openings) into a temporary folder, its bots
`players/random_bot.py`, unsandboxed like the floor (`--sandbox` runs it boxed too, for one
more line; what the box costs is benchmarks/bench_sandbox.py's subject).

The floor plays the same games again without the arbiter: for each recorded game, two bare
Python processes (`python -c` with a loop of a few lines, no imports) are started, sent the
lines the referee sent (the `Game` line, the opening, `Start`, the other seat's moves before
each turn, `Quit`), answer with the moves of the record, and are reaped once their input
ends. The same number of games, at the same concurrency, by threads of this process. What
is between the two is the arbiter's and the bot kit's cost: starting a bot (the kit, the
rules), refereeing, shutting down, recording; and the default `suspend_idle: true`, under
which a bot is stopped whenever it is not its turn (its start-up excepted: a game's bots
start side by side, as the floor's do): a run with `suspend_idle: false` (pondering
allowed) is measured beside it. Concurrency levels and floor runs alternate,
so load that comes and goes hits them alike; rates are medians over the repeats.

Beside each rate, the CPU time a game cost (`getrusage`, medians over the repeats): the bots'
and the game workers' (with their boxes: every reaped child of this process, and the
zygote's tree the workers run in: the referee's own work is in this column since games
are played in worker processes) and this process's own (the arbiter that schedules and
records; for the floor, the harness's threads), and the cores they kept busy on average.
The zygote the workers come from is started before the first timed run (its start, a
cost once per command like the arbiter's own imports, is printed in the heading). Where both
sides keep every core busy, the ratio of rates is the ratio of CPU a game.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.games import find_game  # noqa: E402
from arbiter.protocol import ARBITER, START  # noqa: E402
from arbiter.tournament.config import load_config  # noqa: E402
from arbiter.tournament.progress import Progress  # noqa: E402
from arbiter.tournament.runner import run_tournament  # noqa: E402

BOT = ROOT / "players" / "random_bot.py"
GAME = find_game("dots-and-triangles", rows=4)

# A floor bot: its argv is, per turn, how many lines to read and then the lines to write.
FLOOR_BOT = (
    "import sys\n"
    "script, read, out = sys.argv[1:], sys.stdin.readline, sys.stdout\n"
    "for count, reply in zip(script[::2], script[1::2]):\n"
    "    for _ in range(int(count)):\n"
    "        read()\n"
    "    out.write(reply)\n"
    "    out.flush()\n"
    "while read():\n"
    "    pass\n"
)


def tournament_run(folder: Path, games: int, concurrency: int, sandbox: bool = False,
                   suspend_idle: bool = True, reuse: bool = False) -> tuple[float, list[dict[str, Any]]]:
    """Seconds for a tournament of `games` games, and its records (`reuse`: many games a
    process, bench_reuse.py)."""
    name = (f"bench-c{concurrency}-{'boxed' if sandbox else 'unboxed'}-{'suspend' if suspend_idle else 'ponder'}"
            f"{'-reuse' if reuse else ''}")
    config_path = folder / f"{name}.yaml"
    config_path.write_text(
        f"name: {name}\nresults: {folder / name}\ngame: dots-and-triangles\nsandbox: {'on' if sandbox else 'off'}\n"
        f"games_per_pairing: {games}\nconcurrency: {concurrency}\nopenings: {{random_moves: 2, seed: 1}}\n"
        f"time: {{suspend_idle: {'true' if suspend_idle else 'false'}}}\nreuse: {'true' if reuse else 'false'}\n"
        f"players:\n  - {{name: a, command: python {BOT}}}\n  - {{name: b, command: python {BOT}}}\n"
    )
    config = load_config(config_path)
    started = time.perf_counter()
    run_tournament(config, Progress(io.StringIO(), quiet=True, tty=False), fresh=True)
    elapsed = time.perf_counter() - started
    lines = (folder / name / "games.jsonl").read_text().splitlines()
    return elapsed, [json.loads(line) for line in lines]


def floor_scripts(record: dict[str, Any]) -> tuple[list[list[str]], list[tuple[int, list[str]]]]:
    """What each seat is sent before it moves first (`Game` line, opening), and the turns:
    (seat, the moves of its turn)."""
    time_ms = record["time_controls"][0]["time_ms"]
    forced = [m["move"] for m in record["moves"] if m["forced"]]
    headers = [ARBITER.first_lines(GAME, seat, time_ms, None, forced) for seat in range(2)]
    turns: list[tuple[int, list[str]]] = []
    for move in (m for m in record["moves"] if not m["forced"]):
        if turns and turns[-1][0] == move["seat"]:
            turns[-1][1].append(move["move"])
        else:
            turns.append((move["seat"], [move["move"]]))
    return headers, turns


def floor_game(record: dict[str, Any]) -> None:
    """The record's game between two bare Python processes, the lines relayed by this thread."""
    headers, turns = floor_scripts(record)
    pending: list[list[str]] = [[], []]  # moves each seat has not been sent yet
    sent_first = [False, False]
    argv: list[list[str]] = [[], []]
    to_send: list[list[list[str]]] = []  # per turn, the lines its seat is sent before it
    for number, (seat, moves) in enumerate(turns):
        lines = [START] if number == 0 else pending[seat]
        before = len(headers[seat]) if not sent_first[seat] else 0
        sent_first[seat] = True
        argv[seat] += [str(before + len(lines)), "".join(m + "\n" for m in moves)]
        to_send.append(lines)
        pending[seat] = []
        pending[1 - seat] = pending[1 - seat] + moves
    bots = [subprocess.Popen([sys.executable, "-c", FLOOR_BOT, *argv[seat]], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE) for seat in range(2)]
    for seat, bot in enumerate(bots):
        bot.stdin.write("".join(line + "\n" for line in headers[seat]).encode())
        bot.stdin.flush()
    for (seat, moves), lines in zip(turns, to_send):
        bots[seat].stdin.write("".join(line + "\n" for line in lines).encode())
        bots[seat].stdin.flush()
        for move in moves:
            answer = bots[seat].stdout.readline().decode().rstrip("\n")
            assert answer == move, f"floor bot of seat {seat} sent {answer!r}, expected {move!r}"
    for seat, bot in enumerate(bots):
        bot.stdin.write("".join(line + "\n" for line in ARBITER.last_lines(pending[seat])).encode())
        bot.stdin.close()
    for bot in bots:
        bot.wait()
        bot.stdout.close()


def floor_seconds(records: list[dict[str, Any]], concurrency: int) -> float:
    """Seconds to play `records` as floor games, `concurrency` at once."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as threads:
        list(threads.map(floor_game, records))
    return time.perf_counter() - started


class CpuUse:
    """The CPU time this process and its reaped children (the bots, the boxes) used over a span."""

    def __init__(self) -> None:
        self._start = self._now()
        self.own_s = self.children_s = 0.0

    @staticmethod
    def _now() -> tuple[float, float]:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime + _worker_tree_s()

    def stop(self) -> CpuUse:
        end = self._now()
        self.own_s, self.children_s = end[0] - self._start[0], end[1] - self._start[1]
        return self


def start_zygote() -> float:
    """Start the zygote the game workers come from (workers.py, zygote.py), before the first timed
    run, as this process's imports of the arbiter are: once per command, not per game.
    Returns the seconds it took (0 for an arbiter from before the workers)."""
    try:
        from arbiter.tournament import workers
    except ImportError:
        return 0.0
    started = time.perf_counter()
    workers._Worker().close()  # the zygote up, its imports done, a worker forked
    return time.perf_counter() - started


def _worker_tree_s() -> float:
    """The CPU seconds of the game workers and their bots so far: the tournament's workers are
    children of the workers' zygote (never reaped by this process), which reaps each worker,
    and each worker its bots: the zygote's own and its reaped children's times."""
    from arbiter.tournament import workers
    pid = workers.zygote_pid()  # None until the first run
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(fields[index]) for index in (11, 12, 13, 14)) / os.sysconf("SC_CLK_TCK")  # utime .. cstime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per run (even; default 40)")
    parser.add_argument("--repeats", type=int, default=2, help="runs of each kind (default 2)")
    parser.add_argument("--sandbox", action="store_true", help="also run the tournament boxed (sandbox: on)")
    args = parser.parse_args()
    kinds = ["tournament", "tournament, suspend_idle: false", "floor"] + (["tournament, boxed"] if args.sandbox else [])
    seconds: dict[tuple[str, int], list[float]] = {(kind, c): [] for kind in kinds for c in (1, 2)}
    cpu: dict[tuple[str, int], list[CpuUse]] = {(kind, c): [] for kind in kinds for c in (1, 2)}

    def timed(kind: str, concurrency: int, run: Callable[[], float]) -> None:
        use = CpuUse()
        seconds[kind, concurrency].append(run())
        cpu[kind, concurrency].append(use.stop())

    records: list[dict[str, Any]] = []

    def tournament(concurrency: int, **options: bool) -> float:
        nonlocal records
        elapsed, records = tournament_run(Path(tmp), args.games, concurrency, **options)
        return elapsed

    zygote_s = start_zygote()
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeats):
            for concurrency in (1, 2):
                timed("tournament", concurrency, lambda: tournament(concurrency))
                floor_records = records
                timed("tournament, suspend_idle: false", concurrency, lambda: tournament(concurrency, suspend_idle=False))
                timed("floor", concurrency, lambda: floor_seconds(floor_records, concurrency))
                if args.sandbox:
                    timed("tournament, boxed", concurrency, lambda: tournament(concurrency, sandbox=True))
    print(f"random vs random, dots-and-triangles rows=4, {args.games} games per run, {args.repeats} runs of each, "
          f"medians; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
          + (f"; the workers' zygote took {zygote_s:.2f} s to start, before the timed runs" if zygote_s else ""))
    print("| run | concurrency | games/s | / floor | bots' and workers' CPU a game | the arbiter's (floor: the harness's) "
          "CPU a game | cores busy |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for concurrency in (1, 2):
        floor = args.games / statistics.median(seconds["floor", concurrency])
        for kind in kinds:
            rate = args.games / statistics.median(seconds[kind, concurrency])
            uses, spans = cpu[kind, concurrency], seconds[kind, concurrency]
            bots_ms = statistics.median(u.children_s for u in uses) / args.games * 1000
            own_ms = statistics.median(u.own_s for u in uses) / args.games * 1000
            busy = statistics.median((u.own_s + u.children_s) / span for u, span in zip(uses, spans))
            print(f"| {kind} | {concurrency} | {rate:.2f} | {rate / floor:.2f}x | {bots_ms:.1f} ms | {own_ms:.1f} ms "
                  f"| {busy:.2f} |")


if __name__ == "__main__":
    main()
