"""The statistics module against values derived independently: by hand, by a second
straightforward computation in the test, or by a closed form (docs/statistics.md)."""
from __future__ import annotations

import itertools
import math
import re
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter import stats
from arbiter.stats import (
    NELO_PER_T,
    PAIR_SCORES,
    SPRT_EMPTY_BIN,
    Z95,
    EloEstimate,
    Rating,
    SprtState,
    bradley_terry,
    comparison_groups,
    elo_from_pentanomial,
    elo_from_score,
    elo_from_wdl,
    nelo_from_pentanomial,
    sprt_bounds,
    sprt_llr,
    sprt_status,
)

ELO_PER_NAT = 400 / math.log(10)


def games(a: str, b: str, wins: int = 0, draws: int = 0, losses: int = 0) -> list[tuple[str, str, float]]:
    """Results of a against b: `wins` 1s, `draws` halves, `losses` 0s."""
    return [(a, b, 1.0)] * wins + [(a, b, 0.5)] * draws + [(a, b, 0.0)] * losses


def elo(score: float) -> float:
    """The logistic Elo difference for an expected score, written out again here."""
    return -400 * math.log10(1 / score - 1)


# --- Bradley-Terry ----------------------------------------------------------------------------


def test_two_players_three_wins_one_loss_are_400_log10_3_apart() -> None:
    ratings = bradley_terry(["a", "b"], games("a", "b", wins=3, losses=1))
    assert ratings["a"].elo - ratings["b"].elo == pytest.approx(400 * math.log10(3))  # 190.85
    assert ratings["a"].elo == pytest.approx(-ratings["b"].elo)  # mean 0
    # Information about theta_a - theta_b (natural units): n p (1 - p) = 4 * 3/4 * 1/4 = 3/4.
    # With the mean held at 0, theta_a is half the difference: variance (4/3) / 4 = 1/3.
    half_width = Z95 * math.sqrt(1 / 3) * ELO_PER_NAT
    assert ratings["a"].high - ratings["a"].elo == pytest.approx(half_width)
    assert ratings["a"].elo - ratings["a"].low == pytest.approx(half_width)


def test_a_draw_counts_as_half_a_win_for_each_side() -> None:
    # Two wins and two draws are three points of four, like three wins and a loss.
    with_draws = bradley_terry(["a", "b"], games("a", "b", wins=2, draws=2))
    assert with_draws == bradley_terry(["a", "b"], games("a", "b", wins=3, losses=1))
    even = bradley_terry(["a", "b"], games("a", "b", wins=1, draws=2, losses=1))
    assert even["a"].elo == pytest.approx(0, abs=1e-9)


def test_scores_that_fit_the_model_exactly_give_those_ratings() -> None:
    # a scores 3:1 against b, b 3:1 against c, a 9:1 against c: odds multiply, so the
    # ratings 190.85 apart fit every pair exactly and are the maximum.
    results = games("a", "b", 3, 0, 1) + games("b", "c", 3, 0, 1) + games("a", "c", 9, 0, 1)
    step = 400 * math.log10(3)
    ratings = bradley_terry(["a", "b", "c"], results)
    assert [ratings[p].elo for p in "abc"] == pytest.approx([step, 0, -step], abs=1e-9)

    anchored = bradley_terry(["a", "b", "c"], results, anchor="c")
    assert [anchored[p].elo for p in "abc"] == pytest.approx([2 * step, step, 0], abs=1e-9)
    assert anchored["c"] == Rating(0.0, 0.0, 0.0)
    # By hand: weights n p (1 - p) are 3/4 (a-b), 3/4 (b-c), 9/10 (a-c). With c held at 0
    # the information on (a, b) is [[1.65, -0.75], [-0.75, 1.5]], determinant 1.9125.
    for player, variance in (("a", 1.5 / 1.9125), ("b", 1.65 / 1.9125)):
        half_width = Z95 * math.sqrt(variance) * ELO_PER_NAT
        assert anchored[player].high - anchored[player].elo == pytest.approx(half_width)


def test_a_cycle_of_wins_rates_everyone_equal() -> None:
    results = games("a", "b", wins=1) + games("b", "c", wins=1) + games("c", "a", wins=1)
    ratings = bradley_terry(["a", "b", "c"], results)
    for rating in ratings.values():
        assert rating.elo == pytest.approx(0, abs=1e-9)
        assert rating.high == pytest.approx(-rating.low)
        assert rating.high > 0


def test_mean_anchored_intervals_are_the_pseudo_inverse_of_the_information() -> None:
    rng = np.random.default_rng(3)
    players = ["p0", "p1", "p2", "p3", "p4"]
    results = [
        (a, b, float(rng.choice([0.0, 0.5, 1.0])))
        for a, b in itertools.combinations(players, 2)
        for _ in range(6)
    ] + [(a, b, 1.0) for a, b in itertools.permutations(players, 2)]  # every pair both ways
    ratings = bradley_terry(players, results)
    assert sum(r.elo for r in ratings.values()) == pytest.approx(0, abs=1e-9)
    # The information matrix written out game by game, in natural-log units.
    theta = np.array([ratings[p].elo for p in players]) / ELO_PER_NAT
    info = np.zeros((5, 5))
    for a, b, _ in results:
        i, j = players.index(a), players.index(b)
        p = 1 / (1 + math.exp(theta[j] - theta[i]))
        for x, y, sign in ((i, i, 1), (j, j, 1), (i, j, -1), (j, i, -1)):
            info[x, y] += sign * p * (1 - p)
    sd = np.sqrt(np.diag(np.linalg.pinv(info))) * ELO_PER_NAT
    for player, s in zip(players, sd):
        assert ratings[player].high - ratings[player].elo == pytest.approx(Z95 * s)


results_strategy = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from([0.0, 0.5, 1.0])).filter(lambda r: r[0] != r[1]),
    max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(results_strategy)
def test_each_player_scores_what_the_ratings_predict(raw: list[tuple[int, int, float]]) -> None:
    """The maximum-likelihood condition, checked directly: actual points = expected points."""
    players = ["p0", "p1", "p2", "p3"]
    # One win each way in every pair keeps every maximum finite (no virtual draws needed).
    results = [(players[a], players[b], s) for a, b, s in raw]
    results += [(a, b, 1.0) for a, b in itertools.permutations(players, 2)]
    ratings = bradley_terry(players, results)
    for player in players:
        actual = expected = 0.0
        for a, b, s in results:
            if player in (a, b):
                me, other = (a, b) if player == a else (b, a)
                actual += s if player == a else 1 - s
                expected += 1 / (1 + 10 ** ((ratings[other].elo - ratings[me].elo) / 400))
        assert actual == pytest.approx(expected, abs=1e-7)


@settings(max_examples=30, deadline=None)
@given(results_strategy)
def test_reversing_every_result_negates_every_rating(raw: list[tuple[int, int, float]]) -> None:
    players = ["p0", "p1", "p2", "p3"]
    results = [(players[a], players[b], s) for a, b, s in raw]
    flipped = [(b, a, s) for a, b, s in results]
    ratings, mirrored = bradley_terry(players, results), bradley_terry(players, flipped)
    for player in players:
        assert mirrored[player].elo == pytest.approx(-ratings[player].elo, abs=1e-6)
        assert mirrored[player].low == pytest.approx(-ratings[player].high, abs=1e-6)


def test_order_of_players_and_results_does_not_matter() -> None:
    results = games("a", "b", 2, 1, 1) + games("c", "a", 1, 0, 2) + games("b", "c", 0, 3, 1)
    first = bradley_terry(["a", "b", "c"], results)
    second = bradley_terry(["c", "a", "b"], list(reversed(results)))
    assert list(second) == ["c", "a", "b"]  # keyed in the order given
    for player in "abc":
        assert second[player].elo == pytest.approx(first[player].elo, abs=1e-9)
        assert second[player].low == pytest.approx(first[player].low, abs=1e-9)


def test_a_clean_sweep_gets_one_virtual_draw_so_the_rating_is_finite() -> None:
    # 1-0 becomes 1.5 : 0.5 with the virtual draw, the same odds as 3 : 1.
    one = bradley_terry(["a", "b"], games("a", "b", wins=1))
    assert one["a"].elo - one["b"].elo == pytest.approx(400 * math.log10(3))
    # 10-0 becomes 10.5 : 0.5: further apart than 10-1 (odds 10) but finite.
    sweep = bradley_terry(["a", "b"], games("a", "b", wins=10))
    assert sweep["a"].elo - sweep["b"].elo == pytest.approx(400 * math.log10(21))
    nearly = bradley_terry(["a", "b"], games("a", "b", wins=10, losses=1))
    assert sweep["a"].elo - sweep["b"].elo > nearly["a"].elo - nearly["b"].elo == pytest.approx(400)
    assert all(math.isfinite(x) for r in sweep.values() for x in (r.low, r.high))


def test_a_player_who_won_everything_among_several_is_rated_first_and_finite() -> None:
    results = games("a", "b", wins=4) + games("a", "c", wins=4) + games("b", "c", draws=2)
    ratings = bradley_terry(["a", "b", "c"], results)
    assert ratings["a"].elo > ratings["b"].elo == pytest.approx(ratings["c"].elo)
    # One virtual draw per pair that met: a scores 4.5 of 5 against b and c, b and c 1.5 of 3
    # against each other, so b and c tie and a is 400 log10(9) above them.
    assert ratings["a"].elo - ratings["b"].elo == pytest.approx(400 * math.log10(9))
    assert all(math.isfinite(r.low) and math.isfinite(r.high) for r in ratings.values())


def test_large_but_finite_differences_converge() -> None:
    ratings = bradley_terry(["a", "b"], games("a", "b", wins=1000, losses=1))
    assert ratings["a"].elo - ratings["b"].elo == pytest.approx(1200)


def test_a_player_without_games_is_rated_0_with_an_infinite_interval() -> None:
    results = games("a", "b", wins=3, losses=1)
    ratings = bradley_terry(["a", "idle", "b"], results)
    assert ratings["idle"] == Rating(0.0, -math.inf, math.inf)
    assert ratings["a"] == bradley_terry(["a", "b"], results)["a"]
    assert bradley_terry(["x"], []) == {"x": Rating(0.0, -math.inf, math.inf)}
    assert bradley_terry([], []) == {}


def test_groups_that_never_met_are_each_rated_around_their_own_mean() -> None:
    results = games("a", "b", wins=3, losses=1) + games("c", "d", wins=1, losses=3)
    players = ["a", "b", "c", "d"]
    assert comparison_groups(players, results) == [["a", "b"], ["c", "d"]]
    ratings = bradley_terry(players, results)
    half = 200 * math.log10(3)
    assert [ratings[p].elo for p in players] == pytest.approx([half, -half, -half, half])
    anchored = bradley_terry(players, results, anchor="b")
    assert [anchored[p].elo for p in players] == pytest.approx([2 * half, 0, -half, half])


@pytest.mark.parametrize(
    "players, results, anchor, message",
    [
        (["a", "b"], [("a", "x", 1.0)], None, "result 0: unknown player 'x'"),
        (["a", "b"], [("a", "b", 1.0), ("a", "a", 1.0)], None, "result 1: player 'a' cannot play itself"),
        (["a", "b"], [("a", "b", 1.5)], None, "result 0: score of 'a' must be a number from 0 to 1, got 1.5"),
        (["a", "b"], [("a", "b", "1")], None, "result 0: score of 'a' must be a number from 0 to 1, got '1'"),
        (["a", "b"], [("a", "b", True)], None, "result 0: score of 'a' must be a number"),
        (["a", "b"], [("a", "b")], None, "result 0: expected (player_a, player_b, score_of_a)"),
        (["a", "a"], [], None, "player 'a' is listed twice"),
        (["a", "b"], [], "c", "anchor 'c' is not one of the players"),
    ],
)
def test_bad_input_is_named(players: list[str], results: list, anchor: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=r"^" + re.escape(message)):
        bradley_terry(players, results, anchor=anchor)


# --- Elo from win/draw/loss ---------------------------------------------------------------------


def test_symmetric_results_give_elo_0_and_los_one_half() -> None:
    for w, d in ((5, 0), (7, 3), (1, 100)):
        estimate = elo_from_wdl(w, d, w)
        assert estimate.elo == pytest.approx(0, abs=1e-12)
        assert estimate.los == pytest.approx(0.5)
        assert estimate.high == pytest.approx(-estimate.low)


def test_three_wins_one_loss_by_hand() -> None:
    estimate = elo_from_wdl(3, 0, 1)
    assert estimate.elo == pytest.approx(400 * math.log10(3))
    # Mean 3/4; per-game variance (3 * 1/16 + 9/16) / 4 = 3/16; standard error sqrt(3/64).
    se = math.sqrt(3 / 64)
    assert estimate.low == pytest.approx(elo(0.75 - Z95 * se))
    assert estimate.high == math.inf  # 0.75 + 1.96 se is past a score of 1


def test_interval_and_los_from_the_sample_variance_of_the_game_scores() -> None:
    w, d, l = 60, 25, 15
    scores = [1.0] * w + [0.5] * d + [0.0] * l
    mean, se = statistics.fmean(scores), statistics.pstdev(scores) / math.sqrt(len(scores))
    estimate = elo_from_wdl(w, d, l)
    assert estimate.elo == pytest.approx(elo(mean))
    assert estimate.low == pytest.approx(elo(mean - Z95 * se))
    assert estimate.high == pytest.approx(elo(mean + Z95 * se))
    assert estimate.los == pytest.approx(statistics.NormalDist().cdf((mean - 0.5) / se))


def test_los_without_draws_approaches_the_classic_formula_near_an_even_score() -> None:
    # The classic 0.5 (1 + erf((w - l) / sqrt(2 (w + l)))) takes the spread at a score of 1/2;
    # ours takes the observed spread (so LOS and interval agree, next test). Near 1/2 they meet.
    for w, l in ((1010, 990), (505, 495)):
        classic = 0.5 * (1 + math.erf((w - l) / math.sqrt(2 * (w + l))))
        assert elo_from_wdl(w, 0, l).los == pytest.approx(classic, abs=1e-4)


@pytest.mark.parametrize("w, d, l", [(10, 7, 3), (3, 2, 9), (120, 40, 100), (30, 0, 18), (25, 5, 14)])
def test_los_passes_97_5_percent_exactly_when_the_interval_leaves_0(w: int, d: int, l: int) -> None:
    estimate = elo_from_wdl(w, d, l)
    assert (estimate.los > 0.975) == (estimate.low > 0)
    assert (estimate.los < 0.025) == (estimate.high < 0)
    # At the lower end of the interval the score is 1.96 standard errors below the mean.
    if math.isfinite(estimate.low):
        z = statistics.NormalDist().inv_cdf(estimate.los)
        mean = 1 / (1 + 10 ** (-estimate.elo / 400))
        low_score = 1 / (1 + 10 ** (-estimate.low / 400))
        assert (mean - low_score) / Z95 == pytest.approx((mean - 0.5) / z)


def test_swapping_wins_and_losses_mirrors_the_estimate() -> None:
    a, b = elo_from_wdl(40, 13, 22), elo_from_wdl(22, 13, 40)
    assert (b.elo, b.low, b.high, b.los) == pytest.approx((-a.elo, -a.high, -a.low, 1 - a.los))


def test_degenerate_match_results() -> None:
    # Only wins: one virtual draw, the same as the two-player Bradley-Terry rating.
    sweep = elo_from_wdl(10, 0, 0)
    assert sweep.elo == pytest.approx(400 * math.log10(21)) == pytest.approx(elo_from_wdl(10, 1, 0).elo)
    ratings = bradley_terry(["a", "b"], games("a", "b", wins=10))
    assert sweep.elo == pytest.approx(ratings["a"].elo - ratings["b"].elo)
    assert elo_from_wdl(0, 0, 10).elo == pytest.approx(-sweep.elo)
    # Only draws: no spread at all, so the normal approximation's interval is a point.
    assert elo_from_wdl(0, 6, 0) == EloEstimate(0.0, 0.0, 0.0, 0.5)
    assert elo_from_wdl(0, 0, 0) == EloEstimate(0.0, -math.inf, math.inf, 0.5)


@pytest.mark.parametrize(
    "counts, message",
    [((-1, 0, 0), "wins must be a non-negative count, got -1"), ((0, math.nan, 0), "draws must be"),
     ((0, 0, True), "losses must be"), ((0, "2", 0), "draws must be")],
)
def test_bad_wdl_counts_are_named(counts: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        elo_from_wdl(*counts)


def test_elo_from_score_ends() -> None:
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.0) == -math.inf and elo_from_score(1.0) == math.inf
    assert elo_from_score(10 / 11) == pytest.approx(400)


# --- Pentanomial Elo and normalized Elo ----------------------------------------------------------


def test_pentanomial_elo_from_the_sample_variance_of_pair_scores() -> None:
    counts = [3, 11, 20, 9, 7]
    pairs = [s for s, c in zip(PAIR_SCORES, counts) for _ in range(c)]
    mean, se = statistics.fmean(pairs), statistics.pstdev(pairs) / math.sqrt(len(pairs))
    estimate = elo_from_pentanomial(counts)
    assert estimate.elo == pytest.approx(elo(mean))
    assert (estimate.low, estimate.high) == pytest.approx((elo(mean - Z95 * se), elo(mean + Z95 * se)))
    assert estimate.los == pytest.approx(statistics.NormalDist().cdf((mean - 0.5) / se))


def test_independent_games_give_the_same_estimate_as_the_trinomial() -> None:
    # Games won/drawn/lost with frequencies 0.5/0.2/0.3, paired independently: pair score 0
    # is LL (0.09), 1/4 LD+DL (0.12), 1/2 DD+WL+LW (0.34), 3/4 WD+DW (0.20), 1 WW (0.25).
    # Those 100 pairs hold 100 wins, 40 draws and 60 losses, and the pair variance is exactly
    # half the game variance over half as many units: the same standard error.
    a, b = elo_from_pentanomial([9, 12, 34, 20, 25]), elo_from_wdl(100, 40, 60)
    assert (a.elo, a.low, a.high, a.los) == pytest.approx((b.elo, b.low, b.high, b.los))


def test_normalized_elo_matches_elo_for_small_differences_without_draws() -> None:
    # Independent games won with probability 0.51, no draws: pairs LL 0.2401, WL/LW 0.4998,
    # WW 0.2601. Normalized Elo is scaled to agree with logistic Elo here (to first order).
    nelo, low, high = nelo_from_pentanomial([2401, 0, 4998, 0, 2601])
    assert nelo == pytest.approx(elo(0.51), rel=1e-3)  # 6.95
    assert nelo == pytest.approx(0.01 / math.sqrt(0.51 * 0.49) * 800 / math.log(10))
    assert low < nelo < high


def test_normalized_elo_with_draws_grows_as_sqrt_2_over_sqrt_1_minus_draw_ratio() -> None:
    # Pairs 1/4, 1/2, 3/4 only (no double results): sd of a pair is sqrt(1 - d) / 4 with d
    # the share of 1/2 pairs at a balanced score, so nElo is about sqrt(2) Elo / sqrt(1 - d).
    counts = [0, 1960, 6000, 2040, 0]
    d = 0.6
    estimate = elo_from_pentanomial(counts)
    nelo, _, _ = nelo_from_pentanomial(counts)
    assert nelo == pytest.approx(math.sqrt(2) * estimate.elo / math.sqrt(1 - d), rel=1e-3)


def test_normalized_elo_interval_at_0_is_1_96_times_800_over_ln10_over_sqrt_games() -> None:
    counts = [2, 5, 10, 5, 2]
    games_played = 2 * sum(counts)
    assert nelo_from_pentanomial(counts) == pytest.approx(
        (0.0, -Z95 * NELO_PER_T / math.sqrt(games_played), Z95 * NELO_PER_T / math.sqrt(games_played)), abs=1e-9
    )


def test_normalized_elo_interval_is_where_the_likelihood_drops_by_1_92() -> None:
    # Wilks: the ends of a 95% interval are where twice the log-likelihood ratio against the
    # best value reaches 1.96^2. The interval comes from the delta method and the LLR from
    # constrained maximum likelihood; on a large sample the two must agree.
    counts = [300, 2100, 4800, 2400, 400]
    nelo, low, high = nelo_from_pentanomial(counts)
    assert sprt_llr(counts, low, nelo) == pytest.approx(Z95**2 / 2, rel=0.01)
    assert -sprt_llr(counts, nelo, high) == pytest.approx(Z95**2 / 2, rel=0.01)


def test_reversed_pentanomial_mirrors_elo_and_normalized_elo() -> None:
    counts = [4, 9, 17, 12, 3]
    a, b = elo_from_pentanomial(counts), elo_from_pentanomial(counts[::-1])
    assert (b.elo, b.low, b.high, b.los) == pytest.approx((-a.elo, -a.high, -a.low, 1 - a.los))
    n, lo, hi = nelo_from_pentanomial(counts)
    assert nelo_from_pentanomial(counts[::-1]) == pytest.approx((-n, -hi, -lo))


def test_degenerate_pentanomials() -> None:
    # Every pair won twice: one virtual drawn game, as for win/draw/loss counts.
    assert elo_from_pentanomial([0, 0, 0, 0, 10]).elo == pytest.approx(elo_from_wdl(20, 1, 0).elo)
    nelo, low, high = nelo_from_pentanomial([0, 0, 0, 0, 10])
    assert -math.inf < low < nelo < high < math.inf  # wide: the spread of a lopsided sample is poorly known
    assert nelo_from_pentanomial([10, 0, 0, 0, 0]) == pytest.approx((-nelo, -high, -low))
    # Every pair 1/2: no spread; nElo 0 with the interval it has at 0.
    assert elo_from_pentanomial([0, 0, 8, 0, 0]) == EloEstimate(0.0, 0.0, 0.0, 0.5, "pentanomial")
    assert nelo_from_pentanomial([0, 0, 8, 0, 0])[0] == 0
    assert elo_from_pentanomial([0] * 5) == EloEstimate(0.0, -math.inf, math.inf, 0.5, "pentanomial")
    assert nelo_from_pentanomial([0] * 5) == (0.0, -math.inf, math.inf)


@pytest.mark.parametrize(
    "counts, message",
    [([1, 2, 3], "a pentanomial has 5 counts (pair scores 0, 1/4, 1/2, 3/4, 1), got 3"),
     ([1, 2, -3, 0, 0], "count of pair score 0.5 must be a non-negative count, got -3")],
)
def test_bad_pentanomials_are_named(counts: list[int], message: str) -> None:
    for function in (elo_from_pentanomial, nelo_from_pentanomial, lambda c: sprt_llr(c, 0, 5)):
        with pytest.raises(ValueError, match=re.escape(message)):
            function(counts)


# --- SPRT ------------------------------------------------------------------------------------


def test_wald_bounds() -> None:
    assert sprt_bounds(0.05, 0.05) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert sprt_bounds(0.05, 0.05) == pytest.approx((-2.944439, 2.944439))
    lower, upper = sprt_bounds(0.01, 0.1)
    assert (lower, upper) == pytest.approx((math.log(0.1 / 0.99), math.log(0.9 / 0.01)))


@pytest.mark.parametrize("alpha, beta", [(0, 0.05), (0.05, 1), (-0.1, 0.1), (0.6, 0.5), (0.5, 0.5)])
def test_impossible_error_rates_are_refused(alpha: float, beta: float) -> None:
    with pytest.raises(ValueError, match="alpha|beta"):
        sprt_bounds(alpha, beta)


def pair_t(nelo: float) -> float:
    """The t-value of pair scores, (mean - 1/2) / sd, that has this normalized Elo."""
    return nelo * math.sqrt(2) * math.log(10) / 800


def brute_force_log_likelihood(counts: list[int], t: float) -> float:
    """max sum(n_i ln p_i) over pentanomial p with (mean - 1/2)/sd = t, by zooming grid search.

    p0, p1, p3 run over a grid; the rest m is split as p2 = m - y, p4 = y, and y solves the
    squared constraint (mean - 1/2)^2 = t^2 sd^2, a quadratic in y, with mean - 1/2 of t's sign.
    """
    n = np.asarray(counts, float)
    best, centre, step = -np.inf, None, 0.02
    for _ in range(8):
        axes = [np.arange(step / 2, 1, step)] * 3 if centre is None else [c + step * np.arange(-12, 13) for c in centre]
        p0, p1, p3 = (x.ravel() for x in np.meshgrid(*axes, indexing="ij"))
        m = 1 - p0 - p1 - p3
        ok = (p0 > 0) & (p1 > 0) & (p3 > 0) & (m > 0)
        p0, p1, p3, m = p0[ok], p1[ok], p3[ok], m[ok]
        mean0 = 0.25 * p1 + 0.75 * p3 + 0.5 * m  # mean = mean0 + y / 2
        square0 = 0.0625 * p1 + 0.5625 * p3 + 0.25 * m  # E[a^2] = square0 + 3 y / 4
        c, t2 = mean0 - 0.5, t * t
        qa, qb, qc = 0.25 * (1 + t2), c + t2 * (mean0 - 0.75), c * c + t2 * (mean0 * mean0 - square0)
        root = np.sqrt(np.clip(qb * qb - 4 * qa * qc, 0, None))
        for y in ((-qb - root) / (2 * qa), (-qb + root) / (2 * qa)):
            p = np.stack([p0, p1, m - y, p3, y])
            good = (qb * qb >= 4 * qa * qc) & (y > 0) & (y < m) & ((c + y / 2) * t >= 0)
            ll = np.where(good, (n[:, None] * np.log(np.where(good, p, 1.0))).sum(axis=0), -np.inf)
            k = int(np.argmax(ll))
            if ll[k] > best:
                best, centre = ll[k], (p[0, k], p[1, k], p[3, k])
        step /= 6
    return float(best)


@pytest.mark.parametrize("counts", [[1, 2, 3, 2, 1], [1, 1, 1, 1, 3], [2, 1, 1, 3, 1], [1, 4, 2, 1, 2]])
@pytest.mark.parametrize("elo0, elo1", [(0, 5), (-10, 10), (-100, 40)])
def test_llr_on_tiny_samples_matches_a_brute_force_maximization(counts: list[int], elo0: float, elo1: float) -> None:
    expected = brute_force_log_likelihood(counts, pair_t(elo1)) - brute_force_log_likelihood(counts, pair_t(elo0))
    assert sprt_llr(counts, elo0, elo1) == pytest.approx(expected, abs=1e-7)


def test_llr_on_a_large_sample_matches_the_normal_approximation() -> None:
    # For N pairs with sample t-value T, the profile log-likelihood of t is close to
    # -N (T - t)^2 / (2 V), V the variance of the t-value estimate per pair (delta method:
    # V = E[(z - T (z^2 - 1) / 2)^2], z the standardized pair score). So
    # LLR ~ N / (2 V) ((T - t0)^2 - (T - t1)^2) = N (t1 - t0)(2 T - t0 - t1) / (2 V).
    counts = [3000, 21000, 48000, 24000, 4000]
    pairs = [s for s, c in zip(PAIR_SCORES, counts) for _ in range(c)]
    mean, sd, n = statistics.fmean(pairs), statistics.pstdev(pairs), len(pairs)
    big_t = (mean - 0.5) / sd
    v = statistics.fmean(((a - mean) / sd - big_t / 2 * (((a - mean) / sd) ** 2 - 1)) ** 2 for a in pairs)
    for elo0, elo1 in ((0, 5), (10, 16), (13, 14), (14.4, 20)):
        t0, t1 = pair_t(elo0), pair_t(elo1)
        approx = n * (t1 - t0) * (2 * big_t - t0 - t1) / (2 * v)
        assert sprt_llr(counts, elo0, elo1) == pytest.approx(approx, rel=1e-4)


def test_llr_for_pairs_all_won_twice_has_a_closed_form() -> None:
    # The most likely distribution with pair t-value t for all-1 data puts q on 1 and 1 - q
    # on 0 with (q - 1/2) / sqrt(q (1 - q)) = t: q = (1 + t / sqrt(1 + t^2)) / 2. Each pair
    # adds ln(q1 / q0) (the tiny pseudo-counts of the empty bins barely move it).
    def q(t: float) -> float:
        return (1 + t / math.sqrt(1 + t * t)) / 2

    for elo0, elo1 in ((0, 5), (-20, 30)):
        per_pair = math.log(q(pair_t(elo1)) / q(pair_t(elo0)))
        assert sprt_llr([0, 0, 0, 0, 500], elo0, elo1) == pytest.approx(500 * per_pair, rel=1e-4)
    # So with the default bounds a candidate winning every pair needs about 147 pairs.
    assert math.ceil(math.log(19) / math.log(q(pair_t(5)) / q(0))) == 147


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=5, max_size=5), st.floats(-50, 50), st.floats(0.5, 30))
def test_swapping_candidate_and_baseline_negates_the_llr(counts: list[int], elo0: float, width: float) -> None:
    """Reversing the counts maps pair score a to 1 - a, so nElo to -nElo:
    sprt_llr(reversed, e0, e1) = sprt_llr(counts, -e0, -e1) = -sprt_llr(counts, -e1, -e0).
    Equal to the root-finder's precision: an empty bin's pseudo-count sits near a pole, where
    the two sides agree to about 1e-9 (counts 0, 1, 31, 31, 31 differ by 1.6e-9), far below any
    bound's meaning (the LLR is compared with about +-2.9)."""
    elo1 = elo0 + width
    assert sprt_llr(counts[::-1], elo0, elo1) == pytest.approx(-sprt_llr(counts, -elo1, -elo0), rel=1e-7, abs=1e-9)


def test_swapping_candidate_and_baseline_mirrors_the_verdict() -> None:
    # Testing "new is better by 0..5" on data where new wins, then the mirror test
    # "old is better by -5..0 nElo" with alpha and beta exchanged on the reversed data.
    counts = [60, 270, 480, 390, 120]
    state = sprt_status(counts, 0, 5, 0.05, 0.1)
    mirror = sprt_status(counts[::-1], -5, 0, 0.1, 0.05)
    assert state.verdict == "H1" and mirror.verdict == "H0"
    assert (mirror.llr, mirror.lower, mirror.upper) == pytest.approx((-state.llr, -state.upper, -state.lower))


def test_llr_is_additive_over_hypotheses_and_favours_the_observed_value() -> None:
    counts = [5, 30, 60, 40, 9]
    assert sprt_llr(counts, -5, 3) + sprt_llr(counts, 3, 11) == pytest.approx(sprt_llr(counts, -5, 11))
    observed, _, _ = nelo_from_pentanomial(counts)
    for other in (observed - 40, observed - 1, observed + 1, observed + 40):
        # The observed nElo is the unconstrained maximum: no hypothesis is more likely.
        low, high = sorted((other, observed))
        assert sprt_llr(counts, low, high) * (1 if high == observed else -1) > 0


def test_empty_bins_get_a_small_pseudo_count() -> None:
    assert SPRT_EMPTY_BIN == 1e-3
    regularized = [SPRT_EMPTY_BIN, 1, 2, 1, SPRT_EMPTY_BIN]
    assert sprt_llr([0, 1, 2, 1, 0], -10, 10) == pytest.approx(sprt_llr(regularized, -10, 10), rel=1e-12)


def test_tiny_samples_are_finite_and_small() -> None:
    assert sprt_llr([0, 0, 0, 0, 0], 0, 5) == 0
    for counts in ([0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]):
        llr = sprt_llr(counts, 0, 5)
        assert math.isfinite(llr) and abs(llr) < 0.05
    assert sprt_llr([0, 0, 0, 0, 1], 0, 5) > 0 > sprt_llr([1, 0, 0, 0, 0], 0, 5)


def test_status_verdicts() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert sprt_status([0, 0, 0, 0, 0], 0, 5, 0.05, 0.05) == SprtState(0.0, lower, upper, None)
    assert sprt_status([0, 0, 0, 0, 150], 0, 5, 0.05, 0.05).verdict == "H1"
    assert sprt_status([0, 0, 0, 0, 140], 0, 5, 0.05, 0.05).verdict is None
    assert sprt_status([150, 0, 0, 0, 0], 0, 5, 0.05, 0.05).verdict == "H0"
    balanced = sprt_status([1000, 4000, 10000, 4000, 1000], 0, 5, 0.05, 0.05)
    assert balanced.llr < lower and balanced.verdict == "H0"


@pytest.mark.parametrize("elo0, elo1", [(5, 5), (5, 0), (math.nan, 5), (0, math.inf)])
def test_hypotheses_must_be_ordered(elo0: float, elo1: float) -> None:
    with pytest.raises(ValueError, match="elo0 < elo1"):
        sprt_llr([1, 1, 1, 1, 1], elo0, elo1)


def test_a_finer_scan_finds_the_same_llr(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(11)
    cases = [
        ([int(c) for c in rng.integers(0, 10 ** int(rng.integers(1, 6)), 5)], float(e0), float(e0 + width))
        for e0, width in zip(rng.uniform(-300, 300, 12), rng.uniform(1, 150, 12))
    ] + [([0, 0, 0, 0, 3], 0.0, 5.0), ([1, 0, 0, 0, 0], -200.0, 200.0), ([900, 0, 0, 0, 1000], -50.0, 50.0)]
    coarse = [sprt_llr(c, e0, e1) for c, e0, e1 in cases]
    monkeypatch.setattr(stats, "_SD_SCAN", 200)
    fine = [sprt_llr(c, e0, e1) for c, e0, e1 in cases]
    assert coarse == pytest.approx(fine, rel=1e-9, abs=1e-9)


def test_a_pairing_played_in_pairs_of_games_gets_the_pentanomial_estimate() -> None:
    # Four openings, each played twice with the seats swapped: pair scores 1, 3/4, 1/2, 1/4.
    openings = [[1.0, 1.0], [1.0, 0.5], [1.0, 0.0], [0.5, 0.0]]
    estimate = stats.pairing_elo(openings)
    assert estimate == elo_from_pentanomial([0, 1, 1, 1, 1])
    assert estimate.interval == "pentanomial"


def test_a_pairing_with_an_opening_not_played_twice_gets_the_trinomial_estimate_and_the_same_figure() -> None:
    paired = stats.pairing_elo([[1.0, 1.0], [1.0, 0.5], [1.0, 0.0], [0.5, 0.0]])
    unpaired = stats.pairing_elo([[1.0, 1.0], [1.0, 0.5], [1.0, 0.0], [0.5], [0.0]])
    assert unpaired == elo_from_wdl(4, 2, 2) and unpaired.interval == "trinomial"
    assert unpaired.elo == pytest.approx(paired.elo) == pytest.approx(elo(5 / 8))


def test_a_pairing_game_score_is_a_win_a_draw_or_a_loss() -> None:
    with pytest.raises(ValueError, match="1, 1/2 or 0"):
        stats.pairing_elo([[1.0, 0.25]])


def test_the_elo_text_is_whole_points_with_unbounded_ends_spelled_out() -> None:
    assert EloEstimate(146.6, 12.4, math.inf, 0.99).text() == "+147 [+12, +inf]"
    assert EloEstimate(-0.4, -math.inf, 3.0, 0.5).text() == "+0 [-inf, +3]"
