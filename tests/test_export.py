"""`arbiter export`: each entrant's folder holds its own games and its own logs alone, each log cut
as the contest cuts it, and nothing another entrant wrote (issue 39, Each entrant's own view)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("ann", "bob", "cid")


def arbiter(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arbiter", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A round robin of three chatty bots (two games a pairing): each writes its secret, 30,000
    characters of it, on stderr before it plays at random."""
    folder = tmp_path_factory.mktemp("contest")
    (folder / "chatty.py").write_text(
        "import os, runpy, sys\n"
        "sys.stderr.write(('SECRET-' + sys.argv[1] + ' ') * 2500)\nsys.stderr.flush()\n"
        f"sys.argv = [{str(ROOT / 'players' / 'random_bot.py')!r}]\n"
        f"runpy.run_path({str(ROOT / 'players' / 'random_bot.py')!r}, run_name='__main__')\n")
    players = "".join(f"  - {{name: {name}, command: \"{sys.executable} {folder / 'chatty.py'} {name}\"}}\n"
                      for name in NAMES)
    (folder / "c.yaml").write_text("name: c\ngame: limit-nim\nformat: round-robin\ngames_per_pairing: 2\n"
                                   f"sandbox: off\nplayers:\n{players}")
    done = arbiter("run", "c.yaml", "--quiet", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder


def test_each_entrant_gets_its_own_games_and_logs_and_nothing_of_the_others(contest):
    before = {path: path.stat().st_mtime_ns for path in (contest / "results" / "c").rglob("*")}
    done = arbiter("export", "results/c", "--log-chars", "1000", cwd=contest)
    assert done.returncode == 0, done.stderr
    assert {path: path.stat().st_mtime_ns for path in (contest / "results" / "c").rglob("*")} == before  # read only
    for name in NAMES:
        folder = contest / "results" / "c-entrants" / name
        records = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
        assert len(records) == 4  # two games against each of the two others
        for record in records:
            seat = record["names"].index(name)
            assert all(log is None for other, log in enumerate(record["logs"]) if other != seat)
            assert record["logs"][seat] == f"logs/{Path(record['logs'][seat]).name}"
        logs = sorted((folder / "logs").iterdir())
        assert len(logs) == 4 and all(log.name.endswith(f"-{name}.log") for log in logs)
        for log in logs:
            text = log.read_text()
            assert text.startswith(f"SECRET-{name} ")
            assert f"the first 1,000 characters of {len(f'SECRET-{name} ') * 2500:,} are shown" in text
            assert len(text) < 1100
        others = [other for other in NAMES if other != name]
        for path in folder.rglob("*"):
            if path.is_file():
                assert not any(f"SECRET-{other}" in path.read_text() for other in others), path
        assert "report.html" in {path.name for path in folder.iterdir()}


def test_export_of_one_player_and_an_unknown_one(contest):
    done = arbiter("export", "results/c", "--player", "bob", "--to", "out", cwd=contest)
    assert done.returncode == 0, done.stderr
    assert [path.name for path in (contest / "out").iterdir()] == ["bob"]
    unknown = arbiter("export", "results/c", "--player", "zed", "--to", "out2", cwd=contest)
    assert unknown.returncode == 2
    assert "--player 'zed' is not a player of this tournament; players: ann, bob, cid" in unknown.stderr
    assert not (contest / "out2").exists()
