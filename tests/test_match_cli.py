"""`arbiter match`: a 20-game match from the command line over the tournament runner, with a
running score, resumed after Ctrl-C, whose standings are `arbiter report`'s on its folder."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arbiter.cli import main

ROOT = Path(__file__).resolve().parent.parent
GREEDY = f"{sys.executable} {ROOT / 'players' / 'greedy.py'}"
SLOW = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'slow_random_bot.py'}"  # 20 ms per move


def match_command(results: Path) -> list[str]:
    return [sys.executable, "-m", "arbiter", "match", "dots-and-triangles", GREEDY, SLOW, "--games", "20",
            "--concurrency", "2", "--openings", "random:2", "--time-ms", "5000", "--results", str(results)]


def recorded(results: Path) -> list[dict]:
    path = results / "games.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_match_interrupted_by_ctrl_c_resumes_and_its_standings_are_the_reports(tmp_path):
    results = tmp_path / "match"
    first = subprocess.Popen(match_command(results), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    deadline = time.monotonic() + 60
    while len(recorded(results)) < 3 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # no event to await in another process: watch its records appear
    first.send_signal(signal.SIGINT)
    out, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    assert "To resume, run the same command again" in err
    kept = recorded(results)
    assert 3 <= len(kept) < 20

    again = subprocess.run(match_command(results), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"resuming: {len(kept)} of 20 games already recorded" in again.stderr
    records = recorded(results)
    assert len(records) == 20 and len({r["id"] for r in records}) == 20
    assert records[:len(kept)] == kept  # the games before Ctrl-C are kept, not replayed
    # Each opening twice, the seats swapped.
    by_opening: dict[tuple, list] = {}
    for record in records:
        by_opening.setdefault(tuple(record["opening"]), []).append(tuple(record["names"]))
    assert all(sorted(seats) == [("greedy", "slow_random_bot"), ("slow_random_bot", "greedy")]
               for seats in by_opening.values())
    # The running score: one line per game of this run, with Elo and LOS.
    lines = [line for line in again.stderr.splitlines() if line.startswith("[")]
    assert len(lines) == 20 - len(kept) and "greedy vs slow_random_bot: +" in lines[-1] and "LOS" in lines[-1]
    # Its last Elo is the standings' one figure of greedy over slow_random_bot.
    figure = re.search(r"Elo of greedy over slow_random_bot ([+-]\d+ \[\S+, \S+\]) \(95% interval, pentanomial\)",
                       again.stdout).group(1)
    assert f"Elo {figure} (pentanomial)" in lines[-1]

    report = subprocess.run([sys.executable, "-m", "arbiter", "report", str(results)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert report.returncode == 0
    assert again.stdout.startswith(report.stdout)
    assert (results / "report.html").is_file() and (results / "standings.txt").is_file()


def test_the_same_bot_twice_gets_two_names(tmp_path, capsys):
    random_bot = f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}"
    assert main(["match", "limit-nim", random_bot, f"{random_bot} --seed 2", "--games", "2", "--quiet",
                 "--time-ms", "3000", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "random_bot-a vs random_bot-b: +" in out
    assert {tuple(r["names"]) for r in recorded(tmp_path)} == {("random_bot-a", "random_bot-b"),
                                                               ("random_bot-b", "random_bot-a")}


@pytest.mark.parametrize("extra, says", [
    (["--games", "3"], "--games: 3 is not allowed: must be an even integer"),
    (["--games", "2", "--openings", "random:x"], "random:K"),
    (["--games", "2", "-p", "rows=99"], "rows"),
])
def test_bad_flags_are_usage_errors_naming_them(tmp_path, capsys, extra, says):
    random_bot = f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}"
    argv = ["match", "dots-and-triangles", random_bot, random_bot, "--results", str(tmp_path / "r"), *extra]
    assert main(argv) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
