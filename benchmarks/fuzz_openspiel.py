#!/usr/bin/env python3
"""Random games of every OpenSpiel game the adapter plays (arbiter/games/openspiel.py), at every
seat count it allows and each parameter preset below, each game in a child process of its own
with a CPU-time and memory limit, reporting by game and parameters every crash (a signal), hang,
exception from the rules, and notation failure (a legal move a bot could not name: two legal
moves with one text, or one the referee would not read back as that legal move).

    python benchmarks/fuzz_openspiel.py [--games 3000] [--only NAME ...] [-p KEY=VALUE ...]
                                        [--refused] [--first-seed 0] [--jobs 1] [--max-s S]
                                        [--per-child 1]
                                        [--cpu-s 20] [--memory-mb 2048]

3,000 games a variant (the default) meet a bug that one random game in 1,000 meets with odds of
95 % (0.999 ** 3000 < 0.05). `--refused` plays the variants the adapter refuses too
(`REFUSED_VARIANTS`: to see why they are); `--only NAME -p KEY=VALUE` plays one variant;
`--first-seed S --games 1` replays the game of seed S; `--max-s S` stops a variant after S
seconds (yacht's games take a second each), saying how many it played; `--per-child K` plays K
games in each child, one after another, so that damage the rules do to their process's memory
builds up as in a tournament's process (hex with swap on a 4x6 board: a fresh process per game
never crashes, a process that plays on aborts). A game's moves are drawn by
`random.Random(seed)` over the legal moves' texts, chance's outcomes by their probabilities.

The games are played as the referee plays them: every legal move's text read back through the
game's notation (`read_move`) and found legal, the picture and key of every position, a clone
now and then, the scores and winner at the end. A child is forked from this process after the
game is made, so a game costs a fork rather than an import of OpenSpiel. Exit status 1 when a
variant that is not refused failed.
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import random
import resource
import selectors
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.games import CHANCE, GameParamError  # noqa: E402
from arbiter.games.openspiel import NotationError, OpenSpielGame, game_class, supported_names  # noqa: E402

GAMES_FOR_ONE_IN_1000 = 3000  # 0.999 ** 3000 = 0.0497: a 1-in-1,000 bug is met with odds of 95 %
CLONE_EVERY = 16  # plies between two clones of the position (a search bot clones at every node)
SEAT_PARAMETER = "players"  # the parameter that sets the seat count, in every game that has several
# The presets: the parameters docs/games.md and the tests play, small boards, and the variants
# the issue met (refused ones are played with --refused). Each is also played at every seat
# count when the game has several (quoridor's board_size=5 with players=3 and 4).
PRESETS: dict[str, list[dict[str, Any]]] = {
    "breakthrough": [{"rows": 6, "columns": 6}],
    "checkers": [{"rows": 6, "columns": 6}],
    "chinese_checkers": [{"max_moves": 300}],
    "clobber": [{"rows": 4, "columns": 4}],
    "connect_four": [{"rows": 5}],
    "dots_and_boxes": [{"num_rows": 3, "num_cols": 3}],
    "go": [{"board_size": 9}],
    "gomoku": [{"size": 9}],
    "havannah": [{"board_size": 4}, {"board_size": 4, "swap": True}],
    "hex": [{"board_size": 5}, {"board_size": 5, "swap": True}, {"num_rows": 4, "num_cols": 6},
            {"num_rows": 4, "num_cols": 6, "swap": True}, {"num_rows": 2, "num_cols": 11, "swap": True},
            {"num_rows": 3, "num_cols": 9, "swap": True}, {"num_rows": 6, "num_cols": 4, "swap": True}],
    "mnk": [{"m": 3, "n": 3, "k": 3}],
    "pig": [{"winscore": 30}],
    "quoridor": [{"board_size": 5}],
    "twixt": [{"board_size": 8}],
    "y": [{"board_size": 7}],
}


@dataclass(frozen=True)
class Variant:
    """One game with the parameters given to it."""

    name: str
    params: tuple[tuple[str, Any], ...]

    def describe(self) -> str:
        """`openspiel:hex board_size=5 swap=True`: the name and the parameters given."""
        return " ".join([f"openspiel:{self.name}", *(f"{k}={v}" for k, v in self.params)])


@dataclass
class Tally:
    """What a variant's games came to: counts by kind, and each failure's first seed and detail."""

    counts: Counter[str] = field(default_factory=Counter)
    first: dict[str, tuple[int, str]] = field(default_factory=dict)

    def add(self, kind: str, seed: int, detail: str) -> None:
        """Count one game's result."""
        key = kind if kind == "ok" else f"{kind}: {detail}"
        self.counts[key] += 1
        self.first.setdefault(key, (seed, detail))

    def failed(self) -> bool:
        """Whether any game did not end normally."""
        return any(key != "ok" for key in self.counts)


def variants(names: list[str]) -> list[Variant]:
    """Every variant of the games named: defaults, each seat count, each preset (at each seat
    count), without repeats."""
    import pyspiel

    types = {t.short_name: t for t in pyspiel.registered_games()}
    found: list[Variant] = []
    for name in names:
        spec = types[name].parameter_specification
        seats = [None]
        if SEAT_PARAMETER in spec:
            low, high = max(2, types[name].min_num_players), types[name].max_num_players
            seats += [n for n in range(low, high + 1) if n != spec[SEAT_PARAMETER]]
        for preset in [{}, *PRESETS.get(name, [])]:
            for seat in seats:
                params = {**preset, **({SEAT_PARAMETER: seat} if seat is not None else {})}
                variant = Variant(name, tuple(sorted(params.items())))
                if variant not in found:
                    found.append(variant)
    return found


class _Unrefused:
    """Mixed into a game class by --refused: the adapter's refusal table is not asked."""

    def refused(self) -> None:
        return None


def make_game(variant: Variant, refused: bool) -> OpenSpielGame:
    """The variant's game; with `refused`, even when the adapter refuses it."""
    cls = game_class(variant.name)
    if refused:
        cls = type(cls.__name__, (_Unrefused, cls), {})
    return cls(**dict(variant.params))


def play(game: OpenSpielGame, seed: int) -> tuple[str, str]:
    """One random game, as the referee would play it: ("ok", plies) or a failure's kind and detail."""
    rng = random.Random(seed)
    plies = 0
    try:
        state = game.new_state()
        while not state.is_over():
            state.render()
            state.key()
            if plies % CLONE_EVERY == 0:
                state.clone()
            if state.current_player == CHANCE:
                texts, weights = zip(*state.chance_outcomes())
                text = rng.choices(texts, weights)[0]
            else:
                texts = state.legal_moves()
                for legal in texts:  # each legal move, as a bot's line is read and judged
                    move, canonical = game.read_move(legal)
                    if canonical != legal or state.illegal_reason(move) is not None:
                        return "notation", f"legal move {legal!r} read back as {canonical!r}, not legal"
                text = rng.choice(texts)
            state.play(text)
            plies += 1
        _ = state.scores, state.winner(), state.outcome
    except NotationError as exc:
        return "notation", str(exc)
    except MemoryError:
        return "memory", "MemoryError"
    except UnicodeDecodeError as exc:  # the rules' text held bytes read past their memory: which, differs
        return "exception", f"UnicodeDecodeError: {exc.reason} (text read past the rules' memory?)"
    except Exception as exc:  # the rules' own failure: what the referee would void the game for
        # The first line: a failed CHECK's next lines quote the values it read, garbage off a board.
        first = (str(exc).splitlines() or [""])[0]
        return "exception", f"{type(exc).__name__}: {first[:160]}"
    return "ok", str(plies)


def _child(game: OpenSpielGame, seeds: list[int], write_fd: int, cpu_s: int, memory_mb: int) -> None:
    """In the forked child: limit it, play each seed's game, write each result as one JSON line, exit."""
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 2)  # OpenSpiel's own words on a failed CHECK: the exception carries them
    faulthandler.disable()  # (pytest's) its traceback on a crash goes to a descriptor of its own
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash is counted, not dumped
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    for seed in seeds:
        used = resource.getrusage(resource.RUSAGE_SELF)
        # SIGXCPU once this game has had cpu_s seconds: a hang
        soft = int(used.ru_utime + used.ru_stime) + cpu_s
        resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
        kind, detail = play(game, seed)
        os.write(write_fd, (json.dumps([kind, detail]) + "\n").encode())
    os._exit(0)


@dataclass
class _Running:
    """A child at work: its pid, its seeds, the deadline of its game in play, what it wrote."""

    pid: int
    seeds: list[int]
    deadline: float
    output: bytearray = field(default_factory=bytearray)
    told: int = 0  # results counted so far


def fuzz(game: OpenSpielGame, seeds: range, tally: Tally, *, jobs: int = 1, cpu_s: int = 20, memory_mb: int = 2048,
         max_s: float | None = None, per_child: int = 1) -> None:
    """Play one game a seed, `per_child` games in each forked child (more than one lets damage
    that the rules do to their process's memory build up, as in a tournament's process), `jobs`
    children at a time, into `tally`; no child is started after `max_s` seconds. A child that
    dies costs the game it was playing; the rest of its seeds are not played."""
    wall_s = 3 * cpu_s + 10  # a child blocked without burning CPU (the parent kills it): a hang too
    stop_at = None if max_s is None else time.monotonic() + max_s
    selector = selectors.DefaultSelector()
    pending = list(seeds)
    running = 0

    def start() -> bool:
        if not pending or (stop_at is not None and time.monotonic() > stop_at):
            return False
        batch, pending[:per_child] = pending[:per_child], []
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            try:
                _child(game, batch, write_fd, cpu_s, memory_mb)
            finally:
                os._exit(70)
        os.close(write_fd)
        selector.register(read_fd, selectors.EVENT_READ, _Running(pid, batch, time.monotonic() + wall_s))
        return True

    while running < jobs and start():
        running += 1
    while running:
        deadline = min(key.data.deadline for key in selector.get_map().values())
        for key, _ in selector.select(max(0.0, deadline - time.monotonic())) or []:
            child: _Running = key.data
            chunk = os.read(key.fd, 65536)
            child.output.extend(chunk)
            *lines, rest = child.output.split(b"\n")
            for line in lines[child.told:]:
                kind, detail = json.loads(line)
                tally.add(kind, child.seeds[child.told], "" if kind == "ok" else detail)
                child.told += 1
                child.deadline = time.monotonic() + wall_s
            if not chunk:
                _finish(selector, key.fd, child, tally, killed=False)
                running -= 1
                running += start()
        for fd, key in list(selector.get_map().items()):
            if key.data.deadline <= time.monotonic():
                os.kill(key.data.pid, signal.SIGKILL)
                _finish(selector, fd, key.data, tally, killed=True)
                running -= 1
                running += start()
    selector.close()


def _finish(selector: selectors.BaseSelector, fd: int, child: _Running, tally: Tally, *, killed: bool) -> None:
    """Reap a child and count how the game it was playing when it ended came to an end, if it had
    not told."""
    selector.unregister(fd)
    os.close(fd)
    _, status = os.waitpid(child.pid, 0)
    if child.told == len(child.seeds):
        return
    seed = child.seeds[child.told]
    if killed:
        tally.add("hang", seed, "no end within the wall-time limit (killed)")
    elif os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.valid_signals() else f"signal {number}"
        tally.add("hang" if number == signal.SIGXCPU else "crash", seed,
                  "over the CPU-time limit (SIGXCPU)" if number == signal.SIGXCPU else name)
    else:
        tally.add("crash", seed, f"exited with status {os.WEXITSTATUS(status)} before saying how its game went")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=GAMES_FOR_ONE_IN_1000, help="games a variant (default 3000)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these games (OpenSpiel's names)")
    parser.add_argument("-p", action="append", default=[], metavar="KEY=VALUE",
                        help="with one --only NAME: this one variant")
    parser.add_argument("--refused", action="store_true", help="play the variants the adapter refuses too")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="games at once (default 1)")
    parser.add_argument("--cpu-s", type=int, default=20, help="CPU seconds a game (default 20)")
    parser.add_argument("--memory-mb", type=int, default=2048, help="memory a game (RLIMIT_DATA, default 2048)")
    parser.add_argument("--max-s", type=float, help="seconds a variant at most (default: no limit)")
    parser.add_argument("--per-child", type=int, default=1, help="games a child plays one after another (default 1)")
    args = parser.parse_args(argv)
    names = args.only or [n for n in supported_names() if n != "efg_game"]  # efg_game: a game read from a file
    if args.p:
        if len(names) != 1:
            parser.error("-p needs exactly one --only NAME")
        todo = [Variant(names[0], tuple(sorted(tuple(p.split("=", 1)) for p in args.p)))]  # type: ignore[misc]
    else:
        todo = variants(names)
    seeds = range(args.first_seed, args.first_seed + args.games)
    bad = False
    totals: Counter[str] = Counter()
    print(f"# {len(todo)} variant(s), {args.games} games each" + (f" or {args.max_s:g} s" if args.max_s else "")
          + f", seeds {seeds.start}..{seeds.stop - 1}, {args.cpu_s} s CPU and {args.memory_mb} MB a game", flush=True)
    for variant in todo:
        started = time.monotonic()
        try:
            game = make_game(variant, args.refused)
        except GameParamError as exc:
            refused = "refused" in str(exc)
            totals["refused" if refused else "not made"] += 1
            print(f"{variant.describe()}: {'REFUSED' if refused else 'NOT MADE'}: {exc}", flush=True)
            continue
        tally = Tally()
        fuzz(game, seeds, tally, jobs=args.jobs, cpu_s=args.cpu_s, memory_mb=args.memory_mb, max_s=args.max_s,
             per_child=args.per_child)
        is_refused = game_class(variant.name).refused(game) is not None  # the table, asked past --refused
        totals["games"] += sum(tally.counts.values())
        verdict = "ok" if not tally.failed() else ("FAILED (refused)" if is_refused else "FAILED")
        bad |= tally.failed() and not is_refused
        print(f"{variant.describe()}: {verdict}: {sum(tally.counts.values())} games, "
              f"{time.monotonic() - started:.0f} s", flush=True)
        for key, count in sorted(tally.counts.items()):
            if key != "ok":
                seed, _ = tally.first[key]
                print(f"    {count} x {key} (first: --first-seed {seed})", flush=True)
    print(f"# {totals['games']} games; {totals['refused']} variants refused, {totals['not made']} refused by "
          f"OpenSpiel's own checks", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
