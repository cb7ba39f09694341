"""The scenarios of `arbiter check` and how a fault in any of them is judged.

The checklist is a list of duties (`DUTIES`): what a bot owes the protocol. Most duties
have a game of their own, built to exercise it (a position set up by an opening, a small
clock, a per-move cap, a bot that may not be stopped between turns, a watched exit); some
are judged in every game (nothing but moves on stdout, nothing out of turn). A fault is
charged to the duty it breaks, whichever game it happened in: a non-move on stdout to
`stdout`, a line out of turn to `out-of-turn` (to `opening` in a game with forced moves),
a timeout right after a move that kept the turn to `extra-move`; and a fault that looks
like one already charged (same termination, same point of the game) to that same duty,
leaving the later game's own duty "not checked". So a bot with one mistake fails one line.

In the full-game scenarios the arbiter's seats take every cell they can and never give
one away: when every move would hand the next seat a cell they leave the game instead.
The checked bot therefore never completes a cell there, and its extra move is judged by
`extra-move` alone.
"""
from __future__ import annotations

import os
import random
import re
import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from ..games import CHANCE, Game, GameError, State, find_game
from ..games.dots import DotsGame, DotsState
from ..protocol import START, find_dialect, format_chance_line, format_game_line, opening_lines
from ..records import GameRecord, Termination
from ..referee import STARTUP_TIMEOUT, PlayerSpec, TimeControl, play_game
from ..transport.process import LOG_CAP_BYTES
from ..transport.shown import SandboxSpec
from ..verdicts import rules_failed
from .monitor import TAG as MONITOR_TAG
from .seat import STOPPED_STATUS, gives_cell

SMALL_CLOCK_MS = 1000  # the whole game's budget in `small-clock`, at least...
SMALL_CLOCK_MOVE_MS = 100  # ...and this much per move the bot made in the first-seat game
MOVE_CAP_MS = 1000  # move_ms in `move-cap`
START_UP_MS = 5000  # the start-up (off the clock) and the first reply together must take at most this
MEMORY_SHARE = 0.9  # peak memory above this share of memory_mb fails `memory`
SEAT_TIME = TimeControl(time_ms=120_000)  # the arbiter's own seats never run out
TRANSCRIPT_LINES = 8
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # so the seat program imports this arbiter

Status = Literal["pass", "fail", "skip"]

# (id, title) in checklist order; games are played in this order too.
DUTIES: tuple[tuple[str, str], ...] = (
    ("seat-0", "plays the first seat (Start, one flushed move per turn)"),
    ("seat-1", "plays the second seat (first line: the other seat's move)"),
    ("players-3", "plays every seat of a 3-player game"),
    ("params", "reads non-default parameters from the Game line"),
    ("opening", "applies `Opening N` moves without answering them"),
    ("extra-move", "moves again after completing a cell"),
    ("relayed-turn", "reads the other seat's turn of several moves"),
    ("small-clock", f"answers within a small clock ({SMALL_CLOCK_MOVE_MS} ms a move, at least {SMALL_CLOCK_MS} ms)"),
    ("move-cap", f"answers within move_ms ({MOVE_CAP_MS} ms per move)"),
    ("out-of-turn", "writes nothing out of turn (also while not stopped)"),
    ("stdout", "writes nothing but moves on stdout"),
    ("quit", "exits within 0.5 s of Quit"),
    ("end-without-quit", "writes nothing more and exits at end of input without Quit (CodeCup)"),
    ("processes", "leaves no process running"),
    ("start-up", f"starts and makes its first move within {START_UP_MS} ms"),
    ("stderr", f"stderr under {LOG_CAP_BYTES >> 20} MiB per game"),
    ("memory", "peak memory under the cap"),
)
TITLES = dict(DUTIES)

# Non-default parameters for `params`, per game: the first set that differs from the
# parameters the check was given. Boxes are not square, so rows and cols cannot be swapped.
OTHER_PARAMS: dict[str, tuple[dict[str, str], ...]] = {
    "dots-and-triangles": ({"rows": "5"}, {"rows": "3"}),
    "dots-and-boxes": ({"rows": "2", "cols": "4"}, {"rows": "4", "cols": "3"}),
    "limit-nim": ({"piles": "7/3,5/2"}, {"piles": "6/6,3/1,4/2,9/4"}),
}


@dataclass(frozen=True)
class CheckTarget:
    """The bot under check (as any seat's player: command, cwd, env, dialect, transport) and
    the game it is checked on. Its own time control is replaced by each scenario's."""

    game_name: str
    params: dict[str, str]  # as given with -p, text
    player: PlayerSpec
    time_ms: int = 10_000  # the budget of every game but `small-clock`
    memory_mb: int | None = TimeControl.memory_mb
    # What every game's clock counts; `cpu` also measures the first move of `start-up` in CPU
    # time: on a machine busy with other work, what a bot waited for a CPU is not its doing.
    clock: Literal["wall", "cpu"] = "wall"
    duties: frozenset[str] | None = None  # only these (None: all); the others are not checked


@dataclass
class CheckItem:
    """One line of the checklist."""

    id: str
    title: str
    status: Status = "skip"
    note: str = ""  # what was seen, or why it was not checked
    hint: str = ""  # for a failure: what to look at, in plain words
    transcript: list[str] = field(default_factory=list)  # for a failure: the last lines exchanged
    log: str | None = None  # the bot's stderr log of the failing game

    def to_json(self) -> dict[str, Any]:
        """The item as plain data."""
        return {"id": self.id, "title": self.title, "status": self.status, "note": self.note,
                "hint": self.hint, "transcript": self.transcript, "log": self.log}


@dataclass
class CheckReport:
    """The whole checklist and what the bot used over all its games."""

    target: CheckTarget
    items: list[CheckItem]
    games: int
    duration_s: float
    clock_used_ms: float  # the bot's clock over every game
    first_reply_ms: float | None
    peak_memory_kb: int | None
    log_dir: str
    # The games the rules could not decide (their own failure, docs/records.md): each one's
    # sentence, once. They check nothing, and fail no duty of the bot.
    void: list[str] = field(default_factory=list)
    # The games the arbiter's own seat lost by a fault of its own: each one's sentence, once.
    # They check nothing either (the check could not be played as planned), and blame no bot.
    seat_failed: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether no item failed."""
        return all(item.status != "fail" for item in self.items)

    def item(self, duty: str) -> CheckItem:
        """The item of one duty."""
        return next(item for item in self.items if item.id == duty)

    def failed(self) -> list[str]:
        """The ids of the failed items, in checklist order."""
        return [item.id for item in self.items if item.status == "fail"]

    def to_json(self) -> dict[str, Any]:
        """The report as plain data (`arbiter check --json`)."""
        t = self.target
        return {
            "game": t.game_name, "params": t.params, "command": list(t.player.command),
            "dialect": t.player.dialect, "transport": t.player.transport, "time_ms": t.time_ms, "passed": self.passed, "games": self.games,
            "duration_s": round(self.duration_s, 3), "clock_used_ms": round(self.clock_used_ms, 3),
            "first_reply_ms": self.first_reply_ms, "peak_memory_kb": self.peak_memory_kb,
            "log_dir": self.log_dir, "void": self.void, "seat_failed": self.seat_failed,
            "items": [item.to_json() for item in self.items],
        }


class RulesFailure(Exception):
    """The game's rules raised while the check built its scenarios: nothing can be checked
    on them. The message is the sentence that says so."""


@dataclass(frozen=True)
class _Game:
    """One game of a scenario: the bot in `bot_seat`, the arbiter's seats in the others."""

    duty: str
    params: dict[str, Any]
    bot_seat: int
    opening: tuple[str, ...] = ()
    scripts: dict[int, tuple[str, ...]] = field(default_factory=dict)  # the arbiter's seats' first moves
    time: TimeControl = TimeControl()
    monitor: bool = False  # run the bot under `monitor.py`
    withhold_quit: bool = False  # ...which closes its input in place of passing on `Quit`
    no_gifts: bool = True  # the arbiter's seats leave rather than give a cell away


@dataclass
class _Played:
    game: _Game
    record: GameRecord
    game_line: str | None
    stderr_bytes: int
    monitor: dict[str, str]  # the monitor's report fields, merged


def run_check(target: CheckTarget, *, log_dir: Path, concurrency: int = 1, seed: int = 1) -> CheckReport:
    """Play every scenario that applies to the target's game and dialect (`concurrency` games at
    once); the checklist.

    Raises ValueError (from the referee, before any process starts) when the game cannot be
    played as asked; GameError for an unknown game or parameter; RulesFailure when the game's
    rules fail while the scenarios' positions are built. A game the rules fail during is
    void: it checks nothing, and the report says so (`void`).
    """
    game = find_game(target.game_name, **target.params)
    if target.duties is not None and "seat-0" not in target.duties:
        raise ValueError("a check starts with the first-seat game: its duties must include seat-0")
    items = {duty: CheckItem(duty, title) for duty, title in DUTIES}
    try:
        games, not_applicable = _plan(target, game, random.Random(seed))
    except GameError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the rules raise is theirs, not the bot's
        raise RulesFailure(rules_failed(game.name, "while the check built its scenarios", exc).detail) from None
    for duty, why in not_applicable.items():
        items[duty].note = why
    log_dir.mkdir(parents=True, exist_ok=True)
    prefix = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-%f-")
    started = time.monotonic()
    played: list[_Played] = []
    charged: dict[tuple[str, str], str] = {}  # a fault's signature -> the duty it was charged to
    clock_ms = 0.0
    first = _play(target, games[0], log_dir, f"{prefix}01-{games[0].duty}-")
    results = [first]
    own_moves = sum(1 for m in first.record.moves if m.seat == first.game.bot_seat and not m.forced)
    if own_moves:
        rest = [_small_clock(planned, own_moves) for planned in games[1:]]
        cancel = threading.Event()  # set on Ctrl-C: the games in flight end at once
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="check") as pool:
            futures = [pool.submit(_play, target, planned, log_dir, f"{prefix}{number:02d}-{planned.duty}-", cancel)
                       for number, planned in enumerate(rest, 2)]
            try:
                results += [future.result() for future in futures]
            except BaseException:
                cancel.set()
                for future in futures:
                    future.cancel()
                raise
    else:  # a bot that cannot make one move would only fail every game the same way, slowly
        why = ("the arbiter's own seat failed in the first-seat game" if _seat_failed(first)
               else "the bot made no move in the first-seat game")
        for duty in {planned.duty for planned in games[1:]} | {"processes", "memory"}:
            items[duty].note = f"not checked: {why}"
    for result in results:  # judged in checklist order, whichever finished first
        played.append(result)
        clock_ms += result.record.time_used_ms[result.game.bot_seat]
        _judge(result, items, charged)
    first_reply = _first_reply_ms(played, target.clock)
    peak_kb = _judge_measures(target, played, items, first_reply)
    for duty, why in not_applicable.items():  # measured in every game, but not asked for
        items[duty].status, items[duty].note = "skip", why
    void = list(dict.fromkeys(result.record.detail for result in played if result.record.termination.is_void))
    seat_failed = list(dict.fromkeys(result.record.detail for result in played if _seat_failed(result)))
    report = CheckReport(
        target=target, items=list(items.values()), games=len(played), duration_s=time.monotonic() - started,
        clock_used_ms=clock_ms, first_reply_ms=first_reply, peak_memory_kb=peak_kb, log_dir=str(log_dir), void=void,
        seat_failed=seat_failed,
    )
    return report


# --- planning ------------------------------------------------------------------------

def _small_clock(planned: _Game, own_moves: int) -> _Game:
    """The small-clock game's budget, once the first-seat game showed how many moves a game
    asks of the bot: SMALL_CLOCK_MOVE_MS per move, at least SMALL_CLOCK_MS (a Sudoku game
    asks three times the moves of one on the 4-row triangle board)."""
    if planned.duty != "small-clock":
        return planned
    return replace(planned, time=replace(planned.time, time_ms=max(SMALL_CLOCK_MS, SMALL_CLOCK_MOVE_MS * own_moves)))


def _plan(target: CheckTarget, game: Game[Any], rng: random.Random) -> tuple[list[_Game], dict[str, str]]:
    """The games to play, in checklist order, and why the other duties do not apply."""
    params = dict(target.params)
    base = TimeControl(time_ms=target.time_ms, memory_mb=target.memory_mb, clock=target.clock)
    games: list[_Game] = [_Game("seat-0", params, 0, time=base), _Game("seat-1", params, 1, time=base)]
    skipped: dict[str, str] = {}
    dialect = find_dialect(target.player.dialect)
    dots = isinstance(game, DotsGame)
    # The duties the dialect cannot ask of a bot: any number of seats, the Game line's
    # parameters, and the positions an opening sets up.
    unlike = f"not in the {dialect.name} dialect"
    if dialect.seats is not None:
        skipped["players-3"] = f"{unlike} (always {dialect.seats} seats)"
    elif any(p.name == "players" for p in game.parameters):
        three = {**params, "players": "3"}
        games += [_Game("players-3", three, seat, time=base) for seat in range(3)]
    else:
        skipped["players-3"] = f"{game.name} has two seats"
    other = next((o for o in OTHER_PARAMS.get(game.name, ()) if any(params.get(k) != v for k, v in o.items())),
                 None)
    if not dialect.sends_game_line:
        skipped["params"] = f"{unlike} (no Game line)"
    elif other is None:
        skipped["params"] = f"{game.name} has no parameters to vary"
    else:
        games.append(_Game("params", {**params, **other}, 0, time=base))
    if not dialect.takes_openings:
        for duty in ("opening", "extra-move", "relayed-turn"):
            skipped[duty] = f"{unlike} (no openings, which set up its position)"
    else:
        opening = _quiet_opening(game, rng)
        if opening is None:
            skipped["opening"] = "no opening of two quiet moves exists on this board"
        else:
            games.append(_Game("opening", params, 1, opening=opening, time=base))
        if not dots:
            for duty in ("extra-move", "relayed-turn"):
                # The positions are built from the dots games' rule (a completed cell keeps the
                # turn); another game's moves may keep it too (a jump in Chinese checkers).
                skipped[duty] = "its positions, where a move keeps the turn, are built for the dots games only"
        else:
            extra = _extra_move_position(game, rng)
            if extra is None:
                skipped["extra-move"] = "this board is too small for a cell with moves after it"
            else:
                opening, seat = extra
                games.append(_Game("extra-move", params, seat, opening=opening, time=base))
            relayed = _relayed_turn_position(game, rng)
            if relayed is None:
                skipped["relayed-turn"] = "this board is too small for a turn of two moves with moves after it"
            else:
                opening, seat, script = relayed
                games.append(_Game("relayed-turn", params, 1 - seat, opening=opening,
                                   scripts={seat: script}, time=base))
    if dialect.sends_game_line:
        games += [
            _Game("small-clock", params, 0, time=replace(base, time_ms=SMALL_CLOCK_MS)),  # see _small_clock
            _Game("move-cap", params, 1, time=replace(base, move_ms=MOVE_CAP_MS)),
        ]
    else:  # a contest's bot is built for the contest's one clock, and no line could tell it another
        for duty in ("small-clock", "move-cap"):
            skipped[duty] = f"{unlike} (its clock is the contest's, fixed; no Game line tells a bot another)"
    games += [
        _Game("out-of-turn", params, 1, time=replace(base, suspend_idle=False)),
        _Game("quit", params, 0, time=base, monitor=True),
    ]
    if dialect.ends_without_quit:
        games.append(_Game("end-without-quit", params, 1, time=base, monitor=True, withhold_quit=True))
    else:
        skipped["end-without-quit"] = "only in the codecup dialect (the contest sent no Quit after a winning move)"
    if target.duties is not None:
        for duty, _ in DUTIES:
            if duty not in target.duties:
                skipped[duty] = "not part of this check"
        games = [g for g in games if g.duty in target.duties]
    return games, skipped


def _quiet_opening(game: Game[Any], rng: random.Random, length: int = 3) -> tuple[str, ...] | None:
    """Up to `length` random legal moves (at least two) that neither end the game nor, in a
    dots game, complete or offer a cell, stopping at a chance node (the referee's dice are
    drawn in the game). A bot that answers forced moves answers several."""
    for _ in range(200):
        state = game.new_state()
        moves: list[str] = []
        while len(moves) < length and state.current_player != CHANCE:
            options = state.legal_moves()
            if isinstance(state, DotsState):
                options = [e for e in options if not state.game.completed_by(state.drawn, e)
                           and not gives_cell(state.game, state.drawn, e)]
            options = [m for m in options if not _ends(state, m)]
            if not options:
                break
            move = rng.choice(options)
            moves.append(game.format_move(move))
            state.apply(move)
        if len(moves) >= 2:
            return tuple(moves)
    return None


def _ends(state: State[Any], move: Any) -> bool:
    after = state.clone()
    after.apply(move)
    return after.is_over()


def _extra_move_position(game: Any, rng: random.Random) -> tuple[tuple[str, ...], int] | None:
    """An opening after which every free edge completes a cell and at least two are free:
    the bot, to move, completes a cell and must move again. (opening, the bot's seat)."""
    edges = len(game.edges)
    for _ in range(2000):
        order = rng.sample(range(edges), edges)
        for free_count in (2, 3, 4):
            drawn_edges, free = order[:edges - free_count], order[edges - free_count:]
            drawn = sum(1 << e for e in drawn_edges)
            if free_count >= 2 and all(game.completed_by(drawn, e) for e in free):
                opening = tuple(game.format_move(e) for e in drawn_edges)
                return opening, _mover_after(game, drawn_edges)
    return None


def _relayed_turn_position(game: Any, rng: random.Random) -> tuple[tuple[str, ...], int, tuple[str, ...]] | None:
    """An opening and two moves for the seat to move: the first completes a cell, the second
    completes none and leaves free edges, none of which completes a cell. The other seat
    (the bot) is sent both moves at once. (opening, the scripted seat, its two moves)."""
    edges = len(game.edges)
    for _ in range(2000):
        order = rng.sample(range(edges), edges)
        for free_count in (3, 4, 5, 6):
            drawn_edges, free = order[:edges - free_count], order[edges - free_count:]
            drawn = sum(1 << e for e in drawn_edges)
            for first in free:
                if not game.completed_by(drawn, first):
                    continue
                after = drawn | (1 << first)
                for second in free:
                    if second == first or game.completed_by(after, second):
                        continue
                    rest = [e for e in free if e not in (first, second)]
                    final = after | (1 << second)
                    if rest and not any(game.completed_by(final, e) for e in rest):
                        opening = tuple(game.format_move(e) for e in drawn_edges)
                        return opening, _mover_after(game, drawn_edges), (game.format_move(first),
                                                                            game.format_move(second))
    return None


def _mover_after(game: Game[Any], moves: list[Any]) -> int:
    state = game.new_state()
    for move in moves:
        state.apply(move)
    return state.current_player


# --- playing -------------------------------------------------------------------------

def _play(target: CheckTarget, planned: _Game, log_dir: Path, prefix: str,
          cancel: threading.Event | None = None) -> _Played:
    game = find_game(target.game_name, **planned.params)
    bot = replace(target.player, time=planned.time)
    if planned.monitor:
        # The monitor starts the bot from inside its box, whose PATH holds only the system's
        # folders: name the program as the arbiter's PATH finds it, as the box does for a command.
        program = bot.command[0] if "/" in bot.command[0] else shutil.which(bot.command[0]) or bot.command[0]
        watch = ("--no-quit",) if planned.withhold_quit else ()
        bot = replace(bot, command=(sys.executable, "-m", "arbiter.check.monitor", *watch, program, *bot.command[1:]),
                      env={**bot.env, "PYTHONPATH": os.pathsep.join(filter(None, [_seat_path(), bot.env.get("PYTHONPATH")]))})
    players = []
    for seat in range(game.num_players):
        if seat == planned.bot_seat:
            players.append(bot)
            continue
        words = [sys.executable, "-m", "arbiter.check.seat", "--seed", str(seat + 1)]
        if planned.no_gifts:
            words.append("--no-gifts")
        if planned.scripts.get(seat):
            words += ["--script", ";".join(planned.scripts[seat])]
        players.append(PlayerSpec(name=f"arbiter{seat}", command=tuple(words), env={"PYTHONPATH": _seat_path()},
                                  sandbox=_seat_box(),
                                  time=SEAT_TIME))
    record = play_game(game, players, time=planned.time, opening=planned.opening, log_dir=log_dir,
                       log_prefix=prefix, cancel=cancel)
    game_line = None
    if find_dialect(target.player.dialect).sends_game_line:
        game_line = format_game_line(game, planned.bot_seat, planned.time.time_ms, planned.time.move_ms)
    log = record.logs[planned.bot_seat]
    stderr_bytes, monitor = _read_log(Path(log)) if log else (0, {})
    return _Played(planned, record, game_line, stderr_bytes, monitor)


def _read_log(path: Path) -> tuple[int, dict[str, str]]:
    """The bot's stderr size (the monitor's lines not counted) and the monitor's fields."""
    try:
        data = path.read_bytes()
    except OSError:
        return 0, {}
    fields: dict[str, str] = {}
    size = len(data)
    for line in data.splitlines(keepends=True):
        if line.startswith(MONITOR_TAG.encode()):
            size -= len(line)
            for word in line.decode(errors="replace").split()[1:]:
                key, _, value = word.partition("=")
                if not (key == "sigterm" and fields.get(key) == "1"):  # once sent, it was sent
                    fields[key] = value
    return size, fields


# --- judging -------------------------------------------------------------------------

def _seat_path() -> str:
    """The arbiter's seat's PYTHONPATH: this arbiter's package, then the user's PYTHONPATH, where
    a game of the user's own (`mygames.race:Race`) is found, as the arbiter itself finds it."""
    return os.pathsep.join(filter(None, [PACKAGE_ROOT, os.environ.get("PYTHONPATH")]))


def _seat_box() -> SandboxSpec:
    """The arbiter's seat's box: the defaults, and the user's PYTHONPATH folders read-only (the
    module of a game of the user's own is imported there; the bot's box is the bot's to set)."""
    shown = [os.path.abspath(entry) for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    return SandboxSpec(read=tuple(dict.fromkeys(path for path in shown if os.path.isdir(path))))


def _seat_failed(played: _Played) -> bool:
    """Whether the game ended by a fault of the arbiter's own seat (a seat program that could not
    play: the game's module not importable there, say), which decides nothing of the bot. A
    seat that leaves a `--no-gifts` game on purpose exits with seat.STOPPED_STATUS: that is
    the scenario's plan, not a failure."""
    record, planned = played.record, played.game
    if not (record.termination.is_fault and record.offender is not None and record.offender != planned.bot_seat):
        return False
    left_on_purpose = f"exited with status {STOPPED_STATUS} before"  # verdicts.crashed's words
    return not (planned.no_gifts and record.termination is Termination.CRASH and left_on_purpose in record.detail)


def _judge(played: _Played, items: dict[str, CheckItem], charged: dict[tuple[str, str], str]) -> None:
    """Mark the game's own duty, or charge the bot's fault to the duty it breaks."""
    planned, record = played.game, played.record
    own = items[planned.duty]
    seat = planned.bot_seat
    bot_moves = [m for m in record.moves if m.seat == seat and not m.forced]
    if record.termination.is_void or _seat_failed(played):  # the rules, or the arbiter's own seat: it checks nothing
        for duty in (planned.duty, "processes") if planned.duty == "quit" else (planned.duty,):
            if items[duty].status == "skip":
                items[duty].note = f"not checked: {record.detail}"
        return
    if record.offender != seat:
        if own.status == "skip" and not own.note.startswith("not checked"):
            own.status = "pass"
        if own.status == "pass" and planned.duty not in ("quit", "end-without-quit"):
            own.note = f"{len(bot_moves)} moves, {record.time_used_ms[seat]:.0f} ms of clock"
        if planned.duty == "quit":
            _judge_exit(played, items)
        if planned.duty == "end-without-quit":
            _judge_end_without_quit(played, own)
        return
    signature, duty = _charge(played, bot_moves)
    duty = charged.setdefault(signature, duty)
    item = items[duty]
    if item.status != "fail":
        item.status = "fail"
        item.hint = _hint(duty, played, bot_moves)
        item.transcript = _transcript(played)
        item.log = record.logs[seat]
        # A failed duty says what failed, never an earlier game's "not checked" (it is checked now).
        item.note = f"in seat {seat} of 3" if duty == "players-3" else ""
    if duty != planned.duty and own.status != "fail":
        own.status = "skip"
        own.note = f"not checked: the game ended early on the fault charged to {duty!r}"
    if planned.duty == "quit":
        for exit_duty in ("quit", "processes", "memory"):
            if items[exit_duty].status != "fail":
                items[exit_duty].note = f"not checked: the game ended early on the fault charged to {duty!r}"


def _charge(played: _Played, bot_moves: list[Any]) -> tuple[tuple[str, str], str]:
    """A fault's signature (what happened, at which point) and the duty it breaks."""
    record, planned = played.record, played.game
    termination = record.termination
    last = record.moves[-1] if record.moves else None
    if termination is Termination.MALFORMED:
        return ("malformed", ""), "stdout"
    if termination is Termination.TIMEOUT and last is not None and last.seat == planned.bot_seat \
            and not last.forced and _kept_turn(played):
        return ("timeout", "after a cell"), "extra-move"
    if termination is Termination.TIMEOUT and not bot_moves and STARTUP_TIMEOUT in record.detail:
        return ("timeout", "start-up"), "start-up"
    point = "first move" if not bot_moves else "later"
    if termination is Termination.PROTOCOL:  # in a game with forced moves, most likely an answer to one
        return ("protocol", ""), "opening" if planned.opening else "out-of-turn"
    if termination is Termination.ILLEGAL and planned.opening:
        return ("illegal", "opening"), "opening"
    if planned.duty == "params" and termination is not Termination.TIMEOUT:
        point = "params"  # a crash or an illegal move on other parameters is the parameters' fault
    return (termination.value, point), planned.duty


def _kept_turn(played: _Played) -> bool:
    """Whether the bot's last move left it to move again (it completed a cell)."""
    record = played.record
    game = find_game(record.game, **{k: str(v) for k, v in record.params.items()})
    state = game.new_state()
    for move in record.moves:
        state.play(move.move)
    return not state.is_over() and state.current_player == played.game.bot_seat


def _hint(duty: str, played: _Played, bot_moves: list[Any]) -> str:
    """What to look at, in plain words."""
    record, planned = played.record, played.game
    detail = record.detail
    tc = planned.time
    if duty == "stdout":
        return f"{detail}: write only moves on stdout; debug text goes to stderr"
    if duty == "extra-move":
        return ("did not move again after completing a cell: after a move that completes a cell the same "
                "seat moves again at once, without being sent anything")
    if duty == "opening":
        return ("answered a forced opening move: after `Opening N`, apply the N moves that follow without "
                f"answering any; move only after `Start` or a relayed move ({detail})")
    if duty == "out-of-turn":
        return (f"{detail}: write one move per turn (more only after completing a cell) and nothing once "
                "the turn has passed")
    if duty == "small-clock":
        return (f"{detail}: read time_ms from the Game line and spend it in proportion; start up quickly "
                "(load tables lazily)")
    if duty == "start-up":
        return (f"{detail}: a bot has finished starting when it waits for its input; read the first line "
                "as soon as it is set up, and keep heavy start-up work under the start-up limit")
    if duty == "move-cap":
        return f"{detail}: read move_ms from the Game line and answer each move within it"
    if record.termination is Termination.TIMEOUT and not bot_moves:
        limit = tc.move_ms if tc.move_ms is not None and tc.move_ms < tc.time_ms else tc.time_ms
        return f"no reply within {limit} ms: is stdout flushed after each move?"
    if duty == "params":
        return (f"{detail}, with the Game line `{played.game_line}`: read the game's parameters from the "
                "Game line instead of assuming the defaults")
    if duty == "players-3":
        return (f"{detail}, in seat {planned.bot_seat} of a 3-player game: take the number of seats from "
                "players= and the bot's own from seat=; turns go round all seats")
    if duty == "seat-1":
        return (f"{detail}: as the second seat the first line after the Game line is the other seat's move, "
                "not `Start`")
    if duty == "relayed-turn":
        return (f"{detail}: the other seat's turn of several moves (a completed cell and one more) is sent "
                "as several lines at once; apply them all before moving")
    if record.termination is Termination.CRASH:
        return f"{detail}: see its log"
    if record.termination is Termination.ILLEGAL:
        return f"{detail}: keep the position in step with every relayed move, and with its own extra moves"
    return detail


def _transcript(played: _Played) -> list[str]:
    """The last lines exchanged with the bot, rebuilt from the record: `>` to it, `<` from it."""
    record, planned = played.record, played.game
    seat = planned.bot_seat
    lines: list[str] = []
    if played.game_line:
        lines.append(f"> {played.game_line}")
    lines += [f"> {line}" for line in opening_lines([m.move for m in record.moves if m.forced])]
    played_moves = [m for m in record.moves if not m.forced]
    first_mover = played_moves[0].seat if played_moves else None
    if first_mover == seat or (first_mover is None and record.offender == seat):
        lines.append(f"> {START}")
    for move in played_moves:
        if move.seat == CHANCE:  # the referee's dice, sent to every seat
            lines.append(f"> {format_chance_line(move.move)}")
        else:
            lines.append(f"< {move.move}" if move.seat == seat else f"> {move.move}")
    lines.append(f"!! {record.termination.value}: {record.detail}")
    return lines[-TRANSCRIPT_LINES:]


def _judge_exit(played: _Played, items: dict[str, CheckItem]) -> None:
    """The watched exit: `quit`, `processes` and the peak memory, from the monitor's report."""
    monitor = played.monitor
    quit_item, processes = items["quit"], items["processes"]
    if not monitor:
        for item in (quit_item, processes):
            item.status, item.note = "skip", "not checked: the monitor's report is missing from the log"
        return
    log = played.record.logs[played.game.bot_seat]
    if monitor.get("sigterm") == "1":
        quit_item.status, quit_item.note = "fail", "sent SIGTERM"
        quit_item.hint = ("did not exit within 0.5 s of Quit (it was sent SIGTERM): exit when `Quit` "
                          "arrives or standard input closes")
        quit_item.transcript = _transcript(played)[-3:]
        quit_item.log = log
    else:
        quit_item.status, quit_item.note = "pass", "exited on Quit"
    left = [entry for entry in monitor.get("left", "-").split(",") if entry and entry != "-"]
    if left:
        processes.status = "fail"
        processes.note = f"{len(left)} left: {', '.join(left)}"
        processes.hint = ("left processes running after it exited: end every process it starts, and wait "
                          "for them, before exiting")
        processes.log = log
    elif monitor.get("status") is None:
        processes.status, processes.note = "skip", "not checked: the bot did not exit by itself"
    else:
        processes.status, processes.note = "pass", "none left"


def _judge_end_without_quit(played: _Played, item: CheckItem) -> None:
    """After the game's last move the bot was sent nothing, and its input closed (no `Quit`):
    it must write nothing more and exit by itself; its exit status is said, not judged."""
    monitor, log = played.monitor, played.record.logs[played.game.bot_seat]
    late = _late_output(log)
    status = monitor.get("status", "")
    problem = hint = ""
    if not monitor:
        item.status, item.note = "skip", "not checked: the monitor's report is missing from the log"
        return
    if late:
        problem = "wrote after the game's end"
        hint = (f"{late}: on CodeCup the move that ends the game is never sent, and nothing follows a "
                "winning move; write nothing once your input has ended")
    elif monitor.get("sigterm") == "1" or not status.isdigit():
        problem = "did not exit at the end of its input"
        hint = ("did not exit within 0.5 s when its input closed without Quit (it was sent SIGTERM): CodeCup "
                "sends no Quit after a winning move; treat the end of input as the end of the game")
    if problem:
        item.status, item.note, item.hint, item.log = "fail", problem, hint, log
        item.transcript = _transcript(played)[-3:] + ["> (end of input, no Quit)"]
        return
    # How it ended is said, not judged: the contest stops a bot after its game without a word,
    # and judges its moves only (an entry that logs "Unexpected end of input!" and exits 1, as
    # a public CodeCup 2024 entry does, ran there without fault).
    if os.WIFEXITED(int(status)) and os.WEXITSTATUS(int(status)) != 0:
        item.status, item.note = "pass", (f"exited with status {os.WEXITSTATUS(int(status))} at the end of its "
                                          "input (not judged: the contest judges only the moves)")
    elif not os.WIFEXITED(int(status)):
        item.status, item.note = "pass", (f"ended on signal {os.WTERMSIG(int(status))} at the end of its input "
                                          "(not judged: the contest judges only the moves)")
    else:
        item.status, item.note = "pass", "exited at the end of its input"


def _late_output(log: str | None) -> str:
    """The arbiter's note of what the bot wrote after the game's end, if its log has one."""
    try:
        text = Path(log).read_text(errors="replace") if log else ""
    except OSError:
        return ""
    found = re.search(r"\[arbiter: (after the game's end the bot wrote [^\]]*)\]", text)
    return found.group(1) if found else ""


def _first_reply_ms(played: list[_Played], clock: str) -> float | None:
    """In the first-seat game: the bot's start-up (off its clock) and its first move's time
    on the clock the check counts."""
    for result in played:
        if result.game.duty == "seat-0":
            moves = [m for m in result.record.moves if m.seat == 0 and not m.forced]
            startup = result.record.startup_ms[0] if result.record.startup_ms else None
            if not moves:
                return None
            return (moves[0].cpu_ms if clock == "cpu" else moves[0].wall_ms) + (startup or 0.0)
    return None


def _judge_measures(target: CheckTarget, played: list[_Played], items: dict[str, CheckItem],
                    first_reply: float | None) -> int | None:
    """start-up, stderr and memory, from every game's figures; the peak memory in KiB."""
    stdout = items["stdout"]
    if stdout.status != "fail":
        stdout.status, stdout.note = "pass", f"only moves in {len(played)} games"
    start = items["start-up"]
    if start.status == "fail":
        pass  # it did not finish starting at all: charged by its game
    elif first_reply is None:
        start.note = "not checked: no first move in the first-seat game"
    elif first_reply > START_UP_MS:
        start.status, start.note = "fail", f"{first_reply:.0f} ms"
        start.hint = (f"its start-up and first move took {first_reply:.0f} ms: start up faster, or do the "
                      "heavy work within the clock it is given (time_ms), not before the first move")
    else:
        start.status, start.note = "pass", f"{first_reply:.0f} ms"
    stderr = items["stderr"]
    largest = max(played, key=lambda p: p.stderr_bytes)
    if largest.stderr_bytes >= LOG_CAP_BYTES:
        stderr.status = "fail"
        stderr.note = f"{largest.stderr_bytes} bytes in one game"
        stderr.hint = (f"wrote {largest.stderr_bytes} bytes to stderr in one game; the log keeps "
                       f"{LOG_CAP_BYTES >> 20} MiB and drops the rest: log less")
        stderr.log = largest.record.logs[largest.game.bot_seat]
    else:
        stderr.status, stderr.note = "pass", f"at most {largest.stderr_bytes} bytes per game"
    memory = items["memory"]
    peak = next((int(p.monitor["peak_kb"]) for p in played if p.monitor.get("peak_kb", "").isdigit()), None)
    if peak is None:
        if not memory.note:
            memory.note = "not checked: the monitor's report is missing"
    elif target.memory_mb is not None and peak > MEMORY_SHARE * target.memory_mb * 1024:
        memory.status, memory.note = "fail", f"{peak / 1024:.0f} MB"
        memory.hint = f"peak memory {peak / 1024:.0f} MB is close to the {target.memory_mb} MB cap"
    else:
        memory.status = "pass"
        memory.note = f"{peak / 1024:.0f} MB" + (f" of {target.memory_mb} MB" if target.memory_mb else "")
    return peak


__all__ = ["CheckItem", "CheckReport", "CheckTarget", "DUTIES", "RulesFailure", "run_check"]
