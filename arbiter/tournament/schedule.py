"""Which games a tournament plays: groups of players, seats, openings and stable game ids.

A game has `seats` players (two, or more for the dots games' `players` parameter). A group
of players plays each opening once in every seat rotation: with two seats, twice with the
seats swapped; with N, N times, each player once in each seat. Round robin and gauntlet
schedules are fixed by the config; a Swiss round is fixed by the config plus the results of
the rounds before it, so a resumed run computes the same games. docs/config.md, `format`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations, islice, permutations
from typing import Any, Callable, Iterator, Sequence

from ..errors import UsageError
from ..games import Game
from .config import TournamentConfig
from .plan import ALL_GROUPS_MAX, group_count, random_opening
from .rules_host import RulesFailed


@dataclass(frozen=True)
class ScheduledGame:
    """One game to play: its stable id, round, players in seat order and forced opening, and
    `void`, why it is recorded void without being played (the rules failed drawing its opening)."""

    id: str
    round: int
    seats: tuple[str, ...]
    opening: tuple[str, ...]
    void: str | None = None


def opening_for(config: TournamentConfig, game: Game[Any], index: int) -> tuple[tuple[str, ...], str | None]:
    """Opening number `index` (0-based): from the file (cycling), random, or none; and None, or,
    when the rules failed drawing a random one (they crashed or hung twice in the rules host),
    no opening and why: its games are void, and the tournament goes on (docs/config.md, openings)."""
    openings = config.openings
    if openings.lines:
        return openings.lines[index % len(openings.lines)], None
    if openings.random_moves:
        try:
            return random_opening(game, openings.random_moves, openings.seed, index), None
        except RulesFailed as exc:
            return (), f"{exc}: the games of this opening were not played"
    return (), None


# Kept in a results folder's schedule identity when groups have three or more seats
# (resume.schedule_identity), so a folder whose games were seated by an older rule is refused
# rather than resumed into a mix of two seatings. Change it whenever the seat orders change.
SEAT_ORDERS = "balanced-cycles"
CYCLE_CHOICES_MAX = 120  # cyclic orders weighed per group (all of them up to 6 seats), with their reverses


def seat_turns(cycle: Sequence[str]) -> list[tuple[str, ...]]:
    """The N turns of one cyclic order, so each player sits once in each seat. Two seats:
    (a, b) then (b, a)."""
    return [tuple(cycle[k:]) + tuple(cycle[:k]) for k in range(len(cycle))]


def _cycle_choices(group: Sequence[str]) -> list[tuple[str, ...]]:
    """The cyclic orders a group may sit in, each from its first player: in permutation order,
    each followed by its reverse (at most CYCLE_CHOICES_MAX of them, then their reverses)."""
    first, rest = group[0], list(group[1:])
    choices: dict[tuple[str, ...], None] = {}
    for order in islice(permutations(rest), CYCLE_CHOICES_MAX):
        choices.setdefault((first, *order))
        choices.setdefault((first, *reversed(order)))
    return list(choices)


# Which of these game ids have a record (tally.IdSet.holds_each).
Recorded = Callable[[list[str]], list[bool]]


def balanced_cycles(groups: Sequence[tuple[str, ...]], rotations: int) -> list[list[tuple[str, ...]]]:
    """`each_rotation`'s cycles in one list: cycles[k][g]."""
    return list(each_rotation(groups, rotations))


def each_rotation(groups: Sequence[tuple[str, ...]], rotations: int) -> Iterator[list[tuple[str, ...]]]:
    """The cyclic order each group sits in, rotation by rotation: cycles[k][g].

    Around a table each player sits directly before the next one (the last before the first).
    Rotation by rotation, group by group (the playing order), each group takes the cyclic order
    that most evens out, over all groups so far, how often each player sat directly before each
    other one: for every pair it would seat x before y, the times x already sat before y minus
    the times y sat before x, summed, the lowest wins; then the one whose neighbours have sat
    side by side least; then the first in permutation order. A group's rotations take different
    cyclic orders while it has unused ones (with three seats: a cyclic order and its reverse).
    Deterministic, so a resumed run computes the same seats.
    """
    before: dict[tuple[str, str], int] = {}  # (x, y): groups so far in which x sat directly before y
    used: list[set[tuple[str, ...]]] = [set() for _ in groups]

    def imbalance(cycle: tuple[str, ...]) -> tuple[int, int]:
        pairs = list(zip(cycle, cycle[1:] + cycle[:1]))
        return (sum(before.get((x, y), 0) - before.get((y, x), 0) for x, y in pairs),
                sum(before.get((x, y), 0) + before.get((y, x), 0) for x, y in pairs))

    choices_of = [_cycle_choices(group) for group in groups]  # the same every rotation
    for _ in range(rotations):
        chosen_now = []
        for g, group in enumerate(groups):
            choices = choices_of[g]
            fresh = [c for c in choices if c not in used[g]] or choices
            # min keeps the first of equals: permutation order (one choice, two seats: no need to weigh it)
            cycle = fresh[0] if len(fresh) == 1 else min(fresh, key=imbalance)
            used[g].add(cycle)
            if len(group) > 2:
                for x, y in zip(cycle, cycle[1:] + cycle[:1]):
                    before[(x, y)] = before.get((x, y), 0) + 1
            chosen_now.append(cycle)
        yield chosen_now


def _group_games(config: TournamentConfig, game: Game[Any], groups: Sequence[tuple[str, ...]], *, per_group: int,
                 first_opening: int, stage: str | None = None, round_no: int | None = None) -> list[ScheduledGame]:
    """`_each_group_game`'s games in one list."""
    return list(_each_group_game(config, game, groups, per_group=per_group, first_opening=first_opening,
                                 stage=stage, round_no=round_no))


def _each_group_game(config: TournamentConfig, game: Game[Any], groups: Sequence[tuple[str, ...]], *, per_group: int,
                     first_opening: int, stage: str | None = None, round_no: int | None = None,
                     recorded: Recorded | None = None) -> Iterator[ScheduledGame]:
    """Each group plays per_group / seats openings, each in one rotation of the seats: the
    turns of a cyclic order chosen by `balanced_cycles`. A fixed schedule's games are in round
    k + 1 for opening k, ids `001-a-b`; a Swiss round's are all in `round_no`, ids
    `003-o1-a-b`; a final's (`stage`) in `round_no` too, ids `final-o1-a-b`. With `recorded`
    (which of these ids have a record), only the games without one, and a rotation's opening
    is drawn only when one of its games is left (a resume of a million games draws none of
    the done ones')."""
    for k, cycles in enumerate(each_rotation(groups, per_group // config.seats)):
        if stage is not None:
            head = f"{stage}-o{k + 1}"
        elif round_no is not None:
            head = f"{round_no:03d}-o{k + 1}"
        else:
            head = f"{k + 1:03d}"
        games = [(f"{head}-{'-'.join(seats)}", seats) for cycle in cycles for seats in seat_turns(cycle)]
        left = [False] * len(games) if recorded is None else recorded([game_id for game_id, _ in games])
        if all(left):
            continue
        opening, void = opening_for(config, game, first_opening + k)
        for (game_id, seats), done in zip(games, left):
            if not done:
                yield ScheduledGame(id=game_id, round=round_no or k + 1, seats=seats, opening=opening, void=void)


def fixed_schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """`each_fixed_game`'s games in one list."""
    return list(each_fixed_game(config))


def each_fixed_game(config: TournamentConfig, recorded: Recorded | None = None) -> Iterator[ScheduledGame]:
    """The whole schedule of a round-robin or gauntlet tournament, in playing order, one game
    at a time (a million games are never held at once); with `recorded`, the games without a
    record alone (`_each_group_game`).

    Round k holds every group's rotation of opening k, so a stopped tournament has played
    every group about equally.
    """
    names = [p.name for p in config.players]
    if config.format == "round-robin":
        groups = round_robin_groups(names, config.seats)
    elif config.format == "gauntlet":
        assert config.candidate is not None
        groups = gauntlet_groups(config.candidate, [n for n in names if n != config.candidate], config.seats)
    else:
        raise ValueError(f"{config.format} has no fixed schedule")
    if any("-" in name for name in names):  # ids that could clash: checked whole, once, before any game
        _unique(list(_each_group_game(config, config.make_game(), groups, per_group=config.games_per_pairing,
                                      first_opening=0)))
    return _each_group_game(config, config.make_game(), groups, per_group=config.games_per_pairing, first_opening=0,
                            recorded=recorded)


def _unique(games: list[ScheduledGame]) -> list[ScheduledGame]:
    """The games, refused when two share an id: names with '-' can join into the same id
    in ways the config's pairwise check does not see with three or more seats (without a
    '-' in any name, an id splits back into its round and seats: no clash can happen)."""
    seen: dict[str, ScheduledGame] = {}
    for game in games:
        other = seen.setdefault(game.id, game)
        if other is not game:
            raise UsageError(f"game ids would clash: {' vs '.join(other.seats)} and {' vs '.join(game.seats)} are "
                             f"both {game.id!r}; rename one of these players (e.g. without '-')")
    return games


def round_robin_groups(names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """Every group of `seats` players (in config order), or a balanced design when there
    would be more than ALL_GROUPS_MAX of them (never with two seats: every pair plays)."""
    if seats == 2 or math.comb(len(names), seats) <= ALL_GROUPS_MAX:
        return list(combinations(names, seats))
    return balanced_groups(names, seats)


def balanced_groups(names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """A deterministic design in which every pair of players meets about once.

    There are ceil(n (n - 1) / (N (N - 1))) groups, the fewest in which every pair could meet.
    Each group is built greedily: it starts with a player who has played fewest groups so
    far, and adds, one at a time, the player who has met the chosen ones least, then who has
    played fewest groups, then who comes first in the config. The tests measure the result:
    every player plays the same number of groups give or take one, and pairs meet 0 to 2 times.
    """
    import numpy as np  # here, not at the top: see arbiter/stats.py
    n = len(names)
    played = np.zeros(n, dtype=np.int64)
    met = np.zeros((n, n), dtype=np.int64)
    # One key orders the candidates lexicographically: meetings with the chosen ones, then
    # groups played, then config order (each term is below the next one's unit).
    order = np.arange(n)
    groups = []
    for _ in range(math.ceil(n * (n - 1) / (seats * (seats - 1)))):
        group = [int(np.argmin(played * n + order))]
        while len(group) < seats:
            key = met[group].sum(axis=0) * (n * n * seats) + played * n + order
            key[group] = np.iinfo(np.int64).max
            group.append(int(np.argmin(key)))
        played[group] += 1
        met[np.ix_(group, group)] += 1
        met[group, group] -= 1
        groups.append(tuple(names[p] for p in sorted(group)))
    return groups


def gauntlet_groups(candidate: str, field: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """The candidate's groups: the other seats filled from the field in rotation (window k
    holds field players k, k+1, ...), so each field player plays seats - 1 of the groups."""
    groups: list[tuple[str, ...]] = []
    for k in range(len(field)):
        others = tuple(field[(k + j) % len(field)] for j in range(seats - 1))
        if not any(set(others) == set(g[1:]) for g in groups):  # a field of exactly seats - 1 players
            groups.append((candidate,) + others)
    return groups


def swiss_round(config: TournamentConfig, round_no: int, points: dict[str, float],
                met: set[frozenset[str]], byes: set[str]) -> tuple[list[ScheduledGame], list[str]]:
    """The games of Swiss round `round_no` (1-based) and the players who sit it out.

    Players are ranked by points (config order breaks ties); the top player without a group
    joins the next ones, in rank order, with whom it has not played as this same group,
    backtracking so no group repeats while avoidable. When the field does not divide into
    groups, the lowest-ranked players who have not had a bye sit out (the lowest if all have).
    """
    order = sorted((p.name for p in config.players), key=lambda n: -points.get(n, 0.0))
    sitting_out: list[str] = []
    for _ in range(len(order) % config.seats):
        bye = next((n for n in reversed(order) if n not in byes), order[-1])
        order.remove(bye)
        sitting_out.append(bye)
    groups = _group_without_repeats(order, met, config.seats) or _group_without_repeats(order, set(), config.seats)
    assert groups is not None
    per_round = config.games_per_pairing // config.seats
    return _group_games(config, config.make_game(), groups, per_group=config.games_per_pairing,
                        first_opening=(round_no - 1) * per_round, round_no=round_no), sitting_out


FINAL_STAGE = "final"  # the final's game ids begin with it (`final-o1-a-b`)


def final_games(config: TournamentConfig, qualifiers: Sequence[str]) -> list[ScheduledGame]:
    """The final's games (config.final): the `qualifiers` (in Swiss ranking order) play a round
    robin of final.games_per_pairing games a group, in round rounds + 1, its openings those
    after the Swiss rounds'."""
    assert config.final is not None and config.rounds is not None
    per_round = config.games_per_pairing // config.seats
    groups = round_robin_groups(list(qualifiers), config.seats)
    return _unique(_group_games(config, config.make_game(), groups, per_group=config.final.games_per_pairing,
                                first_opening=config.rounds * per_round, stage=FINAL_STAGE,
                                round_no=config.rounds + 1))


def _group_without_repeats(order: list[str], met: set[frozenset[str]], seats: int) -> list[tuple[str, ...]] | None:
    if not order:
        return []
    first, rest = order[0], order[1:]
    for partners in combinations(range(len(rest)), seats - 1):
        group = (first,) + tuple(rest[i] for i in partners)
        if frozenset(group) in met:
            continue
        tail = _group_without_repeats([n for i, n in enumerate(rest) if i not in partners], met, seats)
        if tail is not None:
            return [group] + tail
    return None


def planned_games(config: TournamentConfig) -> int:
    """How many games the whole tournament will play."""
    if config.sprt is not None:
        return config.sprt.max_games  # at most: the test stops as soon as it is decided
    games = group_count(config.format, len(config.players), config.seats, config.rounds or 0) * config.games_per_pairing
    if config.final is not None:
        games += group_count("round-robin", config.final.top, config.seats, 0) * config.final.games_per_pairing
    return games

