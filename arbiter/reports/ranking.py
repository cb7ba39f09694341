"""A Swiss tournament's rounds and, with a final, its staged ranking (tournament/stages.py), for the
standings files and summary.json: each round's pairings with their points, and the final
ranking with the tie-breaks that decided it."""
from __future__ import annotations

from dataclasses import asdict
from typing import Any, Mapping, Sequence

from tabulate import tabulate

from ..records import GameRecord
from ..tournament.stages import final_ranking


def swiss_tables(records: Sequence[GameRecord], meta: Mapping[str, Any]) -> dict[str, Any]:
    """summary.json's `rounds` (each round's groups, their points and who sat out) and, with a
    final, `ranking`, from a results folder's `meta` (results.load_results); nothing for other
    formats."""
    settings = meta.get("settings") or {}
    if meta.get("format") != "swiss" or not settings.get("rounds"):
        return {}
    rounds = int(settings["rounds"])
    names = list(meta.get("players_listed") or [])
    final = settings.get("final")
    tables: dict[str, Any] = {"rounds": _rounds(records, names, rounds + (1 if final else 0))}
    if final:
        tables["ranking"] = [asdict(line) for line in final_ranking(records, names, rounds, int(final["top"]))]
        tables["final_top"] = int(final["top"])
        tables["final_round"] = rounds + 1
    return tables


def _rounds(records: Sequence[GameRecord], names: Sequence[str], last: int) -> list[dict[str, Any]]:
    """Per round played: its groups in order of first game, each with its players' points."""
    played: list[dict[str, Any]] = []
    for number in range(1, last + 1):
        groups: dict[frozenset[str], dict[str, float]] = {}
        for record in records:
            if record.round != number:
                continue
            group = groups.setdefault(frozenset(record.seat_names()), {n: 0.0 for n in record.seat_names()})
            for name, gained in zip(record.seat_names(), record.points or ()):
                group[name] += gained
        if not groups:
            continue
        seated = {name for group in groups for name in group}
        played.append({"round": number, "groups": [sorted(points.items(), key=lambda item: names.index(item[0])
                                                          if item[0] in names else len(names))
                                                   for points in groups.values()],
                       "out": [name for name in names if name not in seated]})
    return played


def format_ranking(tables: Mapping[str, Any], *, markdown: bool = False) -> str:
    """The final ranking and each round's pairings as text (or Markdown); '' without them."""
    fmt = "github" if markdown else "simple"
    parts = []
    if tables.get("ranking"):
        rows = [[line["rank"], line["name"], line["stage"], _num(line["points"]),
                 "" if line["among_tied"] is None else _num(line["among_tied"]), line["swiss_rank"],
                 _num(line["swiss_points"]), _num(line["buchholz"])] for line in tables["ranking"]]
        parts.append(f"Final ranking: the top {tables['final_top']} of the Swiss ranking played the final; ties broken "
                     "by points among the tied players in the final, then the Swiss rank (Swiss rank: points, then "
                     "Buchholz, then the config's order)\n"
                     + tabulate(rows, headers=["rank", "player", "stage", "points", "among tied", "swiss rank",
                                               "swiss points", "buchholz"], tablefmt=fmt, disable_numparse=True))
    if tables.get("rounds"):
        lines = []
        for played in tables["rounds"]:
            groups = "; ".join(" - ".join(f"{name} {_num(points)}" for name, points in group)
                               for group in played["groups"])
            out = f" (out: {', '.join(played['out'])})" if played["out"] else ""
            label = "final" if played["round"] == tables.get("final_round") else f"round {played['round']}"
            lines.append(f"{label}: {groups}{out}")
        parts.append("Rounds, each group's points:\n" + "\n".join(lines))
    return "".join(part + "\n\n" for part in parts)


def _num(value: float) -> str:
    return f"{value:g}"


__all__ = ["format_ranking", "swiss_tables"]
