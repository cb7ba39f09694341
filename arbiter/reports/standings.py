"""Standings, ratings and the crosstable, computed from game records alone.

Every figure here is recomputed from `games.jsonl`: the tournament writes each record
with its players' names, places and points, so `arbiter report` needs nothing else. Games
of any number of seats: a game's result is its ranking (`places`), rated by Plackett-Luce
(for two seats the same as Bradley-Terry; docs/statistics.md). A void game (its rules failed
or its worker died, docs/records.md) counts for no one: no standing, rating or crosstable
cell takes it; it is counted apart, per player and in the totals.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from tabulate import tabulate

from ..records import GameRecord
from .ranking import format_ranking
from ..stats import EloEstimate, elo_from_pentanomial, elo_from_wdl, elo_text, plackett_luce
from ..tournament.progress import ordinal
from ..tournament.store import ResultsFolder
from ..tournament.tally import FAULT_KINDS, HeadToHead, Tally, tally_of



@dataclass
class PlayerStanding:
    """One player's line in the standings. A win is a first place alone, a draw a shared
    first place, a loss any other place; `places` counts 1st, 2nd, ... (ties at the best place)."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    places: list[int] = field(default_factory=list)
    points: float = 0.0
    points_in_games: float = 0.0  # all points awarded in this player's games, both seats
    faults: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in FAULT_KINDS})
    move_count: int = 0
    move_ms_total: float = 0.0
    max_move_ms: float = 0.0
    max_startup_ms: float | None = None  # its slowest start-up (off the clock); None: none recorded
    void: int = 0  # its void games, counted in nothing else
    rank: int = 0
    rating: float = 0.0
    rating_low: float = 0.0
    rating_high: float = 0.0

    @property
    def score_pct(self) -> float:
        """The player's share of the points awarded in its games (with 1/0.5/0 scoring:
        points per game)."""
        return 100.0 * self.points / self.points_in_games if self.points_in_games else 0.0

    @property
    def avg_move_ms(self) -> float:
        return self.move_ms_total / self.move_count if self.move_count else 0.0

    @property
    def fault_total(self) -> int:
        return sum(self.faults.values())


@dataclass
class Standings:
    """The whole table, the crosstable and, for two players, their head-to-head estimate:
    the Elo of `pairing[0]` (listed first: a match's A, an SPRT's candidate) over `pairing[1]`.

    The crosstable holds, for two-seat games, the row player's points against the column
    player; for games of more seats (`seats` > 2), how often the row player finished ahead of
    the column player in their games together, a tie counting one half."""

    players: list[PlayerStanding]
    crosstable: dict[str, dict[str, float]]
    games: int  # counted: every recorded game but the void ones
    faults: int
    head_to_head: EloEstimate | None = None
    seats: int = 2
    pairing: tuple[str, str] | None = None
    void: int = 0  # void games, counted for no one


def game_score(record: GameRecord, name: str) -> float:
    """The player's game score in a record: 1 win, 1/2 draw, 0 loss (whatever the points scoring)."""
    return 0.5 if record.winner is None else float(record.seat_names()[record.winner] == name)


def pairing_estimate(records: Iterable[GameRecord], first: str, second: str) -> EloEstimate:
    """The Elo of `first` over `second` from their two-seat games, grouped by round and opening
    (each opening is played twice, the seats swapped): `stats.pairing_elo`, from a tally."""
    head = HeadToHead()
    for record in records:
        if not record.termination.is_void and sorted(record.seat_names()) == sorted((first, second)):
            head.add(record, record.seat_names())
    return head_to_head_estimate(head, first)


def head_to_head_estimate(head: HeadToHead, first: str) -> EloEstimate:
    """`stats.pairing_elo` from a tally's head-to-head: the pentanomial when every group is a
    pair, else the win/draw/loss counts, from `first`'s side."""
    wdl, pentanomial, pairs = head.counts_for(first)
    return elo_from_pentanomial(pentanomial) if pairs else elo_from_wdl(*wdl)


def compute_standings(records: Iterable[GameRecord], *, players: Sequence[str] = (),
                      scoring: dict[str, float] | None = None, anchor: str | None = None) -> Standings:
    """Standings from game records of any number of seats; `players` lists names to show even with no games."""
    return standings_from_tally(tally_of(records, scoring), players=players, anchor=anchor)


def standings_from_tally(tally: Tally, *, players: Sequence[str] = (), anchor: str | None = None) -> Standings:
    """Standings from a results folder's aggregates (tournament/tally.py); `players` lists names
    to show even with no games."""
    seats = tally.seats or 2
    table: dict[str, PlayerStanding] = {name: PlayerStanding(name, places=[0] * seats) for name in players}
    for name, sums in tally.players.items():
        row = table.setdefault(name, PlayerStanding(name, places=[0] * seats))
        for key, value in vars(sums).items():
            setattr(row, key, list(value) if key == "places" else dict(value) if key == "faults" else value)
        row.places.extend([0] * (seats - len(row.places)))
    rankings, counts = tally.ranking_counts()
    ratings = plackett_luce(list(table), rankings, anchor=anchor, counts=counts)
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
        head = head_to_head_estimate(tally.head_to_head, pairing[0])
        over = {pairing[0]: (head.elo, head.low, head.high), pairing[1]: (-head.elo, -head.high, -head.low)}
        for row in ranked:
            if row.name != anchor:
                row.rating, row.rating_low, row.rating_high = over[row.name]
    cross = {name: dict(row) for name, row in tally.crosstable().items()}
    return Standings(players=ranked, crosstable=cross, games=tally.records - tally.void, faults=tally.faults,
                     head_to_head=head, seats=seats, pairing=pairing, void=tally.void)


def _fault_text(row: PlayerStanding) -> str:
    parts = [f"{count} {kind}" for kind, count in row.faults.items() if count]
    return ", ".join(parts) if parts else "-"


def _cross_cell(row: dict[str, float], other: str) -> str:
    """Points against `other`, or `-` when the two never met (gauntlet, Swiss)."""
    return f"{row[other]:g}" if other in row else "-"


def standings_rows(standings: Standings) -> list[list[Any]]:
    """The standings table's rows, as printed (with more than two seats, a places column)."""
    return [
        [
            row.rank, row.name, row.games, row.wins, row.draws, row.losses,
            *(["-".join(str(count) for count in row.places)] if standings.seats > 2 else []),
            f"{row.points:g}",
            f"{row.score_pct:.1f}", elo_text(row.rating, row.rating_low, row.rating_high),
            _fault_text(row), f"{row.avg_move_ms:.1f}", f"{row.max_move_ms:.0f}",
            "-" if row.max_startup_ms is None else f"{row.max_startup_ms:.0f}",
        ]
        for row in standings.players
    ]


def standings_headers(standings: Standings) -> list[str]:
    """The standings table's headers: HEADERS, with the places column for more than two seats."""
    if standings.pairing is not None:  # two players: each row's Elo is over the other (compute_standings)
        return [PAIRING_ELO_HEADER if header == RATING_HEADER else header for header in HEADERS]
    if standings.seats == 2:
        return HEADERS
    places = "-".join(ordinal(place) for place in range(1, standings.seats + 1))
    return HEADERS[:6] + [places] + HEADERS[6:]



RATING_HEADER = "Elo [95%]"
HEADERS = ["#", "player", "games", "W", "D", "L", "points", "score %", RATING_HEADER, "faults",
           "avg ms/move", "max ms/move", "max start-up ms"]
PAIRING_ELO_HEADER = "Elo over the other [95%]"


def format_standings(standings: Standings, *, markdown: bool = False) -> str:
    """The standings table, the crosstable and the head-to-head line, as text or Markdown."""
    fmt = "github" if markdown else "simple"
    if not standings.players:  # no record and no description naming the players
        return f"No players and {standings.games} games recorded: nothing to rank yet.\n"
    parts = [tabulate(standings_rows(standings), headers=standings_headers(standings), tablefmt=fmt,
                      disable_numparse=True)]
    names = [row.name for row in standings.players]
    cross_rows = [
        [name] + ["x" if name == other else _cross_cell(standings.crosstable.get(name, {}), other)
                  for other in names]
        for name in names
    ]
    parts.append("Crosstable (points of the row player against the column player):" if standings.seats == 2 else
                 "Crosstable (games in which the row player finished ahead of the column player; a tie counts 1/2):")
    parts.append(tabulate(cross_rows, headers=["", *names], tablefmt=fmt, disable_numparse=True))
    if standings.head_to_head is not None and standings.pairing is not None:
        parts.append(head_to_head_line(standings.head_to_head, *standings.pairing))
    parts.append(f"{standings.games} games, {standings.faults} ended by a fault." + _void_text(standings))
    return "\n\n".join(parts) + "\n"


def _void_text(standings: Standings) -> str:
    """` 1 more game void (a: 1, b: 1), counted for no one.`, or nothing without void games."""
    if not standings.void:
        return ""
    who = ", ".join(f"{row.name}: {row.void}" for row in standings.players if row.void)
    games = "game" if standings.void == 1 else "games"
    return f" {standings.void} more {games} void ({who}), counted for no one (docs/records.md)."


def head_to_head_line(estimate: EloEstimate, first: str, second: str) -> str:
    """`a vs b: Elo of a over b +147 [+12, +320] (95% interval, pentanomial), likelihood of superiority 99.1%`."""
    return (f"{first} vs {second}: Elo of {first} over {second} {estimate.text()} "
            f"(95% interval, {estimate.interval}), likelihood of superiority {100 * estimate.los:.1f}%")


def _finite(value: float) -> float | None:
    """The number for JSON (unrounded, so pages print exactly what standings.txt prints), or
    None where it is infinite (no games, or a clean sweep)."""
    return value if math.isfinite(value) else None


def summary_json(standings: Standings, meta: dict[str, Any]) -> dict[str, Any]:
    """The machine-readable summary (summary.json): `meta` plus per-player figures and totals."""
    players = []
    for row in standings.players:
        players.append({
            "rank": row.rank, "name": row.name, "games": row.games, "wins": row.wins, "draws": row.draws,
            "losses": row.losses, "places": list(row.places), "points": row.points, "score_pct": row.score_pct,
            "rating": _finite(row.rating), "rating_low": _finite(row.rating_low),
            "rating_high": _finite(row.rating_high), "faults": dict(row.faults),
            "avg_move_ms": row.avg_move_ms, "max_move_ms": row.max_move_ms, "max_startup_ms": row.max_startup_ms,
            "void": row.void,
        })
    summary = dict(meta)
    summary.update({
        "seats": standings.seats,
        "players": players,
        "crosstable": standings.crosstable,
        "crosstable_counts": "points" if standings.seats == 2 else "finished_ahead",
        "totals": {**meta.get("totals", {}), "games": standings.games, "faults": standings.faults,
                   "void": standings.void},
    })
    if standings.head_to_head is not None and standings.pairing is not None:
        h = standings.head_to_head
        summary["head_to_head"] = {"first": standings.pairing[0], "second": standings.pairing[1],
                                   "elo": _finite(h.elo), "low": _finite(h.low), "high": _finite(h.high),
                                   "los": h.los, "interval": h.interval}
    return summary


def write_standings(results_dir: Path, standings: Standings, meta: dict[str, Any]) -> str:
    """Write standings.txt, standings.md and summary.json; return the text table."""
    sandbox = (meta.get("sandbox") or {}).get("line")
    after = f"{sandbox}\n" if sandbox else ""  # what boxed the bots: docs/security.md
    text = format_ranking(meta) + format_standings(standings) + after  # a staged ranking first, when there is one
    folder = ResultsFolder(results_dir)
    folder.standings_text.write_text(text, encoding="utf-8")
    folder.standings_markdown.write_text(format_ranking(meta, markdown=True) + format_standings(standings, markdown=True)
                                         + after, encoding="utf-8")
    summary = summary_json(standings, meta)
    folder.summary.write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return text
