"""The aggregates (arbiter/tournament/tally.py) give what the full records give, to the last
digit printed: the standings text, summary.json's figures, the head-to-head and the SPRT."""
from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.records import Termination
from arbiter.reports.standings import compute_standings, format_standings, summary_json
from arbiter.tournament.store import GameStore
from arbiter.tournament.tally import IdSet, Tally, tally_of

from reference_standings import full_standings
from report_samples import write_sample_sprt, write_sample_tournament

FOLDERS = {
    "round robin, 3 players": dict(players=("alpha", "beta", "gamma"), games_per_pairing=6),
    "two players": dict(players=("new", "old"), games_per_pairing=24, timeouts=3),
    "4 seats of 5 players": dict(players=("a", "b", "c", "d", "e"), seats=4, games_per_pairing=4,
                                 game_name="dots-and-boxes", params={"rows": 3, "cols": 3}),
    "8 players": dict(players=tuple("abcdefgh"), games_per_pairing=4, timeouts=5),
}


def _records(folder: Path):
    return GameStore(folder / "games.jsonl").load()


def _with_void(records, every: int = 7):
    """Some games made void, as a worker's death leaves them."""
    return [replace(r, termination=Termination.VOID, places=None, points=None, winner=None,
                    detail="the worker playing this game died") if k % every == 3 else r
            for k, r in enumerate(records)]


def _printed(standings) -> tuple[str, str]:
    meta = {"name": "t", "totals": {"planned": 1}}
    return format_standings(standings), json.dumps(summary_json(standings, meta), sort_keys=True)


@pytest.mark.parametrize("name", FOLDERS)
@pytest.mark.parametrize("void", [False, True])
def test_standings_from_the_tally_print_as_the_full_records_do(tmp_path: Path, name: str, void: bool) -> None:
    records = _records(write_sample_tournament(tmp_path / "f", **FOLDERS[name]))
    if void:
        records = _with_void(records)
    players = list(FOLDERS[name]["players"])
    assert _printed(compute_standings(records, players=players)) == _printed(full_standings(records, players=players))


@pytest.mark.parametrize("name", FOLDERS)
def test_a_tally_read_back_from_json_gives_the_same_standings(tmp_path: Path, name: str) -> None:
    records = _records(write_sample_tournament(tmp_path / "f", **FOLDERS[name]))
    tally = tally_of(records)
    again = Tally.from_json(json.loads(json.dumps(tally.to_json())))
    from arbiter.reports.standings import standings_from_tally
    players = list(FOLDERS[name]["players"])
    assert _printed(standings_from_tally(again, players=players)) == _printed(full_standings(records, players=players))


def test_records_in_another_order_print_as_the_full_records_in_that_order(tmp_path: Path) -> None:
    records = _records(write_sample_tournament(tmp_path / "f", **FOLDERS["8 players"]))
    shuffled = list(records)
    random.Random(4).shuffle(shuffled)
    players = list(FOLDERS["8 players"]["players"])
    assert _printed(compute_standings(shuffled, players=players)) == _printed(full_standings(shuffled, players=players))


@pytest.mark.parametrize("change", ["a pair left open", "a group of three", "no rounds"])
def test_the_head_to_head_falls_back_to_win_draw_loss_as_the_full_records_do(tmp_path: Path, change: str) -> None:
    records = _records(write_sample_sprt(tmp_path / "s", pairs=10))
    if change == "a pair left open":
        records = records[:-1]
    elif change == "a group of three":
        records = records + [replace(records[0], id="extra")]
    else:
        records = [replace(r, round=None) for r in records]
    ours, theirs = compute_standings(records, players=["new", "old"]), full_standings(records, players=["new", "old"])
    assert ours.head_to_head.interval == theirs.head_to_head.interval
    assert _printed(ours) == _printed(theirs)


def test_game_ids_are_kept_as_hashes_and_found_again() -> None:
    ids = IdSet()
    for k in range(1000):
        ids.add(f"r{k}")
    hashes = ids.folded()
    kept = IdSet(lambda: hashes)
    assert "r999" in kept and "r0" in kept and "r1000" not in kept and len(kept) == 1000
    kept.add("new")
    assert "new" in kept and kept.holds_each(["r5", "new", "nope"]) == [True, True, False]
    assert list(kept.folded()) == sorted(kept.folded()) and len(kept.folded()) == 1001


@pytest.mark.parametrize("void_pair", [False, True])
def test_the_sprt_from_its_pentanomial_prints_as_from_every_pairs_scores(tmp_path: Path, void_pair: bool) -> None:
    """The SPRT keeps counts, not its pairs: its Elo and status line are those of `pairing_elo`
    over every counted pair's scores, as it computed them when it kept each pair."""
    from arbiter.stats import pairing_elo
    from arbiter.tournament.config import SprtSettings
    from arbiter.tournament.sprt import SprtTest, candidate_points
    records = _records(write_sample_sprt(tmp_path / "s", pairs=12))
    if void_pair:
        records[4] = replace(records[4], termination=Termination.VOID, places=None, points=None, winner=None)
    test = SprtTest(SprtSettings(elo0=0, elo1=50, max_games=100), "new", "old")
    pairs: dict[int, list[float | None]] = {}
    for record in records:
        test.add(record)
        pairs.setdefault(record.round, []).append(
            None if record.termination.is_void else candidate_points(record, "new"))
    counted = [scores for _, scores in sorted(pairs.items()) if None not in scores]
    assert test.pairs_counted == len(counted) and test.pairs_void == (1 if void_pair else 0)
    assert test.elo() == pairing_elo(counted)
    assert test.elo().text() in test.status_line()
