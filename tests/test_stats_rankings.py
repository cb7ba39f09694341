"""Plackett-Luce ratings from rankings (games of any number of seats), checked by hand, by an
independent slow maximiser written here, and against Bradley-Terry on two-seat games."""
from __future__ import annotations

import itertools
import math
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter import stats
from arbiter.stats import Z95, Rating, bradley_terry, plackett_luce

ELO_PER_NAT = 400 / math.log(10)


def order(*names: str) -> dict[str, int]:
    """A ranking without ties: the first name placed 1st, the next 2nd, ..."""
    return {name: place for place, name in enumerate(names, 1)}


# --- an independent maximiser: every tie expanded into its orders, a pattern search ---------------


def log_likelihood(theta: dict[str, float], rankings: list[dict[str, int]]) -> float:
    """The Plackett-Luce log-likelihood written from its definition: each ranking is the mean
    over every order of its tied players of the log-probability of choosing in that order."""
    total = 0.0
    for ranking in rankings:
        blocks = [sorted(n for n in ranking if ranking[n] == p) for p in sorted(set(ranking.values()))]
        orders = [sum(parts, []) for parts in itertools.product(
            *[[list(p) for p in itertools.permutations(block)] for block in blocks])]
        for names in orders:
            value = 0.0
            for k in range(len(names) - 1):
                value += theta[names[k]] - math.log(sum(math.exp(theta[n]) for n in names[k:]))
            total += value / len(orders)
    return total


def slow_maximum(players: list[str], rankings: list[dict[str, int]]) -> dict[str, float]:
    """Coordinate pattern search on the log-likelihood (strengths in natural units, mean 0)."""
    theta = {p: 0.0 for p in players}
    best = log_likelihood(theta, rankings)
    step = 1.0
    while step > 1e-9:
        improved = False
        for player in players:
            for sign in (1, -1):
                trial = dict(theta, **{player: theta[player] + sign * step})
                value = log_likelihood(trial, rankings)
                if value > best:
                    theta, best, improved = trial, value, True
                    break
        if not improved:
            step /= 2
    mean = sum(theta.values()) / len(theta)
    return {p: t - mean for p, t in theta.items()}


def numeric_information(players: list[str], rankings: list[dict[str, int]], theta: dict[str, float]) -> np.ndarray:
    """Minus the Hessian of the log-likelihood, by central differences."""
    h = 1e-4
    m = len(players)
    info = np.zeros((m, m))
    for i, j in itertools.product(range(m), repeat=2):
        def at(di: float, dj: float) -> float:
            shifted = dict(theta)
            shifted[players[i]] += di
            shifted[players[j]] += dj
            return log_likelihood(shifted, rankings)
        info[i, j] = -(at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4 * h * h)
    return info


# --- by hand ------------------------------------------------------------------------------------


def test_two_seats_three_wins_one_loss_are_400_log10_3_apart() -> None:
    ratings = plackett_luce(["a", "b"], [order("a", "b")] * 3 + [order("b", "a")])
    assert ratings["a"].elo - ratings["b"].elo == pytest.approx(400 * math.log10(3))
    half_width = Z95 * math.sqrt(1 / 3) * ELO_PER_NAT  # as for Bradley-Terry (tests/test_stats.py)
    assert ratings["a"].high - ratings["a"].elo == pytest.approx(half_width)


def test_three_seats_by_hand() -> None:
    # a and b play symmetric parts, so theta_a = theta_b; with u = exp(theta_c - theta_a) the
    # log-likelihood is -4 ln(2 + u) - 2 ln(1 + u) + 2 ln u + const, whose maximum solves
    # 2u^2 + u - 2 = 0: u = (sqrt(17) - 1) / 4. With mean 0, c is at 2/3 of ln u.
    rankings = [order("a", "b", "c"), order("b", "a", "c"), order("c", "a", "b"), order("c", "b", "a")]
    ratings = plackett_luce(["a", "b", "c"], rankings)
    d = math.log((math.sqrt(17) - 1) / 4)
    assert ratings["c"].elo == pytest.approx(2 * d / 3 * ELO_PER_NAT)
    assert ratings["a"].elo == pytest.approx(ratings["b"].elo) == pytest.approx(-d / 3 * ELO_PER_NAT)


def test_a_cyclic_set_of_rankings_rates_everyone_equal() -> None:
    rankings = [order("a", "b", "c"), order("b", "c", "a"), order("c", "a", "b")]
    ratings = plackett_luce(["a", "b", "c"], rankings)
    assert [r.elo for r in ratings.values()] == pytest.approx([0, 0, 0], abs=1e-9)
    assert all(r.high > 0 for r in ratings.values())


def test_a_tie_counts_as_the_mean_of_its_orders() -> None:
    # Every ranking counted twice has the same maximum; a tie of a and b is then one game
    # with a ahead and one with b ahead.
    rest = [order("c", "a", "b"), order("b", "c", "a"), order("a", "c")]
    tied = plackett_luce(["a", "b", "c"], [{"a": 1, "b": 1, "c": 2}] + rest)
    spelled_out = plackett_luce(["a", "b", "c"], [order("a", "b", "c"), order("b", "a", "c")] + rest * 2)
    for player in "abc":
        assert tied[player].elo == pytest.approx(spelled_out[player].elo, abs=1e-9)


def test_a_tie_of_many_players_rates_them_alike_at_once() -> None:
    # A fault on the first move of a 20-seat game: the offender last, 19 players tied at 0
    # (2^19 subsets if expanded exactly; 38 of its orders instead, docs/statistics.md).
    names = [f"p{k:02d}" for k in range(20)]
    rankings = [{n: 20 if n == "p05" else 1 for n in names}] * 2 + [{n: 1 if n == "p05" else 2 for n in names}]
    ratings = plackett_luce(names, rankings)
    others = [ratings[n].elo for n in names if n != "p05"]
    assert max(others) - min(others) < 1e-6  # those orders put each of them in each place equally often
    assert ratings["p05"].elo < others[0] and all(math.isfinite(r.high) for r in ratings.values())


def many_seat_games(seed: int, games: int) -> tuple[list[str], list[dict[str, int]]]:
    """Games of 10 seats among 12 players of known strengths (places drawn from the model), a
    quarter of them ending on a first-move fault: the offender last, a tie of 9 for first."""
    rng = random.Random(seed)
    names = [f"p{k:02d}" for k in range(12)]
    strength = {name: rng.uniform(-2, 2) for name in names}
    rankings = []
    for _ in range(games):
        table = rng.sample(names, 10)
        if rng.random() < 0.25:
            offender = rng.choice(table)
            rankings.append({name: 10 if name == offender else 1 for name in table})
            continue
        left, ranking = list(table), {}
        for place in range(1, 11):
            chosen = rng.choices(left, [math.exp(strength[name]) for name in left])[0]
            ranking[chosen] = place
            left.remove(chosen)
        rankings.append(ranking)
    return names, rankings


def test_renaming_players_leaves_every_rating_unchanged() -> None:
    # Ties of 9: beyond the exact expansion, where the earlier rule rotated the names' order
    # and renaming moved ratings by up to 5 Elo (issue 27).
    names, rankings = many_seat_games(seed=3, games=60)
    before = plackett_luce(names, rankings)
    new_name = dict(zip(names, reversed(names)))  # p00 <-> p11, ...: every name order inverted
    after = plackett_luce([new_name[n] for n in names], [{new_name[n]: p for n, p in r.items()} for r in rankings])
    for name in names:
        assert after[new_name[name]] == before[name]


def test_a_large_tie_is_rated_far_inside_the_statistical_error_of_the_exact_average(monkeypatch) -> None:
    # Seeds 1 to 4 differ from the exact fit by 0.7 to 2.5 Elo; seed 2 is the largest.
    names, rankings = many_seat_games(seed=2, games=60)
    by_seat = plackett_luce(names, rankings)
    monkeypatch.setattr(stats, "EXACT_TIE_MAX", 9)  # the tie of 9 expanded into its 2^9 subsets
    exact = plackett_luce(names, rankings)
    difference = max(abs(by_seat[n].elo - exact[n].elo) for n in names)
    narrowest = min(r.high - r.low for r in exact.values())  # about 110 Elo here
    assert 0 < difference < narrowest / 40  # 0: not the exact expansion twice


# --- the independent maximiser ---------------------------------------------------------------------

rankings_strategy = st.lists(
    st.lists(st.integers(1, 4), min_size=4, max_size=4),  # places of p0..p3, ties allowed
    min_size=1, max_size=5,
)


@settings(max_examples=8, deadline=None)
@given(rankings_strategy, st.integers(2, 4))
def test_the_fit_is_the_maximum_a_slow_search_finds(raw: list[list[int]], seats: int) -> None:
    players = ["p0", "p1", "p2", "p3"]
    rankings = [{players[i]: places[i] for i in range(seats)} for places in raw]
    # Every order of every group of seats once keeps the maximum finite (no virtual draws).
    rankings += [order(*names) for names in itertools.permutations(players[:seats])]
    rankings += [order(*names) for names in itertools.permutations(players[seats - 2:], 2)]
    ratings = plackett_luce(players, rankings)
    slow = slow_maximum(players, rankings)
    for player in players:
        assert ratings[player].elo == pytest.approx(slow[player] * ELO_PER_NAT, abs=1e-4)
    # The intervals come from the curvature at the maximum: minus the Hessian, taken numerically.
    info = numeric_information(players, rankings, slow)
    sd = np.sqrt(np.diag(np.linalg.pinv(info, rcond=1e-6, hermitian=True))) * ELO_PER_NAT
    for player, s in zip(players, sd):
        assert ratings[player].high - ratings[player].elo == pytest.approx(Z95 * s, rel=1e-3)


# --- Bradley-Terry is the two-seat case --------------------------------------------------------------

two_seat_results = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from([0.0, 0.5, 1.0])).filter(lambda r: r[0] != r[1]),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(two_seat_results, st.sampled_from([None, "p0", "p3"]))
def test_on_two_seat_games_it_equals_bradley_terry(raw: list[tuple[int, int, float]], anchor: str | None) -> None:
    """Clean sweeps (virtual draws), players without games and groups that never met included."""
    players = [f"p{k}" for k in range(5)]
    results = [(players[a], players[b], s) for a, b, s in raw]
    rankings = [{a: 1, b: 1} if s == 0.5 else {a: 1, b: 2} if s == 1 else {a: 2, b: 1} for a, b, s in results]
    expected = bradley_terry(players, results, anchor=anchor)
    got = plackett_luce(players, rankings, anchor=anchor)
    for player in players:
        for mine, theirs in zip(
                (got[player].elo, got[player].low, got[player].high),
                (expected[player].elo, expected[player].low, expected[player].high)):
            assert mine == pytest.approx(theirs, rel=1e-9, abs=1e-9)


# --- what it shares with Bradley-Terry ---------------------------------------------------------------


def test_the_order_of_games_and_players_does_not_matter() -> None:
    rankings = [order("a", "b", "c"), {"a": 2, "b": 1, "c": 2}, order("c", "a"), order("b", "c", "a"), order("a", "c")]
    first = plackett_luce(["a", "b", "c"], rankings)
    shuffler = random.Random(7)
    for _ in range(20):
        players, games = ["a", "b", "c"], list(rankings)
        shuffler.shuffle(players)
        shuffler.shuffle(games)
        second = plackett_luce(players, games)
        assert list(second) == players
        for player in "abc":
            assert second[player].elo == pytest.approx(first[player].elo, abs=1e-9)
            assert second[player].low == pytest.approx(first[player].low, abs=1e-9)
            assert second[player].high == pytest.approx(first[player].high, abs=1e-9)


def test_a_player_who_always_finished_first_is_rated_first_and_finite() -> None:
    ratings = plackett_luce(["a", "b", "c"], [order("a", "b", "c"), order("a", "c", "b")] * 3)
    assert ratings["a"].elo > ratings["b"].elo == pytest.approx(ratings["c"].elo)
    assert all(math.isfinite(r.low) and math.isfinite(r.high) for r in ratings.values())


def test_groups_that_never_shared_a_game_are_rated_apart_and_the_idle_at_0() -> None:
    rankings = [order("a", "b", "c"), order("b", "a", "c"), order("c", "b", "a"), order("d", "e"), order("e", "d")]
    ratings = plackett_luce(["a", "b", "c", "d", "e", "idle"], rankings, anchor="c")
    assert ratings["c"] == Rating(0.0, 0.0, 0.0)
    assert ratings["d"].elo == pytest.approx(0) and ratings["e"].elo == pytest.approx(0)
    assert ratings["idle"] == Rating(0.0, -math.inf, math.inf)
    assert plackett_luce(["x"], []) == {"x": Rating(0.0, -math.inf, math.inf)}


@pytest.mark.parametrize(
    "rankings, anchor, message",
    [
        ([{"a": 1, "x": 2}], None, "ranking 0: unknown player 'x'"),
        ([order("a", "b"), {"a": 1}], None, "ranking 1: expected a mapping of at least two players"),
        ([{"a": 0, "b": 1}], None, "ranking 0: place of 'a' must be an integer >= 1, got 0"),
        ([{"a": 1, "b": 1.5}], None, "ranking 0: place of 'b' must be an integer >= 1, got 1.5"),
        ([], "c", "anchor 'c' is not one of the players"),
    ],
)
def test_bad_input_is_named(rankings: list, anchor: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=r"^" + re.escape(message)):
        plackett_luce(["a", "b"], rankings, anchor=anchor)
