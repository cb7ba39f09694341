"""A box shows a player's own folder and nothing around it (issue 38): run from a contest folder
(entries under `entries/`, the config with its seed, `results/` with records, logs and the
run's secret), `arbiter check`, `play` and `match` used to show that folder whole to the bot,
which read 17 to 33 secrets. A spy bot lists every file it can read there; it must find its
own folder's and nothing else. Two entrants whose programs share a file name each see their own."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.transport.sandbox import support
from referee_support import BOTS, RANDOM_BOT

PY = sys.executable
SPY = BOTS / "contest_spy_bot.py"


@pytest.fixture
def contest(tmp_path: Path, monkeypatch) -> Path:
    """A contest folder as an organiser keeps one, the current folder: a spy entered as `a`,
    two other entrants, the config, and a results folder of an earlier run."""
    assert support().usable, support().describe()
    root = tmp_path / "contest"
    for name in "abc":
        (root / "entries" / name).mkdir(parents=True)
    shutil.copy(SPY, root / "entries" / "a" / "spy.py")
    (root / "entries" / "a" / "book.txt").write_text("the spy's own opening book\n")
    for name in "bc":
        shutil.copy(RANDOM_BOT, root / "entries" / name / "bot.py")
        (root / "entries" / name / "notes.txt").write_text(f"{name}'s secret strategy\n")
    (root / "contest.yaml").write_text("name: contest\ngame: limit-nim\nseed: 918273645\nplayers: []\n")
    earlier = root / "results" / "contest"
    (earlier / "logs").mkdir(parents=True)
    (earlier / "games.jsonl").write_text('{"id": "001-b-c"}\n')
    (earlier / "secret.json").write_text('{"secret": "00"}\n')
    (earlier / "logs" / "001-b-c-seat0-b.log").write_text("b's debug output\n")
    monkeypatch.chdir(root)
    return root


def spied(logs: Path, own: Path) -> list[list[str]]:
    """For each log of a spy under `logs`, the files it read (each spy's log says it looked)."""
    found = []
    for log in sorted(logs.rglob("*.log")):
        lines = log.read_text().splitlines()
        if not any(line.startswith("SPY done") for line in lines):
            continue
        found.append([line.split(" ", 2)[2] for line in lines if line.startswith("SPY read ")])
    assert found, f"no spy's log under {logs}"
    return found


def assert_only_its_own(read: list[str], own: Path) -> None:
    strangers = [path for path in read if not Path(path).is_relative_to(own)]
    assert strangers == [], f"the spy read {len(strangers)} files not its own: {strangers}"
    assert str(own / "book.txt") in read  # its own folder is shown, whole


def test_check_from_a_contest_folder_shows_the_bot_its_own_folder_alone(contest: Path) -> None:
    main(["check", "limit-nim", f"{PY} entries/a/spy.py", "--log-dir", "check-logs"])
    for read in spied(contest / "check-logs", contest / "entries" / "a"):
        assert_only_its_own(read, contest / "entries" / "a")


def test_play_from_a_contest_folder_shows_the_bot_its_own_folder_alone(contest: Path) -> None:
    assert main(["play", "limit-nim", f"{PY} entries/a/spy.py", f"{PY} entries/b/bot.py",
                 "--log-dir", "play-logs"]) == 0
    for read in spied(contest / "play-logs", contest / "entries" / "a"):
        assert_only_its_own(read, contest / "entries" / "a")


def test_match_from_a_contest_folder_shows_the_bot_its_own_folder_alone(contest: Path) -> None:
    assert main(["match", "limit-nim", f"{PY} entries/a/spy.py", f"{PY} entries/b/bot.py", "--games", "2",
                 "--quiet"]) == 0
    reads = spied(contest / "results" / "match-spy-vs-bot" / "logs", contest / "entries" / "a")
    assert len(reads) == 2
    for read in reads:
        assert_only_its_own(read, contest / "entries" / "a")


def test_sprt_from_a_contest_folder_shows_the_bot_its_own_folder_alone(contest: Path) -> None:
    status = main(["sprt", "limit-nim", f"{PY} entries/a/spy.py", f"{PY} entries/b/bot.py", "--max-games", "2",
                   "--quiet"])
    assert status in (0, 1, 4)  # decided or inconclusive: no fault, no error
    for read in spied(contest / "results" / "sprt" / "logs", contest / "entries" / "a"):
        assert_only_its_own(read, contest / "entries" / "a")


def test_two_entrants_whose_programs_share_a_name_each_see_their_own_folder(contest: Path) -> None:
    """`entries/a/bot.py` against `entries/b/bot.py`: neither's folder is covered in its own box
    (seat 0 used to crash at start and be blamed), and neither sees the other's."""
    for name in "ab":
        shutil.copy(SPY, contest / "entries" / name / "bot.py")
    assert main(["play", "limit-nim", f"{PY} entries/a/bot.py", f"{PY} entries/b/bot.py",
                 "--log-dir", "play-logs", "--json", "game.json"]) == 0
    record = json.loads((contest / "game.json").read_text())
    assert record["termination"] == "normal" and record["sandboxed"] == [True, True], record
    for seat, name in enumerate("ab"):
        logs = [log for log in (contest / "play-logs").glob(f"*-seat{seat}-*.log")]
        assert len(logs) == 1
        read = _read_of(logs[0])
        own = contest / "entries" / name
        assert sorted(read) == sorted(str(path) for path in own.iterdir() if path.is_file()), read


def _read_of(log: Path) -> list[str]:
    lines = log.read_text().splitlines()
    assert any(line.startswith("SPY done") for line in lines), lines
    return [line.split(" ", 2)[2] for line in lines if line.startswith("SPY read ")]
