"""A tournament in stages, as CodeCup plays one: Swiss rounds, then the top players' round robin.

CodeCup's competition rules: when there are many entrants, some rounds are played by the Swiss
system, in which players of about equal ranking meet each round; then a small group from the
top of that ranking plays a double full competition (every pair twice, the seats swapped) to
determine the final winner (archive.codecup.nl, "Competition rules", 2004 to 2016 alike). The
rules name no tie-break, so ours are stated here, in docs/config.md (`final`) and in the
standings, and are the same wherever a ranking is shown:

- The Swiss ranking (who qualifies): points in the Swiss rounds; then Buchholz (the sum of the
  Swiss points of every opponent met, once per game); then the config's order of players.
- The final ranking: the finalists first, by points in the final; then, among players still
  level, the points they took in the final's games among themselves alone; then their Swiss
  ranking. Everyone else follows in Swiss ranking order.

Each is a pure function of the records (their `round`: a Swiss round's games are in rounds 1
to R, the final's in round R + 1), so a resumed run picks the same finalists and a report
recomputes the same ranking from `games.jsonl` alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from ..records import GameRecord


@dataclass(frozen=True)
class RankLine:
    """One player's line in a staged ranking: its place, its stage (`final` or `swiss`), the
    points that rank it there and the tie-breaks that separated it from its neighbours."""

    rank: int
    name: str
    stage: str
    points: float  # in the final for a finalist, in the Swiss rounds otherwise
    among_tied: float | None  # final: points in the final's games among the players level with it
    swiss_points: float
    buchholz: float
    swiss_rank: int


def _points(records: Iterable[GameRecord]) -> dict[str, float]:
    """Each player's points over `records` (a void game counts for no one: it has none)."""
    totals: dict[str, float] = {}
    for record in records:
        for name, gained in zip(record.seat_names(), record.points or ()):
            totals[name] = totals.get(name, 0.0) + gained
    return totals


def swiss_records(records: Iterable[GameRecord], rounds: int) -> list[GameRecord]:
    """The records of the Swiss rounds (1 to `rounds`)."""
    return [r for r in records if r.round is not None and 1 <= r.round <= rounds]


def swiss_ranking(records: Iterable[GameRecord], names: Sequence[str], rounds: int) -> list[tuple[str, float, float]]:
    """(name, Swiss points, Buchholz) in Swiss ranking order: points, then Buchholz, then the
    config's order of `names`."""
    played = swiss_records(records, rounds)
    points = _points(played)
    buchholz = {name: 0.0 for name in names}
    for record in played:
        seated = record.seat_names()
        for name in seated:
            buchholz[name] = buchholz.get(name, 0.0) + sum(points.get(other, 0.0) for other in seated if other != name)
    order = {name: index for index, name in enumerate(names)}
    ranked = sorted(names, key=lambda n: (-points.get(n, 0.0), -buchholz.get(n, 0.0), order[n]))
    return [(name, points.get(name, 0.0), buchholz.get(name, 0.0)) for name in ranked]


def finalists(records: Iterable[GameRecord], names: Sequence[str], rounds: int, top: int) -> list[str]:
    """The `top` players of the Swiss ranking, in its order."""
    return [name for name, _, _ in swiss_ranking(records, names, rounds)[:top]]


def final_ranking(records: Sequence[GameRecord], names: Sequence[str], rounds: int, top: int) -> list[RankLine]:
    """The whole ranking of a Swiss tournament with a final (the rules in the module's docstring)."""
    swiss = swiss_ranking(records, names, rounds)
    swiss_rank = {name: index + 1 for index, (name, _, _) in enumerate(swiss)}
    swiss_of = {name: (points, buchholz) for name, points, buchholz in swiss}
    chosen = [name for name, _, _ in swiss[:top]]
    final_games = [r for r in records if r.round == rounds + 1]
    in_final = _points(final_games)
    level: dict[float, list[str]] = {}
    for name in chosen:
        level.setdefault(in_final.get(name, 0.0), []).append(name)
    among: dict[str, float] = {}
    for tied in level.values():
        if len(tied) > 1:
            inside = [r for r in final_games if set(r.seat_names()) <= set(tied)]
            points = _points(inside)
            among.update({name: points.get(name, 0.0) for name in tied})
    order = sorted(chosen, key=lambda n: (-in_final.get(n, 0.0), -among.get(n, 0.0), swiss_rank[n]))
    lines = [RankLine(rank, name, "final", in_final.get(name, 0.0), among.get(name), *swiss_of[name], swiss_rank[name])
             for rank, name in enumerate(order, 1)]
    rest = [name for name, _, _ in swiss[top:]]
    lines += [RankLine(len(order) + k, name, "swiss", swiss_of[name][0], None, *swiss_of[name], swiss_rank[name])
              for k, name in enumerate(rest, 1)]
    return lines


__all__ = ["RankLine", "final_ranking", "finalists", "swiss_ranking", "swiss_records"]
