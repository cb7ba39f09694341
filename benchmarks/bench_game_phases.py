#!/usr/bin/env python3
"""Where a tournament game's time goes: the referee's phases timed one by one, in a real
tournament run of random vs random on the 4-row triangle board at concurrency 1, its games
played in a thread of this process as a worker process plays them (`pool.play_setup`), so
that the phases can be wrapped here.

    python benchmarks/bench_game_phases.py [--games 60] [--sandbox on|off]

Each phase is timed by wrapping the method that runs it (nothing else changes): the launch of
one bot (`BotProcess.launch`; a game's bots are launched side by side, so two launches
overlap), the start-up phase (from the last launch until every bot waits for its input), the
whole launch and start-up, the game (`run`: launch, start-up and every move), the shut-down
(`Quit`, the bots' exit, the clean-up), the record built by the referee, the whole game in its
thread (`_play_one`), and the record written by the runner (`_record`: the line, its fsync,
the progress). Wall time, and the CPU time of the thread that ran the phase (the launches run
on launcher threads, the rest on the game's thread, the record on the main thread): medians
over the calls, and the CPU summed over the run per game. The games per second of the run
and the arbiter's whole CPU per game (user and system, every thread) head the table. For the games per second against a floor of bare processes, see
bench_tournament.py.
"""
from __future__ import annotations

import argparse
import functools
import io
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter import referee, seating  # noqa: E402
from arbiter.tournament.config import load_config  # noqa: E402
from arbiter.tournament.progress import Progress  # noqa: E402
from arbiter.tournament.runner import TournamentRunner, prepare_results  # noqa: E402
from arbiter.transport.process import BotProcess  # noqa: E402

BOT = ROOT / "players" / "random_bot.py"
WALL_MS: dict[str, list[float]] = defaultdict(list)
CPU_MS: dict[str, list[float]] = defaultdict(list)


def timed(owner: Any, name: str, label: str) -> None:
    """Replace the method `owner.name` by one that notes the wall and CPU time of every call."""
    original: Callable[..., Any] = getattr(owner, name)
    if isinstance(owner.__dict__[name], classmethod):  # `original` is bound to the class already
        setattr(owner, name, staticmethod(lambda *args, **kwargs: _timed_call(label, original, *args, **kwargs)))
    else:
        setattr(owner, name, lambda *args, **kwargs: _timed_call(label, original, *args, **kwargs))


def _timed_call(label: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        return function(*args, **kwargs)
    finally:
        WALL_MS[label].append((time.perf_counter() - wall) * 1000)
        CPU_MS[label].append((time.thread_time() - cpu) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games (even; default 60)")
    parser.add_argument("--sandbox", choices=("on", "off"), default="off", help="the run's sandbox (default off)")
    args = parser.parse_args()
    timed(BotProcess, "launch", "launch one bot")
    timed(seating.Seating, "_launch", "launch and start-up")
    timed(seating.Seating, "_start_up", "start-up phase")
    timed(referee._Referee, "run", "game (launch to last move)")
    timed(seating.Seating, "shut_down", "shut-down")
    timed(referee._Referee, "record", "record built")
    timed(TournamentRunner, "_play_one", "whole game, in its thread")
    timed(TournamentRunner, "_record", "record written (runner)")
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "phases.yaml"
        config.write_text(
            f"name: phases\nresults: {tmp}/results\ngame: dots-and-triangles\nsandbox: {args.sandbox}\n"
            f"games_per_pairing: {args.games}\nconcurrency: 1\nopenings: {{random_moves: 2, seed: 1}}\n"
            f"players:\n  - {{name: a, command: python {BOT}}}\n  - {{name: b, command: python {BOT}}}\n")
        before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        loaded = load_config(config)
        here = functools.partial(referee.play_game)  # not play_game itself: the runner plays it in a thread here
        TournamentRunner(loaded, prepare_results(loaded, fresh=True), Progress(io.StringIO(), quiet=True, tty=False),
                         play=here).run()
        seconds, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    games = len(WALL_MS["whole game, in its thread"])
    print(f"sandbox {args.sandbox}: {games} games in {seconds:.2f} s, {games / seconds:.1f} games/s, "
          f"{seconds / games * 1000:.1f} ms a game; the arbiter's CPU a game: user "
          f"{(after.ru_utime - before.ru_utime) / games * 1000:.1f} ms, system "
          f"{(after.ru_stime - before.ru_stime) / games * 1000:.1f} ms")
    print("| phase | calls | wall ms: median | its thread's CPU ms: median | CPU ms a game |")
    print("|---|---:|---:|---:|---:|")
    for label in WALL_MS:
        print(f"| {label} | {len(WALL_MS[label])} | {statistics.median(WALL_MS[label]):.2f} | "
              f"{statistics.median(CPU_MS[label]):.2f} | {sum(CPU_MS[label]) / games:.2f} |")


if __name__ == "__main__":
    main()
