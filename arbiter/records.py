"""The game record: what the referee returns and tournaments store, one per game.

Documented field by field in docs/records.md. Records are the source of truth:
every number in a report is recomputed from them.
"""
from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any


@cache
def arbiter_version() -> str:
    """The installed arbiter's version (its package metadata), "unknown" in an uninstalled tree."""
    try:
        return version("arbiter")
    except PackageNotFoundError:
        return "unknown"


class Termination(str, enum.Enum):
    """How a game ended. Every value but NORMAL is a fault by `offender`."""

    NORMAL = "normal"
    TIMEOUT = "timeout"
    CRASH = "crash"
    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    PROTOCOL = "protocol"

    @property
    def is_fault(self) -> bool:
        return self is not Termination.NORMAL


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


@dataclass(frozen=True)
class PlayerRef:
    """A seat's player as recorded: its name, the command that ran it and, in a tournament's
    records, which program that was: a SHA-256 of its program file and its own folders' files
    (tournament/programs.py); None for a remote bot, and in records from before it was kept."""

    name: str
    command: str
    digest: str | None = None


@dataclass(frozen=True)
class MoveRecord:
    """One move: who made it, its canonical text, and the time it took (0 for forced moves).
    `seat` is CHANCE (-1) for an outcome of chance the referee drew (its times are 0)."""

    seat: int
    move: str
    wall_ms: float
    cpu_ms: float
    forced: bool = False  # an opening move played by the arbiter, not by the bot


@dataclass
class GameRecord:
    """One refereed game. `winner`/`offender` are seat indices or None."""

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
    extra: dict[str, Any] = field(default_factory=dict)  # tournament fields: id, round, opening...

    def to_json(self) -> dict[str, Any]:
        """A plain dict for JSON: tournament fields flattened in at the top level."""
        data = asdict(self)
        data["termination"] = self.termination.value
        extra = data.pop("extra")
        data.update(extra)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        """Inverse of `to_json`; unknown top-level keys land in `extra`."""
        known = {f for f in cls.__dataclass_fields__ if f != "extra"}
        core = {k: v for k, v in data.items() if k in known}
        extra = {k: v for k, v in data.items() if k not in known}
        core["players"] = [PlayerRef(**p) for p in core["players"]]
        core["moves"] = [MoveRecord(**m) for m in core["moves"]]
        core["termination"] = Termination(core["termination"])
        core.setdefault("outcome", None)
        core.setdefault("arbiter_version", "unknown")  # a record from before records said
        return cls(**core, extra=extra)
