"""Config validation: every error names the file, line, key path, bad value and what is allowed."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arbiter.tournament.config import ConfigError, load_config

GOOD = """\
name: ladder
game: dots-and-triangles
params: {rows: 4}
format: round-robin
games_per_pairing: 4
openings: {random_moves: 2, seed: 7}
time: {time_ms: 5000, move_ms: null, clock: wall, suspend_idle: true, memory_mb: 512}
concurrency: 2
scoring: {win: 1, draw: 0.5, loss: 0}
players:
  - {name: random, command: python bot.py}
  - {name: other, command: [python, bot.py, --seed, 3], env: {SEED: 1}, time_ms: 1000}
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "bot.py").write_text("print('hi')\n")
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return path


def problems(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    return str(info.value)


def test_good_config_reads_into_records(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.name == "ladder"
    assert config.params == {"rows": 4, "players": 2}
    assert config.games_per_pairing == 4
    assert config.time.time_ms == 5000 and config.time.memory_mb == 512
    random_bot, other = config.players
    assert random_bot.command == (sys.executable, "bot.py")  # python -> this interpreter
    assert random_bot.cwd == str(tmp_path)  # relative paths resolve against the config's folder
    assert other.env == {"SEED": "1"}
    assert other.time is not None and other.time.time_ms == 1000 and other.time.memory_mb == 512
    assert config.results_dir == (tmp_path.parent / "results" / "ladder").resolve()


def test_unknown_key_gets_did_you_mean_with_line(tmp_path: Path) -> None:
    text = GOOD.replace("concurrency: 2", "concurency: 2")
    assert f"{tmp_path / 't.yaml'}:8: concurency: unknown key 'concurency'; did you mean 'concurrency'?" in problems(tmp_path, text)


def test_bad_value_names_path_value_and_allowed(tmp_path: Path) -> None:
    text = GOOD.replace("time_ms: 1000", "time_ms: -5")
    assert "t.yaml:12: players[1].time_ms: -5 is not allowed: must be an integer >= 1" in problems(tmp_path, text)


def test_odd_games_per_pairing_is_refused(tmp_path: Path) -> None:
    text = GOOD.replace("games_per_pairing: 4", "games_per_pairing: 3")
    assert "games_per_pairing: 3 is not allowed: must be an even integer >= 2" in problems(tmp_path, text)


def test_unknown_game_lists_choices(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("game: dots-and-triangles", "game: dots-and-triangle"))
    assert "game: 'dots-and-triangle' is not allowed: must be one of:" in message
    assert "did you mean 'dots-and-triangles'" in message


def test_bad_game_parameter_names_range(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("rows: 4", "rows: 1"))
    assert "params: dots-and-triangles: parameter rows=1 is out of range" in message


def test_unstartable_commands_are_reported_before_any_game(tmp_path: Path) -> None:
    text = GOOD.replace("command: python bot.py", "command: python missing.py").replace(
        "[python, bot.py, --seed, 3]", "no-such-program-xyz")
    message = problems(tmp_path, text)
    assert "players[0].command: cannot be started: script missing.py does not exist" in message
    assert "players[1].command: cannot be started: 'no-such-program-xyz' is not found on PATH" in message
    assert message.startswith("2 problems in")  # all problems at once


def test_duplicate_names_and_missing_keys(tmp_path: Path) -> None:
    text = GOOD.replace("name: other", "name: random").replace("game: dots-and-triangles\n", "")
    message = problems(tmp_path, text)
    assert "players[1].name: 'random' is not allowed: player names must be unique" in message
    assert "game: is required" in message


def test_gauntlet_needs_a_known_candidate(tmp_path: Path) -> None:
    text = GOOD.replace("format: round-robin", "format: gauntlet") + "gauntlet: {candidate: mybot}\n"
    assert "gauntlet.candidate: 'mybot' is not allowed: must be one of: random, other" in problems(tmp_path, text)


def test_swiss_needs_rounds(tmp_path: Path) -> None:
    assert "rounds: is required for format: swiss" in problems(tmp_path, GOOD.replace("round-robin", "swiss"))


def test_openings_file_is_checked_against_the_rules(tmp_path: Path) -> None:
    (tmp_path / "openings.txt").write_text("1 2; 2 3\n1 2; 1 2\n")
    text = GOOD.replace("{random_moves: 2, seed: 7}", "{file: openings.txt}")
    message = problems(tmp_path, text)
    assert "openings.txt:2: illegal move '1 2': that edge is already drawn" in message


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"t.yaml:3: not valid YAML"):
        load_config(write(tmp_path, "name: x\ngame: y\n- a\n"))
