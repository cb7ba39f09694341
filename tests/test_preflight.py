"""`check: true`: every launched player is checked before the first game; a bot that fails
keeps the tournament (or the SPRT) from starting, named with the scenario it failed."""
from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.cli import build_parser, main
from arbiter.cli.match import flags_to_config as match_config
from arbiter.cli.sprt import flags_to_config as sprt_config
from arbiter.tournament.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = ROOT / "players" / "random_bot.py"
DEBUG_BOT = ROOT / "tests" / "bots" / "check_debug_stdout_bot.py"


def write_config(tmp_path: Path, second: Path, check: object = True) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(f"""
name: pre
game: limit-nim
params: {{piles: "5/3,4/4"}}
games_per_pairing: 2
concurrency: 2
check: {check}
time: {{time_ms: 3000}}
results: results
players:
  - {{name: honest, command: "python {RANDOM_BOT}"}}
  - {{name: chatty, command: "python {second}", sandbox: {{read: ["{second.parent}"]}}}}
""")
    return path


def test_a_player_that_fails_the_check_keeps_the_tournament_from_starting(tmp_path, capsys):
    assert main(["run", str(write_config(tmp_path, DEBUG_BOT)), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "the tournament was not started: player chatty failed the check 'stdout'" in err
    assert "which is not a move" in err and "checking honest" in err and "honest passed the check" in err
    games = tmp_path / "results" / "games.jsonl"
    assert not games.exists() or games.read_text() == ""  # not one game was played


def test_players_that_pass_the_check_play_their_games(tmp_path, capsys):
    assert main(["run", str(write_config(tmp_path, RANDOM_BOT)), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "chatty passed the check" in captured.err
    assert len((tmp_path / "results" / "games.jsonl").read_text().splitlines()) == 2
    assert (tmp_path / "results" / "logs" / "check-chatty").is_dir()


def test_check_must_be_true_or_false(tmp_path):
    with pytest.raises(ConfigError, match="check: 'yes' is not allowed: must be true or false"):
        load_config(write_config(tmp_path, RANDOM_BOT, check="'yes'"))
    assert load_config(write_config(tmp_path, RANDOM_BOT, check="false")).check is False


@pytest.mark.parametrize("command", ["sprt", "match"])
def test_the_check_flag_sets_the_config_key(command):
    argv = {"sprt": ["sprt", "limit-nim", "a", "b", "--check"],
            "match": ["match", "limit-nim", "a", "b", "--games", "2", "--check"]}[command]
    flags_to_config = sprt_config if command == "sprt" else match_config
    assert flags_to_config(build_parser().parse_args(argv))[0]["check"] is True
    assert "check" not in flags_to_config(build_parser().parse_args(argv[:-1]))[0]
    assert flags_to_config(build_parser().parse_args([*argv, "--no-sandbox"]))[0]["sandbox"] == "off"


def test_sprt_check_refuses_to_start_naming_the_candidate_and_its_failed_scenario(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(DEBUG_BOT.parent)  # the bots run from here, so the box shows `misbehave` beside it
    results = tmp_path / "sprt"
    status = main(["sprt", "--game", "limit-nim", "-p", "piles=5/3,4/4", "--candidate", f"python {DEBUG_BOT.name}",
                   "--baseline", f"python {RANDOM_BOT}", "--check", "--time-ms", "3000", "--concurrency", "2",
                   "--results", str(results), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2
    assert "not started: player candidate failed the check 'stdout'" in err
    assert "'thinking about 7 moves', which is not a move" in err
    assert (results / "logs" / "check-candidate").is_dir()
    games = results / "games.jsonl"
    assert not games.exists() or games.read_text() == ""  # not one game was played
