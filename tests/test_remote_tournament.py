"""Tournaments with remote players: a remote bot plays one game at a time, so the runner gives
the other concurrency slots to games that can run."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Sequence

from arbiter.games import Game
from arbiter.records import GameRecord
from arbiter.referee import PlayerSpec
from arbiter.tournament.config import load_config
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import TournamentRunner, prepare_results
from arbiter.tournament.schedule import fixed_schedule
from arbiter.tournament.sprt import SprtProgress, SprtRunner

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
