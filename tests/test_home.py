"""A player's home (issue 27): a bot of several files runs boxed wherever `arbiter check` passes
it, with its own folder shown read-only and what must stay hidden in it covered; a bot that
misses a file it was not shown is told so; a home that no cover makes safe is refused."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.games import find_game
from arbiter.records import Termination
from arbiter.referee import PlayerSpec, TimeControl, play_game
from arbiter.tournament.config import ConfigError, load_config
from arbiter.transport.keys import KeyPair, write_key_pair
from arbiter.transport.sandbox import SandboxSpec, support
from referee_support import BOTS, RANDOM_BOT

MANY_FILES = BOTS / "many_files"
PY = sys.executable
PERL = shutil.which("perl")
JAVAC, JAVA = shutil.which("javac"), shutil.which("java")


@pytest.fixture
def author(tmp_path: Path) -> Path:
    """An author's folder holding the bots of several files (each its own folder)."""
    assert support().usable, support().describe()
    folder = tmp_path / "author"
    shutil.copytree(MANY_FILES, folder)
    return folder


def recorded(results: Path) -> list[dict]:
    return [json.loads(line) for line in (results / "games.jsonl").read_text().splitlines() if line.strip()]


# --- a bot of several files, from check to match to run --------------------------------

BOTS_OF_SEVERAL_FILES = {
    # bot folder, its command from there, the opponent's command from there
    "python package": (".", f"{PY} nimpkg", f"{PY} {RANDOM_BOT} --seed 1"),
    "perl with a helper": ("perl", "perl main.pl", f"{PY} ../nimpkg"),
}


@pytest.mark.parametrize("kind", list(BOTS_OF_SEVERAL_FILES))
def test_a_bot_of_several_files_passes_check_then_plays_match_and_run_from_its_folder(
        kind: str, author: Path, monkeypatch, capsys) -> None:
    """The author works in the bot's folder, where every command's results land (covered in
    the box): `check` passes, then `match` and `run` play it unchanged, boxed, no extra flag."""
    assert PERL is not None, "perl is part of every Debian (perl-base)"
    folder, command, opponent = BOTS_OF_SEVERAL_FILES[kind]
    monkeypatch.chdir(author / folder)
    assert main(["check", "limit-nim", command]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "passed: all" in out, out

    assert main(["match", "limit-nim", command, opponent, "--games", "2", "--time-ms", "5000"]) == 0
    (match_folder,) = (author / folder / "results").glob("match-*")  # named after the two players
    games = recorded(match_folder)
    assert len(games) == 2
    assert all(g["termination"] == "normal" and g["sandboxed"] == [True, True] for g in games), games

    (author / folder / "contest.yaml").write_text(
        "name: contest\ngame: limit-nim\nresults: results/run\ntime: {time_ms: 5000}\nplayers:\n"
        f"  - {{name: mine, command: {command}}}\n  - {{name: other, command: {opponent}}}\n")
    assert main(["run", "contest.yaml", "--quiet"]) == 0
    games = recorded(author / folder / "results" / "run")
    assert len(games) == 2 and all(g["termination"] == "normal" for g in games), games


def test_a_java_bot_of_two_classes_plays_from_its_class_folder(author: Path, tmp_path: Path, monkeypatch,
                                                                capsys) -> None:
    """Compiled into a folder of class files: `java -cp DIR Bot` from anywhere (the folder its
    command names is shown), and `java -cp . Bot` with that folder as its `cwd` (its home)."""
    assert JAVAC is not None and JAVA is not None, "the JDK is installed by .ci/run and the README's test command"
    classes = tmp_path / "classes"
    classes.mkdir()
    subprocess.run([JAVAC, "-d", str(classes), *map(str, (author / "java").glob("*.java"))], check=True)
    monkeypatch.chdir(author)
    startup = ["--startup-ms", "20000", "--time-ms", "20000"]  # a JVM's start-up, on a busy machine
    assert main(["match", "limit-nim", f"java -cp {classes} Bot", f"{PY} {RANDOM_BOT}", "--games", "2", *startup]) == 0
    games = recorded(author / "results" / "match-Bot-vs-random_bot")
    assert [g["termination"] for g in games] == ["normal", "normal"], games
    (author / "contest.yaml").write_text(
        "name: contest\ngame: limit-nim\nresults: results/run\ntime: {time_ms: 20000, startup_ms: 20000}\n"
        f"players:\n  - {{name: java, command: java -cp . Bot, cwd: {classes}}}\n"
        f"  - {{name: random, command: {PY} {RANDOM_BOT}}}\n")
    assert main(["run", "contest.yaml", "--quiet"]) == 0
    games = recorded(author / "results" / "run")
    assert [g["termination"] for g in games] == ["normal", "normal"], games


# --- what a home shows and covers -------------------------------------------------------

PEEK_BOT = """import os, runpy, sys
for path in os.environ["TARGETS"].split(":"):
    try:
        with open(path, "rb") as file:
            print(f"READ {path}", file=sys.stderr)
    except OSError as exc:
        print(f"HIDDEN {path}: {exc.strerror}", file=sys.stderr)
sys.argv[1:] = ["--seed", "1"]
runpy.run_path(os.environ["PLAY_WITH"], run_name="__main__")
"""


def test_a_home_shows_its_own_files_and_covers_the_config_the_results_and_another_players_folder(
        tmp_path: Path, monkeypatch) -> None:
    """A config in the bot's folder, the results beside it, and another entrant's folder inside
    it: the bot reads its own book, and none of those (docs/security.md, a player's home)."""
    assert support().usable, support().describe()
    home = tmp_path / "alice"
    (home / "bob").mkdir(parents=True)
    (home / "peek.py").write_text(PEEK_BOT)
    (home / "book.txt").write_text("my opening book\n")
    (home / "bob" / "bot.py").write_bytes(RANDOM_BOT.read_bytes())
    targets = [home / "book.txt", home / "contest.yaml", home / "results" / "tournament.json", home / "bob" / "bot.py"]
    (home / "contest.yaml").write_text(
        "name: contest\ngame: limit-nim\nresults: results\nplayers:\n"
        f"  - {{name: alice, command: {PY} peek.py, env: {{TARGETS: '{':'.join(map(str, targets))}', "
        f"PLAY_WITH: '{RANDOM_BOT}'}}}}\n"
        f"  - {{name: bob, command: {PY} bob/bot.py --seed 2}}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(home / "contest.yaml"), "--quiet"]) == 0
    logs = sorted((home / "results" / "logs").glob("*seat?-alice.log"))
    assert logs
    for log in logs:
        text = log.read_text()
        assert f"READ {home / 'book.txt'}" in text, text
        for target in targets[1:]:
            assert f"HIDDEN {target}" in text, text
    assert all(g["termination"] == "normal" for g in recorded(home / "results"))


def test_check_play_and_match_run_the_bot_from_here_and_show_its_own_folder_not_this_one(
        tmp_path: Path, monkeypatch) -> None:
    """One view for every command: the bot runs from the folder the author stands in, which
    its box does not show for being there (issue 38: it may hold other entrants, a config,
    results); its home is shown, read-only, with the command's own outputs covered."""
    from arbiter.cli import build_parser
    from arbiter.cli import check as check_module
    from arbiter.cli import play as play_module
    from arbiter.cli.match import flags_to_config
    from arbiter.tournament.config import COMMAND_LINE, config_from_data
    seen: dict[str, PlayerSpec] = {}

    def stop_at_the_game(command: str):
        def fake(first, *rest, **_):  # run_check(target, ...) or play_game(game, players, ...)
            seen[command] = first.player if command == "check" else rest[0][0]
            raise RuntimeError("no game needed")
        return fake
    monkeypatch.setattr(check_module, "run_check", stop_at_the_game("check"))
    monkeypatch.setattr(play_module, "play_game", stop_at_the_game("play"))
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "main.py").write_text("print('1 1')\n")
    monkeypatch.chdir(tmp_path)
    main(["check", "limit-nim", f"{PY} bot/main.py", "--log-dir", "logs"])
    main(["play", "limit-nim", f"{PY} bot/main.py", f"{PY} {RANDOM_BOT}", "--log-dir", "logs"])
    args = build_parser().parse_args(["match", "limit-nim", f"{PY} bot/main.py", f"{PY} {RANDOM_BOT}", "--games", "2"])
    config = config_from_data(flags_to_config(args)[0], COMMAND_LINE)
    for player in (seen["check"], seen["play"], config.players[0]):
        assert player.cwd == str(tmp_path)
        assert player.sandbox is not None and str(tmp_path) not in player.sandbox.read
    assert str((tmp_path / "logs").resolve()) in seen["check"].sandbox.hide
    assert str((tmp_path / "logs").resolve()) in seen["play"].sandbox.hide
    assert str((tmp_path / "results" / "match-main-vs-random_bot").resolve()) in config.players[0].sandbox.hide


@pytest.mark.parametrize("case", ["whole filesystem", "user's home", "arbiter's key"])
def test_a_home_that_no_cover_makes_safe_is_refused_naming_the_key(case: str, tmp_path: Path, monkeypatch) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_bytes(RANDOM_BOT.read_bytes())
    extra, cwd = "", ""
    if case == "whole filesystem":
        cwd, expected = ", cwd: /", "players[0].cwd: / shows /, the whole filesystem"
    elif case == "user's home":
        monkeypatch.setenv("HOME", str(bot))
        expected = f"players[0].command: {bot} (the folder of its program) shows {bot}, which holds your home folder"
    else:
        write_key_pair(bot, "arbiter", KeyPair.generate())
        extra = "arbiter_keys: bot/arbiter.key_secret\n"
        expected = (f"players[0].command: {bot} (the folder of its program) shows {bot}, which holds the "
                    f"arbiter's secret key {bot / 'arbiter.key_secret'}")
    config = tmp_path / "contest.yaml"
    config.write_text(f"name: contest\ngame: limit-nim\n{extra}players:\n"
                      f"  - {{name: a, command: {PY} {bot / 'main.py'}{cwd}}}\n"
                      f"  - {{name: b, command: {PY} {RANDOM_BOT}}}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert expected in str(refused.value)


# --- a hint when a bot misses a file it was not shown ------------------------------------

MISSING_FILE_BOT = """import os
open(os.environ["BOOK"]).read()
"""


def test_a_boxed_bot_that_misses_a_file_it_was_not_shown_is_told_what_the_box_shows(tmp_path: Path) -> None:
    assert support().usable, support().describe()
    home, elsewhere = tmp_path / "bot", tmp_path / "data"
    home.mkdir()
    elsewhere.mkdir()
    (home / "main.py").write_text(MISSING_FILE_BOT)
    (elsewhere / "book.txt").write_text("an opening book\n")
    player = PlayerSpec(name="reader", command=(PY, str(home / "main.py")), cwd=str(home),
                        env={"BOOK": str(elsewhere / "book.txt")}, sandbox=SandboxSpec(read=(str(BOTS),)))
    other = PlayerSpec(name="random", command=(PY, str(RANDOM_BOT)), sandbox=SandboxSpec())
    record = play_game(find_game("limit-nim"), [player, other], time=TimeControl(time_ms=5000), log_dir=tmp_path)
    assert (record.termination, record.offender) == (Termination.CRASH, 0), record.detail
    assert f"No such file; the box shows only: {home}, {BOTS}; see sandbox: read" in record.detail


def test_a_crash_that_is_not_a_missing_file_gets_no_box_hint(tmp_path: Path) -> None:
    crash = PlayerSpec(name="crash", command=(PY, str(BOTS / "crash_bot.py")), sandbox=SandboxSpec(read=(str(BOTS),)))
    other = PlayerSpec(name="random", command=(PY, str(RANDOM_BOT)), sandbox=SandboxSpec())
    record = play_game(find_game("limit-nim"), [crash, other], time=TimeControl(time_ms=5000), log_dir=tmp_path)
    assert record.termination is Termination.CRASH and "the box shows only" not in record.detail, record.detail


# --- first-bot mistakes -----------------------------------------------------------------

@pytest.mark.parametrize("content, mode, command, expected", [
    (b"#!/usr/bin/env python3\r\nprint('1 1')\r\n", 0o755, "./bot.py",
     "./bot.py has Windows line ends (CRLF): its first line '#!/usr/bin/env python3' ends in a carriage return"),
    (b"#!/usr/bin/env python3\nprint('1 1')\n", 0o644, "./bot.py",
     "./bot.py is not executable: chmod +x it, or run it through its interpreter: python3 ./bot.py"),
    (b"print('1 1')\n", 0o755, "./bot.py",
     "./bot.py has no '#!' first line, so the system would run it with /bin/sh"),
    (b"#!/no/such/interpreter\n", 0o755, "./bot.py",
     "./bot.py's first line asks for the interpreter /no/such/interpreter, which does not exist"),
    (b"#!/usr/bin/env python3\nprint('1 1')\n", 0o755, "bot.py",
     "'bot.py' is not found on PATH; to run the file bot.py here, write ./bot.py or python3 bot.py"),
])
def test_a_first_bots_mistakes_are_refused_before_any_game_with_what_to_do(
        content: bytes, mode: int, command: str, expected: str, tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "bot.py").write_bytes(content)
    (tmp_path / "bot.py").chmod(mode)
    monkeypatch.chdir(tmp_path)
    for argv in (["play", "limit-nim", command, f"{PY} {RANDOM_BOT}"], ["check", "limit-nim", command]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1, err
    assert not list(tmp_path.rglob("*.log"))  # no game was played
    (tmp_path / "contest.yaml").write_text(f"name: c\ngame: limit-nim\nplayers:\n  - {{name: a, command: {command}}}\n"
                                           f"  - {{name: b, command: {PY} {RANDOM_BOT}}}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path / "contest.yaml")
    assert f"players[0].command: cannot be started: {expected}" in str(refused.value)
