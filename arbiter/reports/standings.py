"""Standings, ratings and the crosstable, computed from game records alone.

Every figure here is recomputed from `games.jsonl`: the tournament writes each record
with its players' names and points, so `arbiter report` needs nothing else.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from tabulate import tabulate

from ..stats import EloEstimate, bradley_terry, elo_from_wdl

FAULT_KINDS = ("timeout", "crash", "malformed", "illegal", "protocol")


@dataclass
class PlayerStanding:
    """One player's line in the standings."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    points_in_games: float = 0.0  # all points awarded in this player's games, both seats
    faults: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in FAULT_KINDS})
    move_count: int = 0
    move_ms_total: float = 0.0
    max_move_ms: float = 0.0
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
    """The whole table, the crosstable and, for two players, their head-to-head estimate."""

    players: list[PlayerStanding]
    crosstable: dict[str, dict[str, float]]
    games: int
    faults: int
    head_to_head: EloEstimate | None = None


def game_points(record: dict[str, Any], seat: int, scoring: dict[str, float]) -> float:
    """Points a seat earned in a record: stored `points` if present, else from the winner."""
    if "points" in record:
        return float(record["points"][seat])
    winner = record["winner"]
    if winner is None:
        return scoring["draw"]
    return scoring["win"] if winner == seat else scoring["loss"]


def seat_names(record: dict[str, Any]) -> list[str]:
    """Player names in seat order."""
    return list(record.get("names") or [p["name"] for p in record["players"]])


def compute_standings(records: Sequence[dict[str, Any]], *, players: Sequence[str] = (),
                      scoring: dict[str, float] | None = None, anchor: str | None = None) -> Standings:
    """Standings from two-seat game records; `players` lists names to show even with no games."""
    scoring = scoring or {"win": 1.0, "draw": 0.5, "loss": 0.0}
    table: dict[str, PlayerStanding] = {name: PlayerStanding(name) for name in players}
    cross: dict[str, dict[str, float]] = {}
    pairwise: list[tuple[str, str, float]] = []
    faults = 0
    for record in records:
        names = seat_names(record)
        for name in names:
            table.setdefault(name, PlayerStanding(name))
        a, b = names[0], names[1]
        winner = record["winner"]
        pairwise.append((a, b, 0.5 if winner is None else (1.0 if winner == 0 else 0.0)))
        if record["termination"] != "normal":
            faults += 1
        for seat, name in enumerate(names):
            row = table[name]
            row.games += 1
            if winner is None:
                row.draws += 1
            elif winner == seat:
                row.wins += 1
            else:
                row.losses += 1
            earned = game_points(record, seat, scoring)
            row.points += earned
            row.points_in_games += sum(game_points(record, s, scoring) for s in range(len(names)))
            other = names[1 - seat]
            cross.setdefault(name, {}).setdefault(other, 0.0)
            cross[name][other] += earned
            if record.get("offender") == seat and record["termination"] in row.faults:
                row.faults[record["termination"]] += 1
        for move in record["moves"]:
            if move.get("forced"):
                continue
            row = table[names[move["seat"]]]
            row.move_count += 1
            row.move_ms_total += move["wall_ms"]
            row.max_move_ms = max(row.max_move_ms, move["wall_ms"])
    ratings = bradley_terry(list(table), pairwise, anchor=anchor)
    for name, rating in ratings.items():
        row = table[name]
        row.rating, row.rating_low, row.rating_high = rating.elo, rating.low, rating.high
    listed = {name: index for index, name in enumerate(players)}
    # Ties: points, then rating, then the order players were listed in (then name).
    ranked = sorted(table.values(), key=lambda r: (-r.points, -r.rating, listed.get(r.name, len(listed)), r.name))
    for rank, row in enumerate(ranked, 1):
        row.rank = rank
    head = None
    if len(ranked) == 2:
        head = elo_from_wdl(ranked[0].wins, ranked[0].draws, ranked[0].losses)
    return Standings(players=ranked, crosstable=cross, games=len(records), faults=faults, head_to_head=head)


def _fault_text(row: PlayerStanding) -> str:
    parts = [f"{count} {kind}" for kind, count in row.faults.items() if count]
    return ", ".join(parts) if parts else "-"


def _cross_cell(row: dict[str, float], other: str) -> str:
    """Points against `other`, or `-` when the two never met (gauntlet, Swiss)."""
    return f"{row[other]:g}" if other in row else "-"


def standings_rows(standings: Standings) -> list[list[Any]]:
    """The standings table's rows, as printed."""
    return [
        [
            row.rank, row.name, row.games, row.wins, row.draws, row.losses, f"{row.points:g}",
            f"{row.score_pct:.1f}", f"{row.rating:+.0f} [{row.rating_low:+.0f}, {row.rating_high:+.0f}]",
            _fault_text(row), f"{row.avg_move_ms:.1f}", f"{row.max_move_ms:.0f}",
        ]
        for row in standings.players
    ]


HEADERS = ["#", "player", "games", "W", "D", "L", "points", "score %", "Elo [95%]", "faults",
           "avg ms/move", "max ms/move"]


def format_standings(standings: Standings, *, markdown: bool = False) -> str:
    """The standings table, the crosstable and the head-to-head line, as text or Markdown."""
    fmt = "github" if markdown else "simple"
    if not standings.players:  # no record and no tournament.json naming the players
        return f"No players and {standings.games} games recorded: nothing to rank yet.\n"
    parts = [tabulate(standings_rows(standings), headers=HEADERS, tablefmt=fmt, disable_numparse=True)]
    names = [row.name for row in standings.players]
    cross_rows = [
        [name] + ["x" if name == other else _cross_cell(standings.crosstable.get(name, {}), other)
                  for other in names]
        for name in names
    ]
    parts.append("Crosstable (points of the row player against the column player):")
    parts.append(tabulate(cross_rows, headers=["", *names], tablefmt=fmt, disable_numparse=True))
    if standings.head_to_head is not None:
        h = standings.head_to_head
        first, second = names
        parts.append(
            f"{first} vs {second}: Elo difference {h.elo:+.1f} [{h.low:+.1f}, {h.high:+.1f}] (95%), "
            f"likelihood of superiority {100 * h.los:.1f}%"
        )
    parts.append(f"{standings.games} games, {standings.faults} ended by a fault.")
    return "\n\n".join(parts) + "\n"


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
            "losses": row.losses, "points": row.points, "score_pct": row.score_pct,
            "rating": _finite(row.rating), "rating_low": _finite(row.rating_low),
            "rating_high": _finite(row.rating_high), "faults": dict(row.faults),
            "avg_move_ms": row.avg_move_ms, "max_move_ms": row.max_move_ms,
        })
    summary = dict(meta)
    summary.update({
        "players": players,
        "crosstable": standings.crosstable,
        "totals": {**meta.get("totals", {}), "games": standings.games, "faults": standings.faults},
    })
    if standings.head_to_head is not None:
        summary["head_to_head"] = {k: _finite(v) for k, v in asdict(standings.head_to_head).items()}
    return summary


def write_standings(results_dir: Path, standings: Standings, meta: dict[str, Any]) -> str:
    """Write standings.txt, standings.md and summary.json; return the text table."""
    text = format_standings(standings)
    (results_dir / "standings.txt").write_text(text, encoding="utf-8")
    (results_dir / "standings.md").write_text(format_standings(standings, markdown=True), encoding="utf-8")
    summary = summary_json(standings, meta)
    (results_dir / "summary.json").write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n",
                                              encoding="utf-8")
    return text
