"""`arbiter play`: the issue's command, JSON output, usage errors (exit 2), and no bot left
behind when the arbiter itself is interrupted or killed with kill -9."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.games import find_game
from referee_support import BOTS, MARK, RANDOM_BOT, ROOT, live_marked, new_marker

RANDOM = f"{sys.executable} {RANDOM_BOT}"


def arbiter(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arbiter", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})}, cwd=cwd or ROOT)


def test_the_issue_command_shows_the_board_and_the_result(tmp_path: Path) -> None:
    done = arbiter("play", "dots-and-triangles", RANDOM, RANDOM, "--show", "--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("after ") == sum(1 for line in out.splitlines() if line.startswith("after "))
    assert "7---8---9--10" in out  # the board, drawn after each turn
    assert "\nresult: " in out and "\nreason: normal: the game ended" in out
    assert "seat 0: random_bot" in out
    assert len(list(tmp_path.glob("*-seat0-random_bot.log"))) == 1


def test_json_dash_puts_only_the_record_on_stdout(tmp_path: Path) -> None:
    done = arbiter("play", "limit-nim", "-p", "piles=5/2,3/3", RANDOM, RANDOM, "--json", "-",
                   "--time-ms", "5000", "--move-ms", "2000", "--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["params"] == {"piles": "5/2,3/3"}
    assert record["termination"] == "normal"
    assert "result: " in done.stderr
    state = find_game("limit-nim", piles=record["params"]["piles"]).new_state()
    for move in record["moves"]:
        state.play(move["move"])
    assert state.scores == record["scores"]


def test_a_fault_is_refereed_with_exit_status_0_and_the_record_in_a_file(tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    done = arbiter("play", "limit-nim", f"{sys.executable} {BOTS / 'garbage_bot.py'}", RANDOM,
                   "--json", str(out), "--log-dir", str(tmp_path), "--sandbox-read", str(BOTS))
    assert done.returncode == 0, done.stderr
    assert "reason: malformed: seat 0 (garbage_bot) sent 'hello, referee'" in done.stdout
    record = json.loads(out.read_text())
    assert (record["termination"], record["offender"], record["winner"]) == ("malformed", 0, 1)


def test_startup_ms_bounds_the_start_up_and_each_seats_start_up_is_printed(tmp_path: Path) -> None:
    slow = f"{sys.executable} {BOTS / 'slow_start_bot.py'}"
    # 1 s binds the random bot too: it starts in well under that even on a busy machine.
    done = arbiter("play", "limit-nim", slow, RANDOM, "--startup-ms", "1000", "--log-dir", str(tmp_path),
                   "--sandbox-read", str(BOTS), "--env", "START_S=forever")
    assert done.returncode == 0, done.stderr
    assert "reason: timeout: seat 0 (slow_start_bot) did not finish starting within 1000 ms" in done.stdout
    done = arbiter("play", "limit-nim", RANDOM, RANDOM, "--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "start-up (off the clock): seat 0 " in done.stdout and " ms, seat 1 " in done.stdout


def test_codecup_dialect_for_both_seats(tmp_path: Path) -> None:
    codecup = f"{RANDOM} --game limit-nim -p piles=4/4"
    done = arbiter("play", "limit-nim", "-p", "piles=4/4", codecup, codecup, "--dialect", "codecup",
                   "--json", "-", "--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["termination"] == "normal"


@pytest.mark.parametrize("args, message", [
    (["no-such-game", "a", "b"], "unknown game 'no-such-game'"),
    (["limit-nim", RANDOM], "limit-nim piles=10/9,10/9,10/9 has 2 seats: give 2 players (commands or --engine), not 1"),
    (["limit-nim", "-p", "piles", RANDOM, RANDOM], "-p 'piles': write a game parameter as KEY=VALUE"),
    (["limit-nim", "-p", "rows=3", RANDOM, RANDOM], "unknown parameter 'rows'"),
    (["limit-nim", RANDOM, "no-such-program-x --flag"], "seat 1's command: cannot be started: 'no-such-program-x' is not found on PATH"),
    (["limit-nim", RANDOM, "./missing/bot"], "seat 1's command: cannot be started: ./missing/bot does not exist (looked in "),
    (["limit-nim", RANDOM, f"{sys.executable} no_such_bot.py"], "seat 1's command: cannot be started: script no_such_bot.py does not exist"),
    (["limit-nim", RANDOM, "'unbalanced"], "seat 1's command: \"'unbalanced\" cannot be split"),
    (["limit-nim", RANDOM, RANDOM, "--time-ms", "0"], "--time-ms must be a positive number of milliseconds, not 0"),
    (["limit-nim", RANDOM, RANDOM, "--startup-ms", "-1"], "--startup-ms must be a positive number of milliseconds"),
    (["limit-nim", RANDOM, RANDOM, "--json", "/no/such/dir/x.json"], "the folder /no/such/dir does not exist"),
])
def test_usage_errors_exit_2_and_say_what_was_wrong(args: list[str], message: str, capsys) -> None:
    assert main(["play", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arbiter play: error: ") and message in err


def start_marked_game(tmp_path: Path, marker: str) -> subprocess.Popen[bytes]:
    """An `arbiter play` whose seat 0 starts a grandchild and then sleeps on its move."""
    grandchild = f"{sys.executable} {BOTS / 'grandchild_bot.py'}"
    bot_env = {MARK: marker, "GRANDCHILD_THEN": "sleep", "MISBEHAVE_AT": "1"}  # a boxed bot's env is cleared
    return subprocess.Popen(
        [sys.executable, "-m", "arbiter", "play", "limit-nim", grandchild, RANDOM, "--time-ms", "60000",
         "--log-dir", str(tmp_path), "--sandbox-read", str(BOTS),
         *(f"--env={name}={value}" for name, value in bot_env.items())],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, MARK: marker},
    )


def wait_until(condition, timeout_s: float = 10.0) -> None:
    """Poll the process table (another process's exit is not an event we can await)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the process table"
        time.sleep(0.01)


@pytest.mark.parametrize("signum, status", [(signal.SIGKILL, -signal.SIGKILL), (signal.SIGINT, 130), (signal.SIGTERM, 130)])
def test_killing_the_arbiter_mid_game_leaves_no_bot_process(signum: int, status: int, tmp_path: Path) -> None:
    marker = new_marker()
    arbiter_process = start_marked_game(tmp_path, marker)
    try:
        # The arbiter, its sleeping bot and the bot's grandchild (the stopped opponent may not have started yet).
        wait_until(lambda: len(live_marked(marker, boxes=False)) >= 3)
        arbiter_process.send_signal(signum)
        assert arbiter_process.wait(10) == status
        wait_until(lambda: live_marked(marker) == [], timeout_s=5)
    finally:
        if arbiter_process.poll() is None:
            arbiter_process.kill()
        arbiter_process.wait()
        for pid in live_marked(marker):
            os.kill(pid, signal.SIGKILL)


def test_html_writes_a_self_contained_viewer_of_the_game(tmp_path: Path) -> None:
    page = tmp_path / "game.html"
    done = arbiter("play", "dots-and-boxes", "-p", "rows=2", "-p", "cols=2", RANDOM, RANDOM,
                   "--html", str(page), "--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"viewer: {page}" in done.stdout
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") or html.lower().startswith("<!doctype html>")
    assert "dots-and-boxes" in html and "http://" not in html.replace("http://www.w3.org", "")


def test_html_into_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    done = arbiter("play", "limit-nim", RANDOM, RANDOM, "--html", str(tmp_path / "no" / "x.html"))
    assert done.returncode == 2
    assert "--html" in done.stderr and "does not exist" in done.stderr


def test_three_seats_show_says_which_seat_moved_and_the_places(tmp_path: Path) -> None:
    record_path = tmp_path / "game.json"
    done = arbiter("play", "dots-and-boxes", "-p", "rows=2", "-p", "cols=2", "-p", "players=3",
                   RANDOM, f"{RANDOM} --seed 2", f"{RANDOM} --seed 3", "--show", "--json", str(record_path),
                   "--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    record = json.loads(record_path.read_text())
    shown = [line for line in done.stdout.splitlines() if line.startswith("after ")]
    assert len(shown) == len(record["moves"])
    for line, move in zip(shown, record["moves"]):
        assert line.startswith(f"after {move['move']} by seat {move['seat']} (random_bot): scores ")
    assert len({m["seat"] for m in record["moves"]}) == 3
    places = sorted(range(3), key=lambda seat: (-record["scores"][seat], seat))
    assert f"places: 1st seat {places[0]} (random_bot) {record['scores'][places[0]]}, " in done.stdout
