"""A verdict on a bot's clock is decided by when its line arrived (or when it finished
starting), never by when the arbiter happened to look: the referee's own lateness is made
small (a real-time priority, priority.py) and, where it still leaves a verdict open, is
given to the bot and noted in the record (docs/protocol.md, Time).

The arbiter's lateness is made here, not waited for: the referee's waits are wrapped so
that it looks late, whatever the machine's load, and nothing is asserted about how long
anything took."""
from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from typing import Any

import pytest

from arbiter import referee
from arbiter.games import find_game
from arbiter.records import Termination
from arbiter.referee import STARTUP_TIMEOUT, PlayerSpec, TimeControl, play_game
from arbiter.transport import TIMEOUT
from arbiter.transport.pipe import PipeChannel
from arbiter.transport.priority import punctual, realtime_allowed
from arbiter.transport.process import BotProcess
from referee_support import bot, honest, new_marker

def _game() -> Any:
    return find_game("limit-nim", piles="3/1")  # three moves: short, and both seats move
MOVE_MS = 100


def _unboxed(spec: PlayerSpec) -> PlayerSpec:
    return replace(spec, sandbox=None)


def _policy(tid: int) -> int:
    return os.sched_getscheduler(tid) & ~os.SCHED_RESET_ON_FORK


def test_a_pipe_places_a_line_between_the_look_that_found_nothing_and_the_one_that_found_it() -> None:
    read_fd, write_fd = os.pipe()
    bot_in_r, bot_in_w = os.pipe()
    channel = PipeChannel(bot_in_w, read_fd)
    try:
        before_look = time.monotonic()
        assert channel.read_line(0.0) is TIMEOUT  # a look: nothing there
        after_look = time.monotonic()
        os.write(write_fd, b"1 1\nsecond\n")
        written = time.monotonic()
        assert channel.read_line(time.monotonic() + 10) == "1 1"
        found = time.monotonic()
        earliest, latest = channel.arrival()
        assert before_look <= earliest <= after_look
        assert written <= latest <= found
        assert channel.read_line(0.0) == "second"  # from the same read: the same window
        assert channel.arrival() == (earliest, latest)
    finally:
        channel.close()
        for fd in (write_fd, bot_in_r):
            os.close(fd)


def test_a_poll_that_timed_out_counts_as_a_look_at_its_deadline() -> None:
    read_fd, write_fd = os.pipe()
    bot_in_r, bot_in_w = os.pipe()
    channel = PipeChannel(bot_in_w, read_fd)
    try:
        deadline = time.monotonic() + 0.02
        assert channel.read_line(deadline) is TIMEOUT
        os.write(write_fd, b"late\n")
        assert channel.read_line(time.monotonic() + 10) == "late"
        assert channel.arrival()[0] >= deadline  # it was known not to be there at the deadline
    finally:
        channel.close()
        for fd in (write_fd, bot_in_r):
            os.close(fd)


# A line found late by the arbiter (in time, or after a look at its deadline) is judged over a
# scripted channel, with no process: tests/test_referee_scripted.py.


def test_a_start_up_found_finished_after_its_limit_by_a_late_look_is_taken_and_the_doubt_noted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    marker = new_marker()
    startup_ms = 200
    original = BotProcess.wait_any_exit
    held: list[bool] = []

    def late(processes: Any, timeout_s: float) -> Any:
        if held:
            return original(processes, timeout_s)
        held.append(True)
        # The first wait, before the first look (after every launch): held up past the limit,
        # and until every bot waits for its input (has started).
        until = time.monotonic() + startup_ms / 1000
        while time.monotonic() < until or not all(p.waits_for_input() for p in processes):
            time.sleep(0.01)
        return set()

    monkeypatch.setattr(BotProcess, "wait_any_exit", staticmethod(late))
    # A shell that waits for its input at once: started long before the late look.
    waiter = PlayerSpec(name="waiter", command=("sh", "-c", "read line; sleep 3600"), sandbox=None,
                        env={"ARBITER_TEST_MARK": marker})
    record = play_game(_game(), [waiter, _unboxed(honest(marker))],
                       time=TimeControl(time_ms=10_000, move_ms=MOVE_MS, startup_ms=startup_ms))
    assert held
    assert STARTUP_TIMEOUT not in record.detail
    assert "seat 0 (waiter) finished starting between" in record.detail
    assert record.termination is Termination.TIMEOUT and "per-move cap" in record.detail  # it never moves


needs_realtime = pytest.mark.skipif(not realtime_allowed(),
                                    reason="this machine does not let the arbiter raise its priority")


@needs_realtime
@pytest.mark.parametrize("boxed", [False, True])
def test_the_referee_watches_at_real_time_priority_and_every_bot_runs_as_an_ordinary_process(
        boxed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = new_marker()
    original = referee._Referee._await_line
    policies: list[tuple[str, int]] = []

    def watch(self: Any, seat: Any, *args: Any) -> Any:
        policies.append(("referee", _policy(0)))
        for pid in [seat.process.pid, *seat.process.track_descendants()]:
            for tid in os.listdir(f"/proc/{pid}/task"):
                policies.append((f"bot {pid}/{tid}", _policy(int(tid))))
        return original(self, seat, *args)

    monkeypatch.setattr(referee._Referee, "_await_line", watch)
    players = [honest(marker), honest(marker, 2)]
    if not boxed:
        players = [_unboxed(p) for p in players]
    before = _policy(0)
    record = play_game(_game(), players, time=TimeControl(time_ms=10_000))
    assert record.termination is Termination.NORMAL
    assert {p for who, p in policies if who == "referee"} == {os.SCHED_FIFO}
    assert {p for who, p in policies if who != "referee"} == {os.SCHED_OTHER}
    assert _policy(0) == before  # the game's thread gets its own policy back


@needs_realtime
def test_punctual_gives_the_thread_back_its_policy_and_starts_ordinary_threads() -> None:
    born: list[int] = []
    with punctual() as raised:
        assert raised and _policy(0) == os.SCHED_FIFO
        child = threading.Thread(target=lambda: born.append(_policy(0)))
        child.start()
        child.join()
    assert born == [os.SCHED_OTHER]
    assert _policy(0) == os.SCHED_OTHER


def test_a_bot_that_sleeps_in_its_turn_is_still_timed_out_by_a_punctual_referee() -> None:
    # The everyday case, unchanged: no line by the deadline is a timeout.
    marker = new_marker()
    slow = _unboxed(bot("sleep_bot.py", "slow", marker, SLEEP_S="5", MISBEHAVE_AT="1"))
    record = play_game(_game(), [slow, _unboxed(honest(marker))],
                       time=TimeControl(time_ms=10_000, move_ms=MOVE_MS))
    assert record.termination is Termination.TIMEOUT and record.offender == 0
