"""`arbiter check`: an honest bot passes every scenario; each broken bot of tests/bots fails
exactly the duty it breaks, with its hint; the positions the scenarios build are what they
claim; the command's exit codes."""
from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from arbiter.transport.sandbox import SandboxSpec
from arbiter.check import CheckTarget, run_check
from arbiter.check.scenarios import DUTIES, _extra_move_position, _quiet_opening, _relayed_turn_position
from arbiter.check.seat import dots_choice, gives_cell
from arbiter.cli import main
from arbiter.games import find_game
from arbiter.referee import PlayerSpec

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
RANDOM_BOT = str(ROOT / "players" / "random_bot.py")


def check(script: str, game: str = "dots-and-triangles", tmp: Path | None = None, **options):
    """Check a bot of tests/bots (or a path) with short clocks, two games at once."""
    command = (sys.executable, script if "/" in script else str(BOTS / script))
    # Sandboxed (the default), the bot sees the files its command names: its folder too, for `misbehave`.
    player = PlayerSpec(name="bot", command=command, cwd=str(BOTS), sandbox=SandboxSpec(read=(str(BOTS),)))
    target = CheckTarget(game, options.pop("params", {}), player, time_ms=options.pop("time_ms", 3000), **options)
    assert tmp is not None
    return run_check(target, log_dir=tmp, concurrency=2)


def test_an_honest_bot_passes_every_scenario_of_a_dots_game(tmp_path):
    report = check(RANDOM_BOT, tmp=tmp_path)
    assert report.failed() == []
    assert [item.id for item in report.items] == [duty for duty, _ in DUTIES]
    assert all(item.status == "pass" for item in report.items if item.id != "end-without-quit"), \
        [(i.id, i.note) for i in report.items]
    assert report.games == 13  # 2 seats, 3 seats of 3 players, 8 scenarios of their own
    assert report.item("end-without-quit").note.startswith("only in the codecup dialect")
    assert report.peak_memory_kb and report.first_reply_ms is not None
    # The checker's own programs (the seats, the monitor around the bot) add nothing to any log.
    logs = list(tmp_path.rglob("*.log"))
    assert logs and not [log.name for log in logs if b"Warning" in log.read_bytes()]


def test_scenarios_a_game_cannot_have_are_not_checked_and_the_rest_pass(tmp_path):
    report = check(RANDOM_BOT, "codecup-sudoku", tmp=tmp_path)
    skipped = {item.id for item in report.items if item.status == "skip"}
    assert report.failed() == [] and skipped == {"players-3", "params", "extra-move", "relayed-turn",
                                                 "end-without-quit"}


def test_codecup_dialect_gets_start_and_no_game_line(tmp_path):
    def codecup(*command: str):
        player = PlayerSpec(name="bot", command=(sys.executable, RANDOM_BOT, *command), cwd=str(BOTS),
                            dialect="codecup")
        target = CheckTarget("dots-and-boxes", {}, player, time_ms=3000)
        return run_check(target, log_dir=tmp_path, concurrency=2)

    report = codecup("--game", "dots-and-boxes")  # the kit's --game: what a codecup bot knows by itself
    assert report.failed() == []
    assert {i.id for i in report.items if i.status == "skip"} == {
        "players-3", "params", "opening", "extra-move", "relayed-turn", "small-clock", "move-cap"}
    assert report.item("small-clock").note == ("not in the codecup dialect (its clock is the contest's, fixed; "
                                               "no Game line tells a bot another)")
    assert report.item("end-without-quit").status == "pass"
    # Without --game it cannot know the game from `Start`: it fails at once, as the first seat.
    assert codecup().failed() == ["seat-0"]


@pytest.mark.parametrize("options, note", [
    ((), "exited at the end of its input"),
    # maksverver's CodeCup 2024 entry logs "Unexpected end of input!" and exits 1: the contest,
    # which stops a bot after its game without Quit, never judged that, so neither does check.
    (("--eof-error",), "exited with status 1 at the end of its input (not judged: the contest judges only the moves)"),
])
def test_a_contest_entry_is_checked_on_the_end_without_quit_as_codecup_ends_a_game(tmp_path, options, note):
    entry = PlayerSpec(name="entry", command=(sys.executable, str(BOTS / "codecup_style_sudoku.py"), *options),
                       cwd=str(BOTS), dialect="codecup", sandbox=SandboxSpec(read=(str(BOTS),)))
    report = run_check(CheckTarget("codecup-sudoku", {}, entry, time_ms=3000,
                                   duties=frozenset({"seat-0", "end-without-quit"})), log_dir=tmp_path)
    assert report.failed() == [], [(i.id, i.note, i.hint) for i in report.items]
    assert report.item("end-without-quit").note == note


def test_a_contest_entry_still_running_after_its_input_ended_fails_the_end_without_quit(tmp_path):
    entry = PlayerSpec(name="entry", command=(sys.executable, str(BOTS / "codecup_style_sudoku.py"), "--eof-hang"),
                       cwd=str(BOTS), dialect="codecup", sandbox=SandboxSpec(read=(str(BOTS),)))
    report = run_check(CheckTarget("codecup-sudoku", {}, entry, time_ms=3000,
                                   duties=frozenset({"seat-0", "end-without-quit"})), log_dir=tmp_path)
    assert report.failed() == ["end-without-quit"]
    item = report.item("end-without-quit")
    assert item.note == "did not exit at the end of its input"
    assert "treat the end of input as the end of the game" in item.hint
    assert item.transcript[-1] == "> (end of input, no Quit)"


# Each broken bot, the one duty it breaks, and words its hint must contain.
BROKEN = [
    ("check_no_flush_bot.py", "seat-0", "no reply within 3000 ms: is stdout flushed after each move?"),
    ("check_answers_forced_bot.py", "opening", "answered a forced opening move"),
    ("check_no_extra_move_bot.py", "extra-move", "did not move again after completing a cell"),
    ("check_debug_stdout_bot.py", "stdout", "'thinking about 18 moves', which is not a move"),
    ("ignore_quit_bot.py", "quit", "did not exit within 0.5 s of Quit"),
    ("check_child_left_bot.py", "processes", "left processes running after it exited"),
    ("check_out_of_turn_bot.py", "out-of-turn", "when it was not its turn"),
    ("check_fixed_board_bot.py", "params", "read the game's parameters from the Game line"),
    ("check_slow_bot.py", "small-clock", "ran out of time: it had"),
]


@pytest.mark.parametrize("script, duty, hint", BROKEN, ids=[b[0].removesuffix(".py") for b in BROKEN])
def test_a_broken_bot_fails_exactly_the_duty_it_breaks_with_its_hint(tmp_path, script, duty, hint):
    report = check(script, tmp=tmp_path)
    assert report.failed() == [duty], [(i.id, i.status, i.note, i.hint) for i in report.items]
    item = report.item(duty)
    assert hint in item.hint
    if duty == "processes":
        assert ":sleep" in item.note  # the process left, by name
    elif duty != "quit":
        assert item.transcript[-1].startswith("!! ")  # the fault, after the last lines exchanged
        assert item.log and Path(item.log).is_file()


# --- the positions the scenarios build -------------------------------------------------

@pytest.mark.parametrize("params", [{"rows": "3"}, {"rows": "4"}, {"rows": "7", "players": "3"}])
def test_the_extra_move_position_makes_every_move_complete_a_cell(params):
    game = find_game("dots-and-triangles", **params)
    opening, seat = _extra_move_position(game, random.Random(1))
    state = game.new_state()
    for move in opening:
        state.play(move)
    assert state.current_player == seat and len(state.legal_moves()) >= 2
    assert all(game.completed_by(state.drawn, edge) for edge in state.legal_moves())


def test_no_extra_move_position_on_a_board_of_one_cell():
    assert _extra_move_position(find_game("dots-and-boxes", rows=1, cols=1), random.Random(1)) is None


@pytest.mark.parametrize("name, params", [("dots-and-triangles", {}), ("dots-and-boxes", {"rows": "2", "cols": "3"})])
def test_the_relayed_turn_is_a_cell_then_a_quiet_move_then_nothing_to_take(name, params):
    game = find_game(name, **params)
    opening, seat, (first, second) = _relayed_turn_position(game, random.Random(2))
    state = game.new_state()
    for move in opening:
        state.play(move)
    assert state.current_player == seat
    state.play(first)
    assert state.current_player == seat  # completed a cell: the seat moves again
    state.play(second)
    assert state.current_player != seat and not state.is_over()
    assert not any(game.completed_by(state.drawn, edge) for edge in state.legal_moves())


@pytest.mark.parametrize("name", ["dots-and-triangles", "dots-and-boxes", "limit-nim"])
def test_the_opening_is_quiet_and_leaves_the_game_open(name):
    game = find_game(name)
    opening = _quiet_opening(game, random.Random(3))
    assert opening is not None and len(opening) >= 2
    state = game.new_state()
    for move in opening:
        before = state.current_player
        state.play(move)
        assert state.current_player != before  # no forced move keeps the turn
    assert not state.is_over()


def test_the_arbiters_seat_takes_a_cell_else_plays_safe_else_gives_up():
    game = find_game("dots-and-triangles", rows=2)  # one triangle of three edges
    state = game.new_state()
    state.play("1 2")
    assert dots_choice(state, random.Random(1)) is None  # both edges left give the triangle away
    assert gives_cell(game, state.drawn, game.parse_move("1 3"))
    state.play("1 3")
    assert dots_choice(state, random.Random(1)) == game.parse_move("2 3")  # completes it


# --- the command -------------------------------------------------------------------------

def test_the_command_prints_the_checklist_and_exits_1_on_a_failure_also_unsandboxed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(BOTS)
    status = main(["check", "limit-nim", f"{sys.executable} check_debug_stdout_bot.py", "--time-ms", "3000",
                   "--log-dir", str(tmp_path), "--json", str(tmp_path / "check.json"), "--no-sandbox"])
    out = capsys.readouterr().out
    assert status == 1
    assert "FAIL writes nothing but moves on stdout" in out and "hint: " in out and "> Start" in out
    assert "FAILED: 1 of" in out
    data = json.loads((tmp_path / "check.json").read_text())
    assert data["passed"] is False and [i["id"] for i in data["items"] if i["status"] == "fail"] == ["stdout"]


def test_the_command_exits_0_when_every_scenario_that_applies_passed(tmp_path, capsys, monkeypatch):
    # A program named without a path is found on the arbiter's PATH, also by the monitor inside the box.
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    status = main(["check", "limit-nim", f"{Path(sys.executable).name} {RANDOM_BOT}", "-p", "piles=5/3,4/4",
                   "--time-ms", "3000", "--log-dir", str(tmp_path), "--concurrency", "2",
                   "--json", str(tmp_path / "check.json")])
    out = capsys.readouterr().out
    assert status == 0 and "passed: all 13 scenarios that apply" in out and "FAIL" not in out
    items = json.loads((tmp_path / "check.json").read_text())["items"]
    assert {i["id"] for i in items if i["status"] == "skip"} == {"players-3", "extra-move", "relayed-turn",
                                                                  "end-without-quit"}


def test_the_command_checks_a_bot_over_zmq(tmp_path, capsys):
    # A dots board: the relayed turn of two moves and the extra move go over the socket too.
    status = main(["check", "dots-and-triangles", f"{sys.executable} {ROOT / 'players' / 'greedy.py'} --seed 1",
                   "--transport", "zmq", "--time-ms", "3000", "--log-dir", str(tmp_path), "--concurrency", "2"])
    out = capsys.readouterr().out
    assert "(arbiter dialect, zmq)" in out
    assert status == 0 and "passed: all 16 scenarios that apply" in out and "FAIL" not in out


@pytest.mark.parametrize("argv, says", [
    (["check", "no-such-game", "true"], "unknown game"),
    (["check", "limit-nim", "true", "-p", "rows"], "KEY=VALUE"),
    (["check", "limit-nim", "./no-such-bot"], "does not exist (looked in"),
    (["check", "limit-nim", "true", "--time-ms", "0"], "--time-ms"),
])
def test_usage_errors_exit_2_before_any_game(argv, says, capsys, tmp_path):
    assert main([*argv, "--log-dir", str(tmp_path)]) == 2
    assert says in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_a_duty_failed_by_a_later_game_says_what_failed_not_an_earlier_not_checked():
    """A duty left "not checked" by one game (its fault charged elsewhere) and failed by a later
    one is a FAIL with the later game's hint, never a FAIL that reads "not checked" (issue 39)."""
    from arbiter.check.scenarios import CheckItem, _Game, _judge, _Played
    from arbiter.records import GameRecord

    def played(duty: str, termination: str, detail: str) -> _Played:
        record = GameRecord.from_json({"game": "limit-nim", "names": ["bot", "arbiter"], "winner": 1,
                                       "termination": termination, "offender": 0, "moves": [], "scores": [0, 1],
                                       "detail": detail, "logs": [None, None], "time_used_ms": [0.0, 0.0]})
        return _Played(_Game(duty, {}, 0), record, None, 0, {})

    items = {duty: CheckItem(duty, duty) for duty in ("start-up", "out-of-turn", "seat-0")}
    charged: dict[tuple[str, str], str] = {}
    _judge(played("start-up", "protocol", "seat 0 (bot) wrote '1 1' when it was not its turn"), items, charged)
    assert items["start-up"].status == "skip" and items["start-up"].note.startswith("not checked")
    _judge(played("seat-0", "timeout", "seat 0 (bot) did not finish starting within 10000 ms"), items, charged)
    assert items["start-up"].status == "fail" and "not checked" not in items["start-up"].note
    assert items["start-up"].hint


MY_NIM = '''import os, sys
from arbiter.games.limit_nim import LimitNim

# A marker beside the module (a boxed seat's environment is its own; its folder is shown).
if os.path.exists(os.path.join(os.path.dirname(__file__), "fail-in-seat")) \\
        and sys.argv[0].endswith(os.path.join("check", "seat.py")):
    raise ImportError("this module does not load in the arbiter's seat")


class MyNim(LimitNim):
    name = "mynim:MyNim"
'''


def test_a_game_of_the_users_own_on_pythonpath_is_checked_in_every_scenario(tmp_path, capsys, monkeypatch):
    # The arbiter's own seats (boxed) and the check's monitor import the game from the user's
    # PYTHONPATH, as the arbiter does: on main the seat could not, the first game ended at once
    # on the seat's crash, and the check said "passed" having checked nothing.
    games = tmp_path / "games"
    games.mkdir()
    (games / "mynim.py").write_text(MY_NIM)
    monkeypatch.setenv("PYTHONPATH", str(games))
    monkeypatch.syspath_prepend(str(games))  # this process is the arbiter: its PYTHONPATH, as read at its start
    status = main(["check", "mynim:MyNim", f"{sys.executable} {RANDOM_BOT}", "--time-ms", "3000",
                   "--log-dir", str(tmp_path / "logs"), "--no-sandbox"])
    out = capsys.readouterr().out
    assert status == 0 and "passed: all 12 scenarios that apply" in out and "not checked" not in out, out


def test_a_check_whose_own_seat_fails_checks_nothing_and_says_so(tmp_path, capsys, monkeypatch):
    games = tmp_path / "games"
    games.mkdir()
    (games / "mynim.py").write_text(MY_NIM)
    monkeypatch.setenv("PYTHONPATH", str(games))
    monkeypatch.syspath_prepend(str(games))
    (games / "fail-in-seat").write_text("")
    status = main(["check", "mynim:MyNim", f"{sys.executable} {RANDOM_BOT}", "--time-ms", "3000",
                   "--log-dir", str(tmp_path / "logs"), "--no-sandbox"])
    out = capsys.readouterr().out
    assert status == 5, out  # could not be decided; no bot blamed, none passed
    assert "the arbiter's own seat failed: seat 1 (arbiter1) exited with status" in out
    assert "not checked: the arbiter's own seat failed in the first-seat game" in out
    assert "the others not checked: the arbiter's own seat failed" in out and "FAIL" not in out
