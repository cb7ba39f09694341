"""Honest games through the referee: every game finishes `normal`, the record replays through
the rules library, the wire traffic is exactly docs/protocol.md, and bad arguments are refused
before any process starts."""
from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arbiter.games import GAMES, find_game
from arbiter.records import GameRecord, Termination
from arbiter.referee import GameAborted, PlayerSpec, TimeControl, play_game
from referee_support import bot, honest, live_marked, new_marker

HONEST_GAMES: list[tuple[str, dict[str, Any]]] = [
    ("dots-and-triangles", {"rows": 2}),
    ("dots-and-triangles", {}),
    ("dots-and-triangles", {"rows": 6}),
    ("dots-and-boxes", {"rows": 2, "cols": 2}),
    ("dots-and-boxes", {}),
    ("dots-and-boxes", {"rows": 3, "cols": 5}),
    ("dots-and-boxes", {"rows": 2, "cols": 3, "players": 3}),
    ("dots-and-triangles", {"rows": 3, "players": 4}),
    ("limit-nim", {}),
    ("limit-nim", {"piles": "25/3,7/7"}),
    ("codecup-sudoku", {}),
]


def test_the_honest_games_cover_every_registered_game() -> None:
    assert {name for name, _ in HONEST_GAMES} == {cls.name for cls in GAMES}


@pytest.mark.parametrize("name, params", HONEST_GAMES, ids=[f"{n}-{p}" for n, p in HONEST_GAMES])
def test_random_bots_finish_normally_and_the_record_replays_to_its_scores(name: str, params: dict[str, Any],
                                                                        tmp_path: Path) -> None:
    game = find_game(name, **params)
    marker = new_marker()
    players = [honest(marker, seed) for seed in range(game.num_players)]
    record = play_game(game, players, time=TimeControl(time_ms=10000), log_dir=tmp_path)

    assert record.termination is Termination.NORMAL, record.detail
    assert record.offender is None
    replay = find_game(record.game, **record.params).new_state()
    for move in record.moves:
        assert move.seat == replay.current_player
        assert move.wall_ms >= 0 and move.cpu_ms >= 0
        replay.play(move.move)
    assert replay.is_over()
    assert record.scores == replay.scores
    assert record.winner == replay.winner()
    assert record.outcome == replay.outcome
    assert len(record.players) == len(record.logs) == len(record.time_used_ms) == game.num_players
    assert live_marked(marker) == []


def test_the_record_survives_json_and_sums_each_seats_clock(tmp_path: Path) -> None:
    marker = new_marker()
    record = play_game(find_game("dots-and-triangles"), [honest(marker, 1), honest(marker, 2)], log_dir=tmp_path)
    again = GameRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert again == record
    for seat in (0, 1):
        wall = sum(m.wall_ms for m in record.moves if m.seat == seat)
        assert wall == pytest.approx(record.time_used_ms[seat], abs=0.01 * len(record.moves))
    assert record.players[0].command == f"{sys.executable} {Path(__file__).parent.parent / 'players' / 'random_bot.py'} --seed 1"
    assert [Path(p).name for p in record.logs] == ["seat0-random.log", "seat1-random.log"]


def transcript(log: str | None) -> list[str]:
    """The lines a transcript bot received, from its stderr log."""
    assert log is not None
    return [line[5:] for line in Path(log).read_text().splitlines() if line.startswith("got: ")]


def test_the_wire_traffic_is_game_line_start_relays_quit(tmp_path: Path) -> None:
    marker = new_marker()
    game = find_game("limit-nim", piles="4/2")
    players = [bot("transcript_bot.py", "a", marker), bot("transcript_bot.py", "b", marker)]
    record = play_game(game, players, time=TimeControl(time_ms=3000, move_ms=1500), log_dir=tmp_path,
                       log_prefix="wire-")
    # First legal move is always "1 1": four moves, seat 1 takes the last stone.
    assert [(m.seat, m.move) for m in record.moves] == [(0, "1 1"), (1, "1 1"), (0, "1 1"), (1, "1 1")]
    assert record.winner == 1
    assert transcript(record.logs[0]) == [
        "Game limit-nim piles=4/2 seat=0 time_ms=3000 move_ms=1500", "Start", "1 1", "1 1", "Quit"]
    assert transcript(record.logs[1]) == [
        "Game limit-nim piles=4/2 seat=1 time_ms=3000 move_ms=1500", "1 1", "1 1", "Quit"]
    assert Path(record.logs[0]).name == "wire-seat0-a.log"


def test_an_opening_is_framed_for_every_seat_then_start_goes_to_the_seat_to_move(tmp_path: Path) -> None:
    marker = new_marker()
    game = find_game("limit-nim", piles="6/2")
    players = [bot("transcript_bot.py", "a", marker), bot("transcript_bot.py", "b", marker)]
    record = play_game(game, players, opening=["1 2", "1 1"], time=TimeControl(time_ms=3000), log_dir=tmp_path)
    assert [(m.seat, m.move, m.forced) for m in record.moves[:3]] == [(0, "1 2", True), (1, "1 1", True), (0, "1 1", False)]
    assert record.moves[0].wall_ms == record.moves[0].cpu_ms == 0
    game_line = "Game limit-nim piles=6/2 seat={} time_ms=3000"
    assert transcript(record.logs[0])[:5] == [game_line.format(0), "Opening 2", "1 2", "1 1", "Start"]
    assert transcript(record.logs[1])[:5] == [game_line.format(1), "Opening 2", "1 2", "1 1", "1 1"]


def test_codecup_dialect_bots_get_no_game_line(tmp_path: Path) -> None:
    marker = new_marker()
    game = find_game("limit-nim", piles="2/1")
    players = [PlayerSpec(name=f"cc{seat}", command=(*bot("transcript_bot.py", "x", marker).command,
                                                    "--game", "limit-nim", "-p", "piles=2/1"),
                          dialect="codecup", sandbox=bot("transcript_bot.py", "x", marker).sandbox)
               for seat in (0, 1)]
    record = play_game(game, players, log_dir=tmp_path)
    assert record.termination is Termination.NORMAL
    # Seat 1's move ends the game: as in the contest, it is not relayed to seat 0.
    assert transcript(record.logs[0]) == ["Start", "Quit"]
    assert transcript(record.logs[1]) == ["1 1", "Quit"]


@pytest.mark.parametrize("opening, players, dialect, message", [
    (["1 10"], 2, "arbiter", "opening move 1 of 1: illegal move '1 10'"),
    (["one"], 2, "arbiter", "opening move 1 of 1: malformed move 'one'"),
    (["1 1"], 2, "codecup", "uses the codecup dialect, which cannot be sent an opening"),
    ([], 3, "arbiter", "limit-nim piles=10/9,10/9,10/9 has 2 seats, but 3 players were given"),
])
def test_bad_arguments_are_refused_before_any_process_starts(opening: list[str], players: int, dialect: str,
                                                             message: str, tmp_path: Path) -> None:
    touched = tmp_path / "started"
    spec = PlayerSpec(name="toucher", command=("touch", str(touched)), dialect=dialect)  # type: ignore[arg-type]
    with pytest.raises(ValueError) as error:
        play_game(find_game("limit-nim"), [spec] * players, opening=opening)
    assert message in str(error.value)
    assert not touched.exists()


def test_an_opening_that_ends_the_game_is_refused() -> None:
    spec = PlayerSpec(name="never", command=("false",))
    with pytest.raises(ValueError, match="already ends the game"):
        play_game(find_game("limit-nim", piles="2/2"), [spec, spec], opening=["1 2"])


def test_a_command_that_cannot_start_is_a_crash_of_its_seat(tmp_path: Path) -> None:
    marker = new_marker()
    missing = PlayerSpec(name="ghost", command=(str(tmp_path / "no-such-bot"),))
    record = play_game(find_game("limit-nim"), [honest(marker), missing], log_dir=tmp_path)
    assert (record.termination, record.offender, record.winner) == (Termination.CRASH, 1, 0)
    assert "seat 1 (ghost) could not be started" in record.detail and "no-such-bot" in record.detail
    assert live_marked(marker) == []


def test_a_bot_that_exits_before_its_first_turn_crashes(tmp_path: Path) -> None:
    marker = new_marker()
    quitter = PlayerSpec(name="quitter", command=(sys.executable, "-c", "pass"))
    record = play_game(find_game("limit-nim"), [honest(marker), quitter], log_dir=tmp_path)
    assert (record.termination, record.offender) == (Termination.CRASH, 1)
    assert "exited with status 0 before the game ended" in record.detail


def test_cpu_time_counts_the_children_a_bot_runs_and_waits_for(tmp_path: Path) -> None:
    marker = new_marker()
    players = [bot("cpu_child_bot.py", "parent", marker, CHILD_CPU_MS="150"), honest(marker)]
    record = play_game(find_game("limit-nim", piles="3/1"), players, time=TimeControl(time_ms=10000), log_dir=tmp_path)
    assert record.termination is Termination.NORMAL
    parent_moves = [m for m in record.moves if m.seat == 0]
    assert parent_moves and all(m.cpu_ms >= 150 for m in parent_moves)
    assert all(m.wall_ms >= 150 for m in parent_moves)


def test_games_in_parallel_threads_do_not_disturb_each_other(tmp_path: Path) -> None:
    marker = new_marker()
    records: dict[int, GameRecord] = {}

    def play(k: int) -> None:
        records[k] = play_game(find_game("dots-and-triangles"), [honest(marker, k), honest(marker, k + 10)],
                               log_dir=tmp_path, log_prefix=f"g{k}-")

    threads = [threading.Thread(target=play, args=(k,)) for k in range(3)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert time.monotonic() - started < 30
    assert sorted(records) == [0, 1, 2]
    assert all(r.termination is Termination.NORMAL for r in records.values())
    assert live_marked(marker) == []


def test_cancel_stops_even_a_game_whose_bots_answer_at_once(tmp_path: Path) -> None:
    marker = new_marker()
    cancel = threading.Event()
    turns: list[int] = []

    def on_turn(state: Any) -> None:
        turns.append(len(state.history))
        if len(turns) == 3:
            cancel.set()

    with pytest.raises(GameAborted):
        play_game(find_game("dots-and-boxes", rows=4, cols=4), [honest(marker, 1), honest(marker, 2)],
                  log_dir=tmp_path, cancel=cancel, on_turn=on_turn)
    assert len(turns) == 3
    assert live_marked(marker) == []
