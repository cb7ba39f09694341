"""Start-up off the clock (docs/protocol.md, Start-up): a bot starts unstopped and untimed
until it first waits for its input, up to `startup_ms`; `charge_startup` puts it back on
the first turn's clock."""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.games import find_game
from arbiter.records import Termination
from arbiter.referee import PlayerSpec, TimeControl, play_game

from referee_support import bot, honest, new_marker

NIM = find_game("limit-nim", piles="5/2")
KIT_CODECUP = ("--game", "limit-nim", "-p", "piles=5/2")
SLOW_S = 1.5
# How late the arbiter's look at a starting bot may come on a busy machine: the watch is an
# ordinary thread that waits for a CPU too (400 ms late was seen at load 17 on 2 cores). The
# looks it guards against are far later: a look only at the start-up's limit comes at 10 s.
LOOK_LATENESS_MS = 1000


def codecup(spec: PlayerSpec) -> PlayerSpec:
    """The same kit bot in the codecup dialect: it is sent nothing before its turn."""
    return replace(spec, dialect="codecup", command=(*spec.command, *KIT_CODECUP))


def seated(spec: PlayerSpec, transport: str, boxed: bool) -> PlayerSpec:
    """`spec` over `transport`, in its box or unsandboxed."""
    return replace(spec, transport=transport, sandbox=spec.sandbox if boxed else None)


def noted_ns(log: str | None, what: str) -> int:
    """The `time.monotonic_ns()` a test bot noted in its log as `WHAT at NS`."""
    assert log is not None
    lines = [line for line in Path(log).read_text().splitlines() if line.startswith(f"{what} at ")]
    assert len(lines) == 1, Path(log).read_text()
    return int(lines[0].rsplit(" ", 1)[1])


@pytest.mark.parametrize("how", ["busy", "sleep"])
@pytest.mark.parametrize("dialect, transport, boxed, slow_seat", [
    ("arbiter", "pipe", True, 0), ("codecup", "pipe", True, 1), ("arbiter", "zmq", True, 1),
    ("arbiter", "pipe", False, 1), ("codecup", "zmq", False, 1)])
def test_a_bot_that_takes_1_5_s_to_start_plays_normally_under_a_1_s_clock(
        tmp_path: Path, how: str, dialect: str, transport: str, boxed: bool, slow_seat: int) -> None:
    marker = new_marker()
    slow = bot("slow_start_bot.py", "slow", marker, START_S=str(SLOW_S), START_HOW=how)
    players = [bot("first_move_stamp_bot.py", "honest", marker)]
    players.insert(slow_seat, slow)
    players = [seated(p, transport, boxed) for p in players]
    if dialect == "codecup":
        players = [codecup(p) for p in players]
    record = play_game(NIM, players, time=TimeControl(time_ms=1000), log_dir=tmp_path)
    assert record.termination is Termination.NORMAL, record.detail
    assert record.sandboxed == [boxed, boxed]
    assert record.startup_ms[slow_seat] >= SLOW_S * 1000
    assert record.time_used_ms[slow_seat] < 500  # its start-up is on no clock
    if slow_seat == 1:
        # Every seat finishes starting before the first move is asked for: the first mover
        # (honest, quick to start) was asked only after the slow bot had noted its start-up done.
        assert noted_ns(record.logs[1], "started") < noted_ns(record.logs[0], "asked for a move")


@pytest.mark.parametrize("transport, boxed", [("pipe", True), ("pipe", False), ("zmq", True), ("zmq", False)])
def test_a_bot_that_never_finishes_starting_loses_by_start_up_timeout(transport: str, boxed: bool) -> None:
    marker = new_marker()
    # Only the stuck bot's start-up is short: an honest bot may take longer than 700 ms under load.
    stuck = bot("slow_start_bot.py", "stuck", marker, START_S="forever", START_HOW="busy",
                time=TimeControl(time_ms=1000, startup_ms=700))
    players = [seated(p, transport, boxed) for p in (honest(marker), stuck)]
    record = play_game(NIM, players, time=TimeControl(time_ms=1000))
    assert (record.termination, record.offender, record.winner) == (Termination.TIMEOUT, 1, 0)
    assert record.detail == "seat 1 (stuck) did not finish starting within 700 ms (it never waited for its input)"
    assert record.moves == []
    # Whether the honest seat was seen started within the stuck one's 700 ms depends on the
    # machine's load (a loaded machine can take longer to start Python): not asserted.
    assert record.startup_ms[1] is None


def test_a_bot_sleeping_in_codecup_seat_1_is_still_starting_though_it_was_sent_nothing() -> None:
    marker = new_marker()
    sleeper = codecup(bot("slow_start_bot.py", "sleeper", marker, START_S="forever", START_HOW="sleep",
                          time=TimeControl(time_ms=1000, startup_ms=700)))
    record = play_game(NIM, [codecup(honest(marker)), sleeper], time=TimeControl(time_ms=1000))
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 1), record.detail


def test_charge_startup_puts_the_start_up_on_the_first_turns_clock() -> None:
    marker = new_marker()
    slow = bot("slow_start_bot.py", "slow", marker, START_S=str(SLOW_S), START_HOW="busy")
    record = play_game(NIM, [slow, honest(marker)], time=TimeControl(time_ms=1000, charge_startup=True))
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 0), record.detail
    assert "ran out of time" in record.detail
    assert record.startup_ms == [None, None]


def test_a_bot_that_exits_while_starting_crashes(tmp_path: Path) -> None:
    marker = new_marker()
    quitter = bot("exit_at_once_bot.py", "quitter", marker)
    record = play_game(NIM, [honest(marker), quitter], time=TimeControl(time_ms=1000), log_dir=tmp_path)
    assert (record.termination, record.offender) == (Termination.CRASH, 1), record.detail
    assert record.moves == []


def test_a_bots_first_look_waits_for_most_of_its_commands_fastest_start_up(tmp_path: Path) -> None:
    # docs/protocol.md, Start-up: every look costs the arbiter's CPU, so once a command has
    # started in this process, its bot is first looked at after FIRST_LOOK_SHARE of its fastest
    # start-up, then every millisecond. What is recorded is when it was seen waiting.
    from arbiter.referee import FIRST_LOOK_SHARE
    marker = new_marker()

    def game(start_s: float, number: int) -> tuple[float, float]:
        """The slow bot's recorded start-up, and when it noted itself started (ms after the game
        began: its true start-up, and the other seat's launch before it). The interpreter's own
        start varies by hundreds of ms on a busy machine: it is measured, not assumed."""
        slow = replace(bot("slow_start_bot.py", "slow", marker, START_S=str(start_s), START_HOW="sleep"),
                       cwd=str(tmp_path))  # a command and folder no other test has started here
        began = time.monotonic_ns()
        record = play_game(NIM, [slow, honest(marker)], time=TimeControl(time_ms=1000),
                           log_dir=tmp_path / f"game{number}")
        assert record.termination is Termination.NORMAL, record.detail
        assert record.startup_ms[0] is not None
        return record.startup_ms[0], (noted_ns(record.logs[0], "started") - began) / 1e6

    first, first_ready = game(0.3, 1)
    assert 300 <= first <= first_ready + LOOK_LATENESS_MS  # looked at from its launch on: seen when it waited
    again, again_ready = game(0.3, 2)
    assert 300 <= again <= again_ready + LOOK_LATENESS_MS  # its first look came before it was ready
    quicker, quicker_ready = game(0.0, 3)
    first_look = FIRST_LOOK_SHARE * min(first, again)
    assert quicker >= first_look  # not looked at before then
    assert quicker <= max(first_look, quicker_ready) + LOOK_LATENESS_MS  # then seen when it waits


def test_a_commands_fastest_start_up_is_kept_whichever_game_thread_notes_it() -> None:
    # A tournament's games run on several threads and note their bots' start-ups in one place.
    import random
    import threading

    from arbiter.referee import _FastestStartups
    fastest = _FastestStartups()
    key = (("python", "bot.py"), None, True)
    assert fastest.get(key) == 0.0  # never started: looked at from its launch on
    times = [0.02 + k / 10_000 for k in range(4000)]
    random.Random(1).shuffle(times)
    threads = [threading.Thread(target=lambda part=times[k::8]: [fastest.note(key, s) for s in part]) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert fastest.get(key) == 0.02
    assert fastest.get((("python", "other.py"), None, True)) == 0.0
