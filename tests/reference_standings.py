"""The standings as they were computed before the tally: from every record held at once.

Kept as the reference that tests/test_tally.py checks the aggregates against (the issue's
"the standings, ratings and SPRT from the aggregates equal those from the full records"):
the same code as reports/standings.py had, reading a list of records.
"""
from __future__ import annotations

from typing import Any, Sequence

from arbiter.games import CHANCE
from arbiter.records import GameRecord, game_places
from arbiter.reports.standings import PlayerStanding, Standings
from arbiter.stats import EloEstimate, pairing_elo, plackett_luce


def game_points(record: GameRecord, seat: int, scoring: dict[str, float]) -> float:
    """Points a seat earned in a record: stored `points` if present, else from the winner."""
    if record.points is not None:
        return float(record.points[seat])
    if record.winner is None:
        return scoring["draw"]
    return scoring["win"] if record.winner == seat else scoring["loss"]


def game_score(record: GameRecord, name: str) -> float:
    """The player's game score in a record: 1 win, 1/2 draw, 0 loss (whatever the points scoring)."""
    return 0.5 if record.winner is None else float(record.seat_names()[record.winner] == name)


def pairing_estimate(records: Sequence[GameRecord], first: str, second: str) -> EloEstimate:
    """The Elo of `first` over `second` from their two-seat games, grouped by round and opening
    (each opening is played twice, the seats swapped): `stats.pairing_elo`."""
    openings: dict[tuple[Any, ...], list[float]] = {}
    for k, record in enumerate(records):
        if record.termination.is_void or sorted(record.seat_names()) != sorted((first, second)):
            continue
        # A record without a round (not from a tournament) is a group of its own.
        key = ("round", record.round, tuple(record.opening or ())) if record.round is not None else ("game", k)
        openings.setdefault(key, []).append(game_score(record, first))
    return pairing_elo(list(openings.values()))


def full_standings(records: Sequence[GameRecord], *, players: Sequence[str] = (),
                      scoring: dict[str, float] | None = None, anchor: str | None = None) -> Standings:
    """Standings from game records of any number of seats; `players` lists names to show even with no games."""
    scoring = scoring or {"win": 1.0, "draw": 0.5, "loss": 0.0}
    seats = max((len(record.seat_names()) for record in records), default=2)
    table: dict[str, PlayerStanding] = {name: PlayerStanding(name, places=[0] * seats) for name in players}
    cross: dict[str, dict[str, float]] = {}
    rankings: list[dict[str, int]] = []
    faults = void = 0
    for record in records:
        names = record.seat_names()
        for name in names:
            table.setdefault(name, PlayerStanding(name, places=[0] * seats))
        if record.termination.is_void:
            void += 1
            for name in names:
                table[name].void += 1
            continue
        # From the result the tamper check replays (arbiter/tournament/audit.py), not the stored `places`.
        places = game_places(record.scores, record.winner, record.offender)
        rankings.append(dict(zip(names, places)))
        if record.termination.is_fault:
            faults += 1
        points = [game_points(record, seat, scoring) for seat in range(len(names))]
        for seat, name in enumerate(names):
            row = table[name]
            row.games += 1
            row.places[places[seat] - 1] += 1
            if places[seat] > 1:
                row.losses += 1
            elif places.count(1) > 1:
                row.draws += 1
            else:
                row.wins += 1
            row.points += points[seat]
            row.points_in_games += sum(points)
            for other_seat, other in enumerate(names):
                if other_seat == seat:
                    continue
                if seats == 2:  # two seats: the points scored against the other player
                    gained = points[seat]
                else:  # more: finished ahead (1) or tied (1/2)
                    gained = 1.0 if places[seat] < places[other_seat] else 0.5 if places[seat] == places[other_seat] else 0.0
                cross.setdefault(name, {}).setdefault(other, 0.0)
                cross[name][other] += gained
            if record.offender == seat and record.termination.value in row.faults:
                row.faults[record.termination.value] += 1
            startup = (record.startup_ms or [None] * len(names))[seat]
            if startup is not None:
                row.max_startup_ms = max(row.max_startup_ms or 0.0, startup)
        for move in record.moves:
            if move.forced or move.seat == CHANCE:  # the arbiter's moves, not a player's
                continue
            row = table[names[move.seat]]
            row.move_count += 1
            row.move_ms_total += move.wall_ms
            row.max_move_ms = max(row.max_move_ms, move.wall_ms)
    ratings = plackett_luce(list(table), rankings, anchor=anchor)
    for name, rating in ratings.items():
        row = table[name]
        row.rating, row.rating_low, row.rating_high = rating.elo, rating.low, rating.high
    listed = {name: index for index, name in enumerate(players)}
    # Ties: points, then rating, then the order players were listed in (then name).
    ranked = sorted(table.values(), key=lambda r: (-r.points, -r.rating, listed.get(r.name, len(listed)), r.name))
    for rank, row in enumerate(ranked, 1):
        row.rank = rank
    head, pairing = None, None
    if len(ranked) == 2 and seats == 2:
        # One figure for the pairing: each row shows its player's Elo over the other (the anchor,
        # if one is named, stays at 0), the same estimate as the head-to-head line and the SPRT.
        pairing = tuple(sorted(table, key=lambda name: (listed.get(name, len(listed)), name)))
        head = pairing_estimate(records, *pairing)
        over = {pairing[0]: (head.elo, head.low, head.high), pairing[1]: (-head.elo, -head.high, -head.low)}
        for row in ranked:
            if row.name != anchor:
                row.rating, row.rating_low, row.rating_high = over[row.name]
    return Standings(players=ranked, crosstable=cross, games=len(records) - void, faults=faults, head_to_head=head,
                     seats=seats, pairing=pairing, void=void)


