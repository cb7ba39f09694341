#!/usr/bin/env python3
"""Start-up as the arbiter sees it: how long each bot takes, from its launch until it first
waits for its input (docs/protocol.md, Start-up), and what that start-up would cost on the
clock without the start-up phase (`charge_startup: true`).

Every bot plays short games against itself (both seats start side by side, as in any game):
each bundled bot on a small board of its game, the C starter (examples/bots/starter_c.c, built
with its `Build:` line) and the JavaScript one (node) on limit-nim. The baseline, in the
same run, is `cat`: a program that does nothing but wait for its input; every figure is also
given as a ratio to it. Each bot is measured sandboxed (the default) and with the sandbox off,
with start-up off the clock (the record's `startup_ms` of both seats; and the first move's
clock, `wall_ms` of the first move), and with `charge_startup: true` (the first move's clock,
which then holds the start-up). Medians over `--repeats` games per kind, kinds interleaved.

    python benchmarks/bench_startup_phase.py               # about 2 minutes on 2 cores
    python benchmarks/bench_startup_phase.py --repeats 3 --only random_bot,starter_c.c
"""
from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.games import find_game  # noqa: E402
from arbiter.referee import PlayerSpec, TimeControl, play_game  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec, support  # noqa: E402


@dataclass(frozen=True)
class Subject:
    name: str
    command: tuple[str, ...]
    game: str
    params: dict[str, str]
    dialect: str = "arbiter"


def subjects() -> list[Subject]:
    """The bots to measure: the baseline first."""
    python = sys.executable
    player = lambda name: (python, str(ROOT / "players" / name))  # noqa: E731
    sudoku = ("--game", "codecup-sudoku")
    found = [
        Subject("cat (baseline)", ("cat",), "limit-nim", {"piles": "5/2"}),
        Subject("random_bot", player("random_bot.py"), "dots-and-triangles", {"rows": "4"}),
        Subject("greedy", player("greedy.py"), "dots-and-triangles", {"rows": "4"}),
        Subject("double_cross", player("double_cross.py"), "dots-and-triangles", {"rows": "4"}),
        Subject("perfect_dp", player("perfect_dp.py"), "dots-and-boxes", {"rows": "2", "cols": "2"}),
        Subject("nim_greedy", player("nim_greedy.py"), "limit-nim", {"piles": "5/2"}),
        Subject("nim_perfect", player("nim_perfect.py"), "limit-nim", {"piles": "5/2"}),
        Subject("sudoku_random", (*player("sudoku_random.py"), *sudoku), "codecup-sudoku", {}, "codecup"),
        Subject("sudoku_winner", (*player("sudoku_winner.py"), *sudoku), "codecup-sudoku", {}, "codecup"),
    ]
    starter_c = build_c_starter()
    if starter_c is not None:
        found.append(Subject("starter_c.c (gcc -O2)", (str(starter_c),), "limit-nim", {"piles": "5/2"}))
    node = shutil.which("node")
    if node:
        found.append(Subject("starter_js.js (node)", (node, str(ROOT / "examples" / "bots" / "starter_js.js")),
                             "limit-nim", {"piles": "5/2"}))
    return found


def build_c_starter() -> Path | None:
    """examples/bots/starter_c.c built with its own `Build:` line, from the repository's root."""
    source = ROOT / "examples" / "bots" / "starter_c.c"
    line = next((text.split("Build:", 1)[1].strip() for text in source.read_text().splitlines() if "Build:" in text),
                None)
    if line is None or not shutil.which("gcc"):
        print("(no gcc: the C starter is not measured)", file=sys.stderr)
        return None
    words = shlex.split(line)
    subprocess.run(words, cwd=ROOT, check=True)
    return ROOT / words[words.index("-o") + 1]


@dataclass
class Figures:
    startup_ms: list[float]
    first_move_ms: list[float]
    charged_first_move_ms: list[float]


def one_game(subject: Subject, *, boxed: bool, charge: bool) -> tuple[list[float], float | None]:
    """Both seats' start-up (empty when charged) and the first move's clock."""
    game = find_game(subject.game, **subject.params)
    sandbox = SandboxSpec(read=(str(ROOT),)) if boxed else None
    seats = [PlayerSpec(name=f"{subject.name}-{k}", command=subject.command, cwd=str(ROOT), dialect=subject.dialect,
                        sandbox=sandbox) for k in range(2)]  # type: ignore[arg-type]
    # `cat` answers nothing (it echoes its input, a fault): a short clock ends its game at once.
    time_ms = 200 if subject.command == ("cat",) else 30_000
    record = play_game(game, seats, time=TimeControl(time_ms=time_ms, charge_startup=charge))
    startups = [ms for ms in record.startup_ms if ms is not None]
    first = next((m.wall_ms for m in record.moves if not m.forced), None)
    return startups, first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated subject names (prefixes) to measure")
    args = parser.parse_args()
    chosen = subjects()
    if args.only:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        chosen = [s for s in chosen if s.name.startswith("cat") or any(s.name.startswith(w) for w in wanted)]
    modes = [True, False] if support().usable else [False]
    figures = {(s.name, boxed): Figures([], [], []) for s in chosen for boxed in modes}
    for _ in range(args.repeats):
        for subject in chosen:
            for boxed in modes:
                fig = figures[(subject.name, boxed)]
                startups, first = one_game(subject, boxed=boxed, charge=False)
                fig.startup_ms += startups
                if first is not None:
                    fig.first_move_ms.append(first)
                _, charged_first = one_game(subject, boxed=boxed, charge=True)
                if charged_first is not None:
                    fig.charged_first_move_ms.append(charged_first)

    def median(values: list[float]) -> str:
        return f"{statistics.median(values):.1f}" if values else "-"

    print(f"Python {sys.version.split()[0]}; {args.repeats} games per kind; sandbox: {support().describe()}")
    print()
    print("| bot | sandbox | start-up (ms) | / cat | first move, start-up off the clock (ms) "
          "| first move, charge_startup (ms) |")
    print("|---|---|---:|---:|---:|---:|")
    for boxed in modes:
        base = figures[("cat (baseline)", boxed)].startup_ms
        for subject in chosen:
            fig = figures[(subject.name, boxed)]
            ratio = (f"{statistics.median(fig.startup_ms) / statistics.median(base):.1f}x"
                     if fig.startup_ms and base else "-")
            print(f"| {subject.name} | {'on' if boxed else 'off'} | {median(fig.startup_ms)} | {ratio} "
                  f"| {median(fig.first_move_ms)} | {median(fig.charged_first_move_ms)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
