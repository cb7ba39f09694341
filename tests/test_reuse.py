"""Many games per bot process (docs/protocol.md, Many games per process): a player with
`reuse` keeps its process between games that end normally, each game with its own clock,
start-up and log; any fault ends the process, and the next game starts a fresh one."""
from __future__ import annotations

import io
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pytest

from arbiter.games import find_game
from arbiter.kept_bots import KeptBots
from arbiter.records import GameRecord, Termination
from arbiter.referee import QUIT_GRACE_S, TERM_GRACE_S, PlayerSpec, TimeControl, play_game
from arbiter.tournament.config import config_from_data
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import run_tournament
from referee_support import ROOT, bot, honest, live_marked, new_marker

NIM = find_game("limit-nim")


def reused(player: PlayerSpec) -> PlayerSpec:
    return replace(player, reuse=True)


def play_games(count: int, players: list[PlayerSpec], kept: KeptBots, tmp_path: Path,
               time: TimeControl = TimeControl()) -> list[GameRecord]:
    return [play_game(NIM, players, time=time, log_dir=tmp_path, log_prefix=f"{number}-", kept=kept)
            for number in range(1, count + 1)]


def end(kept: KeptBots) -> None:
    kept.close(grace_s=QUIT_GRACE_S, term_grace_s=TERM_GRACE_S)


def test_a_reused_bot_that_crashes_in_its_second_game_is_followed_by_a_fresh_process(tmp_path: Path) -> None:
    marker = new_marker()
    kept = KeptBots()
    probe = reused(bot("reuse_probe_bot.py", "probe", marker, "--crash-in-game", "2"))
    first, second, third = play_games(3, [probe, reused(honest(marker))], kept, tmp_path)
    assert first.termination is Termination.NORMAL and first.game_of_process == [1, 1]
    # The second game is played by the same two processes, and the crash is adjudicated as ever.
    assert second.pids == first.pids and second.game_of_process == [2, 2]
    assert second.termination is Termination.CRASH and second.offender == 0
    assert "exited with status 3" in second.detail
    # A fault ends every process of its game: the third game starts fresh ones, and is played.
    assert third.termination is Termination.NORMAL and third.game_of_process == [1, 1]
    assert not set(third.pids) & set(first.pids)
    assert len(kept) == 2  # the third game's, kept for a fourth
    end(kept)
    assert live_marked(marker) == []
    # Each game has its own log; the kept process's second one says which game of it it is.
    assert (tmp_path / "2-seat0-probe.log").read_text().startswith(f"[arbiter: game 2 of this bot's process "
                                                                   f"{first.pids[0]}]")


def test_a_reused_bots_clock_is_per_game_and_taking_in_a_new_game_is_off_the_clock(tmp_path: Path) -> None:
    marker = new_marker()
    kept = KeptBots()
    # 70 ms of CPU at its first move of each game fit a game's 120 ms, but not two games';
    # 150 ms of CPU each time it reads a `Game` line would not fit at all, were it charged.
    clock = TimeControl(time_ms=120, clock="cpu")
    probe = reused(bot("reuse_probe_bot.py", "probe", marker, "--burn-first-move", "70", "--burn-on-game", "150",
                       time=clock))
    first, second = play_games(2, [probe, reused(honest(marker))], kept, tmp_path)
    for record in (first, second):
        assert record.termination is Termination.NORMAL, record.detail
        assert 70 <= record.time_used_ms[0] < 120
    assert second.game_of_process == [2, 2] and second.pids == first.pids
    assert second.startup_ms[0] is not None and second.startup_ms[0] >= 150  # its intake, timed off the clock
    end(kept)
    assert live_marked(marker) == []


def test_a_reused_bot_is_stopped_between_games_and_charged_nothing_for_them(tmp_path: Path) -> None:
    marker = new_marker()
    kept = KeptBots()
    players = [replace(reused(honest(marker, seed)), sandbox=None) for seed in (1, 2)]
    (first,) = play_games(1, players, kept, tmp_path, TimeControl(clock="cpu"))
    for pid in first.pids:  # SIGSTOP, as between turns (it lands when the process next runs)
        _wait_for(lambda: _state(pid) == "T")
    second, third = play_games(2, players, kept, tmp_path, TimeControl(clock="cpu"))
    assert third.pids == first.pids and third.game_of_process == [3, 3]
    assert max(third.suspended_cpu_ms) < 1.0  # only the microseconds a stop takes to land
    end(kept)
    assert live_marked(marker) == []


def test_a_bot_that_does_not_play_a_next_game_is_started_afresh_and_the_run_is_told_once(tmp_path: Path) -> None:
    marker = new_marker()
    notes: list[str] = []
    kept = KeptBots(notes.append)
    probe = reused(bot("reuse_probe_bot.py", "probe", marker, "--exit-on-game", "2"))
    records = play_games(3, [probe, reused(honest(marker))], kept, tmp_path)
    assert [r.termination for r in records] == [Termination.NORMAL] * 3
    # It exits on its second `Game` line: launched again for that game, and from then on for each.
    assert [r.game_of_process for r in records] == [[1, 1], [1, 2], [1, 3]]
    assert len({r.pids[0] for r in records}) == 3 and len({r.pids[1] for r in records}) == 1
    assert len(notes) == 1 and notes[0].startswith("probe plays with reuse, but its process ")
    end(kept)
    assert live_marked(marker) == []


def test_without_kept_bots_every_game_launches_its_own_processes(tmp_path: Path) -> None:
    marker = new_marker()
    player = reused(honest(marker))
    records = [play_game(NIM, [player, player], log_dir=tmp_path, log_prefix=f"{n}-") for n in range(2)]
    assert [r.game_of_process for r in records] == [[1, 1], [1, 1]]
    assert live_marked(marker) == []


def test_a_tournament_with_reuse_uses_each_process_for_one_game_at_a_time(tmp_path: Path) -> None:
    marker = new_marker()
    random_bot = f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}"
    config = config_from_data({
        "name": "reuse", "results": str(tmp_path / "results"), "game": "limit-nim", "games_per_pairing": 8,
        "concurrency": 2, "reuse": True, "sandbox": "off",
        "players": [{"name": name, "command": random_bot, "env": {"ARBITER_TEST_MARK": marker}} for name in "ab"],
    }, tmp_path / "reuse.yaml")
    records = run_tournament(config, Progress(quiet=True, tty=False)).records
    assert [r.termination for r in records] == ["normal"] * 8
    games_of: dict[int, list[int]] = {}
    for record in sorted(records, key=lambda r: r.started_at):
        for pid, game in zip(record.pids, record.game_of_process):
            games_of.setdefault(pid, []).append(game)
    # Each process played its games one after another, counted from 1; two threads, so at most
    # two processes a player, and fewer processes than games.
    assert all(games == list(range(1, len(games) + 1)) for games in games_of.values()), games_of
    assert 2 <= len(games_of) <= 4
    assert live_marked(marker) == []  # the kept bots are ended with the run


def test_a_run_says_once_that_a_bot_ends_after_each_game_whatever_its_threads(tmp_path: Path) -> None:
    marker = new_marker()
    probe = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'reuse_probe_bot.py'} --exit-on-game 2"
    random_bot = f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}"
    config = config_from_data({
        "name": "told", "results": str(tmp_path / "results"), "game": "limit-nim", "games_per_pairing": 8,
        "concurrency": 2, "reuse": True, "sandbox": "off",
        "players": [{"name": name, "command": command, "env": {"ARBITER_TEST_MARK": marker}}
                    for name, command in (("probe", probe), ("random", random_bot))],
    }, tmp_path / "told.yaml")
    said = io.StringIO()
    records = run_tournament(config, Progress(said, quiet=True, tty=False)).records
    assert [r.termination for r in records] == ["normal"] * 8
    assert said.getvalue().count("probe plays with reuse, but its process") == 1, said.getvalue()
    assert live_marked(marker) == []


# Every bundled bot, each on a small game it plays, but sudoku_winner: the same kit, and no
# state of its own between games (players/strategies/sudoku.py), left out for its cost (19 s here).
BUNDLED = [
    ("random_bot.py", "dots-and-triangles", {"rows": 3}),
    ("greedy.py", "dots-and-boxes", {"rows": 2, "cols": 2}),
    ("double_cross.py", "dots-and-triangles", {"rows": 3}),
    ("perfect_dp.py", "dots-and-boxes", {"rows": 2, "cols": 2}),
    ("nim_greedy.py", "limit-nim", {}),
    ("nim_perfect.py", "limit-nim", {}),
    ("sudoku_random.py", "codecup-sudoku", {}),
    ("sudoku_claimer.py", "codecup-sudoku", {}),
    ("openspiel_mcts.py", "openspiel:tic_tac_toe", {}),
    ("openspiel_reference.py", "openspiel:backgammon", {}),
]


@pytest.mark.parametrize("script, game_name, params", BUNDLED, ids=[b[0] for b in BUNDLED])
def test_every_bundled_bot_plays_a_second_game_in_its_process(script: str, game_name: str, params: dict[str, int],
                                                              tmp_path: Path) -> None:
    if game_name.startswith("openspiel:"):
        pytest.importorskip("pyspiel")
    marker = new_marker()
    kept = KeptBots()
    game = find_game(game_name, **params)
    players = [PlayerSpec(name=f"{script}-{seat}", command=(sys.executable, str(ROOT / "players" / script)),
                          env={"ARBITER_TEST_MARK": marker, "ARBITER_CACHE": str(tmp_path / "cache")},
                          sandbox=None, reuse=True) for seat in range(2)]
    records = [play_game(game, players, log_dir=tmp_path, log_prefix=f"{n}-", kept=kept) for n in range(2)]
    assert [r.termination for r in records] == [Termination.NORMAL] * 2, records[-1].detail
    assert records[1].game_of_process == [2, 2] and records[1].pids == records[0].pids
    end(kept)
    assert live_marked(marker) == []


def _wait_for(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Poll the process table (no event says that another process has stopped)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the process table"
        time.sleep(0.01)


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return stat.read().rsplit(b")", 1)[1].split()[0].decode()
