"""What a new user met on the command line (issue 39, frictions), each as the user sees it: the
message on stderr and the exit status of `arbiter` run as a command, or the folder it wrote."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.cli import _parse, build_parser
from arbiter.cli.match import flags_to_config

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}"
GREEDY = f"{sys.executable} {ROOT / 'players' / 'nim_greedy.py'}"


def arbiter(*args: str, cwd: Path, timeout_s: float = 120) -> subprocess.CompletedProcess[str]:
    """`arbiter ARGS` run as the user runs it, from `cwd`."""
    return subprocess.run([sys.executable, "-m", "arbiter", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout_s, stdin=subprocess.DEVNULL)


def write_config(folder: Path) -> Path:
    """A two-player Limit Nim round robin of two games, unboxed (the frictions are not the box's)."""
    config = folder / "nim.yaml"
    config.write_text(f"name: nim\ngame: limit-nim\nformat: round-robin\ngames_per_pairing: 2\nsandbox: off\n"
                      f"players:\n  - {{name: a, command: \"{RANDOM}\"}}\n  - {{name: b, command: \"{GREEDY}\"}}\n")
    return config


def test_serve_with_a_host_and_no_port_names_the_flag_not_a_placeholder(tmp_path):
    result = arbiter("run", "--serve", "localhost", str(write_config(tmp_path)), cwd=tmp_path)
    assert result.returncode == 2
    assert "{option}" not in result.stderr
    assert "a config file goes before --serve" in result.stderr


def test_serve_address_on_a_busy_port_names_the_address_flag(tmp_path):
    (tmp_path / "games.jsonl").write_text("")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = arbiter("serve", str(tmp_path), "--address", f"127.0.0.1:{port}", cwd=tmp_path)
    assert result.returncode == 2
    assert f"--address 127.0.0.1:{port}: cannot listen there" in result.stderr
    assert "--serve" not in result.stderr


def test_run_with_serve_before_the_config_runs_the_config_and_serves_it(tmp_path):
    result = arbiter("run", "--serve", str(write_config(tmp_path)), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "live page: http://127.0.0.1:" in result.stderr + result.stdout
    assert (tmp_path / "results" / "nim" / "games.jsonl").read_text().count("\n") == 2


def test_run_without_a_config_says_one_is_required(tmp_path):
    result = arbiter("run", cwd=tmp_path)
    assert result.returncode == 2
    assert "a config file is required: arbiter run CONFIG" in result.stderr


def test_run_with_reuse_points_to_the_configs_reuse_key(tmp_path):
    result = arbiter("run", str(write_config(tmp_path)), "--reuse", cwd=tmp_path)
    assert result.returncode == 2
    assert "`reuse: true`" in result.stderr and "unrecognized" not in result.stderr
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("command", ["play", "match", "sprt", "check"])
@pytest.mark.parametrize(("given", "ms"), [("10s", 10_000), ("1500ms", 1500), ("2500", 2500), ("1.5s", 1500)])
def test_time_flags_take_milliseconds_or_a_duration_with_its_unit(command, given, ms):
    bots = {"play": [RANDOM, RANDOM], "match": [RANDOM, GREEDY, "--games", "2"],
            "sprt": ["--candidate", RANDOM, "--baseline", GREEDY], "check": [RANDOM]}[command]
    args = _parse(build_parser(), [command, "limit-nim", *bots, "--time-ms", given])
    assert args.time_ms == ms


def test_a_time_flag_that_is_not_a_duration_names_the_flag(tmp_path):
    result = arbiter("play", "limit-nim", RANDOM, RANDOM, "--move-ms", "10x", cwd=tmp_path)
    assert result.returncode == 2
    assert "argument --move-ms: '10x' is not a duration" in result.stderr
    assert "invalid int" not in result.stderr


def test_a_codecup_dialect_seat_in_a_game_of_three_is_refused_before_any_game(tmp_path):
    result = arbiter("play", "dots-and-boxes", "-p", "players=3", "--dialect", "codecup", "--no-sandbox",
                     RANDOM, RANDOM, RANDOM, cwd=tmp_path)
    assert result.returncode == 2
    assert "dialect codecup plays games of 2 seats, and this game has 3" in result.stderr
    assert not list(tmp_path.rglob("*.log"))


def test_a_matchs_results_folder_is_named_after_its_players(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first, _ = flags_to_config(_parse(build_parser(), ["match", "limit-nim", RANDOM, GREEDY, "--games", "2"]))
    other, _ = flags_to_config(_parse(build_parser(), ["match", "limit-nim", RANDOM, RANDOM, "--games", "2"]))
    assert first["results"] == os.path.join(tmp_path, "results", "match-random_bot-vs-nim_greedy")
    assert other["results"] == os.path.join(tmp_path, "results", "match-random_bot-a-vs-random_bot-b")


@pytest.mark.parametrize("given", ["mybot", "./mybot", "./mybot/"])
def test_a_folder_given_as_the_bot_is_said_to_be_a_folder(tmp_path, given):
    (tmp_path / "mybot").mkdir()
    result = arbiter("check", "limit-nim", given, cwd=tmp_path)
    assert result.returncode == 2
    assert f"{given} is a folder, not a program: give the program in it (./mybot/bot" in result.stderr
    assert "does not exist" not in result.stderr and "not found on PATH" not in result.stderr


BOTS = ROOT / "tests" / "bots"
# A Limit Nim bot written the contest's way: no Game line expected; any line but Start and Quit
# is the other seat's move, answered with a move of its own (it does not track the piles).
CODECUP_STYLE_NIM = """import sys
for line in sys.stdin:
    line = line.strip()
    if line == "Quit":
        break
    print("1 1", flush=True)
"""


def test_a_bot_that_never_flushes_is_told_so_under_play_as_under_check(tmp_path):
    result = arbiter("play", "limit-nim", f"{sys.executable} {BOTS / 'check_no_flush_bot.py'}", RANDOM,
                     "--time-ms", "2s", "--no-sandbox", cwd=tmp_path)
    assert "ran out of time" in result.stdout
    assert "it wrote no move all game: a bot that prints its move must flush its output after each line" in result.stdout


def test_a_codecup_style_bot_in_the_arbiter_dialect_is_pointed_to_dialect_codecup(tmp_path):
    (tmp_path / "contest_bot.py").write_text(CODECUP_STYLE_NIM)
    result = arbiter("play", "limit-nim", RANDOM, f"{sys.executable} contest_bot.py", "--no-sandbox", cwd=tmp_path)
    assert "when it was not its turn; a bot written for the codecup dialect reads the `Game` line" in result.stdout
    assert "dialect: codecup" in result.stdout


def test_debug_text_on_stdout_before_the_first_move_is_pointed_to_stderr_not_to_dialect_codecup(tmp_path):
    (tmp_path / "chatty_bot.py").write_text('print("debug: starting", flush=True)\n' + CODECUP_STYLE_NIM)
    result = arbiter("play", "limit-nim", RANDOM, f"{sys.executable} chatty_bot.py", "--no-sandbox", cwd=tmp_path)
    assert "wrote 'debug: starting' when it was not its turn; write only moves on stdout; debug text goes to " \
           "stderr" in result.stdout
    assert "dialect" not in result.stdout


def test_a_read_of_the_whole_filesystem_is_one_error_and_blames_no_other_player(tmp_path):
    config = tmp_path / "r.yaml"
    config.write_text("name: r\ngame: limit-nim\nplayers:\n"
                      f"  - {{name: a, command: \"{RANDOM}\", sandbox: {{read: [/]}}}}\n"
                      f"  - {{name: b, command: \"{RANDOM}\"}}\n  - {{name: c, command: \"{GREEDY}\"}}\n")
    result = arbiter("run", str(config), cwd=tmp_path)
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if "players[" in line]
    assert len(errors) == 1, result.stderr
    assert "players[0].sandbox.read: / shows /, the whole filesystem, which no box may show" in errors[0]


@pytest.mark.parametrize(("scores", "shown"), [([6, 3], "6-3"), ([2, 2], "2-2"), ([1, -1], "+1 / -1"),
                                               ([-1, 1], "-1 / +1"), ([0, -2, 2], "0 / -2 / +2")])
def test_scores_below_zero_are_signed_and_apart_everywhere(scores, shown):
    from arbiter.records import score_text
    assert score_text(scores) == shown


def test_an_openspiel_game_reads_as_a_result_in_the_progress_line_and_a_switch_as_the_config_writes_it():
    from arbiter.records import GameRecord
    from arbiter.reports.html import overview_rows
    from arbiter.tournament.progress import describe_result
    record = GameRecord.from_json({"game": "openspiel:hex", "id": "001-a-b", "names": ["a", "b"], "winner": 1,
                                   "termination": "normal", "offender": None, "moves": [], "scores": [-1, 1]})
    assert describe_result(record) == "001-a-b: b beat a +1 / -1"
    rows = dict(overview_rows({"game": "openspiel:hex", "params": {"swap": False, "board_size": 5}}))
    assert rows["Game"] == "openspiel:hex with swap false and board_size 5."


def test_a_data_file_opened_by_a_relative_path_is_explained_by_the_working_folder(tmp_path):
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "data.txt").write_text("book\n")
    (tmp_path / "mybot" / "bot.py").write_text("open('data.txt').read()\n")
    result = arbiter("play", "limit-nim", f"{sys.executable} mybot/bot.py", RANDOM, cwd=tmp_path)
    assert f"'data.txt' was opened from the bot's working folder, {tmp_path} (where the arbiter runs" in result.stdout
    assert f"give the player cwd: {tmp_path / 'mybot'}" in result.stdout
    assert "the box shows only" not in result.stdout


def test_a_missing_interpreter_is_said_to_be_missing_not_hidden_by_the_box(tmp_path, monkeypatch):
    from arbiter.transport.sandbox import SandboxSpec
    from arbiter.transport.shown import not_shown_hint
    from arbiter.transport.startable import unstartable
    (tmp_path / "old.py").write_text("#!/usr/bin/env python1.5\nprint(1)\n")
    (tmp_path / "old.py").chmod(0o755)
    assert "asks for the interpreter python1.5, which is not installed on this machine" in unstartable(
        ["./old.py"], str(tmp_path))
    hint = not_shown_hint(["/usr/bin/env: \u2018python1.5\u2019: No such file or directory"], ["./old.py"],
                          str(tmp_path), SandboxSpec())
    assert hint.startswith("python1.5 is not installed on this machine")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python1.5").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "python1.5").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    hint = not_shown_hint(["/usr/bin/env: 'python1.5': No such file or directory"], ["./old.py"], str(tmp_path),
                          SandboxSpec())
    assert hint.startswith(f"python1.5 is {tmp_path / 'bin' / 'python1.5'} here, outside the system's folders")
