"""Launched bots over ZeroMQ play exactly as over pipes: the same games for the same seeds,
the same faults adjudicated the same way, and no process left behind."""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from arbiter.games import find_game
from arbiter.records import GameRecord, Termination
from arbiter.referee import PlayerSpec, TimeControl, play_game
from arbiter.transport.zmq import SocketSpec
from referee_support import MARK, ROOT, SHARED_FAULTS, Fault, bot, honest, live_marked, new_marker, play_fault, process_state

PLAYERS = ROOT / "players"
GAME_TIME = TimeControl(time_ms=2000)
MARGIN_S = 10.0  # not hung: launching two Python bots that import pyzmq, and ending them, on a busy 2-core machine
CUT_OFF_MS = 50  # how far past its limit a bot may run before the referee cuts it off


@dataclass(frozen=True)
class Match:
    game: str
    params: dict[str, int]
    seats: tuple[tuple[str, ...], tuple[str, ...]]  # script and arguments per seat
    dialect: str = "arbiter"


# Every bundled bot appears in at least one match (checked below), each seeded.
MATCHES = [
    Match("dots-and-triangles", {"rows": 4}, (("random_bot.py", "--seed", "1"), ("greedy.py", "--seed", "2"))),
    Match("dots-and-boxes", {"rows": 2, "cols": 2},
          (("double_cross.py", "--seed", "3"), ("perfect_dp.py", "--seed", "4"))),
    Match("limit-nim", {}, (("nim_greedy.py", "--seed", "5"), ("nim_perfect.py", "--seed", "6"))),
    Match("codecup-sudoku", {}, (("sudoku_random.py", "--seed", "7", "--game", "codecup-sudoku"),
                                 ("sudoku_claimer.py", "--seed", "8", "--game", "codecup-sudoku")), "codecup"),
    Match("codecup-sudoku", {}, (("sudoku_winner.py", "--seed", "9", "--game", "codecup-sudoku"),
                                 ("random_bot.py", "--seed", "10", "--game", "codecup-sudoku")), "codecup"),
    # Its simulations are fixed (the clock never cuts them at 20 s), so its games are the seed's.
    Match("openspiel:connect_four", {}, (("openspiel_mcts.py", "--seed", "11", "--simulations", "20"),
                                         ("random_bot.py", "--seed", "12"))),
    # At depth 1 the clock never shortens its search (it drops plies only above 1).
    Match("openspiel:chess", {}, (("openspiel_reference.py", "--seed", "13", "--depth", "1"),
                                  ("random_bot.py", "--seed", "14"))),
]


def test_every_bundled_bot_is_in_a_match() -> None:
    bundled = {p.name for p in PLAYERS.glob("*.py") if p.name != "__init__.py"}
    assert bundled <= {seat[0] for match in MATCHES for seat in match.seats}


def _game(record: GameRecord) -> tuple[object, ...]:
    """What must not depend on the transport: the moves and the result."""
    return record.termination, record.winner, record.scores, [m.move for m in record.moves]


@pytest.mark.parametrize("match", MATCHES, ids=lambda m: f"{m.game}-{m.seats[0][0][:-3]}-{m.seats[1][0][:-3]}")
def test_a_bundled_bot_plays_the_same_game_over_zmq_as_over_pipes(match: Match, tmp_path: Path) -> None:
    marker = new_marker()
    seats = [PlayerSpec(name=script[:-3], command=(sys.executable, str(PLAYERS / script), *args),
                        env={MARK: marker, "ARBITER_CACHE": str(tmp_path / "cache")}, dialect=match.dialect)
             for script, *args in match.seats]
    game = find_game(match.game, **match.params)
    time_control = TimeControl(time_ms=20000)
    over_pipes = play_game(game, seats, time=time_control, log_dir=tmp_path)
    over_zmq = play_game(game, [replace(s, transport="zmq") for s in seats], time=time_control, log_dir=tmp_path)
    assert over_zmq.termination is Termination.NORMAL, over_zmq.detail
    assert _game(over_zmq) == _game(over_pipes)
    assert live_marked(marker) == []


# The misbehaving bots of the referee's suite that run over a socket unchanged (through the
# bot kit), and the socket-only ones of zmq_misbehave_bot.py.
FAULTS = SHARED_FAULTS + [
    Fault("zmq_misbehave_bot.py", Termination.MALFORMED, "sent 'hello, referee', which is not a move",
          env={"ZMQ_FAULT": "garbage"}),
    Fault("zmq_misbehave_bot.py", Termination.MALFORMED, "not valid UTF-8", env={"ZMQ_FAULT": "bad_utf8"}),
    Fault("zmq_misbehave_bot.py", Termination.MALFORMED, "a message of 2 parts", env={"ZMQ_FAULT": "two_parts"}),
    Fault("zmq_misbehave_bot.py", Termination.CRASH, "lost its connection from",
          env={"ZMQ_FAULT": "disconnect"}),
]


@pytest.mark.parametrize("number", range(len(FAULTS)),
                         ids=[f"{f.env.get('ZMQ_FAULT', f.script[:-3])}-{f.termination.value}" for f in FAULTS])
def test_a_misbehaving_bot_over_zmq_loses_the_same_way_and_leaves_nothing(number: int, tmp_path: Path) -> None:
    fault = FAULTS[number]
    budget = fault.time or GAME_TIME
    record, offender, elapsed_s, marker = play_fault(fault, number, GAME_TIME, tmp_path, transport="zmq")

    assert (record.termination, record.offender, record.winner) == (fault.termination, offender, 1 - offender)
    assert fault.detail in record.detail
    assert elapsed_s < budget.time_ms / 1000 + MARGIN_S
    if fault.termination is Termination.TIMEOUT and budget.move_ms is None:
        assert budget.time_ms <= record.time_used_ms[offender] < budget.time_ms + CUT_OFF_MS
    assert live_marked(marker) == []


def test_a_bot_that_writes_when_it_is_not_its_turn_over_zmq_loses_by_protocol(tmp_path: Path) -> None:
    """Its second move of a turn is sent while the opponent thinks; found before its next turn.

    (Over a socket two messages sent at once may arrive apart: when the second is still in
    the stopped bot's ZeroMQ thread at the check, it counts as the bot's next answer, as a
    line written after the hand-over does. So here the bot is not stopped and the
    opponent is slow, and the extra line is surely there by the check.)"""
    marker = new_marker()
    culprit = replace(bot("zmq_misbehave_bot.py", "double", marker, time=TimeControl(time_ms=2000, suspend_idle=False),
                          ZMQ_FAULT="two_moves"), transport="zmq")
    slow = replace(bot("slow_random_bot.py", "slow", marker, SLOW_MS="200"), transport="zmq")
    record = play_game(find_game("limit-nim"), [culprit, slow], time=GAME_TIME, log_dir=tmp_path)
    assert (record.termination, record.offender) == (Termination.PROTOCOL, 0)
    assert "wrote '1 1' when it was not its turn" in record.detail
    assert live_marked(marker) == []


def test_a_hung_bot_is_cut_off_at_its_deadline_over_zmq_as_over_pipes(tmp_path: Path) -> None:
    marker = new_marker()
    seats = [bot("sleep_bot.py", "sleepy", marker, MISBEHAVE_AT="1"), honest(marker)]
    record = play_game(find_game("limit-nim"), [replace(s, transport="zmq") for s in seats],
                       time=TimeControl(time_ms=500), log_dir=tmp_path)
    assert record.termination is Termination.TIMEOUT
    assert 500 <= record.time_used_ms[0] < 500 + CUT_OFF_MS  # never blocks past the deadline
    assert live_marked(marker) == []


def test_a_bot_on_a_non_loopback_bind_gets_curve_keys_made_for_its_game(tmp_path: Path) -> None:
    marker = new_marker()
    # Unsandboxed: a boxed bot has no network, and its seat is always a private unix socket.
    seats = [replace(honest(marker, seed), transport="zmq", socket=SocketSpec(bind="tcp://0.0.0.0:*"), sandbox=None)
             for seed in (1, 2)]
    keys_before = set(Path("/tmp").glob("arbiter-seat-*/bot.key_secret"))
    record = play_game(find_game("limit-nim"), seats, time=GAME_TIME, log_dir=tmp_path)
    assert record.termination is Termination.NORMAL, record.detail
    assert set(Path("/tmp").glob("arbiter-seat-*/bot.key_secret")) <= keys_before  # removed with the game
    assert live_marked(marker) == []


def test_a_bot_that_never_connects_loses_on_time(tmp_path: Path) -> None:
    marker = new_marker()
    deaf = PlayerSpec(name="deaf", command=(sys.executable, "-c", "import time; time.sleep(60)"),
                      env={MARK: marker}, transport="zmq")
    record = play_game(find_game("limit-nim"), [deaf, replace(honest(marker), transport="zmq")],
                       time=TimeControl(time_ms=300), log_dir=tmp_path)
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 0)
    assert live_marked(marker) == []


def test_a_bot_on_zmq_is_stopped_between_turns_and_its_grandchild_dies_with_the_game(tmp_path: Path) -> None:
    """Process control is the pipe transport's: the whole process group is stopped while it
    is not its turn, and every process of the session is ended after the game."""
    marker = new_marker()
    seats = [bot("grandchild_bot.py", "parent", marker), bot("sleep_bot.py", "sleepy", marker, SLEEP_S="0.3")]
    seen: set[tuple[str, str]] = set()
    done = threading.Event()

    def watch() -> None:  # while the sleepy bot sleeps over its move, look at its opponent
        while not done.is_set():
            seen.update(_states(marker).items())
            time.sleep(0.01)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        record = play_game(find_game("limit-nim"), [replace(s, transport="zmq") for s in seats],
                           time=TimeControl(time_ms=5000), log_dir=tmp_path)
    finally:
        done.set()
        watcher.join()
    assert record.termination is Termination.NORMAL, record.detail
    assert {("grandchild_bot.py", "T"), ("grandchild", "T")} <= seen  # T: stopped by SIGSTOP
    assert live_marked(marker) == []


def _states(marker: str) -> dict[str, str]:
    """State letters of the marked processes, by which script (or the grandchild) each runs."""
    found = {}
    for pid in live_marked(marker, boxes=False):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = process_state(pid)
        except OSError:
            continue
        words = cmdline.split(b"\0")
        if len(words) < 2:
            continue  # exiting (its command line already gone), or still being started
        name = "grandchild" if b"# grandchild" in cmdline else Path(words[1].decode()).name
        found[name] = state
    return found
