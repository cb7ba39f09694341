#!/usr/bin/env python3
"""Bot start-up: each bundled Python bot (players/*.py) started, told its game and `Quit`,
and reaped, beside a bare interpreter start (`python -c pass`) in the same run.

    python benchmarks/bench_startup.py [--rounds 30] [--python-flag -S] [--box]

Every round starts the bare interpreter and then each bot once, one after another (so load
that comes and goes hits all of them alike); the figures are medians over the rounds, and a
bot's ratio is its median over the bare interpreter's. Wall time is what a game waits;
the CPU time the process used (user and system, from the kernel's accounting of reaped
children) is the steadier figure on a machine others load, since waiting for a CPU is
not in it. Each is launched the same way: the
arbiter's interpreter, stdin a pipe holding the `Game` line (seat 1, so the bot only listens)
and `Quit`, stdout and stderr to /dev/null. Unsandboxed: this is the interpreter's and the
bot's own start-up. `--box` adds what the sandbox adds, the same launches through the
arbiter's own `BotProcess.launch`, boxed and not, side by side.

A first, unmeasured round lets Python write the bytecode caches (`__pycache__`) that any
second start finds; `--commit REV --no-cache` measures starts without them instead (as a
checkout that only ever runs inside the read-only box, where Python cannot write them).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.games import find_game  # noqa: E402
from arbiter.protocol import QUIT, format_game_line  # noqa: E402

# Each bundled bot with the game it plays (its Game line is the game's own description).
BOT_GAMES = {
    "random_bot": ("dots-and-triangles", {"rows": 4}),
    "greedy": ("dots-and-triangles", {"rows": 4}),
    "double_cross": ("dots-and-triangles", {"rows": 4}),
    "perfect_dp": ("dots-and-triangles", {"rows": 4}),
    "nim_greedy": ("limit-nim", {}),
    "nim_perfect": ("limit-nim", {}),
    "sudoku_random": ("codecup-sudoku", {}),
    "sudoku_claimer": ("codecup-sudoku", {}),
    "sudoku_winner": ("codecup-sudoku", {}),
}


def greeting(bot: str) -> bytes:
    """What the bot is sent: its game, then `Quit` (seat 1 waits for a move that never comes)."""
    name, params = BOT_GAMES[bot]
    return f"{format_game_line(find_game(name, **params), 1, 30000)}\n{QUIT}\n".encode()


def timed_start(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from launching `argv` to having reaped it, its stdin given and closed; and
    the CPU seconds (user and system) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    proc.communicate(stdin)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"bench_startup: {' '.join(argv)} exited with {proc.returncode}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed_launch(argv: list[str], stdin: bytes, boxed: bool) -> float:
    """The same through the arbiter's `BotProcess.launch`, in a box or not."""
    from arbiter.transport.process import BotProcess
    from arbiter.transport.sandbox import SandboxSpec

    started = time.perf_counter()
    bot, to_bot, from_bot = BotProcess.launch(argv, cwd=str(ROOT), sandbox=SandboxSpec() if boxed else None)
    os.write(to_bot, stdin)
    os.close(to_bot)
    status = bot.wait_exit(30.0)
    elapsed = time.perf_counter() - started
    os.close(from_bot)
    bot.close()
    if status != 0:
        raise SystemExit(f"bench_startup: {' '.join(argv)} ({'boxed' if boxed else 'unboxed'}) ended with {status}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="measured rounds (default 30)")
    parser.add_argument("--python-flag", action="append", default=[], metavar="FLAG",
                        help="an interpreter option for every start, bare ones too (e.g. -S: no site)")
    parser.add_argument("--bots", default=",".join(BOT_GAMES), help="comma-separated bots (default: all)")
    parser.add_argument("--commit", default=None, metavar="REV",
                        help="the bots and bot kit of this commit (git archive into a scratch folder), "
                             "e.g. to measure before a change; default: this checkout")
    parser.add_argument("--no-cache", action="store_true",
                        help="never write bytecode caches (with --commit, the scratch copy has none)")
    parser.add_argument("--box", action="store_true",
                        help="also launch the bare interpreter and random_bot through BotProcess.launch, boxed and not")
    args = parser.parse_args()
    bots = [b for b in args.bots.split(",") if b]
    unknown = sorted(set(bots) - set(BOT_GAMES))
    if unknown:
        parser.error(f"--bots: unknown {unknown}; bots are {', '.join(BOT_GAMES)}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}  # e.g. PYTHONDONTWRITEBYTECODE
    python = [sys.executable, *args.python_flag]
    with tempfile.TemporaryDirectory() as tmp:
        tree = ROOT
        if args.commit:
            tree = Path(tmp) / "tree"
            tree.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.commit, "arbiter", "players"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        if args.no_cache:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        runs: dict[str, tuple[list[str], bytes]] = {"python -c pass": ([*python, "-c", "pass"], greeting("random_bot"))}
        runs.update({bot: ([*python, str(tree / "players" / f"{bot}.py")], greeting(bot)) for bot in bots})
        times: dict[str, list[float]] = {name: [] for name in runs}
        cpu: dict[str, list[float]] = {name: [] for name in runs}
        for round_ in range(args.rounds + 1):
            for name, (argv, stdin) in runs.items():
                elapsed, cpu_s = timed_start(argv, stdin, env)
                if round_:  # the first round writes the bytecode caches
                    times[name].append(elapsed)
                    cpu[name].append(cpu_s)
        boxed: dict[str, list[float]] = {}
        if args.box:
            # This checkout's random_bot (a scratch copy under /tmp is out of the box's sight).
            box_runs = {"python -c pass": runs["python -c pass"],
                        "random_bot": ([*python, str(ROOT / "players" / "random_bot.py")], greeting("random_bot"))}
            for round_ in range(args.rounds + 1):
                for name, (argv, stdin) in box_runs.items():
                    for in_box in (False, True):
                        elapsed = timed_launch(argv, stdin, in_box)
                        if round_:
                            boxed.setdefault(f"{name}, {'boxed' if in_box else 'not boxed'}", []).append(elapsed)
    bare = statistics.median(times["python -c pass"])
    bare_cpu = statistics.median(cpu["python -c pass"])
    flags = " ".join(args.python_flag)
    print(f"Python {sys.version.split()[0]} ({sys.executable}{' ' + flags if flags else ''}), "
          f"{args.rounds} rounds, medians, bots of {args.commit or 'this checkout'}"
          f"{', no bytecode caches written' if args.no_cache else ''}; load average "
          f"{os.getloadavg()[0]:.1f}")
    print("| start | wall ms: median | min | median / bare | CPU ms: median | median / bare |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, values in times.items():
        median, median_cpu = statistics.median(values), statistics.median(cpu[name])
        print(f"| {name} | {1000 * median:.1f} | {1000 * min(values):.1f} | {median / bare:.2f}x "
              f"| {1000 * median_cpu:.1f} | {median_cpu / bare_cpu:.2f}x |")
    if boxed:
        print("\nThrough BotProcess.launch (the arbiter's own launch, reaped by wait_exit):")
        print("| start | median ms | min ms |")
        print("|---|---:|---:|")
        for name, values in boxed.items():
            print(f"| {name} | {1000 * statistics.median(values):.1f} | {1000 * min(values):.1f} |")


if __name__ == "__main__":
    main()
