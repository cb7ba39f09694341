"""Standings from records: counts, points, faults, timings and ratings on hand-computed cases."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arbiter.tournament.tally import tally_of
from arbiter.cli.match import MatchProgress
from arbiter.records import GameRecord
from arbiter.reports.standings import compute_standings, format_standings, pairing_estimate
from arbiter.stats import pairing_elo
from arbiter.tournament.config import SprtSettings
from arbiter.tournament.sprt import SprtTest

from tournament_helpers import ROOT, write_config


def record(a: str, b: str, winner: int | None, *, termination: str = "normal", offender: int | None = None,
           times: tuple[float, ...] = (10.0, 20.0), **fields: Any) -> GameRecord:
    """A record of a game of a and b as read from games.jsonl, with `fields` (points, round...) added."""
    moves = [{"seat": i % 2, "move": "x", "wall_ms": t, "cpu_ms": t, "forced": False} for i, t in enumerate(times)]
    return GameRecord.from_json({"game": "limit-nim", "names": [a, b], "winner": winner, "termination": termination,
                                 "offender": offender, "moves": moves, "scores": [0, 0], **fields})


def test_three_wins_in_four_is_400_log10_3_elo_apart() -> None:
    games = [record("a", "b", 0), record("b", "a", 1), record("a", "b", 0), record("b", "a", 0)]
    standings = compute_standings(games)
    first, second = standings.players
    assert (first.name, first.wins, first.losses, first.points, first.score_pct) == ("a", 3, 1, 3.0, 75.0)
    # Two players: each row shows its Elo over the other, the head-to-head figure.
    assert first.rating == pytest.approx(400 * math.log10(3)) and second.rating == -first.rating
    assert standings.head_to_head is not None
    assert standings.head_to_head.elo == pytest.approx(400 * math.log10(3), rel=1e-6)
    assert standings.crosstable == {"a": {"b": 3.0}, "b": {"a": 1.0}}


def test_anchor_rates_the_named_player_zero() -> None:
    games = [record("a", "b", 0), record("b", "a", 1), record("a", "b", 0), record("b", "a", 0)]
    standings = compute_standings(games, anchor="b")
    ratings = {row.name: row.rating for row in standings.players}
    assert ratings["b"] == 0 and ratings["a"] == pytest.approx(400 * math.log10(3))


def test_faults_draws_and_move_times_are_counted_per_player() -> None:
    games = [
        record("a", "b", None, times=(5.0, 7.0, 9.0)),
        record("a", "b", 1, termination="timeout", offender=0, times=(40.0,)),
        record("b", "a", 0, termination="illegal", offender=1, times=(1.0, 2.0)),
    ]
    rows = {row.name: row for row in compute_standings(games).players}
    a, b = rows["a"], rows["b"]
    assert (a.wins, a.draws, a.losses, a.points) == (0, 1, 2, 0.5)
    assert (b.wins, b.draws, b.losses, b.points) == (2, 1, 0, 2.5)
    assert a.faults["timeout"] == 1 and a.faults["illegal"] == 1 and b.fault_total == 0
    # a moved at 5, 9 (seat 0 of game 1), 40 (game 2), 2 (seat 1 of game 3)
    assert a.move_count == 4 and a.avg_move_ms == pytest.approx(14.0) and a.max_move_ms == 40.0
    assert "1 timeout, 1 illegal" in format_standings(compute_standings(games))


def test_scoring_points_stored_in_records_are_used() -> None:
    game = record("a", "b", 0, points=[3, 0])
    rows = {row.name: row for row in compute_standings([game]).players}
    assert rows["a"].points == 3 and rows["b"].points == 0


def test_report_regenerated_from_games_jsonl_matches_the_one_printed_at_the_end(tmp_path: Path) -> None:
    body = (f"game: limit-nim\nparams: {{piles: '4/3,3/2'}}\ngames_per_pairing: 2\nconcurrency: 2\n"
            f"openings: {{random_moves: 1, seed: 2}}\nplayers:\n"
            f"  - {{name: r1, command: python {ROOT}/players/random_bot.py --seed 1}}\n"
            f"  - {{name: r2, command: python {ROOT}/players/random_bot.py --seed 2}}\n"
            f"  - {{name: r3, command: python {ROOT}/players/random_bot.py --seed 3}}\n")
    path = write_config(tmp_path, body)
    run = subprocess.run([sys.executable, "-m", "arbiter", "run", str(path), "--quiet"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    report = subprocess.run([sys.executable, "-m", "arbiter", "report", str(tmp_path / "results")],
                            capture_output=True, text=True, timeout=60)
    assert report.returncode == 0, report.stderr
    printed = run.stdout.split("Report: ")[0]
    assert printed == report.stdout
    assert (tmp_path / "results" / "standings.txt").read_text() == report.stdout
    assert (tmp_path / "results" / "report.html").exists()


def test_the_slowest_start_up_of_each_player_is_shown_and_old_records_have_none() -> None:
    games = [record("a", "b", 0, startup_ms=[120.4, 80.0]), record("b", "a", 1, startup_ms=[95.0, 310.6]),
             record("a", "c", 0, startup_ms=[None, 5.0]), record("c", "b", 0)]
    rows = {row.name: row for row in compute_standings(games).players}
    assert (rows["a"].max_startup_ms, rows["b"].max_startup_ms, rows["c"].max_startup_ms) == (310.6, 95.0, 5.0)
    assert compute_standings([record("a", "b", 0)]).players[0].max_startup_ms is None  # from before it was kept
    text = format_standings(compute_standings(games))
    assert "max start-up ms" in text and "311" in text


def paired(a: str, b: str, round_no: int, winners: tuple[int | None, int | None]) -> list[GameRecord]:
    """One opening played twice by a and b, the seats swapped; `winners` are the seats that won."""
    def points(winner: int | None) -> list[float]:
        return [0.5, 0.5] if winner is None else [float(winner == 0), float(winner == 1)]
    return [record(a, b, winners[0], round=round_no, opening=["1"], points=points(winners[0])),
            record(b, a, winners[1], round=round_no, opening=["1"], points=points(winners[1]))]


def test_two_players_show_one_elo_figure_of_the_first_listed_over_the_second() -> None:
    # b wins three pairs outright, a one; listed a first: every figure is a's Elo over b.
    games = paired("a", "b", 1, (1, 0)) + paired("a", "b", 2, (1, 0)) + paired("a", "b", 3, (0, None)) \
        + paired("a", "b", 4, (1, 0))
    standings = compute_standings(games, players=["a", "b"])
    head = standings.head_to_head
    assert standings.pairing == ("a", "b") and head is not None
    assert head == pairing_elo([[0.0, 0.0], [0.0, 0.0], [1.0, 0.5], [0.0, 0.0]])
    assert head.interval == "pentanomial" and head.elo < 0
    rows = {row.name: row for row in standings.players}
    assert (rows["a"].rating, rows["a"].rating_low, rows["a"].rating_high) == (head.elo, head.low, head.high)
    assert (rows["b"].rating, rows["b"].rating_low, rows["b"].rating_high) == (-head.elo, -head.high, -head.low)
    text = format_standings(standings)
    assert f"a vs b: Elo of a over b {head.text()} (95% interval, pentanomial)" in text
    assert "Elo over the other [95%]" in text and text.count(head.text()) == 2  # a's row and the line


def test_the_head_to_head_figure_is_the_running_match_lines_and_the_sprts(tmp_path: Path) -> None:
    games = paired("cand", "base", 1, (0, 1)) + paired("cand", "base", 2, (None, 0)) + paired("cand", "base", 3, (1, 0))
    standings = compute_standings(games, players=["cand", "base"])
    progress = MatchProgress("cand", "base", quiet=True)
    progress.start(6, tally_of(games))
    test = SprtTest(SprtSettings(elo0=0, elo1=50), "cand", "base")
    for game in games:
        test.add(game)
    assert standings.head_to_head == pairing_estimate(games, "cand", "base") == test.elo()
    assert f"Elo {test.elo().text()} (pentanomial)" in progress.score_line()
    assert f"Elo {test.elo().text()}  " in test.status_line()


def test_an_anchored_player_of_two_stays_at_zero_and_the_other_shows_the_pairing_figure() -> None:
    games = paired("a", "b", 1, (0, 1)) + paired("a", "b", 2, (0, 0))
    standings = compute_standings(games, players=["a", "b"], anchor="b")
    rows = {row.name: row for row in standings.players}
    assert rows["b"].rating == 0 and rows["a"].rating == standings.head_to_head.elo


def test_a_void_game_counts_for_no_one_and_is_counted_apart() -> None:
    games = [record("a", "b", 0), record("b", "a", 1),
             record("a", "b", None, termination="void", detail="the worker playing this game was killed by SIGSEGV")]
    standings = compute_standings(games)
    assert (standings.games, standings.faults, standings.void) == (2, 0, 1)
    first, second = standings.players
    assert (first.name, first.games, first.wins, first.draws, first.points, first.void) == ("a", 2, 2, 0, 2.0, 1)
    assert (second.games, second.losses, second.void) == (2, 2, 1)
    assert standings.crosstable == {"a": {"b": 2.0}, "b": {"a": 0.0}}
    assert standings.head_to_head == compute_standings(games[:2]).head_to_head  # the ratings do not see it
    assert "2 games, 0 ended by a fault. 1 more game void (a: 1, b: 1), counted for no one" in format_standings(standings)


def test_a_match_score_line_shows_void_games_beside_the_wins_draws_and_losses() -> None:
    progress = MatchProgress("a", "b", quiet=True)
    progress.start(2, tally_of([record("a", "b", 0, id="001-a-b", round=1),
                                record("a", "b", None, termination="void", id="002-a-b", round=1)]))
    assert progress.score_line().startswith("a vs b: +1 =0 -0 (1 void), ")
