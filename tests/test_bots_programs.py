"""The reference bots as programs: they speak the protocol, log what they say they log, and
refuse games they do not play."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.bot import parse_game_line
from players.strategies.perfect import VALUE_LINE

ROOT = Path(__file__).resolve().parents[1]


def run_bot(bot: str, lines: list[str], tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "players" / bot), "--seed", "1", *options],
        input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=60,
        env={"ARBITER_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.parametrize(("bot", "game_line"), [
    ("greedy.py", "Game dots-and-boxes rows=2 cols=2 players=2 seat=0 time_ms=30000"),
    ("double_cross.py", "Game dots-and-triangles rows=4 players=2 seat=0 time_ms=30000"),
    ("perfect_dp.py", "Game dots-and-triangles rows=4 players=2 seat=0 time_ms=30000"),
    ("nim_greedy.py", "Game limit-nim piles=10/9,10/9,10/9 seat=0 time_ms=30000"),
    ("nim_perfect.py", "Game limit-nim piles=2/2,1/1 seat=0 time_ms=30000"),
])
def test_each_bot_answers_start_with_a_legal_move(bot: str, game_line: str, tmp_path: Path) -> None:
    done = run_bot(bot, [game_line, "Start", "Quit"], tmp_path)
    assert done.returncode == 0, done.stderr
    game, _ = parse_game_line(game_line)
    moves = done.stdout.splitlines()
    assert len(moves) == 1
    game.new_state().play(moves[0])
    if bot == "nim_perfect.py":
        assert moves == ["1 1"]  # the winning play


def test_perfect_dp_logs_the_value_of_every_move(tmp_path: Path) -> None:
    game_line = "Game dots-and-triangles rows=4 players=2 seat=1 time_ms=30000"
    done = run_bot("perfect_dp.py", [game_line, "2 4", "Quit"], tmp_path)
    assert done.returncode == 0, done.stderr
    log = done.stderr.splitlines()
    assert log[0].startswith("exact play: solved the whole board (2^18 states)")
    value = VALUE_LINE.fullmatch(log[1])
    assert value and value[3] == done.stdout.strip()
    assert int(value[1]) == int(value[2]) >= 3  # the first move cannot lose the value of -3
    # The table is cached now: the next run loads it.
    again = run_bot("perfect_dp.py", [game_line, "2 4", "Quit"], tmp_path)
    assert again.stderr.splitlines()[0].startswith("exact play: whole-board table (18 edges) loaded")


@pytest.mark.parametrize(("bot", "game"), [("greedy.py", "limit-nim"), ("nim_perfect.py", "dots-and-boxes")])
def test_a_bot_refuses_a_game_it_does_not_play(bot: str, game: str, tmp_path: Path) -> None:
    done = run_bot(bot, [f"Game {game} seat=0 time_ms=30000", "Start", "Quit"], tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert f"cannot play {game}" in done.stderr
