"""The game record: what the referee returns and tournaments store, one per game.

Documented field by field in docs/records.md. Records are the source of truth:
every number in a report is recomputed from them. This is the one module that turns a
record into JSON and back (`GameRecord.to_json`, `read_record`); everything else reads
records by attribute.
"""
from __future__ import annotations

import copy
import enum
from dataclasses import dataclass, field, fields
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Sequence

from .games import CHANCE


@cache
def arbiter_version() -> str:
    """The installed arbiter's version (its package metadata), "unknown" in an uninstalled tree."""
    try:
        return version("arbiter")
    except PackageNotFoundError:
        return "unknown"


class Termination(str, enum.Enum):
    """How a game ended. NORMAL: by the rules. VOID: the game could not be decided through
    no bot's fault (the game's own rules failed, or the worker process playing it died or
    ran out of something); it has no winner and no offender and counts for no one
    (docs/records.md). Every other value is a fault by `offender`."""

    NORMAL = "normal"
    TIMEOUT = "timeout"
    CRASH = "crash"
    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    PROTOCOL = "protocol"
    VOID = "void"

    @property
    def is_fault(self) -> bool:
        return self not in (Termination.NORMAL, Termination.VOID)

    @property
    def is_void(self) -> bool:
        return self is Termination.VOID


def game_places(scores: list[int], winner: int | None, offender: int | None) -> list[int]:
    """Each seat's place (1 is first; tied seats share the best place they span: 1, 1, 3).

    Two seats follow the game's winner (a game may decide it by more than points, as CodeCup
    Sudoku does): the winner is 1st, the other 2nd, both 1st in a draw. More seats rank by
    score; a fault's offender is last and the others keep their order by score so far.
    """
    if len(scores) == 2:
        return [1, 1] if winner is None else [1 if seat == winner else 2 for seat in range(2)]
    keys = [float("-inf") if seat == offender else float(score) for seat, score in enumerate(scores)]
    return [1 + sum(other > key for other in keys) for key in keys]


def score_text(scores: Sequence[int]) -> str:
    """A game's scores as every place prints them: `6-3`; scores below zero (OpenSpiel's
    returns: 1 and -1) signed and apart, `+1 / -1`, never `1--1` or `1 - -1`."""
    if min(scores, default=0) >= 0:
        return "-".join(str(score) for score in scores)
    return " / ".join(f"{score:+d}" if score else "0" for score in scores)


@dataclass(frozen=True)
class PlayerRef:
    """A seat's player as recorded: its name, the command that ran it and, in a tournament's
    records, which program that was: a SHA-256 of its program file and its own folders' files
    (tournament/programs.py); None for a remote bot, and in records from before it was kept."""

    name: str
    command: str
    digest: str | None = None


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One move: who made it, its canonical text, and the time it took (0 for forced moves).
    `seat` is CHANCE (-1) for an outcome of chance the referee drew (its times are 0)."""

    seat: int
    move: str
    wall_ms: float
    cpu_ms: float
    forced: bool = False  # an opening move played by the arbiter, not by the bot


# The format of a game record (its `schema` key, in every record written). 1: the first to
# say; a record without one (0) is read the same way, its missing fields as they were before
# they were kept. A change that older arbiters would misread raises it.
RECORD_SCHEMA = 1


class RecordError(ValueError):
    """A JSON value that is not a game record this arbiter can read; the message says why."""


class NewerRecordError(RecordError):
    """A game record written by a newer arbiter, in a format this one does not know."""


@dataclass(frozen=True)
class GameRecord:
    """One refereed game. `winner`/`offender` are seat indices or None.

    The referee fills the game's own fields; a tournament adds its fields (`id` to `seed`,
    docs/records.md, Tournament fields), which are None in a game played alone (`arbiter play`)."""

    game: str
    params: dict[str, Any]
    players: list[PlayerRef]
    moves: list[MoveRecord]
    scores: list[int]
    winner: int | None
    termination: Termination
    offender: int | None
    detail: str
    started_at: str  # ISO 8601, UTC
    duration_s: float
    logs: list[str | None]  # stderr log path per seat
    outcome: str | None = None  # a game-specific end name (e.g. CodeCup Sudoku's WIN/ILLEGAL)
    # Clock used per seat (wall or CPU ms, as its time control counts), an unfinished last turn included.
    time_used_ms: list[float] = field(default_factory=list)
    # How it was played: each seat's time control and memory limit (TimeControl's fields), and
    # the arbiter that refereed it.
    time_controls: list[dict[str, Any]] = field(default_factory=list)
    # Per seat, how long its bot took to start (ms from launch until it first waited for its
    # input, off the clock); None where start-up was not watched (charge_startup, remote bots).
    startup_ms: list[float | None] = field(default_factory=list)
    # Per seat, whether its bot ran in a sandbox (docs/security.md); None for a remote bot (not launched).
    sandboxed: list[bool | None] = field(default_factory=list)
    # Per seat, the CPU time (ms) its bot used while it was suspended between turns, charged to
    # its own clock (0 where suspension held: docs/security.md); empty in records from before.
    suspended_cpu_ms: list[float] = field(default_factory=list)
    # The seed the referee drew the game's chance outcomes from (docs/protocol.md, Chance);
    # None in a game that had none.
    chance_seed: int | None = None
    # Per seat, which process played it: the pid of the bot the arbiter launched (None for a
    # remote bot), and which game of that process this was (1: launched for this game; more
    # for a bot kept between games, docs/protocol.md, Many games per process); empty in
    # records from before.
    pids: list[int | None] = field(default_factory=list)
    game_of_process: list[int | None] = field(default_factory=list)
    arbiter_version: str = field(default_factory=lambda: arbiter_version())
    # The tournament's fields. `id`: the schedule's game id; `round`; `opening`: the forced
    # opening moves; `names`: the players in seat order; `places`: 1 is first; `points`: the
    # tournament's points per seat; `seed`: the bots' $ARBITER_SEED. `places` and `points`
    # are None in records from before they were kept.
    id: str | None = None
    round: int | None = None
    opening: list[str] | None = None
    names: list[str] | None = None
    places: list[int] | None = None
    points: list[float] | None = None
    seed: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # top-level keys this arbiter does not know, kept as read

    def seat_names(self) -> list[str]:
        """The players' names in seat order: the tournament's `names`, else the players' own."""
        return list(self.names) if self.names is not None else [p.name for p in self.players]

    def to_json(self) -> dict[str, Any]:
        """A plain dict for JSON: its schema first, then every field (tournament fields only
        when set), then the unknown keys it was read with, all at the top level."""
        data: dict[str, Any] = {"schema": RECORD_SCHEMA}
        for name in _RECORD_FIELDS:  # built field by field: `asdict` took most of a record's write
            value = getattr(self, name)
            if name == "moves":
                data[name] = [{"seat": m.seat, "move": m.move, "wall_ms": m.wall_ms, "cpu_ms": m.cpu_ms,
                               "forced": m.forced} for m in value]
            elif name == "termination":
                data[name] = value.value
            elif value is None and name in TOURNAMENT_FIELDS:
                continue
            elif name != "extra":
                data[name] = _plain(value)
        data.update(_plain(self.extra))
        return data

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Inverse of `to_json` (`read_record` without a tournament's checks): RecordError
        for what is not a record this arbiter can read; a field missing from an older record
        reads as it did before it was kept."""
        _check_schema(data)
        if not isinstance(data, dict):
            raise RecordError(f"a game record is a JSON object, not {type(data).__name__}")
        try:
            moves = _read_moves(data["moves"]) if "moves" in data else None
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            moves, damage = None, exc
        else:
            damage = None
        return _build(data, moves, damage)


def _build(data: dict[str, Any], moves: list[MoveRecord] | None, damage: Exception | None) -> GameRecord:
    """The GameRecord of a JSON object whose moves were read (`moves`, or what stopped
    reading them: `damage`); RecordError for what else makes it no record."""
    missing = [key for key in ("game", "moves", "winner", "termination") if key not in data]
    if missing:
        raise RecordError(f"this game record lacks {', '.join(missing)}")
    core = {k: v for k, v in data.items() if k in _KNOWN_FIELDS}
    try:
        core["players"] = [_read_player(p) for p in data.get("players", [])]
        if damage is not None:
            raise damage
        core["moves"] = moves
        termination = data["termination"]
        known = _TERMINATION_OF.get(termination) if type(termination) is str else None
        core["termination"] = known if known is not None else Termination(termination)  # ValueError, or the member
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise RecordError(f"this is not a game record ({type(exc).__name__}: {exc})") from None
    for name, value in READ_DEFAULTS.items():
        if name not in core:
            core[name] = value() if callable(value) else value
    extra = {} if _READ_KEYS.issuperset(data) else {k: v for k, v in data.items() if k not in _READ_KEYS}
    return GameRecord(**core, extra=extra)


def _read_player(player: Any) -> PlayerRef:
    """A record's player (command "" and digest None when a record written by hand lacks them)."""
    return PlayerRef(player["name"], player.get("command", ""), player.get("digest"))


def _read_moves(moves: Any, seats: range | None = None) -> list[MoveRecord] | None:
    """A record's moves as MoveRecords, each checked as it is built (one walk over them): with
    `seats`, record_problem's check of a move, and None at the first that fails it.

    A move as the arbiter writes it (a dict of exactly MoveRecord's five fields, its seat an
    int and its wall_ms a number where they are checked) is built from them at once; any other
    move, one written by hand with seat and wall_ms at least, is checked first and built as
    `MoveRecord(**move)` would be, its missing fields at their defaults. (Reading a folder
    cost twice what the JSON did when the check and the build each walked every move,
    docs/performance.md.)"""
    allowed = _seats_allowed(len(seats)) if seats is not None else None
    read: list[MoveRecord] = []
    for move in moves:
        if (type(move) is dict and len(move) == 5 and "seat" in move and "move" in move and "wall_ms" in move
                and "cpu_ms" in move and "forced" in move):  # exactly MoveRecord's fields (checked below)
            seat, wall_ms = move["seat"], move["wall_ms"]
            if allowed is None or (type(seat) is int and seat in allowed
                                   and (type(wall_ms) is float or type(wall_ms) is int)):
                read.append(MoveRecord(seat, move["move"], wall_ms, move["cpu_ms"], move["forced"]))
                continue
        if seats is not None and not _usable_move(move, seats):
            return None
        read.append(MoveRecord(move["seat"], move.get("move", ""), move["wall_ms"], move.get("cpu_ms", 0.0),
                               move.get("forced", False)))
    return read


# _read_moves names MoveRecord's fields one by one, which costs less than a set's check of
# each move (5% of reading a folder): a field added to MoveRecord must be added there too.
if tuple(f.name for f in fields(MoveRecord)) != ("seat", "move", "wall_ms", "cpu_ms", "forced"):
    raise TypeError("records._read_moves names MoveRecord's fields: give it the new ones")


@cache
def _seats_allowed(players: int) -> frozenset[int]:
    """The seats a move of a game of `players` seats may name: a player's, or CHANCE's."""
    return frozenset(range(players)) | {CHANCE}


_KNOWN_FIELDS = frozenset(f.name for f in fields(GameRecord)) - {"extra"}
_READ_KEYS = _KNOWN_FIELDS | {"schema"}
TOURNAMENT_FIELDS = ("id", "round", "opening", "names", "places", "points", "seed")
_RECORD_FIELDS = tuple(f.name for f in fields(GameRecord))


def _plain(value: Any) -> Any:
    """`value` as JSON's values, copied (a dataclass as a dict of its fields): what `asdict`
    makes of a field, for the few kinds a record holds."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    return copy.deepcopy(value)
# What a field without a default of its own reads as when a record lacks it (one written by
# hand, or before the field was kept; docs/records.md); `from_json` requires game, moves,
# winner and termination.
READ_DEFAULTS: dict[str, Any] = {
    "params": dict, "scores": list, "offender": None, "detail": "", "started_at": "", "duration_s": 0.0,
    "logs": list, "outcome": None, "arbiter_version": "unknown",
}




def record_problem(data: Any) -> str | None:
    """What makes a parsed line of `games.jsonl` unusable as a tournament's game record, or None."""
    problem = _fields_problem(data)
    if problem is None:
        seats = range(len(data["names"]))
        if not all(_usable_move(move, seats) for move in data["moves"]):
            return _moves_problem(data["id"], seats)
    return problem


def _fields_problem(data: Any) -> str | None:
    """record_problem but for the moves, which `read_record` checks as it reads them."""
    if not isinstance(data, dict):
        return f"a game record is a JSON object, not {type(data).__name__}"
    missing = [key for key in RECORD_KEYS if key not in data]
    if missing:
        return f"this game record lacks {', '.join(missing)}"
    if not isinstance(data["id"], str) or not isinstance(data["moves"], list):
        return "a game record's id is a string and its moves a list"
    label = data["id"]  # "game ID: ..." in each message, made only when one is
    names = data["names"]
    if not (isinstance(names, list) and len(names) >= 2 and all(isinstance(n, str) for n in names)):
        return f"game {label}: names must be the players' names in seat order, not {names!r}"
    seats = range(len(names))
    winner = data["winner"]
    if winner is not None and (winner not in seats or isinstance(winner, bool)):
        return f"game {label}: winner must be {', '.join(map(str, seats))} or null, not {winner!r}"
    termination = data["termination"]
    if not isinstance(termination, str) or termination not in _TERMINATIONS:
        return f"game {label}: termination must be one of {', '.join(t.value for t in Termination)}, " \
               f"not {termination!r}"
    points = data.get("points", [0] * len(names))
    if not (isinstance(points, list) and len(points) == len(names) and all(_is_number(p) for p in points)):
        count = {2: "two", 3: "three", 4: "four"}.get(len(names), str(len(names)))
        return f"game {label}: points must be {count} numbers, not {points!r}"
    places = data.get("places", [1] * len(names))
    if not (isinstance(places, list) and len(places) == len(names)
            and all(isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= len(names) for p in places)):
        return f"game {label}: places must be {len(names)} places from 1 to {len(names)}, not {places!r}"
    return None


def _usable_move(move: Any, seats: range) -> bool:
    """Whether a move names its seat and its wall_ms: a seat is a player's, or CHANCE's for a
    die the referee drew (docs/records.md)."""
    return (isinstance(move, dict) and (move.get("seat") in seats or move.get("seat") == CHANCE)
            and _is_number(move.get("wall_ms")))


def _moves_problem(game_id: str, seats: range) -> str:
    listed = ", ".join(map(str, seats))
    return f"game {game_id}: every move needs a seat ({listed.rpartition(', ')[0]} or {len(seats) - 1}) and its wall_ms"


RECORD_KEYS = ("id", "names", "winner", "termination", "moves")
_TERMINATIONS = frozenset(t.value for t in Termination)
_TERMINATION_OF = {t.value: t for t in Termination}


def read_record(data: Any) -> GameRecord:
    """A parsed line of `games.jsonl` as a tournament's game record: NewerRecordError for a
    record of a newer schema, RecordError naming what else makes it unusable (record_problem's
    finding, else what `GameRecord.from_json` refuses). The moves are checked as they are read,
    in one walk."""
    _check_schema(data)
    problem = _fields_problem(data)
    if problem is not None:
        raise RecordError(problem)
    seats = range(len(data["names"]))
    moves = _read_moves(data["moves"], seats)
    if moves is None:
        raise RecordError(_moves_problem(data["id"], seats))
    return _build(data, moves, None)


def _check_schema(data: Any) -> None:
    """NewerRecordError unless `data`'s schema (0 when it has none) is one this arbiter reads."""
    schema = data.get("schema", 0) if isinstance(data, dict) else 0
    if not isinstance(schema, int) or isinstance(schema, bool) or not 0 <= schema <= RECORD_SCHEMA:
        raise NewerRecordError(f"a game record of schema {schema!r}, which this arbiter (schema "
                               f"{RECORD_SCHEMA}) cannot read; read it with a newer arbiter")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
