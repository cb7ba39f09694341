"""Tournaments with remote players: a remote bot plays one game at a time, so the runner gives
the other concurrency slots to games that can run; and `arbiter run` checks every remote bot in
before the first game, refusing to start without them."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Sequence

import pytest

from arbiter.cli import main
from arbiter.games import Game
from arbiter.records import GameRecord
from arbiter.referee import PlayerSpec
from arbiter.tournament.check_in import check_in_remote_players, remote_players_due
from arbiter.tournament.tally import IdSet
from arbiter.tournament.config import load_config
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import TournamentRunner, prepare_results
from arbiter.tournament.schedule import fixed_schedule
from arbiter.tournament.sprt import SprtProgress, SprtRunner
from arbiter.transport.zmq import close_remote_seats

from referee_support import MARK, RANDOM_BOT, live_marked, new_marker
from tournament_helpers import fake_play, write_config

ROUND_ROBIN = """game: limit-nim
games_per_pairing: 2
concurrency: 2
players:
  - {name: alice, transport: remote, bind: "tcp://127.0.0.1:5601"}
  - {name: bob, transport: remote, bind: "tcp://127.0.0.1:5602"}
  - {name: house, command: "true"}
  - {name: guest, command: "true"}
"""


class RemoteWatch:
    """A referee stand-in that notes which remote players are in games running at once.

    With `meet`, the first two games started wait for each other, so they surely overlap."""

    def __init__(self, *, meet: bool) -> None:
        self.lock = threading.Lock()
        self.started: list[str] = []
        self.running: list[set[str]] = []  # the remote players of each game running now
        self.clashes: list[set[str]] = []  # remote players seen in two running games at once
        self.first_two = threading.Barrier(2, timeout=5) if meet else None

    def __call__(self, game: Game[Any], players: Sequence[PlayerSpec], *, log_prefix: str = "",
                 **options: Any) -> GameRecord:
        remote = {p.name for p in players if p.transport == "remote"}
        with self.lock:
            self.clashes += [remote & other for other in self.running if remote & other]
            self.running.append(remote)
            self.started.append(log_prefix.rstrip("-"))
            first = len(self.started) <= 2
        try:
            if first and self.first_two is not None:
                self.first_two.wait()
            else:
                threading.Event().wait(0.005)  # a game takes a little while
            return fake_play(game, players, **options)
        finally:
            with self.lock:
                self.running.remove(remote)


def test_a_remote_player_is_never_in_two_games_at_once_and_free_slots_go_to_games_that_can_run(
        tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, ROUND_ROBIN))
    watch = RemoteWatch(meet=True)
    outcome = TournamentRunner(config, prepare_results(config, fresh=False), Progress(quiet=True, tty=False),
                               play=watch).run()
    schedule = fixed_schedule(config)
    assert sorted(watch.started) == sorted(g.id for g in schedule)  # every game, once
    assert outcome.played_now == len(schedule) == 12
    assert watch.clashes == []
    # The first game is alice's and bob's; their other games wait, and the second slot goes
    # to the first game in the schedule that has neither of them.
    free = next(g for g in schedule if not {"alice", "bob"} & set(g.seats))
    assert schedule[0].seats == ("alice", "bob")
    assert set(watch.started[:2]) == {schedule[0].id, free.id}


def test_an_sprt_run_with_a_remote_candidate_plays_its_games_one_at_a_time(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, """game: limit-nim
format: sprt
concurrency: 2
candidate: {name: new, transport: remote, bind: "tcp://127.0.0.1:5601"}
baseline: {name: old, command: "true"}
sprt: {elo0: 0, elo1: 50, max_games: 10}
"""))
    watch = RemoteWatch(meet=False)
    outcome = SprtRunner(config, prepare_results(config, fresh=False), SprtProgress(quiet=True, tty=False),
                         play=watch).run()
    assert outcome.test.verdict is not None and outcome.played_now == len(watch.started) > 0
    assert watch.clashes == []


def test_the_check_in_waits_only_for_remote_players_with_games_left(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, ROUND_ROBIN))
    schedule = fixed_schedule(config)
    assert [p.name for p in remote_players_due(config, _ids([]))] == ["alice", "bob"]
    alice_done = {g.id for g in schedule if "alice" in g.seats}
    assert [p.name for p in remote_players_due(config, _ids(alice_done))] == ["bob"]
    assert remote_players_due(config, _ids(g.id for g in schedule)) == []


# --- the check-in with real sockets and bots -------------------------------------------

def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Bots:
    """Remote bots started by a test (as if on the students' laptops); killed at the end."""

    def __init__(self) -> None:
        self.marker = new_marker()
        self.processes: list[subprocess.Popen[bytes]] = []

    def serve(self, port: int) -> None:
        self.processes.append(subprocess.Popen(
            [sys.executable, str(RANDOM_BOT), "--connect", f"tcp://127.0.0.1:{port}", "--serve"],
            env={**os.environ, MARK: self.marker}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True))


@pytest.fixture
def bots() -> Iterator[Bots]:
    started = Bots()
    yield started
    close_remote_seats()
    for process in started.processes:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert live_marked(started.marker) == []


def contest(tmp_path: Path, alice: int, bob: int, alice_wait_ms: int = 1500) -> Path:
    # bob's bot is started before the check-in, and a busy machine may take seconds to start
    # it: it is given all the time it needs, so that only alice decides what is said.
    return write_config(tmp_path, f"""game: limit-nim
games_per_pairing: 2
concurrency: 2
players:
  - {{name: house, command: "true"}}
  - {{name: alice, transport: remote, bind: "tcp://127.0.0.1:{alice}", connect_wait_ms: {alice_wait_ms}}}
  - {{name: bob, transport: remote, bind: "tcp://127.0.0.1:{bob}", connect_wait_ms: 60000}}
""")


def test_arbiter_run_refuses_to_start_while_a_remote_player_never_connects_and_names_it(
        tmp_path: Path, bots: Bots, capsys: pytest.CaptureFixture[str]) -> None:
    alice, bob = free_port(), free_port()
    bots.serve(bob)
    assert main(["run", str(contest(tmp_path, alice, bob))]) == 2
    err = capsys.readouterr().err
    waiting = [line for line in err.splitlines() if line.startswith("waiting up to")]
    assert len(waiting) == 1 and f"alice (tcp://127.0.0.1:{alice})" in waiting[0], err
    assert err.endswith(
        "arbiter run: error: the tournament was not started: 1 remote player never connected (alice: no bot "
        f"connected to tcp://127.0.0.1:{alice} within 1.5 s). Start their bots (docs/remote-bots.md, step 4) "
        "or raise their connect_wait_ms, and run the command again\n")
    assert not (tmp_path / "results").exists()  # not a game played, not a file written


def test_the_check_in_lets_the_tournament_start_once_a_late_bot_connects(tmp_path: Path, bots: Bots) -> None:
    alice, bob = free_port(), free_port()
    bots.serve(bob)
    notes: list[str] = []

    def note(message: str) -> None:
        notes.append(message)
        if message.startswith("waiting"):
            bots.serve(alice)  # alice's bot starts only now

    with check_in_remote_players(load_config(contest(tmp_path, alice, bob, alice_wait_ms=60000)), note):
        pass
    assert len(notes) == 2 and notes[-1] == "every remote player is connected", notes
    assert notes[0].startswith("waiting up to 60 s for remote players to connect: ")
    assert f"alice (tcp://127.0.0.1:{alice})" in notes[0]


def _ids(game_ids) -> IdSet:
    """Recorded game ids as the check-in keeps them."""
    ids = IdSet()
    for game_id in game_ids:
        ids.add(game_id)
    return ids
