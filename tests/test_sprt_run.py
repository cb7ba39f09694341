"""Whole release checks with real bot processes: the exit code says what was decided.

Kept short: few games, two at a time, small time budgets.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.tournament.config import load_config
from arbiter.tournament.sprt import SprtProgress, run_sprt

from tournament_helpers import ROOT, write_config

PYTHON = sys.executable
PERFECT = f"{PYTHON} {ROOT / 'players' / 'perfect_dp.py'}"
RANDOM = f"{PYTHON} {ROOT / 'players' / 'random_bot.py'}"
CRASHER = ROOT / "tests" / "bots" / "sprt_crash_in_game_3.py"


def sprt(tmp_path: Path, candidate: str, baseline: str, *flags: str) -> list[str]:
    return ["sprt", "--game", "dots-and-triangles", "-p", "rows=4", "--candidate", candidate, "--baseline", baseline,
            "--concurrency", "2", "--time-ms", "10000", "--results", str(tmp_path / "r"), *flags]


def test_perfect_play_is_accepted_as_better_than_random_within_a_few_dozen_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(sprt(tmp_path, PERFECT, RANDOM, "--elo0", "0", "--elo1", "100", "--max-games", "60"))
    out = capsys.readouterr().out
    assert code == 0, out
    games = int(re.search(r"Verdict: H1 accepted after (\d+) games", out).group(1))
    assert games <= 40
    recorded = (tmp_path / "r" / "games.jsonl").read_text().splitlines()
    assert games <= len(recorded) <= games + 1  # at most one game finished past the verdict


def test_random_against_itself_is_not_accepted_and_stops_at_max_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(sprt(tmp_path, RANDOM, RANDOM, "--elo0", "0", "--elo1", "20", "--max-games", "16"))
    out = capsys.readouterr().out
    assert code == 4, out
    assert "Verdict: inconclusive after 16 games (max games 16)" in out
    assert len((tmp_path / "r" / "games.jsonl").read_text().splitlines()) == 16
    # One Elo figure for the pairing: the head-to-head line, the SPRT's line, the candidate's row.
    figures = re.findall(r"Elo of (\S+) over (\S+) ([+-]\d+ \[\S+, \S+\])", out)
    assert len(figures) == 2 and figures[0] == figures[1], out
    candidate, _, figure = figures[0]
    row = next(line for line in out.splitlines() if re.match(rf"\d+\s+{candidate}\s", line))
    assert figure in row, out


def test_a_candidate_that_crashes_in_game_3_fails_with_exit_3(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # The crasher counts its games in a folder on disk, unboxed: boxed, each of its games at once
    # would work on a copy of its write folder (docs/security.md, Write folders).
    (tmp_path / "counter").mkdir()
    path = write_config(tmp_path, f"""game: dots-and-triangles
params: {{rows: 4}}
format: sprt
concurrency: 2
time: {{time_ms: 10000}}
candidate: {{name: crasher, command: [{PYTHON}, {CRASHER}], env: {{GAME_COUNTER: {tmp_path / 'counter'}}},
            sandbox: off}}
baseline: {{name: random, command: [{PYTHON}, {ROOT / 'players' / 'random_bot.py'}]}}
sprt: {{elo0: 0, elo1: 20, max_games: 40}}
""")
    code = main(["run", str(path)])
    out = capsys.readouterr().out
    assert code == 3, out
    records = [json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]
    crashes = [r for r in records if r["termination"] == "crash"]
    assert len(crashes) == 1 and crashes[0]["names"][crashes[0]["offender"]] == "crasher"
    assert f"Verdict: FAILED: crasher faulted (crash in game {crashes[0]['id']}" in out
    assert len(records) <= 4  # stopped at the fault: pair 2 was the last one started


def test_the_bundled_example_runs_cut_down_to_a_few_games(tmp_path: Path) -> None:
    config = load_config(ROOT / "configs" / "sprt-example.yaml")
    assert config.sprt is not None
    config = replace(config, sprt=replace(config.sprt, max_games=4), results_dir=tmp_path / config.name)
    outcome = run_sprt(config, SprtProgress(quiet=True, tty=False))
    assert outcome.test.games_recorded == 4
    assert len(outcome.test.candidate_faults) == len(outcome.test.baseline_faults) == 0
    assert not outcome.logs.problem and outcome.logs.logs_scanned == 4
    assert outcome.test.verdict == "inconclusive" and outcome.exit_code == 4
