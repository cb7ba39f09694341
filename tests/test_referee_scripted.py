"""The referee's protocol and clock over scripted channels (arbiter/transport/scripted.py):
no process, no pipe, no patched method. Each seat's script is what the referee must send,
line by line, and what the "bot" answers and when; `assert_done` checks it all happened.

A game of Limit Nim with piles=3/1 is three moves of `1 1`: seat 0, seat 1, seat 0 (who wins)."""
from __future__ import annotations

import pytest

from arbiter.games import find_game
from arbiter.protocol import format_game_line
from arbiter.records import Termination
from arbiter.referee import PlayerSpec, TimeControl, play_channels
from arbiter.transport import BadLine, Closed
from arbiter.transport.scripted import ScriptedChannel

NIM = find_game("limit-nim", piles="3/1")
CLOCK = TimeControl(time_ms=5000)


def players(*names: str) -> list[PlayerSpec]:
    return [PlayerSpec(name=name, command=(name,), sandbox=None) for name in names]


def scripts(time: TimeControl = CLOCK) -> list[ScriptedChannel]:
    """Each seat's channel, its Game line expected."""
    return [ScriptedChannel().expect(format_game_line(NIM, seat, time.time_ms, time.move_ms)) for seat in range(2)]


def test_a_whole_game_follows_the_protocol_line_by_line() -> None:
    first, second = scripts()
    first.expect("Start", ["1 1"]).expect("1 1", ["1 1"]).expect("Quit")
    second.expect("1 1", ["1 1"]).expect("1 1").expect("Quit")  # seat 0's winning move, then Quit
    record = play_channels(NIM, players("a", "b"), [first, second], time=CLOCK)
    first.assert_done()
    second.assert_done()
    assert (record.termination, record.winner, record.offender) == (Termination.NORMAL, 0, None)
    assert [(m.seat, m.move) for m in record.moves] == [(0, "1 1"), (1, "1 1"), (0, "1 1")]
    assert record.detail == "the game ended: seat 0 (a) 1, seat 1 (b) 0; seat 0 (a) wins"
    assert first.closed and second.closed


def test_a_moves_time_is_from_the_hand_over_to_its_arrival() -> None:
    first, second = scripts()
    first.expect("Start", ["1 1"], after_ms=40).expect("1 1", ["1 1"]).expect("Quit")
    second.expect("1 1", ["1 1"]).expect("1 1").expect("Quit")
    record = play_channels(NIM, players("a", "b"), [first, second], time=CLOCK)
    assert record.termination is Termination.NORMAL
    assert record.moves[0].wall_ms >= 40
    assert record.time_used_ms[0] >= 40


def test_no_answer_within_the_per_move_cap_is_a_timeout_naming_the_cap() -> None:
    capped = TimeControl(time_ms=5000, move_ms=30)
    first, second = scripts(capped)
    first.expect("Start", ["1 1"], after_ms=5000).expect("Quit")
    second.expect("Quit")
    record = play_channels(NIM, players("slow", "b"), [first, second], time=capped)
    assert (record.termination, record.offender, record.winner) == (Termination.TIMEOUT, 0, 1)
    assert record.detail.startswith("seat 0 (slow) took longer than its per-move cap of 30 ms (cut off after ")
    assert record.time_used_ms[0] >= 30
    second.assert_done()


def test_no_answer_within_the_budget_is_a_timeout_naming_the_budget() -> None:
    short = TimeControl(time_ms=40)
    first, second = scripts(short)
    first.expect("Start", ["1 1"], after_ms=5000).expect("Quit")
    second.expect("Quit")
    record = play_channels(NIM, players("slow", "b"), [first, second], time=short)
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 0)
    assert "ran out of time: it had 40 ms for the game and was cut off after" in record.detail


def test_a_line_found_late_that_may_have_arrived_in_time_is_taken_and_the_doubt_noted() -> None:
    # The line arrived 10 ms after the hand-over, well within its 50 ms, but the arbiter (held
    # up) only saw it at 120 ms: it is given to the bot, charged as if at the deadline.
    capped = TimeControl(time_ms=5000, move_ms=50)
    first, second = scripts(capped)
    first.expect("Start", ["1 1"], after_ms=10, seen_after_ms=120).expect("1 1", ["1 1"]).expect("Quit")
    second.expect("1 1", ["1 1"]).expect("1 1").expect("Quit")
    record = play_channels(NIM, players("a", "b"), [first, second], time=capped)
    assert record.termination is Termination.NORMAL
    assert "seat 0 (a) move 1 arrived between" in record.detail
    assert "the arbiter having looked late: taken as in time" in record.detail
    assert record.moves[0].wall_ms <= 50  # charged as if it came at the deadline, no later


def test_a_line_that_arrived_after_its_deadline_is_late_though_the_arbiter_looked_later_still() -> None:
    capped = TimeControl(time_ms=5000, move_ms=30)
    first, second = scripts(capped)
    first.expect("Start", ["1 1"], after_ms=60, seen_after_ms=90).expect("Quit")
    second.expect("Quit")
    record = play_channels(NIM, players("a", "b"), [first, second], time=capped)
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 0)
    assert "per-move cap of 30 ms" in record.detail


def test_a_line_written_out_of_turn_is_a_protocol_fault() -> None:
    first, second = scripts()
    first.expect("Start", ["1 1", "1 1"]).expect("Quit")  # a second move in the same breath
    second.expect("1 1").expect("Quit")  # the first, relayed at the end with Quit
    record = play_channels(NIM, players("eager", "b"), [first, second], time=CLOCK)
    assert (record.termination, record.offender) == (Termination.PROTOCOL, 0)
    assert record.detail == "seat 0 (eager) wrote '1 1' when it was not its turn"
    first.assert_done()


@pytest.mark.parametrize("reply, termination, detail", [
    ("hello", Termination.MALFORMED, "seat 0 (bot) sent 'hello', which is not a move: "),
    ("", Termination.MALFORMED, "seat 0 (bot) sent an empty line"),
    ("1 2", Termination.ILLEGAL, "seat 0 (bot) played '1 2', which is illegal: pile 1 has limit 1"),
    (BadLine("a line longer than 4096 bytes", b"xx"), Termination.MALFORMED,
     "seat 0 (bot) sent a line longer than 4096 bytes (starts b'xx')"),
    (Closed(), Termination.CRASH, "seat 0 (bot) end of file before the game ended"),
])
def test_each_bad_answer_gets_its_verdict(reply: object, termination: Termination, detail: str) -> None:
    first, second = scripts()
    first.expect("Start", [reply])  # type: ignore[list-item]
    if termination is not Termination.CRASH:
        first.expect("Quit")
    second.expect("Quit")
    record = play_channels(NIM, players("bot", "b"), [first, second], time=CLOCK)
    assert (record.termination, record.offender, record.winner) == (termination, 0, 1)
    assert record.detail.startswith(detail), record.detail
    first.assert_done()
    second.assert_done()


def test_play_channels_refuses_a_cpu_clock_and_a_wrong_number_of_channels() -> None:
    with pytest.raises(ValueError, match="clock: wall"):
        play_channels(NIM, players("a", "b"), scripts(), time=TimeControl(clock="cpu"))
    with pytest.raises(ValueError, match="2 players but 1 channels"):
        play_channels(NIM, players("a", "b"), scripts()[:1])


def test_the_script_itself_says_what_the_referee_did_not_do() -> None:
    channel = ScriptedChannel().expect("Start", ["1 1"])
    with pytest.raises(AssertionError, match="never sent"):
        channel.assert_done()
    channel.send_lines(["Start"], 0.0)
    with pytest.raises(AssertionError, match="never read"):
        channel.assert_done()
    with pytest.raises(AssertionError, match="where the script expected"):
        ScriptedChannel().expect("Start").send_lines(["Quit"], 0.0)
