"""Schedules: every pairing, seats balanced, openings played twice with seats swapped, stable ids."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from arbiter.tournament.config import load_config
from arbiter.tournament.schedule import fixed_schedule, planned_games, swiss_round

from tournament_helpers import write_config

PLAYERS = """players:
  - {name: a, command: "true"}
  - {name: b, command: "true"}
  - {name: c, command: "true"}
  - {name: d, command: "true"}
"""


def config(tmp_path: Path, extra: str):
    return load_config(write_config(tmp_path, "game: dots-and-triangles\n" + extra + PLAYERS))


def test_round_robin_plays_every_pair_with_balanced_seats(tmp_path: Path) -> None:
    cfg = config(tmp_path, "games_per_pairing: 4\nopenings: {random_moves: 2, seed: 1}\n")
    games = fixed_schedule(cfg)
    assert len(games) == planned_games(cfg) == 6 * 4
    assert len({g.id for g in games}) == len(games)
    pairs = Counter(frozenset(g.seats) for g in games)
    assert set(pairs.values()) == {4} and len(pairs) == 6
    first_seat = Counter(g.seats[0] for g in games)
    assert set(first_seat.values()) == {6}  # each player moves first in half its games
    by_opening = Counter((frozenset(g.seats), g.opening) for g in games)
    assert set(by_opening.values()) == {2}  # each opening twice per pair ...
    swapped = {(g.seats, g.opening) for g in games}
    assert all(((b, a), o) in swapped for (a, b), o in swapped)  # ... with the seats swapped


def test_schedule_is_deterministic_and_openings_vary(tmp_path: Path) -> None:
    cfg = config(tmp_path, "games_per_pairing: 6\nopenings: {random_moves: 3, seed: 9}\n")
    assert fixed_schedule(cfg) == fixed_schedule(cfg)
    openings = {g.opening for g in fixed_schedule(cfg)}
    assert len(openings) == 3 and all(len(o) == 3 for o in openings)
    other_seed = config(tmp_path, "games_per_pairing: 6\nopenings: {random_moves: 3, seed: 10}\n")
    assert {g.opening for g in fixed_schedule(other_seed)} != openings


def test_gauntlet_pairs_candidate_with_each_other_player(tmp_path: Path) -> None:
    cfg = config(tmp_path, "format: gauntlet\ngauntlet: {candidate: c}\ngames_per_pairing: 2\n")
    games = fixed_schedule(cfg)
    assert Counter(frozenset(g.seats) for g in games) == {
        frozenset("ca"): 2, frozenset("cb"): 2, frozenset("cd"): 2}


def test_swiss_pairs_by_score_without_repeats(tmp_path: Path) -> None:
    cfg = config(tmp_path, "format: swiss\nrounds: 3\n")
    round1, bye = swiss_round(cfg, 1, {}, set(), set())
    assert bye == [] and {frozenset(g.seats) for g in round1} == {frozenset("ab"), frozenset("cd")}
    # after round 1, a and c lead: they meet; b and d meet
    points = {"a": 2.0, "c": 2.0, "b": 0.0, "d": 0.0}
    met = {frozenset("ab"), frozenset("cd")}
    round2, _ = swiss_round(cfg, 2, points, met, set())
    assert {frozenset(g.seats) for g in round2} == {frozenset("ac"), frozenset("bd")}
    # leaders a and c have met, so a meets the best player it has not met
    met |= {frozenset("ac"), frozenset("bd")}
    round3, _ = swiss_round(cfg, 3, {"a": 4, "c": 3, "b": 1, "d": 0}, met, set())
    assert {frozenset(g.seats) for g in round3} == {frozenset("ad"), frozenset("bc")}


def test_swiss_odd_field_gives_byes_in_turn(tmp_path: Path) -> None:
    cfg = load_config(write_config(tmp_path, "game: limit-nim\nformat: swiss\nrounds: 2\n" + PLAYERS
                                   + '  - {name: e, command: "true"}\n'))
    _, bye1 = swiss_round(cfg, 1, {}, set(), set())
    _, bye2 = swiss_round(cfg, 2, {}, set(), set(bye1))
    assert bye1 == ["e"] and bye2 == ["d"]
