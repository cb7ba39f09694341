"""Remote bots: processes the arbiter did not start, on sockets it binds or connects to.

They serve game after game on one connection, are admitted only with their own CURVE key,
cannot be displaced by a second connection, and lose by crash or on time when they vanish,
without the arbiter ever waiting past a deadline."""
from __future__ import annotations

import json
import logging
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arbiter.games import find_game
from arbiter.records import GameRecord, Termination
from arbiter.referee import GameAborted, PlayerSpec, TimeControl, play_game
from arbiter.transport.keys import KeyPair, write_key_pair
from arbiter.transport.zmq import HEARTBEAT_IVL_MS, HEARTBEAT_TIMEOUT_MS, SocketSpec, close_remote_seats
from referee_support import BOTS, MARK, RANDOM_BOT, bot, honest, live_marked, new_marker

LOGGER = "arbiter.transport.zmq"
GAME = "limit-nim"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RemoteBots:
    """Bot processes started by a test as if on another machine; all killed at the end."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.processes: list[subprocess.Popen[str]] = []

    def start(self, script: Path, *args: str, **env: str) -> subprocess.Popen[str]:
        process = subprocess.Popen([sys.executable, str(script), *args], env={**os.environ, MARK: self.marker, **env},
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True, start_new_session=True)
        self.processes.append(process)
        return process

    def kill_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            process.stderr.close()  # type: ignore[union-attr]


@pytest.fixture
def remote() -> Iterator[RemoteBots]:
    bots = RemoteBots(new_marker())
    yield bots
    close_remote_seats()
    bots.kill_all()
    assert live_marked(bots.marker) == []


def remote_player(name: str, *, wait_ms: int = 5000, **socket_keys: str) -> PlayerSpec:
    return PlayerSpec(name=name, command=(), transport="remote",
                      socket=SocketSpec(connect_wait_ms=wait_ms, **socket_keys))


def keys(folder: Path, name: str) -> tuple[KeyPair, Path, Path]:
    """A key pair written as `arbiter keys NAME` would: (pair, secret file, public file)."""
    pair = KeyPair.generate()
    secret_path, public_path = write_key_pair(folder, name, pair)
    return pair, secret_path, public_path


def play(players: list[PlayerSpec], tmp_path: Path, time_ms: int = 10000):
    return play_game(find_game(GAME), players, time=TimeControl(time_ms=time_ms), log_dir=tmp_path)


def test_a_remote_bot_serves_several_games_in_a_row_on_one_connection(
        remote: RemoteBots, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    server = remote.start(RANDOM_BOT, "--connect", endpoint, "--serve", "--seed", "1")
    guest = remote_player("guest", bind=endpoint)
    local = honest(remote.marker, seed=2)
    with caplog.at_level(logging.WARNING, LOGGER):
        records = [play([guest, local] if n % 2 == 0 else [local, guest], tmp_path) for n in range(4)]
    assert [r.termination for r in records] == [Termination.NORMAL] * 4, [r.detail for r in records]
    assert {r.players[n % 2].command for n, r in enumerate(records)} == {f"remote {endpoint} (the bot connects)"}
    assert server.poll() is None  # one process, still waiting for its next game
    assert caplog.text == ""  # never refused, never reconnected


def test_the_arbiter_connects_to_a_remote_bot_that_binds_and_admits_its_curve_key(
        remote: RemoteBots, tmp_path: Path) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    arbiter_pair, arbiter_secret, arbiter_public = keys(tmp_path, "arbiter")
    bot_pair, bot_secret, _ = keys(tmp_path, "alice")
    remote.start(RANDOM_BOT, "--bind", endpoint, "--serve", "--keys", str(bot_secret),
                 "--server-key", str(arbiter_public))
    alice = remote_player("alice", connect=endpoint, public_key=bot_pair.public, arbiter_keys=str(arbiter_secret))
    records = [play([alice, honest(remote.marker)], tmp_path) for _ in range(2)]
    assert [r.termination for r in records] == [Termination.NORMAL] * 2, [r.detail for r in records]
    assert records[0].players[0].command == f"remote {endpoint} (the arbiter connects)"


def test_a_bot_with_another_key_is_refused_logged_and_its_seat_loses_unconnected(
        remote: RemoteBots, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    _, arbiter_secret, arbiter_public = keys(tmp_path, "arbiter")
    alice_pair, _, _ = keys(tmp_path, "alice")
    mallory_pair, mallory_secret, _ = keys(tmp_path, "mallory")
    remote.start(RANDOM_BOT, "--connect", endpoint, "--serve", "--keys", str(mallory_secret),
                 "--server-key", str(arbiter_public))
    alice = remote_player("alice", bind=endpoint, public_key=alice_pair.public, arbiter_keys=str(arbiter_secret),
                          wait_ms=2500)  # time for the bot to start and be refused
    with caplog.at_level(logging.WARNING, LOGGER):
        record = play([alice, honest(remote.marker)], tmp_path)
    assert (record.termination, record.offender, record.moves) == (Termination.CRASH, 0, [])
    assert record.detail == f"seat 0 (alice) never connected: no bot connected to {endpoint} within 2.5 s"
    assert f"remote player alice: refused a connection from 127.0.0.1: its public key {mallory_pair.public} " \
           "is not this player's key" in caplog.text


def test_a_second_connection_cannot_take_over_a_seat_in_use_even_with_the_right_key(
        remote: RemoteBots, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """While its bot is connected a seat's door is shut: a second copy, key and all, is not even
    answered (nor is a stranger, at no cost); once the first copy is gone it takes the seat."""
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    _, arbiter_secret, arbiter_public = keys(tmp_path, "arbiter")
    alice_pair, alice_secret, _ = keys(tmp_path, "alice")
    curve_args = ("--keys", str(alice_secret), "--server-key", str(arbiter_public))
    alice = remote_player("alice", bind=endpoint, public_key=alice_pair.public, arbiter_keys=str(arbiter_secret),
                          wait_ms=30000)
    owner = remote.start(RANDOM_BOT, "--connect", endpoint, "--serve", *curve_args)
    assert play([alice, honest(remote.marker)], tmp_path).termination is Termination.NORMAL
    usurper = remote.start(RANDOM_BOT, "--connect", endpoint, "--serve", *curve_args)
    with caplog.at_level(logging.WARNING, LOGGER):
        record = play([honest(remote.marker), alice], tmp_path)
    assert record.termination is Termination.NORMAL, record.detail
    assert owner.poll() is None and usurper.poll() is None  # the usurper still waits at the shut door
    assert caplog.text == ""
    owner.kill()
    owner.wait()
    record = play([alice, honest(remote.marker)], tmp_path)  # the door opens again: the second copy comes in
    assert record.termination is Termination.NORMAL, record.detail
    assert usurper.poll() is None


def test_a_remote_bot_restarted_between_games_takes_its_seat_back(remote: RemoteBots, tmp_path: Path) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    guest = remote_player("guest", bind=endpoint)
    first = remote.start(RANDOM_BOT, "--connect", endpoint, "--serve")
    assert play([guest, honest(remote.marker)], tmp_path).termination is Termination.NORMAL
    first.kill()
    first.wait()
    remote.start(RANDOM_BOT, "--connect", endpoint, "--serve")
    record = play([guest, honest(remote.marker)], tmp_path)
    assert record.termination is Termination.NORMAL, record.detail


def test_a_remote_bot_that_dies_mid_game_loses_by_crash_at_once(remote: RemoteBots, tmp_path: Path) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    remote.start(BOTS / "crash_bot.py", "--connect", endpoint)
    started = time.monotonic()
    record = play([remote_player("crashy", bind=endpoint), honest(remote.marker)], tmp_path, time_ms=20000)
    assert (record.termination, record.offender) == (Termination.CRASH, 0)
    assert record.detail.startswith(f"seat 0 (crashy) lost its connection from 127.0.0.1 to {endpoint}")
    assert time.monotonic() - started < 3  # not the 20 s budget


def test_a_remote_bot_that_hangs_loses_on_time_at_its_deadline(remote: RemoteBots, tmp_path: Path) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    remote.start(BOTS / "sleep_bot.py", "--connect", endpoint)
    record = play([remote_player("sleepy", bind=endpoint), honest(remote.marker)], tmp_path, time_ms=800)
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 0)
    assert 800 <= record.time_used_ms[0] < 850


def test_a_remote_machine_that_freezes_is_dropped_by_heartbeats_before_its_deadline(
        remote: RemoteBots, tmp_path: Path) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    guest = remote_player("frozen", bind=endpoint)
    server = remote.start(RANDOM_BOT, "--connect", endpoint, "--serve")
    assert play([guest, honest(remote.marker)], tmp_path).termination is Termination.NORMAL
    os.killpg(server.pid, signal.SIGSTOP)  # alive, connected, and silent: as a machine that hangs
    started = time.monotonic()
    record = play([guest, honest(remote.marker)], tmp_path, time_ms=30000)
    elapsed_s = time.monotonic() - started
    assert (record.termination, record.offender) == (Termination.CRASH, 0)
    assert "lost its connection" in record.detail
    silence_s = (HEARTBEAT_IVL_MS + HEARTBEAT_TIMEOUT_MS) / 1000  # no traffic for IVL, then no PONG for TIMEOUT
    assert HEARTBEAT_TIMEOUT_MS / 1000 <= elapsed_s < silence_s + 10  # well before its 30 s clock, on a busy machine too


def test_a_remote_bot_cannot_be_timed_by_the_cpu_clock() -> None:
    player = remote_player("guest", bind="tcp://127.0.0.1:5555")
    with pytest.raises(ValueError, match=r"seat 0 \(guest\): a remote bot's time can only be measured with "
                                         "clock: wall"):
        play_game(find_game(GAME), [player, honest("x")], time=TimeControl(clock="cpu"))


def test_a_remote_bot_on_a_non_loopback_address_without_keys_is_refused_before_the_game() -> None:
    player = remote_player("guest", bind="tcp://0.0.0.0:5555")
    with pytest.raises(ValueError, match=r"seat 1 \(guest\): bind: tcp://0.0.0.0:5555 is not a loopback address, "
                                         "so it needs CURVE keys"):
        play_game(find_game(GAME), [honest("x"), player])


def test_a_remote_seat_is_leased_to_one_game_at_a_time(remote: RemoteBots, tmp_path: Path) -> None:
    """Two games at once with the same remote bot: the second waits for the first to end."""
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    remote.start(RANDOM_BOT, "--connect", endpoint, "--serve")
    guest = remote_player("guest", bind=endpoint)
    records = []
    games = [threading.Thread(target=lambda: records.append(play([guest, honest(remote.marker)], tmp_path)))
             for _ in range(2)]
    for game in games:
        game.start()
    for game in games:
        game.join(30)
    # Had the games shared the connection, the bot would have seen two games' lines interleaved.
    assert [r.termination for r in records] == [Termination.NORMAL] * 2, [r.detail for r in records]


def test_a_class_contest_tournament_with_remote_bots_runs_from_its_config(remote: RemoteBots, tmp_path: Path) -> None:
    """The docs/remote-bots.md set-up end to end: keys from `arbiter keys`, a config with
    remote players, `arbiter run` with two games at once, students' bots serving games."""
    def arbiter(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "arbiter", *args], cwd=tmp_path, text=True,
                              capture_output=True, timeout=120)

    for name in ("arbiter", "alice", "bob"):
        assert arbiter("keys", name).returncode == 0
    ports = {name: free_port() for name in ("alice", "bob")}
    for name, port in ports.items():
        remote.start(RANDOM_BOT, "--connect", f"tcp://127.0.0.1:{port}", "--serve",
                     "--keys", str(tmp_path / f"{name}.key_secret"), "--server-key", str(tmp_path / "arbiter.key"))
    (tmp_path / "contest.yaml").write_text(
        "game: limit-nim\nresults: results\nconcurrency: 2\ngames_per_pairing: 2\n"
        "arbiter_keys: arbiter.key_secret\n"
        "players:\n"
        f"  - {{name: house, command: python {RANDOM_BOT}, env: {{{MARK}: {remote.marker}}}}}\n"
        f"  - {{name: alice, transport: remote, bind: 'tcp://127.0.0.1:{ports['alice']}', public_key: alice.key}}\n"
        f"  - {{name: bob, transport: remote, bind: 'tcp://127.0.0.1:{ports['bob']}', public_key: bob.key}}\n")
    run = arbiter("run", "contest.yaml", "--quiet")
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 6
    assert {r["termination"] for r in records} == {"normal"}, [r["detail"] for r in records]
    assert all(p.poll() is None for p in remote.processes)  # the students' bots are still serving


def test_a_cancelled_game_tells_its_remote_bot_to_quit_and_frees_the_seat(remote: RemoteBots, tmp_path: Path) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    bot = remote.start(BOTS / "sleep_bot.py", "--connect", endpoint, MISBEHAVE_AT="1", SLEEP_S="1.5")
    cancel = threading.Event()
    outcome: list[BaseException] = []

    def game() -> None:
        try:
            play_game(find_game(GAME), [remote_player("sleepy", bind=endpoint), honest(remote.marker)],
                      time=TimeControl(time_ms=60000), log_dir=tmp_path, cancel=cancel)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    worker = threading.Thread(target=game)
    worker.start()
    time.sleep(0.8)  # nothing to await from outside: by now the bot is asleep over its first move
    cancel.set()
    worker.join(5)
    assert not worker.is_alive() and type(outcome[0]).__name__ == "GameAborted"
    assert bot.wait(10) == 0  # it woke, found `Quit` waiting, dropped its move and exited


class LogSeen(logging.Handler):
    """Sets `seen` once the logger emits a message containing `text`."""

    def __init__(self, text: str) -> None:
        super().__init__(logging.DEBUG)
        self.text = text
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.seen.set()


@pytest.fixture
def lease_wait() -> Iterator[threading.Event]:
    """Set when a game starts waiting for the game that holds its remote seat."""
    handler = LogSeen("waiting for the game that holds this seat")
    logger = logging.getLogger(LOGGER)
    level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    yield handler.seen
    logger.removeHandler(handler)
    logger.setLevel(level)


class GameThread(threading.Thread):
    """One game in its own thread, as a tournament runs them; `outcome` is its record or exception."""

    def __init__(self, players: list[PlayerSpec], log_dir: Path, name: str,
                 on_turn: Callable[[Any], None] | None) -> None:
        super().__init__(name=name, daemon=True)
        self.players, self.log_dir, self.on_turn = players, log_dir, on_turn
        self.cancel = threading.Event()  # each game its own, so that one can be cancelled alone
        self.outcome: GameRecord | BaseException | None = None
        self.ended_at = math.inf

    def run(self) -> None:
        try:
            self.outcome = play_game(find_game(GAME), self.players, time=TimeControl(time_ms=60000),
                                     log_dir=self.log_dir, log_prefix=f"{self.name}-", cancel=self.cancel,
                                     on_turn=self.on_turn)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            self.outcome = exc
        self.ended_at = time.monotonic()


StartGame = Callable[..., GameThread]


@pytest.fixture
def start_game(remote: RemoteBots, tmp_path: Path) -> Iterator[StartGame]:
    """Starts games in threads: `start_game(players, name, on_turn=None)`; all are cancelled and
    joined at the end, before `remote` looks for processes left over."""
    threads: list[GameThread] = []

    def start(players: list[PlayerSpec], name: str, on_turn: Callable[[Any], None] | None = None) -> GameThread:
        thread = GameThread(players, tmp_path, name, on_turn)
        threads.append(thread)
        thread.start()
        return thread

    yield start
    for thread in threads:
        thread.cancel.set()
    for thread in threads:
        thread.join(5)


def hold_seat(start_game: StartGame, guest: PlayerSpec, marker: str) -> GameThread:
    """A game that holds `guest`'s seat until its own `cancel` is set: its opponent thinks for an hour."""
    moved = threading.Event()
    holder = start_game([guest, bot("sleep_bot.py", "sleeper", marker, MISBEHAVE_AT="1")], "holder",
                        lambda state: moved.set())
    assert moved.wait(10)  # the guest has moved: this game has its seat
    return holder


PROMPT_S = 0.5  # a cancelled wait ends within CANCEL_CHECK_MS; the rest is slack for a loaded machine


def test_a_game_waiting_for_another_games_remote_seat_is_cancelled_at_once_and_holds_no_lease(
        remote: RemoteBots, tmp_path: Path, lease_wait: threading.Event, start_game: StartGame) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    remote.start(RANDOM_BOT, "--connect", endpoint, "--serve")
    guest = remote_player("guest", bind=endpoint)
    holder = hold_seat(start_game, guest, remote.marker)
    waiter = start_game([guest, honest(remote.marker)], "waiter")
    assert lease_wait.wait(10)
    waiter.cancel.set()
    cancelled = time.monotonic()
    waiter.join(5)
    assert isinstance(waiter.outcome, GameAborted)
    assert waiter.ended_at - cancelled < PROMPT_S  # not when the holder's game ends
    assert holder.is_alive()  # its own game goes on
    holder.cancel.set()
    holder.join(5)
    assert isinstance(holder.outcome, GameAborted)
    assert play([guest, honest(remote.marker)], tmp_path).termination is Termination.NORMAL  # the seat is free


def test_a_game_waiting_for_a_remote_bot_to_connect_is_cancelled_at_once_and_hands_back_its_other_seat(
        remote: RemoteBots, tmp_path: Path, start_game: StartGame) -> None:
    here, absent = (f"tcp://127.0.0.1:{free_port()}" for _ in range(2))
    remote.start(RANDOM_BOT, "--connect", here, "--serve")
    guest = remote_player("guest", bind=here)
    assert play([guest, honest(remote.marker)], tmp_path).termination is Termination.NORMAL  # connected
    game = start_game([guest, remote_player("absent", bind=absent, wait_ms=60000)], "game")
    time.sleep(0.3)  # nothing to await: the game waits for a bot that never comes
    game.cancel.set()
    cancelled = time.monotonic()
    game.join(5)
    assert isinstance(game.outcome, GameAborted)
    assert game.ended_at - cancelled < PROMPT_S  # not the 60 s connect_wait_ms
    assert play([guest, honest(remote.marker)], tmp_path).termination is Termination.NORMAL  # the seat is free


def test_waiting_for_another_games_remote_seat_does_not_count_against_connect_wait_ms(
        remote: RemoteBots, lease_wait: threading.Event, start_game: StartGame) -> None:
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    remote.start(RANDOM_BOT, "--connect", endpoint, "--serve")
    holder = hold_seat(start_game, remote_player("guest", bind=endpoint), remote.marker)
    waiter = start_game([remote_player("guest", bind=endpoint, wait_ms=200), honest(remote.marker)], "waiter")
    assert lease_wait.wait(10)
    time.sleep(0.5)  # the waiter has now waited longer than its connect_wait_ms
    holder.cancel.set()
    holder.join(5)
    waiter.join(10)
    assert isinstance(waiter.outcome, GameRecord) and waiter.outcome.termination is Termination.NORMAL, waiter.outcome
