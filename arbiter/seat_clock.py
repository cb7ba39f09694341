"""A seat's clock: the time control it plays under, and the arithmetic of its budget.

`TimeControl` is the limits a game's seat is given (docs/protocol.md, Time); `SeatClock` is
one seat's clock during one game: what it has used, what a turn and a move may use, whether
a turn that ended used too much, and which limit it broke first. Neither knows about
processes or channels: the referee reads the times (wall or CPU) and hands them in, so the
arithmetic is tested without a bot (tests/test_seat_clock.py). Times are milliseconds of
the clock's kind (`clock`: wall or CPU), deadlines `time.monotonic()` seconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Under `clock: cpu` a bot that blocks without using CPU would never run out of time:
# its wall time per turn (and per move, with move_ms) is capped at this multiple, not counting
# the time its processes waited for a CPU.
CPU_CLOCK_WALL_FACTOR = 4

# Which limit a timeout broke first: the per-move cap, the game's budget, or (under the CPU
# clock) the wall cap of a bot that waited without computing.
Limit = Literal["move", "game", "blocked"]


@dataclass(frozen=True)
class TimeControl:
    """A bot's clock for one game; see docs/protocol.md."""

    time_ms: int = 30000  # the whole game's budget
    move_ms: int | None = None  # optional cap per move
    clock: Literal["wall", "cpu"] = "wall"  # what the budget counts
    suspend_idle: bool = True  # SIGSTOP the bot while it is not its turn
    memory_mb: int | None = 2048  # RLIMIT_DATA per process; None: no limit
    startup_ms: int = 10000  # off the clock, how long a launched bot may take to start
    charge_startup: bool = False  # True: no start-up phase; starting counts in the first turn


class SeatClock:
    """One seat's clock in one game: `used_ms` so far, and the limits of its next turn.

    A turn is given `budget_ms()` (what is left of `time_ms`) from the hand-over; its wall
    deadline is that budget, times `wall_factor` under the CPU clock; a move's deadline is
    the turn's, or the per-move cap's if that comes first. A turn's use is charged with
    `charge`; CPU time the bot used while it was stopped with `charge_suspended`.
    """

    __slots__ = ("time", "cpu", "wall_factor", "used_ms", "suspended_cpu_ms", "cpu_mark_ms")

    def __init__(self, time: TimeControl) -> None:
        self.time = time
        self.cpu = time.clock == "cpu"  # the budget counts CPU time, read after the fact
        self.wall_factor = CPU_CLOCK_WALL_FACTOR if self.cpu else 1
        self.used_ms = 0.0  # charged so far
        self.suspended_cpu_ms = 0.0  # CPU time used while stopped, charged too (`charge_suspended`)
        self.cpu_mark_ms: float | None = None  # the bot's CPU time once it was last stopped

    def budget_ms(self) -> float:
        """What is left of the game's budget, never below 0."""
        left = self.time.time_ms - self.used_ms
        return left if left > 0 else 0.0

    def charge(self, used_ms: float) -> None:
        """Charge one turn's use (or its part up to a fault)."""
        self.used_ms += used_ms

    def charge_suspended(self, cpu_now_ms: float) -> None:
        """At a hand-over: CPU time the bot used since it was stopped (`cpu_mark_ms`). A
        stopped bot runs nothing (docs/security.md, Suspension); CPU it used anyway is its
        own, charged to its clock whichever the clock counts, never to its opponent's."""
        mark = self.cpu_mark_ms
        if mark is not None and cpu_now_ms > mark:
            self.suspended_cpu_ms += cpu_now_ms - mark
            self.used_ms += cpu_now_ms - mark

    def turn_deadline(self, turn_start: float, budget_ms: float) -> float:
        """The wall deadline of a turn handed over at `turn_start` with `budget_ms` left."""
        return turn_start + self.wall_factor * budget_ms / 1000

    def move_deadline(self, turn_deadline: float, move_start: float) -> float:
        """The wall deadline of a move begun at `move_start`: the turn's, or the cap's if sooner."""
        move_ms = self.time.move_ms
        if move_ms is None:
            return turn_deadline
        capped = move_start + self.wall_factor * move_ms / 1000
        return capped if capped < turn_deadline else turn_deadline

    def cpu_left_ms(self, turn_used_ms: float, move_used_ms: float, budget_ms: float) -> float:
        """Under the CPU clock: what the move may still use, by the budget and the cap."""
        left = budget_ms - turn_used_ms
        move_ms = self.time.move_ms
        if move_ms is not None and move_ms - move_used_ms < left:
            left = move_ms - move_used_ms
        return left

    def overran(self, turn_used_ms: float, move_used_ms: float, budget_ms: float) -> bool:
        """Under the CPU clock, read once the move is in: whether it used more than it had."""
        move_ms = self.time.move_ms
        return turn_used_ms > budget_ms or (move_ms is not None and move_used_ms > move_ms)

    def limit_broken(self, move_used_ms: float, turn_used_ms: float, budget_ms: float) -> Limit:
        """Which limit a timed-out turn broke first: the per-move cap when it was the shorter
        of the two at the move's start (or the budget was not reached), else the budget; a turn
        that reached neither was cut off by the CPU clock's wall cap."""
        move_ms = self.time.move_ms
        over_move = move_ms is not None and move_used_ms >= move_ms
        over_budget = turn_used_ms >= budget_ms
        cap_binds = move_ms is not None and move_ms < budget_ms - (turn_used_ms - move_used_ms)
        if over_move and (cap_binds or not over_budget):
            return "move"
        return "game" if over_budget else "blocked"


__all__ = ["CPU_CLOCK_WALL_FACTOR", "Limit", "SeatClock", "TimeControl"]
