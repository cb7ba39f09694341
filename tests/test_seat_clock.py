"""A seat's clock (arbiter/seat_clock.py): its budget, deadlines, charges and which limit a
timeout broke, without a process, a channel or a wall clock (docs/protocol.md, Time)."""
from __future__ import annotations

import pytest

from arbiter.seat_clock import CPU_CLOCK_WALL_FACTOR, SeatClock, TimeControl


def test_a_fresh_clock_has_its_whole_budget_and_charges_add_up() -> None:
    clock = SeatClock(TimeControl(time_ms=1000))
    assert clock.budget_ms() == 1000 and clock.used_ms == 0
    clock.charge(300.5)
    clock.charge(200)
    assert clock.used_ms == 500.5 and clock.budget_ms() == 499.5


def test_the_budget_never_goes_below_zero() -> None:
    clock = SeatClock(TimeControl(time_ms=100))
    clock.charge(250)
    assert clock.budget_ms() == 0.0 and clock.used_ms == 250


def test_the_turn_deadline_is_the_budget_left_after_the_hand_over() -> None:
    clock = SeatClock(TimeControl(time_ms=1000))
    clock.charge(400)
    assert clock.turn_deadline(10.0, clock.budget_ms()) == pytest.approx(10.6)


def test_under_the_cpu_clock_the_wall_deadline_is_a_multiple_of_the_budget() -> None:
    clock = SeatClock(TimeControl(time_ms=1000, move_ms=100, clock="cpu"))
    assert clock.cpu and clock.wall_factor == CPU_CLOCK_WALL_FACTOR
    assert clock.turn_deadline(10.0, 1000) == pytest.approx(10.0 + CPU_CLOCK_WALL_FACTOR)
    assert clock.move_deadline(20.0, 10.0) == pytest.approx(10.0 + CPU_CLOCK_WALL_FACTOR * 0.1)


@pytest.mark.parametrize("move_ms, move_start, expected", [
    (None, 10.0, 11.0),  # no cap: the turn's deadline
    (200, 10.0, 10.2),  # the cap comes first
    (200, 10.9, 11.0),  # a later move of the same turn: the turn's deadline comes first
])
def test_a_moves_deadline_is_the_sooner_of_the_cap_and_the_turns(move_ms: int | None, move_start: float,
                                                                  expected: float) -> None:
    clock = SeatClock(TimeControl(time_ms=1000, move_ms=move_ms))
    assert clock.move_deadline(11.0, move_start) == pytest.approx(expected)


def test_cpu_used_while_stopped_is_charged_to_the_seats_own_clock() -> None:
    clock = SeatClock(TimeControl(time_ms=1000))
    clock.charge_suspended(50.0)  # never stopped yet: no mark, nothing charged
    assert clock.used_ms == 0
    clock.cpu_mark_ms = 50.0
    clock.charge_suspended(50.0)  # nothing used while stopped
    clock.charge_suspended(45.0)  # a reading below the mark charges nothing
    assert clock.used_ms == 0
    clock.charge_suspended(62.5)
    assert clock.suspended_cpu_ms == 12.5 and clock.used_ms == 12.5


def test_cpu_left_is_the_budget_or_the_cap_whichever_is_shorter() -> None:
    capped = SeatClock(TimeControl(time_ms=1000, move_ms=100, clock="cpu"))
    assert capped.cpu_left_ms(turn_used_ms=30, move_used_ms=30, budget_ms=1000) == 70
    assert capped.cpu_left_ms(turn_used_ms=980, move_used_ms=10, budget_ms=1000) == 20
    uncapped = SeatClock(TimeControl(time_ms=1000, clock="cpu"))
    assert uncapped.cpu_left_ms(turn_used_ms=300, move_used_ms=300, budget_ms=500) == 200


@pytest.mark.parametrize("turn_used, move_used, overran", [
    (99.0, 99.0, False),
    (100.0, 100.0, False),  # exactly the cap is in time
    (100.5, 100.5, True),  # over the cap
    (400.0, 50.0, False),
    (500.5, 50.0, True),  # over the budget
])
def test_a_cpu_turn_overran_when_it_used_more_than_the_cap_or_the_budget(turn_used: float, move_used: float,
                                                                          overran: bool) -> None:
    clock = SeatClock(TimeControl(time_ms=1000, move_ms=100, clock="cpu"))
    assert clock.overran(turn_used, move_used, budget_ms=500) is overran


@pytest.mark.parametrize("move_ms, move_used, turn_used, budget, limit", [
    (100, 100.0, 100.0, 1000.0, "move"),  # the cap, well inside the budget
    (None, 1000.0, 1000.0, 1000.0, "game"),  # no cap: the budget
    (100, 100.0, 100.0, 80.0, "game"),  # the budget left was shorter than the cap
    (100, 100.0, 100.0, 100.0, "game"),  # a tie goes to the budget, which was reached too
    (100, 60.0, 160.0, 150.0, "game"),  # a second move of the turn ran out of budget before its cap
    (100, 20.0, 20.0, 1000.0, "blocked"),  # neither: the CPU clock's wall cap cut it off
])
def test_a_timeout_names_the_limit_it_broke_first(move_ms: int | None, move_used: float, turn_used: float,
                                                  budget: float, limit: str) -> None:
    clock = SeatClock(TimeControl(time_ms=1000, move_ms=move_ms))
    assert clock.limit_broken(move_used, turn_used, budget) == limit
