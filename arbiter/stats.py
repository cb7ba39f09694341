"""Match statistics: Bradley-Terry and Plackett-Luce ratings, Elo and normalized Elo estimates, and the SPRT.

Pure functions on results and counts: no I/O, no processes. Every formula, its
assumptions and its references are explained in docs/statistics.md.

Conventions shared by the whole module:
- A game score is the first player's result: 1 win, 1/2 draw, 0 loss.
- A pentanomial is the five counts of game-pair scores 0, 1/4, 1/2, 3/4, 1
  (a pair is one opening played twice with seats swapped; its score is the
  candidate's points in the two games divided by 2).
- "95% interval" means the two-sided interval of a normal approximation,
  estimate +- 1.96 standard errors, on the scale shown (an end may be infinite).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Literal, Mapping, Sequence

# numpy (15 MB and 40 ms of a process's start) is imported by the functions that use it: a
# command that computes no statistics does not load it, and a tournament's arbiter loads it
# only when it computes the standings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile: 95% two-sided
ELO_PER_NAT = 400 / math.log(10)  # Elo points per unit of natural-log odds
NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of per-game t-value (score excess / sd)
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
VIRTUAL_DRAWS = 1.0  # games added as draws when results alone have no finite estimate
SPRT_EMPTY_BIN = 1e-3  # pseudo-count given to an empty pentanomial bin in the SPRT


@dataclass(frozen=True)
class Rating:
    """A player's Bradley-Terry rating on the Elo scale, with its 95% interval."""

    elo: float
    low: float
    high: float


Interval = Literal["trinomial", "pentanomial"]


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% interval and the likelihood of superiority (0..1).

    `interval` says whose variance the interval has: "pentanomial" (pairs of games with the
    seats swapped, each pair one sample) or "trinomial" (each game one sample)."""

    elo: float
    low: float
    high: float
    los: float
    interval: Interval = "trinomial"

    def text(self) -> str:
        """`+147 [+12, +320]`: the figure and its 95% interval, as every report prints a pairing."""
        return elo_text(self.elo, self.low, self.high)


def elo_text(elo: float, low: float, high: float) -> str:
    """`+147 [+12, +320]`: an Elo figure and its interval, whole points (the page prints the same);
    what rounds to zero is +0, never -0."""
    def whole(x: float) -> str:
        return f"{0.0 if abs(x) <= 0.5 else x:+.0f}"
    return f"{whole(elo)} [{whole(low)}, {whole(high)}]"


@dataclass(frozen=True)
class SprtState:
    """Where a sequential test stands: its LLR, Wald's bounds, and the verdict once a bound is crossed."""

    llr: float
    lower: float
    upper: float
    verdict: Literal["H0", "H1", None]


# --- Bradley-Terry ratings -------------------------------------------------------------------


def bradley_terry(
    players: Sequence[str],
    results: Sequence[tuple[str, str, float]],
    anchor: str | None = None,
) -> dict[str, Rating]:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale, mean 0 (or `anchor` at 0).

    `results` holds (player_a, player_b, score_of_a) with the score in [0, 1]; a draw
    (1/2) counts as half a win for each side. Players who never met, directly or
    through others, are rated within their own group (each group has mean 0, or the
    anchor at 0); see `comparison_groups`. A group where some players won (or lost)
    every game against the rest has no finite maximum: every pair that met in it then
    gets `VIRTUAL_DRAWS` extra drawn games. A player without games is rated 0 with an
    infinite interval. Intervals come from the inverse observed Fisher information.
    """
    import numpy as np
    index = _index_players(players)
    if anchor is not None and anchor not in index:
        raise ValueError(f"anchor {anchor!r} is not one of the players")
    score, games = _tally(index, results)
    ratings: dict[str, Rating] = {}
    for group in _groups(games):
        names = [players[i] for i in group]
        if len(group) == 1:
            ratings[names[0]] = Rating(0.0, -math.inf, math.inf)
            continue
        sub = np.ix_(group, group)
        pinned = names.index(anchor) if anchor in names else None
        elo, sd = _fit_group(score[sub], games[sub], pinned)
        for name, e, s in zip(names, elo, sd):
            ratings[name] = Rating(float(e), float(e - Z95 * s), float(e + Z95 * s))
    return {name: ratings[name] for name in players}


def comparison_groups(
    players: Sequence[str], results: Sequence[tuple[str, str, float]]
) -> list[list[str]]:
    """The groups of players connected by games; ratings compare only within a group."""
    index = _index_players(players)
    _, games = _tally(index, results)
    return [[players[i] for i in group] for group in _groups(games)]


def _index_players(players: Sequence[str]) -> dict[str, int]:
    index: dict[str, int] = {}
    for name in players:
        if name in index:
            raise ValueError(f"player {name!r} is listed twice")
        index[name] = len(index)
    return index


def _tally(
    index: dict[str, int], results: Sequence[tuple[str, str, float]]
) -> tuple[np.ndarray, np.ndarray]:
    """Matrices score[i, j] (points of i against j) and games[i, j] (games between them)."""
    import numpy as np
    n = len(index)
    score = np.zeros((n, n))
    games = np.zeros((n, n))
    for k, result in enumerate(results):
        try:
            a, b, s = result
        except (TypeError, ValueError):
            raise ValueError(f"result {k}: expected (player_a, player_b, score_of_a), got {result!r}") from None
        for name in (a, b):
            if name not in index:
                raise ValueError(f"result {k}: unknown player {name!r}")
        if a == b:
            raise ValueError(f"result {k}: player {a!r} cannot play itself")
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not 0 <= s <= 1:
            raise ValueError(f"result {k}: score of {a!r} must be a number from 0 to 1, got {s!r}")
        i, j = index[a], index[b]
        score[i, j] += s
        score[j, i] += 1 - s
        games[i, j] += 1
        games[j, i] += 1
    return score, games


def _groups(games: np.ndarray) -> list[list[int]]:
    """Connected components of the graph 'played at least one game', in player order."""
    import numpy as np
    seen: set[int] = set()
    groups = []
    for start in range(len(games)):
        if start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            i = frontier.pop()
            for j in np.flatnonzero(games[i]):
                if int(j) not in group:
                    group.add(int(j))
                    frontier.append(int(j))
        seen |= group
        groups.append(sorted(group))
    return groups


def _reaches_all(edges: np.ndarray) -> bool:
    """Whether node 0 reaches every node along edges[i, j] > 0."""
    import numpy as np
    reached, frontier = {0}, [0]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(edges[i] > 0):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    return len(reached) == len(edges)


def _has_finite_maximum(score: np.ndarray) -> bool:
    """Zermelo's condition: in every split of the group, each side scored against the other.

    Equivalently the directed graph 'i scored something against j' is strongly connected.
    """
    return _reaches_all(score) and _reaches_all(score.T)


def _fit_group(score: np.ndarray, games: np.ndarray, pinned: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Elo ratings and standard deviations for one connected group (mean 0, or `pinned` at 0)."""
    if not _has_finite_maximum(score):
        met = games > 0
        score = score + 0.5 * VIRTUAL_DRAWS * met
        games = games + VIRTUAL_DRAWS * met
    theta = _maximize_likelihood(score, games)
    return _elo_with_deviations(theta, _information(theta, games), pinned)


def _elo_with_deviations(theta: np.ndarray, info: np.ndarray, pinned: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Strengths (natural units, any offset) and their information matrix -> Elo ratings with
    mean 0 (or `pinned` at 0) and their standard deviations."""
    import numpy as np
    m = len(theta)
    # Covariance with the last player held at 0: invert the information without its row/column.
    held = np.zeros((m, m))
    held[:-1, :-1] = np.linalg.inv(info[:-1, :-1])
    if pinned is not None:
        # Differences from the pinned player: move the zero to it.
        to_pinned = np.eye(m)
        to_pinned[:, pinned] -= 1
        cov = to_pinned @ held @ to_pinned.T
        theta = theta - theta[pinned]
    else:
        centre = np.eye(m) - 1 / m
        cov = centre @ held @ centre.T
        theta = theta - theta.mean()
    sd = np.sqrt(np.clip(np.diag(cov), 0, None))
    return theta * ELO_PER_NAT, sd * ELO_PER_NAT


def _win_probability(theta: np.ndarray) -> np.ndarray:
    """p[i, j] = P(i beats j) = 1 / (1 + exp(theta_j - theta_i)), stable for large gaps."""
    import numpy as np
    diff = theta[:, None] - theta[None, :]
    return 0.5 + 0.5 * np.tanh(diff / 2)


def _log_likelihood(theta: np.ndarray, score: np.ndarray) -> float:
    import numpy as np
    diff = theta[:, None] - theta[None, :]
    return -float(np.sum(score * np.logaddexp(0.0, -diff)))


def _information(theta: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Observed Fisher information (minus the Hessian of the log-likelihood) in natural units."""
    import numpy as np
    p = _win_probability(theta)
    w = games * p * p.T
    return np.diag(w.sum(axis=1)) - w


def _maximize_likelihood(score: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The Bradley-Terry strengths (natural units) that maximize the likelihood; last player held at 0."""
    return _newton_maximum(
        len(score), lambda theta: _log_likelihood(theta, score),
        lambda theta: ((score - games * _win_probability(theta)).sum(axis=1), _information(theta, games)),
        "Bradley-Terry")


def _newton_maximum(m: int, log_likelihood: Callable[[np.ndarray], float],
                    gradient_information: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
                    model: str) -> np.ndarray:
    """Newton's method with backtracking on a concave log-likelihood of `m` strengths, the
    last held at 0 (the likelihood depends on differences only); the maximizing strengths.
    Bradley-Terry and Plackett-Luce both fit with it."""
    import numpy as np
    theta = np.zeros(m)
    best = log_likelihood(theta)
    for _ in range(500):
        gradient, info = gradient_information(theta)
        step = np.zeros(m)
        step[:-1] = np.linalg.solve(info[:-1, :-1], gradient[:-1])
        length = 1.0
        while True:
            candidate = theta + length * step
            value = log_likelihood(candidate)
            if value >= best - 1e-12 * abs(best) or length < 1e-9:
                break
            length /= 2
        theta, best = candidate, value
        if np.max(np.abs(length * step)) < 1e-11:
            return theta
    raise ArithmeticError(f"{model} maximum likelihood did not converge")


# --- Plackett-Luce ratings from rankings ----------------------------------------------------------

# One step of a ranking: the player chosen (index 0 of the tuple) from the players still
# unplaced (the whole tuple), and how much that step counts.
ChoiceEvents = dict[tuple[int, ...], float]
EXACT_TIE_MAX = 8  # a larger tie is averaged over 2k of its orders, not all k! (2^k subsets)


def plackett_luce(
    players: Sequence[str],
    rankings: Sequence[Mapping[str, int]],
    anchor: str | None = None,
    counts: Sequence[float] | None = None,
) -> dict[str, Rating]:
    """Maximum-likelihood Plackett-Luce ratings from game rankings, on the Elo scale.

    Each ranking maps every player of one game to its place (1 is first; equal places are a
    tie). A ranking is read as successive choices: the first is chosen from all, the second
    from the rest, and so on, each with probability exp(theta_i) / sum over those left. A
    tie is the average over every order of the tied players (a tie of more than EXACT_TIE_MAX
    players: over 2k of them, chosen by seat, never by name: `_choice_events`), so with two
    seats a draw is half a win for each side and the fit equals `bradley_terry` exactly. Each
    ranking's own order is its seat order (the order of its keys): it is used for large ties only. Groups, anchoring, the
    virtual draws that keep a clean sweep finite, and the intervals follow `bradley_terry`
    (docs/statistics.md); the answer does not depend on the order of the rankings.
    `counts`, when given, says how many games each ranking stands for (a tally of distinct
    rankings, arbiter/tournament/tally.py): the same fit as the rankings repeated.
    """
    import numpy as np
    index = _index_players(players)
    if anchor is not None and anchor not in index:
        raise ValueError(f"anchor {anchor!r} is not one of the players")
    events = _choice_events(index, rankings, counts)
    met = np.zeros((len(index), len(index)))
    for members in events:
        for i, j in combinations(members, 2):
            met[i, j] = met[j, i] = 1
    ratings: dict[str, Rating] = {}
    for group in _groups(met):
        names = [players[i] for i in group]
        if len(group) == 1:
            ratings[names[0]] = Rating(0.0, -math.inf, math.inf)
            continue
        local = {player: k for k, player in enumerate(group)}
        own = {tuple(local[i] for i in members): weight for members, weight in events.items() if members[0] in local}
        pinned = names.index(anchor) if anchor in names else None
        elo, sd = _fit_rankings(own, met[np.ix_(group, group)], pinned)
        for name, e, s in zip(names, elo, sd):
            ratings[name] = Rating(float(e), float(e - Z95 * s), float(e + Z95 * s))
    return {name: ratings[name] for name in players}


def _choice_events(index: dict[str, int], rankings: Sequence[Mapping[str, int]],
                   counts: Sequence[float] | None = None) -> ChoiceEvents:
    """Every ranking as weighted choice events, identical events merged (weights add up).

    A block of k tied players followed by the set R of players placed below them stands for
    all k! orders of the block. In a random order, the block's players still unplaced form a
    given subset T of size t with probability 1 / C(k, t), and each of T is chosen next with
    probability 1 / t: so the event 'x chosen from T + R' weighs 1 / (C(k, t) t).

    A block of more than EXACT_TIE_MAX players (a fault on the first move of a many-seat game)
    would need 2^k subsets. It stands for 2k of its orders instead: its players in the
    ranking's order (the seat order) read as a cycle, each of the k rotations of that cycle and
    of its reverse. In those orders each player is in each of the block's places equally often
    and each pair of players is in either order equally often, as in the average over all k!
    orders; no name enters, so renaming players changes no rating (docs/statistics.md
    measures the difference from the exact average).
    """
    events: ChoiceEvents = {}
    for k, ranking in enumerate(rankings):
        times = 1.0 if counts is None else float(counts[k])  # the games this ranking stands for
        if not isinstance(ranking, (dict, Mapping)) or len(ranking) < 2:
            raise ValueError(f"ranking {k}: expected a mapping of at least two players to places, got {ranking!r}")
        places: dict[int, list[int]] = {}
        for name, place in ranking.items():
            if name not in index:
                raise ValueError(f"ranking {k}: unknown player {name!r}")
            if isinstance(place, bool) or not isinstance(place, int) or place < 1:
                raise ValueError(f"ranking {k}: place of {name!r} must be an integer >= 1, got {place!r}")
            places.setdefault(place, []).append(index[name])
        if len(places) == len(ranking):  # no tie, the usual case: one choice per place but the last
            order = [places[p][0] for p in sorted(places)]
            for step in range(len(order) - 1):
                members = (order[step],) + tuple(sorted(order[step + 1:]))
                events[members] = events.get(members, 0.0) + times
            continue
        blocks = [sorted(places[p]) for p in sorted(places)]
        for b, block in enumerate(blocks):
            below = tuple(sorted(i for later in blocks[b + 1:] for i in later))
            if len(block) > EXACT_TIE_MAX:
                seated = [index[name] for name in ranking if index[name] in block]  # the seat order
                for cycle in (seated, seated[::-1]):
                    for turn in range(len(cycle)):
                        rotated = cycle[turn:] + cycle[:turn]
                        for step in range(len(rotated)):
                            members = (rotated[step],) + tuple(sorted(set(rotated[step + 1:]) | set(below)))
                            if len(members) > 1:
                                events[members] = events.get(members, 0.0) + times / (2 * len(cycle))
                continue
            for size in range(1, len(block) + 1):
                weight = times / (math.comb(len(block), size) * size)
                for subset in combinations(block, size):
                    if size + len(below) < 2:
                        continue  # the last player left is not a choice
                    for chosen in subset:
                        members = (chosen,) + tuple(sorted(set(subset) - {chosen} | set(below)))
                        events[members] = events.get(members, 0.0) + weight
    return events


def _fit_rankings(events: ChoiceEvents, met: np.ndarray, pinned: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Elo ratings and standard deviations for one connected group of players, from its events."""
    import numpy as np
    m = len(met)
    ahead = np.zeros((m, m))  # ahead[i, j]: i was chosen while j was still there
    for members in events:
        ahead[members[0], list(members[1:])] = 1
    if not _has_finite_maximum(ahead):
        # As in bradley_terry: every pair that met gets VIRTUAL_DRAWS drawn two-player games.
        events = dict(events)
        for i, j in zip(*np.nonzero(np.triu(met))):
            for members in ((int(i), int(j)), (int(j), int(i))):
                events[members] = events.get(members, 0.0) + 0.5 * VIRTUAL_DRAWS
    by_size = _events_by_size(events)
    theta = _newton_maximum(m, lambda theta: _ranking_log_likelihood(theta, by_size),
                            lambda theta: _ranking_gradient_information(theta, by_size, m), "Plackett-Luce")
    return _elo_with_deviations(theta, _ranking_gradient_information(theta, by_size, m)[1], pinned)


def _events_by_size(events: ChoiceEvents) -> list[tuple[np.ndarray, np.ndarray]]:
    """The events as arrays per choice-set size: members (chooser in column 0) and weights."""
    import numpy as np
    sizes: dict[int, list[tuple[tuple[int, ...], float]]] = {}
    for members, weight in events.items():
        sizes.setdefault(len(members), []).append((members, weight))
    return [(np.array([m for m, _ in rows], dtype=np.intp), np.array([w for _, w in rows]))
            for _, rows in sorted(sizes.items())]


def _ranking_log_likelihood(theta: np.ndarray, by_size: list[tuple[np.ndarray, np.ndarray]]) -> float:
    import numpy as np
    total = 0.0
    for members, weights in by_size:
        t = theta[members]
        top = t.max(axis=1)
        log_sum = top + np.log(np.exp(t - top[:, None]).sum(axis=1))
        total += float(np.sum(weights * (t[:, 0] - log_sum)))
    return total


def _ranking_gradient_information(theta: np.ndarray, by_size: list[tuple[np.ndarray, np.ndarray]],
                                  m: int) -> tuple[np.ndarray, np.ndarray]:
    """The log-likelihood's gradient and observed information (minus its Hessian), natural units.

    A choice from set S with probabilities p adds w (e_chosen - p) to the gradient and
    w (diag p - p p^T) to the information, whoever was chosen."""
    import numpy as np
    gradient = np.zeros(m)
    info = np.zeros(m * m)  # flat: entry (i, j) at i * m + j; bincount sums repeated indices
    for members, weights in by_size:
        t = theta[members]
        p = np.exp(t - t.max(axis=1)[:, None])
        p /= p.sum(axis=1)[:, None]
        wp = weights[:, None] * p
        gradient += np.bincount(members[:, 0], weights, minlength=m) - np.bincount(members.ravel(), wp.ravel(), minlength=m)
        info += np.bincount(members.ravel() * (m + 1), wp.ravel(), minlength=m * m)
        pairs = (members[:, :, None] * m + members[:, None, :]).ravel()
        info -= np.bincount(pairs, (wp[:, :, None] * p[:, None, :]).ravel(), minlength=m * m)
    return gradient, info.reshape(m, m)


# --- Elo from a match ------------------------------------------------------------------------


def pairing_elo(openings: Sequence[Sequence[float]]) -> EloEstimate:
    """The Elo of one player over another, from their games grouped by opening.

    Each group holds the first player's game scores (1, 1/2, 0) in the games of one opening.
    When every group is a pair (the opening played twice, the seats swapped) the estimate is
    `elo_from_pentanomial`'s, which counts the pair's two games as one sample; otherwise
    `elo_from_wdl`'s over all games. Both give the same figure (the Elo of the mean score);
    only the interval differs, and `interval` says which it is. Every Elo figure of a
    pairing (standings, head-to-head line, a match's running line, the SPRT) comes from here.
    """
    scores = [float(s) for group in openings for s in group]
    for s in scores:
        if s not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game score is 1, 1/2 or 0, got {s!r}")
    if all(len(group) == 2 for group in openings):  # no games at all: the SPRT before its first pair
        counts = [0, 0, 0, 0, 0]
        for group in openings:
            counts[round(2 * sum(group))] += 1
        return elo_from_pentanomial(counts)
    return elo_from_wdl(scores.count(1.0), scores.count(0.5), scores.count(0.0))


def elo_from_wdl(wins: int, draws: int, losses: int) -> EloEstimate:
    """Logistic Elo difference from win/draw/loss counts (trinomial, normal approximation).

    The interval maps score +- 1.96 standard errors through the Elo curve. With only
    wins or only losses, one virtual draw is added so the estimate is finite; with no
    games the estimate is 0 with an infinite interval.
    """
    counts = _check_counts((wins, draws, losses), ("wins", "draws", "losses"))
    w, d, l = counts
    if w + d + l == 0:
        return EloEstimate(0.0, -math.inf, math.inf, 0.5)
    if d == 0 and (w == 0 or l == 0):
        d = VIRTUAL_DRAWS
    return _score_estimate((1.0, 0.5, 0.0), (w, d, l))


def elo_from_pentanomial(counts: Sequence[int]) -> EloEstimate:
    """Logistic Elo difference from game-pair counts (pentanomial, normal approximation).

    Like `elo_from_wdl` but with the variance of pair scores, which accounts for the
    correlation between the two games of a pair. If every pair scored 0 (or every pair
    1), one virtual drawn game (half a pair scoring 1/2) is added.
    """
    pairs = _with_virtual_draw(_check_pentanomial(counts))
    if sum(pairs) == 0:
        return EloEstimate(0.0, -math.inf, math.inf, 0.5, "pentanomial")
    return _score_estimate(PAIR_SCORES, pairs, "pentanomial")


def nelo_from_pentanomial(counts: Sequence[int]) -> tuple[float, float, float]:
    """Normalized Elo from game-pair counts, with its 95% interval: (nelo, low, high).

    nElo = (score - 1/2) / (sqrt(2) * pair_sd) * 800 / ln 10, the per-game t-value on an
    Elo-like scale; the interval is the delta method's (it reduces to
    nElo +- 1.96 * 800 / ln 10 / sqrt(games) near nElo 0). Degenerate samples are
    treated as in `elo_from_pentanomial`; all pairs scoring 1/2 gives nElo 0.
    """
    pairs = _with_virtual_draw(_check_pentanomial(counts))
    n = sum(pairs)
    if n == 0:
        return (0.0, -math.inf, math.inf)
    mean, sd = _moments(PAIR_SCORES, pairs)
    t = (mean - 0.5) / sd if sd > 0 else 0.0
    # Variance of the t-value estimate per pair: the mean square of its influence function.
    variance = 1.0 if sd == 0 else sum(
        c * (((a - mean) / sd) - t / 2 * (((a - mean) / sd) ** 2 - 1)) ** 2 for a, c in zip(PAIR_SCORES, pairs)
    ) / n
    half_width = Z95 * math.sqrt(variance / n)
    scale = NELO_PER_T / math.sqrt(2)
    return (t * scale, (t - half_width) * scale, (t + half_width) * scale)


def elo_from_score(score: float) -> float:
    """The logistic Elo difference that predicts this expected score (0 -> -inf, 1 -> +inf)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return ELO_PER_NAT * math.log(score / (1 - score))


def _score_estimate(values: Sequence[float], counts: Sequence[float],
                    interval: Interval = "trinomial") -> EloEstimate:
    n = sum(counts)
    mean, sd = _moments(values, counts)
    se = sd / math.sqrt(n)
    los = 0.5 if se == 0 else 0.5 * math.erfc(-(mean - 0.5) / se / math.sqrt(2))
    return EloEstimate(elo_from_score(mean), elo_from_score(mean - Z95 * se), elo_from_score(mean + Z95 * se), los,
                       interval)


def _moments(values: Sequence[float], counts: Sequence[float]) -> tuple[float, float]:
    """Mean and (population) standard deviation of a weighted sample."""
    n = sum(counts)
    mean = sum(v * c for v, c in zip(values, counts)) / n
    variance = sum(c * (v - mean) ** 2 for v, c in zip(values, counts)) / n
    return mean, math.sqrt(variance)


def _with_virtual_draw(pairs: list[float]) -> list[float]:
    """Add one drawn game (half a pair scoring 1/2) when every pair scored 0 or every pair 1."""
    n = sum(pairs)
    if n > 0 and (pairs[0] == n or pairs[4] == n):
        pairs = list(pairs)
        pairs[2] += VIRTUAL_DRAWS / 2
    return pairs


def _check_counts(counts: Sequence[object], names: Sequence[str]) -> list[float]:
    checked = []
    for name, c in zip(names, counts):
        if isinstance(c, bool) or not isinstance(c, numbers.Real) or not math.isfinite(c) or c < 0:
            raise ValueError(f"{name} must be a non-negative count, got {c!r}")
        checked.append(float(c))
    return checked


def _check_pentanomial(counts: Sequence[int]) -> list[float]:
    if len(counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts (pair scores 0, 1/4, 1/2, 3/4, 1), got {len(counts)}")
    return _check_counts(counts, [f"count of pair score {s:g}" for s in PAIR_SCORES])


# --- The sequential probability ratio test -------------------------------------------------------


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds (ln(beta / (1 - alpha)), ln((1 - beta) / alpha)): accept H0 below, H1 above."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0 < value < 1:
            raise ValueError(f"{name} must be between 0 and 1 (exclusive), got {value!r}")
    if alpha + beta >= 1:
        raise ValueError(f"alpha + beta must be below 1, got {alpha} + {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """Generalized log-likelihood ratio of H1: nElo = elo1 against H0: nElo = elo0 on game pairs.

    Each hypothesis's likelihood is that of the most likely pentanomial distribution
    with the hypothesis's normalized Elo. Empty bins get a pseudo-count of
    SPRT_EMPTY_BIN so those distributions exist; with no pairs at all the LLR is 0.
    """
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise ValueError(f"need finite elo0 < elo1, got elo0={elo0!r}, elo1={elo1!r}")
    pairs = _check_pentanomial(counts)
    if sum(pairs) == 0:
        return 0.0
    pairs = [c if c > 0 else SPRT_EMPTY_BIN for c in pairs]
    p0 = _most_likely_with_t(pairs, _pair_t_value(elo0))
    p1 = _most_likely_with_t(pairs, _pair_t_value(elo1))
    return sum(c * math.log(b / a) for c, a, b in zip(pairs, p0, p1))


def sprt_status(
    counts: Sequence[int], elo0: float, elo1: float, alpha: float, beta: float
) -> SprtState:
    """The test's state after these pairs: LLR, bounds, and "H1"/"H0" once a bound is reached."""
    lower, upper = sprt_bounds(alpha, beta)
    llr = sprt_llr(counts, elo0, elo1)
    verdict: Literal["H0", "H1", None] = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtState(llr, lower, upper, verdict)


def _pair_t_value(nelo: float) -> float:
    """The pair-score t-value (mean - 1/2) / pair_sd that has this normalized Elo."""
    return nelo * math.sqrt(2) / NELO_PER_T


_SD_SCAN = 48  # points of the sd scan; a 200-point scan finds the same solutions (tests/test_stats.py)


def _most_likely_with_t(counts: Sequence[float], t: float) -> list[float]:
    """The pentanomial distribution p maximizing sum(n_i ln p_i) with (mean - 1/2) / sd = t.

    Lagrange's conditions give p_i = q_i / (1 + x h_i) with q the sample frequencies and
    h_i = (a_i - 1/2) - (t/2) (sd + (a_i - mean)^2 / sd), where mean = 1/2 + t sd and x
    makes p sum to 1. For each trial sd that fixes h, so the only unknown is x, the root
    of a monotone function. The sd is right when p's own variance equals sd^2: scan sd for
    sign changes of that mismatch, solve each bracket, and keep the most likely solution.
    """
    total = sum(counts)
    q = [c / total for c in counts]

    def candidate(sd: float) -> list[float] | None:
        mean = 0.5 + t * sd
        h = [(a - 0.5) - 0.5 * t * (sd + (a - mean) ** 2 / sd) for a in PAIR_SCORES]
        if max(h) <= 0 or min(h) >= 0:
            return None  # no distribution of this form has this sd
        x = _secular_root(q, h)
        denominators = [1 + x * hi for hi in h]
        p = [qi / d for qi, d in zip(q, denominators)]
        # The bin nearest its pole (1 + x h_i -> 0) loses precision to cancellation; since the
        # root makes p sum to 1, take that bin as the remainder instead.
        k = min(range(len(p)), key=lambda i: denominators[i] / q[i])
        p[k] = 1 - (sum(p) - p[k])
        return p if p[k] > 0 else None

    def mismatch(sd: float) -> float | None:
        p = candidate(sd)
        if p is None:
            return None
        mean = 0.5 + t * sd
        return sum(pi * (a - mean) ** 2 for pi, a in zip(p, PAIR_SCORES)) - sd * sd

    # The largest sd a distribution on [0, 1] can have with this t; there the mismatch is <= 0
    # (docs/statistics.md), and extreme samples put the solution very close to it, so the scan
    # is densest near both ends and includes sd_max itself.
    sd_max = 0.5 / math.sqrt(1 + t * t)
    grid = [sd_max * (1 - math.cos(math.pi * k / _SD_SCAN)) / 2 for k in range(1, _SD_SCAN + 1)]
    values = [mismatch(sd) for sd in grid]
    best: tuple[float, list[float]] | None = None
    for (lo, f_lo), (hi, f_hi) in zip(zip(grid, values), zip(grid[1:], values[1:])):
        if f_lo is None or f_hi is None or (f_lo > 0) == (f_hi > 0):
            continue
        p = candidate(_bracketed_root(mismatch, lo, f_lo, hi, f_hi))
        if p is None:
            continue
        value = sum(c * math.log(pi) for c, pi in zip(counts, p))
        if best is None or value > best[0]:
            best = (value, p)
    if best is None:
        raise ArithmeticError(f"no pentanomial distribution with t-value {t} found for counts {list(counts)}")
    return best[1]


def _bracketed_root(f: Callable[[float], float | None], lo: float, f_lo: float, hi: float, f_hi: float) -> float:
    """A root of f between lo and hi, where f changes sign: regula falsi, Illinois variant."""
    kept = 0  # which end stayed put last time: halving its value keeps the method from stalling
    for _ in range(200):
        x = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        if not lo < x < hi:
            x = 0.5 * (lo + hi)
        fx = f(x)
        if fx is None or fx == 0 or hi - lo <= 1e-15 * hi:
            return x
        if (fx > 0) == (f_lo > 0):
            lo, f_lo = x, fx
            if kept == -1:
                f_hi /= 2
            kept = -1
        else:
            hi, f_hi = x, fx
            if kept == 1:
                f_lo /= 2
            kept = 1
    return 0.5 * (lo + hi)


def _secular_root(q: Sequence[float], h: Sequence[float]) -> float:
    """The x with sum(q_i h_i / (1 + x h_i)) = 0 and every 1 + x h_i > 0 (h has both signs).

    The function decreases from +inf to -inf on that interval; safeguarded Newton.
    """
    lo, hi = -1 / max(h), -1 / min(h)
    x = 0.0
    for _ in range(200):
        f = sum(qi * hi_ / (1 + x * hi_) for qi, hi_ in zip(q, h))
        slope = -sum(qi * hi_ * hi_ / (1 + x * hi_) ** 2 for qi, hi_ in zip(q, h))
        if f > 0:
            lo = x
        else:
            hi = x
        step = f / slope
        nxt = x - step
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)
        if nxt == x or abs(nxt - x) <= 1e-15 * max(1.0, abs(x)):
            return nxt
        x = nxt
    return x
