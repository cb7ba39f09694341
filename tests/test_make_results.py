"""benchmarks/make_results.py: a made results folder is one that `arbiter report` reads and
`arbiter run` resumes, playing only the games it lacks (issue 40's readers benchmark)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.tournament.config import load_config
from arbiter.tournament.schedule import fixed_schedule

ROOT = Path(__file__).resolve().parent.parent
MADE = 60


def make(config: Path, games: int, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "make_results.py"), str(config), str(games),
                           str(out)], capture_output=True, text=True, timeout=120)


@pytest.fixture
def made(tmp_path: Path) -> tuple[Path, Path]:
    """A folder of 60 games of a three-player round robin, unboxed; (the folder, its run config)."""
    config = tmp_path / "tiny.yaml"
    config.write_text(
        "name: tiny\ngame: dots-and-triangles\nparams: {rows: 4}\nformat: round-robin\ngames_per_pairing: 2\n"
        "openings: {random_moves: 2, seed: 5}\nconcurrency: 2\nsandbox: off\nplayers:\n"
        + "".join(f"  - {{name: r{n}, command: python {ROOT}/players/random_bot.py --seed {n}}}\n" for n in (1, 2, 3)))
    out = tmp_path / "made"
    result = make(config, MADE, out)
    assert result.returncode == 0, result.stderr
    return out, tmp_path / "made.yaml"


def test_a_made_folder_is_read_whole_by_arbiter_report(made: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out, run_config = made
    assert main(["report", str(out)]) == 0  # every record replays to its result (tournament/audit.py)
    assert f"{MADE} games, 0 ended by a fault." in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["totals"]["played"] == MADE
    # In schedule order, with the schedule's ids, rounds, openings and seats.
    scheduled = fixed_schedule(load_config(run_config))[:MADE]
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert [(r["id"], r["round"], tuple(r["opening"]), tuple(r["names"])) for r in records] == \
        [(g.id, g.round, g.opening, g.seats) for g in scheduled]
    assert all([m["move"] for m in r["moves"] if m["forced"]] == r["opening"] for r in records)


def test_arbiter_run_resumes_a_made_folder_and_plays_only_the_games_it_lacks(
        made: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out, run_config = made
    planned = len(fixed_schedule(load_config(run_config)))
    assert MADE < planned <= MADE + 6  # the schedule is raised just past the made games: one round more
    before = (out / "games.jsonl").read_bytes()
    assert main(["run", str(run_config)]) == 0
    printed = capsys.readouterr()
    assert f"resuming: {MADE} of {planned} games already recorded" in printed.err + printed.out
    after = (out / "games.jsonl").read_bytes()
    assert after.startswith(before)  # the made records kept as they were
    assert len(after.splitlines()) == planned


def test_a_folder_that_is_not_empty_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine\n")
    result = make(ROOT / "benchmarks" / "million.yaml", 10, tmp_path / "out")
    assert result.returncode == 2 and "exists and is not empty" in result.stderr
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine\n"
