"""A results folder read back: records from `games.jsonl`, settings from `tournament.json`."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UsageError, show_path
from ..tournament.audit import replay_problem
from ..tournament.runner import IDENTITY_FILE, read_description
from ..tournament.store import GameStore
from .standings import compute_standings, write_standings


def load_results(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The records and a description of the tournament (name, game, format, settings)."""
    games = folder / "games.jsonl"
    if not folder.exists():
        raise UsageError(f"{show_path(folder)} does not exist")
    if not folder.is_dir():
        raise UsageError(f"{show_path(folder)} is a file, not a results folder (give the folder that holds games.jsonl)")
    if not games.is_file() and not (folder / IDENTITY_FILE).is_file():  # a run stopped before its first game has only the latter
        raise UsageError(f"{show_path(folder)} is not a results folder: it has no games.jsonl")
    description = read_description(folder)
    schedule = description.get("schedule", {})
    records = GameStore(games, players=schedule.get("players", []), audit=replay_problem).load()
    first = records[0] if records else {}
    meta = {
        "name": description.get("name", folder.name),
        "game": schedule.get("game", first.get("game")),
        "params": first.get("params", schedule.get("params", {})),
        "format": schedule.get("format"),
        "settings": {
            "games_per_pairing": schedule.get("games_per_pairing"),
            "rounds": schedule.get("rounds"),
            "openings": schedule.get("openings"),
            "time": description.get("time"),
        },
        "scoring": description.get("scoring", {"win": 1.0, "draw": 0.5, "loss": 0.0}),
        "players_listed": schedule.get("players", []),
        "totals": {"planned": description.get("planned", len(records))},
    }
    return records, meta


def report_results(folder: Path, *, anchor: str | None = None) -> str:
    """Recompute and write the standings files of a results folder; return the text table."""
    records, meta = load_results(folder)
    players = meta.pop("players_listed")
    if anchor is not None and anchor not in players and not any(anchor in r.get("names", []) for r in records):
        raise UsageError(f"--anchor {anchor!r} is not a player of this tournament; players: {', '.join(players)}")
    standings = compute_standings(records, players=players, scoring=meta["scoring"], anchor=anchor)
    meta["totals"]["played"] = len(records)
    try:
        return write_standings(folder, standings, meta)
    except OSError as exc:
        raise UsageError(f"cannot write the standings in {show_path(folder)}: {exc.strerror}") from None
