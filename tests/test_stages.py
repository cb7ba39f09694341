"""A tournament in stages, CodeCup's way: Swiss rounds, then the top players' double round robin,
and the final ranking with its stated tie-breaks (arbiter/tournament/stages.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.errors import UsageError
from arbiter.records import GameRecord
from arbiter.reports.results import report_results
from arbiter.tournament.config import load_config
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import Interrupted, TournamentRunner, prepare_results
from arbiter.tournament.schedule import planned_games
from arbiter.tournament.stages import final_ranking, finalists, swiss_ranking

from tournament_helpers import StopAfter, fake_play, write_config

NAMES = ("a", "b", "c", "d", "e", "f", "g")
BODY = ("game: limit-nim\nformat: swiss\nrounds: 3\nfinal: {top: 4}\nconcurrency: 2\nplayers:\n"
        + "".join(f'  - {{name: {name}, command: "true"}}\n' for name in NAMES))


def game(round_no: int, first: str, second: str, points: tuple[float, float]) -> GameRecord:
    """A two-seat record of round `round_no` in which the seats took `points`."""
    winner = None if points[0] == points[1] else (0 if points[0] > points[1] else 1)
    return GameRecord.from_json({"game": "limit-nim", "names": [first, second], "winner": winner, "round": round_no,
                                 "termination": "normal", "offender": None, "moves": [], "scores": [0, 0],
                                 "points": list(points), "id": f"{round_no}-{first}-{second}"})


def run(path: Path, progress: Progress | None = None):
    config = load_config(path)
    return TournamentRunner(config, prepare_results(config, fresh=False), progress or Progress(quiet=True, tty=False),
                            play=fake_play).run()


def test_the_swiss_ranking_is_points_then_buchholz_then_the_configs_order():
    records = [game(1, "a", "b", (1, 0)), game(1, "c", "d", (1, 0)),
               game(2, "a", "c", (0, 1)), game(2, "b", "d", (1, 0))]
    # c 2 points; a and b 1 each: a met c (2) and b (1): 3, b met a (1) and d (0): 1; d 0.
    assert swiss_ranking(records, ["d", "b", "a", "c"], 2) == [("c", 2, 1), ("a", 1, 3), ("b", 1, 1), ("d", 0, 3)]
    # Level on points and Buchholz: the config's order decides.
    level = [game(1, "a", "b", (0.5, 0.5))]
    assert [name for name, _, _ in swiss_ranking(level, ["b", "a"], 1)] == ["b", "a"]
    assert finalists(records, ["d", "b", "a", "c"], 2, 2) == ["c", "a"]


def test_the_final_ranks_finalists_by_final_points_then_among_the_tied_then_swiss_rank():
    swiss = [game(1, "a", "b", (1, 0)), game(1, "c", "d", (1, 0)), game(1, "e", "f", (1, 0))]
    # Swiss: a, c, e on 1 point (Buchholz 0 each: config order a, c, e), then b, d, f.
    final = [game(2, "a", "c", (0, 1)), game(2, "c", "a", (0, 1)),  # a and c split: 1 each among themselves
             game(2, "a", "e", (1, 0)), game(2, "e", "a", (0.5, 0.5)),
             game(2, "c", "e", (1, 0)), game(2, "e", "c", (0.5, 0.5))]
    lines = final_ranking(swiss + final, list("abcdef"), rounds=1, top=3)
    assert [(line.rank, line.name, line.stage) for line in lines] == [
        (1, "a", "final"), (2, "c", "final"), (3, "e", "final"), (4, "b", "swiss"), (5, "d", "swiss"),
        (6, "f", "swiss")]
    a, c, e = lines[:3]
    assert (a.points, c.points, e.points) == (2.5, 2.5, 1.0)
    assert (a.among_tied, c.among_tied, e.among_tied) == (1.0, 1.0, None)  # level among themselves: Swiss rank
    assert (a.swiss_rank, c.swiss_rank) == (1, 2)


def test_a_swiss_tournament_with_a_final_plays_the_top_of_the_swiss_ranking(tmp_path):
    config = load_config(write_config(tmp_path, BODY))
    outcome = run(write_config(tmp_path, BODY))
    swiss = [r for r in outcome.records if r.round <= 3]
    final = [r for r in outcome.records if r.round == 4]
    chosen = finalists(swiss, list(NAMES), 3, 4)
    assert len(swiss) == 3 * (7 // 2) * 2
    assert len(final) == 6 * 2  # every pair of the four, twice with the seats swapped
    assert {frozenset(r.seat_names()) for r in final} == {frozenset((x, y)) for x in chosen for y in chosen if x < y}
    assert all(r.id.startswith("final-o1-") for r in final)
    assert outcome.planned == planned_games(config) == len(outcome.records)


@pytest.mark.parametrize("stop_after", [5, 20])  # in the Swiss rounds, in the final
def test_a_run_stopped_in_either_stage_resumes_to_the_same_tournament(tmp_path, stop_after):
    whole_dir, stopped_dir = tmp_path / "whole", tmp_path / "stopped"
    whole_dir.mkdir(), stopped_dir.mkdir()
    whole = run(write_config(whole_dir, BODY))
    path = write_config(stopped_dir, BODY)
    with pytest.raises(Interrupted):
        run(path, StopAfter(stop_after))
    resumed = run(path)
    assert resumed.played_now == len(whole.records) - stop_after
    assert sorted((r.id, tuple(r.scores)) for r in resumed.records) == sorted((r.id, tuple(r.scores))
                                                                            for r in whole.records)


def test_the_standings_and_summary_give_the_rounds_and_the_final_ranking(tmp_path):
    run(write_config(tmp_path, BODY))
    text = report_results(tmp_path / "results")
    assert text.startswith("Final ranking: the top 4 of the Swiss ranking played the final")
    assert "\nround 1: " in text and "\nround 3: " in text and "\nfinal: " in text
    summary = json.loads((tmp_path / "results" / "summary.json").read_text())
    assert [line["stage"] for line in summary["ranking"]] == ["final"] * 4 + ["swiss"] * 3
    assert [line["rank"] for line in summary["ranking"]] == list(range(1, 8))
    assert [r["round"] for r in summary["rounds"]] == [1, 2, 3, 4]
    assert all(len(r["out"]) == 1 for r in summary["rounds"][:3])  # seven players: one sits out each round


@pytest.mark.parametrize(("final", "message"), [
    ("{top: 9}", "final.top: 9 is not allowed: the final takes from 2 players"),
    ("{top: 4, games_per_pairing: 3}", "final.games_per_pairing: 3 is not allowed"),
    ("{players: 4}", "final.players: unknown key 'players'; keys here are: top, games_per_pairing"),
])
def test_a_bad_final_is_refused_naming_its_key(tmp_path, final, message):
    with pytest.raises(UsageError, match=message):
        load_config(write_config(tmp_path, BODY.replace("final: {top: 4}", f"final: {final}")))


def test_a_final_needs_the_swiss_format(tmp_path):
    body = BODY.replace("format: swiss\nrounds: 3\n", "")
    with pytest.raises(UsageError, match="final: only applies to format: swiss, not round-robin"):
        load_config(write_config(tmp_path, body))
