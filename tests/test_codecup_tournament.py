"""The CodeCup Sudoku sample players in a round robin: outcomes and points as the contest's table."""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from arbiter.tournament.config import load_config
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import run_tournament

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "codecup-sudoku.yaml"
# outcome name -> (points of the seat that ended the game, points of the other)
POINTS = {"WIN": (2, 1), "LOSE": (0, 2), "NO_SOLUTIONS_LEFT": (1, 2), "NO_SOLUTION_DECREASED": (1, 2),
          "ILLEGAL": (0, 2), "TIMEOUT": (1, 2), "EXIT": (0, 2)}


def test_round_robin_of_the_sample_players_scores_game_points(tmp_path: Path) -> None:
    config = load_config(CONFIG)
    assert config.scoring.game_points and all(p.dialect == "codecup" for p in config.players)
    config = replace(config, games_per_pairing=2, results_dir=tmp_path / "sudoku")
    outcome = run_tournament(config, Progress(quiet=True, tty=False))
    assert len(outcome.records) == 6
    for record in outcome.records:
        assert record.termination == "normal", record.detail
        match = re.fullmatch(r"seat (\d) ([A-Z_]+) \(.*\)", record.outcome)
        assert match, record.outcome
        ender, name = int(match[1]), match[2]
        expected = [0, 0]
        expected[ender], expected[1 - ender] = POINTS[name]
        assert record.scores == expected and record.points == expected
        assert record.winner == (0 if expected[0] > expected[1] else 1)
