"""Players on the command line (arbiter/cli/players.py, docs/cli.md): one parser and one
vocabulary for `play`, `check`, `match` and `sprt`, names made from the program, and errors
in the words of the flag the user typed. Most cases build the run's config without playing."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from arbiter.cli import _parse, build_parser, main
from arbiter.cli import match as match_cli
from arbiter.cli import sprt as sprt_cli
from arbiter.cli.players import command_name, parse_engine
from arbiter.errors import UsageError
from arbiter.tournament.config import COMMAND_LINE, config_from_data

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}"
SLOW = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'slow_random_bot.py'}"  # 20 ms per move


def config_of(argv: list[str]):
    """The config `match` or `sprt` would run for `argv`, read as the command reads it."""
    args = _parse(build_parser(), argv)
    module = {"match": match_cli, "sprt": sprt_cli}[argv[0]]
    data, flags = module.flags_to_config(args)
    return config_from_data(data, COMMAND_LINE, flags)


@pytest.mark.parametrize("command, name", [
    ("java -cp . Bot", "Bot"),  # the case: never '.'
    ("java -cp build com.example.Bot", "Bot"),
    ("java -jar dist/engine.jar", "engine"),
    ("python3 -m mybot.main", "mybot"),
    ("python3 -u players/greedy.py --seed 2", "greedy"),
    ("perl -Ilib bot.pl", "bot"),
    ("/usr/bin/node starter.js", "starter"),
    ("./examples/bots/starter", "starter"),
    ("./.hidden", "hidden"),
    ("python3 ../x/.bot.py", "bot"),
])
def test_a_default_name_is_the_program_script_or_class(command: str, name: str) -> None:
    assert command_name(command.split()) == name


def test_engine_words_give_every_key() -> None:
    player = parse_engine(["name=new", "cmd=java -cp . Bot", "dir=bots", "dialect=codecup", "tc=1.5s",
                           "move=200ms", "read=book.bin", "read=nets", "write=cache", "env.DEPTH=3"], "--engine #1")
    assert (player.name, player.command, player.cwd, player.dialect) == ("new", "java -cp . Bot", "bots", "codecup")
    assert (player.time_ms, player.move_ms) == (1500, 200)
    assert (player.read, player.write, player.env) == (("book.bin", "nets"), ("cache",), (("DEPTH", "3"),))
    assert parse_engine(["./mybot"], "--candidate").command == "./mybot"  # one plain word: the shorthand


@pytest.mark.parametrize("words, message", [
    (["cmd=./a", "tc=30"], "--engine #1 tc=: '30' is not a duration: give a number and a unit, e.g. 30s"),
    (["cmd=./a", "tc=40/60+0.6"], "--engine #1 tc=: '40/60+0.6' is not a duration"),
    (["cmd=./a", "move=0ms"], "--engine #1 move=: '0ms' is not allowed: must be at least 1ms"),
    (["name=a"], "--engine #1: give the bot's command as cmd=CMD"),
    (["cmd=./a", "colour=red"], "--engine #1: 'colour=red' is not KEY=VALUE with a known KEY; keys are: name, cmd"),
    (["cmd=./a", "./b"], "--engine #1: './b' is not KEY=VALUE with a known KEY (give positional commands before"),
    (["cmd=./a", "name=x", "name=y"], "--engine #1: name= is given twice"),
])
def test_bad_engine_words_are_named(words: list[str], message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_engine(words, "--engine #1")
    assert message in str(info.value)


def test_match_names_java_by_its_class_and_takes_engines_with_their_own_clock(tmp_path: Path) -> None:
    config = config_of(["match", "limit-nim", "java -cp . Bot", "--engine", f"cmd={RANDOM}", "name=rnd", "tc=2s",
                        "move=300ms", "--games", "2", "--time-ms", "5000", "--results", str(tmp_path / "m")])
    java, rnd = config.players
    assert (java.name, rnd.name) == ("Bot", "rnd")
    assert java.time is None and config.time.time_ms == 5000  # the command's --time-ms
    assert rnd.time is not None and (rnd.time.time_ms, rnd.time.move_ms) == (2000, 300)


def test_commands_may_stand_between_the_options(tmp_path: Path) -> None:
    config = config_of(["match", "limit-nim", RANDOM, "--games", "2", "-p", "piles=3/2", f"{RANDOM} --seed 2",
                        "--results", str(tmp_path / "m")])
    assert [p.name for p in config.players] == ["random_bot-a", "random_bot-b"]
    assert config.params["piles"] == ((3, 2),)


@pytest.mark.parametrize("command", ["match", "sprt"])
def test_openings_random_k_or_a_file_in_every_command(command: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    base = [command, "limit-nim", RANDOM, RANDOM, "--results", str(tmp_path / "r"), "--openings-seed", "7"]
    base += ["--games", "2"] if command == "match" else []
    assert config_of([*base, "--openings", "random:2"]).openings.random_moves == 2
    bare = config_of([*base, "--openings", "3"])  # sprt's old form: read as random:3, with a note
    assert (bare.openings.random_moves, bare.openings.seed) == (3, 7)
    assert "--openings 3 is read as random:3" in capsys.readouterr().err
    book = tmp_path / "book.txt"
    book.write_text("a1\n")  # not a legal limit-nim move: the file is read, and its line is refused
    with pytest.raises(UsageError) as info:
        config_of([*base, "--openings", str(book)])
    assert str(info.value).startswith(f"--openings: {book}:1: ")


@pytest.mark.parametrize("command", ["match", "sprt"])
def test_reuse_is_for_every_player_with_the_flag_and_an_engines_own_word_wins(command: str, tmp_path: Path) -> None:
    base = [command, "limit-nim", RANDOM, "--engine", f"cmd={RANDOM}", "reuse=false", "--results", str(tmp_path / "r")]
    base += ["--games", "2"] if command == "match" else []
    assert [p.reuse for p in config_of(base).players] == [False, False]  # one process per game, by default
    assert [p.reuse for p in config_of([*base, "--reuse"]).players] == [True, False]


def test_sprt_takes_the_game_first_and_the_candidate_first(tmp_path: Path) -> None:
    config = config_of(["sprt", "limit-nim", RANDOM, "--engine", f"cmd={RANDOM}", "name=old", "tc=3s",
                        "--results", str(tmp_path / "s")])
    assert config.game_name == "limit-nim" and config.candidate == "candidate"
    assert [p.name for p in config.players] == ["candidate", "old"]
    assert config.players[1].time is not None and config.players[1].time.time_ms == 3000


def test_sprt_keeps_game_candidate_and_baseline_with_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = config_of(["sprt", "--game", "limit-nim", "--candidate", RANDOM, "--baseline", "name=old",
                        f"cmd={RANDOM}", "--results", str(tmp_path / "s")])
    assert config.game_name == "limit-nim" and [p.name for p in config.players] == ["candidate", "old"]
    assert "--game is deprecated; give the game first" in capsys.readouterr().err
    with pytest.raises(UsageError, match="either as --candidate and --baseline or as positional commands"):
        config_of(["sprt", "limit-nim", RANDOM, "--candidate", RANDOM, "--baseline", RANDOM,
                   "--results", str(tmp_path / "s")])


@pytest.mark.parametrize("argv, message", [
    (["match", "limit-nim", RANDOM, RANDOM, "--games", "3"], "--games: 3 is not allowed: must be an even integer"),
    (["match", "limit-nim", RANDOM, RANDOM, "--games", "2", "--time-ms", "0"], "--time-ms: 0 is not allowed"),
    (["match", "limit-nim", RANDOM, RANDOM, "--games", "2", "--openings", "random:x"], "--openings random:x: write"),
    (["match", "limit-nim", RANDOM, "--engine", "cmd=./no-such-bot", "--games", "2"],
     "--engine #1 cmd=: cannot be started: ./no-such-bot does not exist"),
    (["match", "limit-nim", RANDOM, "--engine", f"cmd={RANDOM}", "name=.x", "--games", "2"],
     "--engine #1 name=: '.x' is not allowed: must not start with '.'"),
    (["match", "limit-nim", RANDOM, "--engine", f"cmd={RANDOM}", "dir=no-such-folder", "--games", "2"],
     "--engine #1 dir=: "),
    (["match", "limit-nim", RANDOM, "--games", "2"], "a match is between two bots, and 1 was given: arbiter match GAME CMD_A CMD_B"),
    (["sprt", "limit-nim", RANDOM, RANDOM, "--max-games", "7"], "--max-games: 7 is not allowed"),
    (["sprt", "limit-nim", RANDOM, "--engine", f"cmd={RANDOM}", "dialect=uci"], "--engine #1 dialect=: 'uci' is not"),
    (["sprt", RANDOM, RANDOM], "give the game first: arbiter sprt GAME CANDIDATE BASELINE"),
    (["sprt", "limit-nim", RANDOM, RANDOM, "--no-backup"], "--no-backup only applies with --fresh"),
    (["match", "limit-nim", RANDOM, "--engine", f"cmd={RANDOM}", "reuse=yes", "--games", "2"],
     "--engine #1 reuse=yes: write reuse=true or reuse=false"),
    (["match", "limit-nim", RANDOM, "--engine", f"cmd={RANDOM}", "dialect=codecup", "--games", "2", "--reuse"],
     "--reuse: does not apply to player 'random_bot-b': the codecup dialect has no Game line"),
])
def test_errors_speak_the_flags_typed(argv: list[str], message: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"arbiter {argv[0]}: error: ") and message in err, err
    assert "games_per_pairing" not in err and "players[" not in err and "in the config" not in err
    assert not (tmp_path / "results").exists()  # refused before the results folder was made


def test_match_help_shows_a_plain_percent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--help"]) == 0
    out = capsys.readouterr().out
    assert "95% interval" in out and "%%" not in out


@pytest.mark.parametrize("command", ["play", "check"])
def test_play_and_check_refuse_what_run_refuses_before_any_game(command: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.sh").write_text("#!/bin/sh\necho hi\n")  # not executable
    others = [RANDOM] if command == "play" else []
    seat = "seat 1's command" if command == "play" else "CMD"
    cases = [
        (["./bot.sh"], f"{seat}: cannot be started: ./bot.sh is not executable"),
        ([f"{sys.executable} missing.py"], f"{seat}: cannot be started: script missing.py does not exist"),
        (["--engine", f"cmd={RANDOM}", "read=no-such-book"], "--engine #1 read=: "),
        (["--engine", f"cmd={RANDOM}", "name=a/b"], "--engine #1 name=: 'a/b' is not allowed: must not contain '/'"),
    ]
    for words, message in cases:
        assert main([command, "limit-nim", *others, *words, "--log-dir", str(tmp_path / "logs")]) == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert err.startswith(f"arbiter {command}: error: ") and message in err, err
    assert not any((tmp_path / "logs").iterdir())  # no bot was started


def test_play_gives_each_engine_its_name_and_its_own_clock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The slow bot takes 20 ms a move; its own tc=5ms runs out on its first move, whatever
    the game's --time-ms says, and its log is named after name=."""
    assert main(["play", "limit-nim", "-p", "piles=4/3", RANDOM, "--engine", f"cmd={SLOW}", "name=slowpoke",
                 "tc=5ms", "--time-ms", "60000", "--log-dir", str(tmp_path), "--json", str(tmp_path / "g.json")]) == 0
    record = json.loads((tmp_path / "g.json").read_text())
    assert [p["name"] for p in record["players"]] == ["random_bot", "slowpoke"]
    assert record["termination"] == "timeout" and record["offender"] == 1, record["detail"]
    assert os.path.basename(record["logs"][1]).endswith("-seat1-slowpoke.log")
    assert "seat 0 (random_bot) wins" in capsys.readouterr().out
