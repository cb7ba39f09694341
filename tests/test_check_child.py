"""`check: true` checks each player in a process of its own (tournament/check_child.py,
preflight.check_apart): a game's rules that crash, raise or hang during a check cost that
player's check (a `players:` player stops the run with one line saying what happened; an
entrant is kept out and the others play), never the arbiter; Ctrl-C during a check stops the
run with exit 130, one line, and no process left."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arbiter.check import CheckTarget
from arbiter.referee import PlayerSpec
from arbiter.tournament import preflight
from arbiter.tournament.preflight import PREFLIGHT_DUTIES, check_deadline_s
from referee_support import MARK, StderrRead, live_marked, new_marker

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
RANDOM = ROOT / "players" / "random_bot.py"
SLEEPER = TESTS / "bots" / "sleep_bot.py"
ENTRANT = TESTS / "entries" / "pia_py"
# The arbiter with the check's deadline cut to 3 s (its clocks would give the hung check 20 minutes).
# x's check alone is cut to 3 s: the others keep their own deadline, which a busy machine never reaches.
SHORT_DEADLINE = ("import sys; from arbiter.tournament import preflight; real = preflight.check_deadline_s; "
                  "preflight.check_deadline_s = lambda target, seats: "
                  "3.0 if target.player.name == 'x' else real(target, seats); "
                  "from arbiter.cli import command; sys.exit(command())")
REASONS = {
    "segfault": "could not be checked: its check was ended: its game's rules crashed (SIGSEGV) in the check's own "
                "process, not in the bot's",
    "raise": "could not be checked: the rules of failing_games:FailingNim failed while the check built its "
             "scenarios: RulesFailed: the rules failed on purpose",
    "hang": "could not be checked: its check was ended: it was still running after 3 s, longer than its games' "
            "clocks allow (its game's rules hung), and was killed",
}


def failing_config(tmp_path: Path, failure: str, players: str) -> Path:
    """A round robin of FailingNim (tests/failing_games.py), whose rules fail once, in the
    arbiter's processes only: here in the first check, while it builds its scenarios."""
    config = tmp_path / "contest.yaml"
    config.write_text(
        f"name: failing\nresults: results\ngame: failing_games:FailingNim\n"
        f"params: {{failure: {failure}, marker: '{tmp_path / 'failed-once'}'}}\n"
        "games_per_pairing: 2\nconcurrency: 2\nsandbox: off\ncheck: true\n"
        f"time: {{time_ms: 1000, startup_ms: 2000}}\n{players}")
    return config


def arbiter(tmp_path: Path, *args: str, code: tuple[str, ...] = ("-m", "arbiter"), marker: str = "",
            **popen: object) -> subprocess.Popen[str]:
    """`arbiter ARGS` from `tmp_path`, finding the failing games; `marker` in its environment
    (and so its zygote's, its checks' and their bots')."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")])),
           MARK: marker}
    return subprocess.Popen([sys.executable, *code, *args], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)  # type: ignore[call-overload]


def finished(run: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str]:
    """The run's exit status and stderr (killed, and the test failed, if it takes `timeout`)."""
    try:
        _, err = run.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        run.kill()
        _, err = run.communicate()
        pytest.fail(f"the run did not end within {timeout} s:\n{err}")
    return run.returncode, err


def gone(marker: str, timeout_s: float = 15) -> list[int]:
    """The processes carrying `marker` still alive after the arbiter has exited, once its
    zygote and guardian (which exit when the arbiter's end of their pipe closes) had the
    time to see it."""
    deadline = time.monotonic() + timeout_s
    while live_marked(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return live_marked(marker)


@pytest.mark.parametrize("failure", ["segfault", "raise"])
def test_a_players_check_whose_rules_fail_stops_the_run_saying_so(tmp_path: Path, failure: str) -> None:
    players = "".join(f"  - {{name: {name}, command: python {RANDOM}}}\n" for name in ("a", "b"))
    marker = new_marker()
    status, err = finished(arbiter(tmp_path, "run", str(failing_config(tmp_path, failure, f"players:\n{players}")),
                                   marker=marker))
    assert status == 2, err
    assert f"arbiter run: error: the tournament was not started: player a {REASONS[failure]}" in err, err
    assert "Traceback" not in err and "internal error" not in err, err
    games = tmp_path / "results" / "games.jsonl"
    assert not games.exists() or games.read_text() == ""
    assert gone(marker) == []


@pytest.mark.parametrize("failure", ["segfault", "hang"])
def test_an_entrant_whose_check_the_rules_crash_or_hang_is_kept_out_and_the_others_play(tmp_path: Path,
                                                                                       failure: str) -> None:
    for name in ("x", "y", "z"):  # x is checked first: its check meets the rules' one failure
        shutil.copytree(ENTRANT, tmp_path / "entries" / name)
    config = failing_config(tmp_path, failure, "entries: entries\n")
    marker = new_marker()
    status, err = finished(arbiter(tmp_path, "run", str(config), "--quiet", code=("-c", SHORT_DEADLINE),
                                   marker=marker))
    assert status == 0, err
    assert f"entrant x is kept out of the tournament: it {REASONS[failure]}" in err, err
    games = [json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]
    assert len(games) == 2 and all(game["names"] in (["y", "z"], ["z", "y"]) for game in games)
    assert all(game["termination"] == "normal" for game in games), games
    entrants = json.loads((tmp_path / "results" / "entrants.json").read_text())
    assert entrants["admitted"] == ["y", "z"]
    assert entrants["kept_out"] == [{"name": "x", "reason": REASONS[failure], "log": None}]
    assert gone(marker) == []


@pytest.mark.parametrize("hung", [False, True], ids=["bot-thinking", "rules-hung"])
@pytest.mark.parametrize("pressed", ["arbiter", "terminal"])
def test_ctrl_c_during_a_check_stops_the_run_with_130_and_leaves_no_process(tmp_path: Path, hung: bool,
                                                                           pressed: str) -> None:
    """`arbiter`: SIGINT to the arbiter alone (it passes it on to the check's process);
    `terminal`: to the whole process group, as Ctrl-C in a terminal sends it. The check is
    ended in its game (a bot thinking for an hour), or killed (rules hung where no signal reaches them)."""
    marker = new_marker()
    if hung:
        players = "".join(f"  - {{name: {name}, command: python {RANDOM}}}\n" for name in ("a", "b"))
        config = failing_config(tmp_path, "deaf", f"players:\n{players}")
    else:
        config = tmp_path / "sleepy.yaml"
        config.write_text(
            "name: sleepy\nresults: results\ngame: limit-nim\ncheck: true\nsandbox: off\n"
            "time: {time_ms: 600000}\nplayers:\n"
            f"  - {{name: sleepy, command: python {SLEEPER}, env: {{{MARK}: '{marker}-bot', MISBEHAVE_AT: '1'}}}}\n"
            f"  - {{name: other, command: python {RANDOM}}}\n")
    run = arbiter(tmp_path, "run", str(config), marker=marker, start_new_session=True)
    with StderrRead(run) as read:
        deadline = time.monotonic() + 60
        while run.poll() is None and time.monotonic() < deadline and not (
                (tmp_path / "failed-once").exists() if hung else live_marked(f"{marker}-bot")):
            time.sleep(0.05)  # until the rules hang, or the bot thinks, in the check's process
        assert run.poll() is None, read.text
        if pressed == "arbiter":
            run.send_signal(signal.SIGINT)
        else:
            os.killpg(run.pid, signal.SIGINT)
        assert run.wait(timeout=30) == 130
    err = read.text
    assert err.rstrip().splitlines()[-1] == "arbiter run: interrupted", err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert gone(marker) == [] and live_marked(f"{marker}-bot") == []


def test_the_checks_deadline_is_its_games_seats_startups_clocks_and_graces() -> None:
    player = PlayerSpec("a", ("x",))
    target = CheckTarget("limit-nim", {}, player, time_ms=2000, duties=PREFLIGHT_DUTIES)
    games = 7  # seat-0, seat-1, opening, extra-move, relayed-turn, out-of-turn, quit
    graces = preflight.QUIT_GRACE_S + preflight.TERM_GRACE_S
    bot_s = 10 + 2 + graces  # the default start-up, the clock, the graces
    seat_s = 10 + 120 + graces  # the arbiter's own seat: its start-up and SEAT_TIME's clock
    expected = games * (bot_s + 2 * seat_s) * preflight.HANG_SHARE + preflight.HANG_MARGIN_S
    assert check_deadline_s(target, seats=3) == pytest.approx(expected)
    cpu = CheckTarget("limit-nim", {}, player, time_ms=2000, clock="cpu", duties=PREFLIGHT_DUTIES)
    assert check_deadline_s(cpu, seats=3) - check_deadline_s(target, seats=3) == pytest.approx(
        games * 2 * (preflight.CPU_CLOCK_WALL_FACTOR - 1) * preflight.HANG_SHARE)


@pytest.mark.parametrize("failure", ["segfault", "raise"])
def test_arbiter_check_of_rules_not_its_own_survives_their_crash_and_says_so(tmp_path, failure):
    # `arbiter check` plays a game whose rules are not the arbiter's own in a process of its own
    # too: on main a segfault of the rules was the command's own (exit -11, no word).
    run = arbiter(tmp_path, "check", "failing_games:FailingNim", f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}",
                  "-p", f"failure={failure}", "-p", f"marker={tmp_path / 'failed'}", "--no-sandbox")
    out, err = run.communicate(timeout=300)
    assert run.returncode == 5, (out, err)  # could not be decided; no bot blamed
    said = {"segfault": "not checked: its check was ended: its game's rules crashed (SIGSEGV) in the check's own "
                        "process, not in the bot's",
            "raise": "the rules of failing_games:FailingNim failed"}[failure]
    assert said in out and "Traceback" not in err, (out, err)
