"""Every way a bot goes wrong is adjudicated: right termination, right offender, within the
budget plus a small margin, and no process of the game left alive (checked in /proc)."""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from arbiter import referee
from arbiter.games import find_game
from arbiter.records import Termination
from arbiter.referee import QUIT_GRACE_S, TERM_GRACE_S, GameAborted, PlayerSpec, TimeControl, play_game
from arbiter.transport.logs import LOG_CAP_BYTES
from referee_support import SHARED_FAULTS, Fault, bot, honest, live_marked, new_marker, play_fault, process_state

GAME_TIME = TimeControl(time_ms=2000)
MARGIN_S = 10.0  # not hung: launching and ending two Python bots on a busy shared 2-core machine (the
# precision of a cut-off is the recorded time's, checked by _cut_off_after, not the wall clock here)
CUT_OFF_MS = 50  # how far past its limit a bot may run before the referee cuts it off


FAULTS = SHARED_FAULTS + [
    Fault("garbage_bot.py", Termination.MALFORMED, "sent 'hello, referee', which is not a move"),
    Fault("bad_utf8_bot.py", Termination.MALFORMED, "not valid UTF-8"),
    Fault("long_line_bot.py", Termination.MALFORMED, "a line longer than 4096 bytes"),
    Fault("double_move_bot.py", Termination.PROTOCOL, "wrote '1 1' when it was not its turn"),
    Fault("close_stdout_bot.py", Termination.CRASH, "closed its standard output before the game ended"),
    Fault("loop_bot.py", Termination.TIMEOUT, "had 500 ms of CPU time", TimeControl(time_ms=500, clock="cpu")),
    Fault("sleep_bot.py", Termination.TIMEOUT, "under the CPU clock its wall time reached",
          TimeControl(time_ms=300, clock="cpu")),
    Fault("close_stdin_bot.py", Termination.CRASH, "closed its standard input before the game ended"),
    Fault("exit_at_once_bot.py", Termination.CRASH, "exited with status 0 before the game ended"),
    Fault("self_stop_bot.py", Termination.TIMEOUT, "ran out of time: it had 500 ms", TimeControl(time_ms=500)),
    # Every byte of the move arrives before the deadline, the whole line only after it.
    Fault("trickle_bot.py", Termination.TIMEOUT, "ran out of time: it had 500 ms", TimeControl(time_ms=500),
          {"CHUNK_S": "0.15"}),
    Fault("trickle_bot.py", Termination.TIMEOUT, "ran out of time: it had 500 ms", TimeControl(time_ms=500),
          {"PARTIAL": "1"}),
    Fault("burst_bot.py", Termination.PROTOCOL, "wrote '1 1' when it was not its turn"),
    # Each leaves a process outside its session behind: it must die with the game all the same.
    Fault("setsid_grandchild_bot.py", Termination.CRASH, "exited with status 4", env={"ESCAPE_THEN": "crash"}),
    Fault("stderr_holder_bot.py", Termination.CRASH, "exited with status 5"),
]


@pytest.mark.parametrize("number", range(len(FAULTS)),
                         ids=[f"{f.script[:-3]}-{f.termination.value}" for f in FAULTS])
def test_a_misbehaving_bot_loses_with_the_right_termination_and_leaves_nothing(number: int, tmp_path: Path) -> None:
    fault = FAULTS[number]
    budget = fault.time or GAME_TIME
    record, offender, elapsed_s, marker = play_fault(fault, number, GAME_TIME, tmp_path)

    assert (record.termination, record.offender, record.winner) == (fault.termination, offender, 1 - offender)
    assert fault.detail in record.detail
    assert record.scores == [0, 0]  # limit-nim: nobody took the last stone
    wall_budget_s = budget.time_ms / 1000 * (4 if budget.clock == "cpu" else 1)
    assert elapsed_s < wall_budget_s + MARGIN_S
    if "cut off after" in record.detail:
        _cut_off_after(record.detail)  # the time it names carries its unit
    if fault.termination is Termination.TIMEOUT and budget.clock == "wall":
        limit_ms = budget.move_ms or budget.time_ms
        used_ms = record.time_used_ms[offender] if budget.move_ms is None else _cut_off_after(record.detail)
        assert limit_ms <= used_ms < limit_ms + CUT_OFF_MS
    assert live_marked(marker) == []


def _cut_off_after(detail: str) -> float:
    """The time in `... (cut off after 500.3 ms)`; the unit is part of the sentence."""
    number, unit = detail.rsplit("cut off after ", 1)[1].rstrip(")").split(" ", 1)
    assert unit in ("ms", "ms of CPU time"), detail
    return float(number)


def test_a_bot_flooding_stderr_with_100_mb_is_capped_and_never_blocks(tmp_path: Path) -> None:
    marker = new_marker()
    record = play_game(find_game("limit-nim"), [bot("stderr_flood_bot.py", "flood", marker), honest(marker)],
                       time=TimeControl(time_ms=10000), log_dir=tmp_path)
    assert record.termination is Termination.NORMAL
    log = Path(record.logs[0]).read_bytes()
    assert LOG_CAP_BYTES < len(log) < LOG_CAP_BYTES + 200
    assert b"[arbiter: log truncated at 1048576 bytes; further output is discarded]" in log
    discarded = int(log.rsplit(b"[arbiter: ", 1)[1].split()[0])
    assert discarded + LOG_CAP_BYTES >= 100 << 20
    assert live_marked(marker) == []


def test_a_bot_that_ignores_quit_and_traps_sigterm_is_killed_after_the_graces(tmp_path: Path) -> None:
    marker = new_marker()
    started = time.monotonic()
    record = play_game(find_game("limit-nim"), [honest(marker), bot("ignore_quit_bot.py", "stubborn", marker)],
                       time=GAME_TIME, log_dir=tmp_path)
    elapsed_s = time.monotonic() - started
    assert record.termination is Termination.NORMAL  # the game itself was over
    assert QUIT_GRACE_S + TERM_GRACE_S <= elapsed_s < QUIT_GRACE_S + TERM_GRACE_S + MARGIN_S
    assert live_marked(marker) == []


def test_a_grandchild_sleeping_forever_dies_with_the_game(tmp_path: Path) -> None:
    marker = new_marker()
    alive_during_game: list[int] = []
    record = play_game(find_game("limit-nim"), [bot("grandchild_bot.py", "parent", marker), honest(marker)],
                       time=GAME_TIME, log_dir=tmp_path,
                       on_turn=lambda state: alive_during_game.append(len(live_marked(marker, boxes=False))))
    assert record.termination is Termination.NORMAL
    assert max(alive_during_game) == 3  # the bot, its grandchild and the opponent
    assert live_marked(marker) == []


@pytest.mark.parametrize("script, env", [
    ("setsid_grandchild_bot.py", {}),  # daemonized: a new session, and its parent gone
    ("setpgid_child_bot.py", {}),  # a process group of its own, in the bot's session
    ("fork_many_bot.py", {"FORKS": "100"}),  # within the sandbox's process limit (MAX_PROCESSES)
    ("term_ignoring_tree_bot.py", {"CHILDREN": "5"}),
])
@pytest.mark.parametrize("suspend_idle", [True, False])
def test_no_process_a_bot_started_outlives_the_game(script: str, env: dict[str, str], suspend_idle: bool,
                                                    tmp_path: Path) -> None:
    marker = new_marker()
    started = time.monotonic()
    record = play_game(find_game("limit-nim"), [bot(script, "parent", marker, **env), honest(marker)],
                       time=TimeControl(time_ms=2000, suspend_idle=suspend_idle), log_dir=tmp_path)
    assert record.termination is Termination.NORMAL
    startup_s = max((ms or 0.0 for ms in record.startup_ms), default=0.0) / 1000  # off the clock, load's to decide
    assert time.monotonic() - started - startup_s < QUIT_GRACE_S + TERM_GRACE_S + MARGIN_S
    assert live_marked(marker) == []


@pytest.mark.parametrize("padding, line_end", [("", "\r\n"), (" \t", "\n")])
def test_whitespace_around_a_move_is_ignored(padding: str, line_end: str, tmp_path: Path) -> None:
    marker = new_marker()
    record = play_game(find_game("limit-nim"), [bot("raw_line_bot.py", "raw", marker, PAD=padding, LINE_END=line_end),
                                                honest(marker)], time=GAME_TIME, log_dir=tmp_path)
    assert record.termination is Termination.NORMAL  # not malformed
    assert live_marked(marker) == []


def test_a_process_that_left_the_bots_process_group_is_suspended_too(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Its child keeps sending the bot SIGCONT: while the opponent thinks, both must stay stopped."""
    marker = new_marker()
    seats = [bot("sleep_bot.py", "sleepy", marker, SLEEP_S="0.3"), bot("sigcont_child_bot.py", "waker", marker)]
    seen: list[list[str]] = []
    original = referee._Referee._await_line

    def watch(self, seat, *args):  # looked at as each of the sleepy bot's moves arrives
        result = original(self, seat, *args)
        if seat.index == 0:
            seen.append(_states_of(marker, "sigcont_child_bot.py"))
        return result

    monkeypatch.setattr(referee._Referee, "_await_line", watch)
    record = play_game(find_game("limit-nim"), seats, time=TimeControl(time_ms=5000), log_dir=tmp_path)
    assert record.termination is Termination.NORMAL
    # Seat 0 sleeps 0.3 s over its second move: by its end the waker and its child were both
    # stopped, the child's SIGCONTs notwithstanding. (A box's freezer is not waited for: a
    # process frozen while it was waiting for a CPU shows running until it next gets one, and
    # runs nothing of its own then; so not every look finds both stopped on a loaded machine.)
    assert ["T", "T"] in seen, seen
    assert live_marked(marker) == []


def test_cancel_ends_every_bot_promptly_and_raises_game_aborted(tmp_path: Path) -> None:
    marker = new_marker()
    cancel = threading.Event()
    seats = [bot("sleep_bot.py", "sleepy", marker, MISBEHAVE_AT="1"), honest(marker)]
    outcome: list[BaseException] = []

    def play() -> None:
        try:
            play_game(find_game("limit-nim"), seats, time=TimeControl(time_ms=60000), log_dir=tmp_path, cancel=cancel)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    worker = threading.Thread(target=play)
    worker.start()
    _wait_for(lambda: len(live_marked(marker, boxes=False)) == 2)
    cancel.set()
    cancelled = time.monotonic()
    worker.join(5)
    assert not worker.is_alive() and time.monotonic() - cancelled < 1.0
    assert len(outcome) == 1 and isinstance(outcome[0], GameAborted)
    assert live_marked(marker) == []


@pytest.mark.parametrize("suspend_idle", [True, False])
def test_a_bot_is_stopped_while_it_is_not_its_turn_unless_pondering_is_allowed(
        suspend_idle: bool, tmp_path: Path) -> None:
    marker = new_marker()
    time_control = TimeControl(time_ms=5000, suspend_idle=suspend_idle)
    seats = [bot("sleep_bot.py", "sleepy", marker, SLEEP_S="0.5"), honest(marker)]
    seen: set[str] = set()
    done = threading.Event()

    def watch() -> None:
        # Seat 0 sleeps over its second move: meanwhile, the opponent's process state.
        while not done.is_set():
            seen.add(_state_of(marker, "random_bot.py"))
            time.sleep(0.01)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        record = play_game(find_game("limit-nim"), seats, time=time_control, log_dir=tmp_path)
    finally:
        done.set()
        watcher.join()
    assert record.termination is Termination.NORMAL
    assert ("T" in seen) is suspend_idle  # T: stopped by SIGSTOP


def _state_of(marker: str, script: str) -> str:
    """The process state letter of the marked process running `script`, or '' if none."""
    for pid in live_marked(marker, boxes=False):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            if script.encode() in cmdline:
                return process_state(pid)
        except OSError:
            continue
    return ""


def _states_of(marker: str, script: str) -> list[str]:
    """The process state letters of every marked process running `script`."""
    states = []
    for pid in live_marked(marker, boxes=False):
        try:
            if script.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                states.append(process_state(pid))
        except OSError:
            continue
    return sorted(states)


def _wait_for(condition, timeout_s: float = 5.0) -> None:
    """Poll a condition on the process table (there is no event to await for other processes)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the process table"
        time.sleep(0.01)


# Answers `Start` and every `1 1` it is sent with `1 1`.
ONE_ONE = ("import sys\nfor line in sys.stdin:\n    if line in ('Start\\n', '1 1\\n'):\n"
           "        print('1 1', flush=True)\n")


def test_a_move_text_read_before_is_judged_again_where_it_is_played() -> None:
    """The referee reads each move text once per game (a game's notation needs no position),
    but every move is judged in its own position: `1 1` takes the only stone of pile 1 for
    seat 0, and the same `1 1` from seat 1 is then illegal."""
    taker = PlayerSpec(name="taker", command=(sys.executable, "-c", ONE_ONE))
    game = find_game("limit-nim", piles="1/1,3/1")
    for _ in range(2):  # the second game reads `1 1` from what the first one read
        record = play_game(game, [taker, taker], time=GAME_TIME)
        assert record.termination is Termination.ILLEGAL and record.offender == 1, record.detail
        assert "played '1 1', which is illegal: pile 1 is empty" in record.detail
        assert [move.move for move in record.moves] == ["1 1"]
