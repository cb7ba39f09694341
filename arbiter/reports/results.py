"""A results folder read back: its records, and the settings its description keeps."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import UsageError, show_path
from ..records import GameRecord
from ..tournament.audit import replay_problem, scoring_of
from ..tournament.store import ResultsFolder, TournamentDescription
from .ranking import swiss_tables
from .standings import compute_standings, write_standings


def sandbox_status(records: Sequence[GameRecord], described: Mapping[str, Any] | None) -> dict[str, Any]:
    """Whether the bots of these games ran sandboxed, from the records themselves (each says so
    per seat), with what the machine enforced (the description's `sandbox`); `line` says it in a
    sentence for the standings, loud when a launched bot played unsandboxed."""
    described = described or {}
    loose: dict[str, int] = {}
    games: dict[str, int] = {}
    unknown = 0
    for record in records:
        names, flags = record.seat_names(), record.sandboxed
        if record.termination.is_void and not flags:  # its worker died with what it knew of the boxes
            continue
        if len(flags) != len(names):
            unknown += 1  # recorded before records said
            continue
        for name, boxed in zip(names, flags):
            if boxed is not None:  # None: a remote bot, outside any box by nature
                games[name] = games.get(name, 0) + 1
                if not boxed:
                    loose[name] = loose.get(name, 0) + 1
    machine = described.get("machine")
    if loose:
        who = ", ".join(f"{name} ({loose[name]} of {games[name]} games)" for name in sorted(loose))
        line = (f"WARNING: NOT sandboxed: {who}; such a bot could read, change or kill anything the arbiter "
                "could, these results included")
    elif games:
        line = "Sandbox: every launched bot ran sandboxed in every game" + (f" ({_box_detail(machine)})" if machine else "")
    else:
        line = None  # no game yet, or none that says
    if unknown and records:
        note = f"{unknown} of {len(records)} games do not say whether their bots were sandboxed (recorded by an older arbiter)"
        line = f"{line}; {note}" if line else f"Sandbox: {note}"
    return {"line": line, "not_sandboxed": loose, "games_unknown": unknown, "machine": machine,
            "enforced": described.get("enforced")}


def _box_detail(machine: str) -> str:
    """What the brackets of the machine's `bots are sandboxed (...)` hold (the sandbox module's
    own words), so the standings line does not say 'sandboxed' twice in nested brackets."""
    head = "bots are sandboxed ("
    if not machine.startswith(head):
        return machine
    inside, _, after = machine[len(head):].partition(")")
    return inside + after


def load_results(folder: Path) -> tuple[list[GameRecord], dict[str, Any]]:
    """The records and a description of the tournament (name, game, format, settings)."""
    results = ResultsFolder(folder)
    if not folder.exists():
        raise UsageError(f"{show_path(folder)} does not exist")
    if not folder.is_dir():
        raise UsageError(f"{show_path(folder)} is a file, not a results folder "
                         f"(give the folder that holds {results.games.name})")
    if not results.holds_results():
        raise UsageError(f"{show_path(folder)} is not a results folder: it has no {results.games.name}")
    description = results.read_description() or TournamentDescription()
    schedule = description.schedule
    records = results.store(players=schedule.get("players", []),
                            audit=partial(replay_problem, scoring=scoring_of(description.scoring))).load()
    first = records[0] if records else None
    meta = {
        "name": description.name if description.name is not None else folder.name,
        "game": schedule.get("game", first and first.game),
        "params": first.params if first is not None else schedule.get("params", {}),
        "format": schedule.get("format"),
        "settings": {
            "games_per_pairing": schedule.get("games_per_pairing"),
            "rounds": schedule.get("rounds"),
            "final": schedule.get("final"),  # a Swiss tournament's final stage (tournament/stages.py)
            "openings": schedule.get("openings"),
            "time": description.time,
        },
        "scoring": description.scoring if description.scoring is not None else {"win": 1.0, "draw": 0.5, "loss": 0.0},
        "players_listed": schedule.get("players", []),
        "totals": {"planned": description.planned if description.planned is not None else len(records)},
        "sandbox": sandbox_status(records, description.sandbox),
    }
    meta.update(swiss_tables(records, meta))  # a Swiss tournament's rounds, and its final ranking
    return records, meta


def report_results(folder: Path, *, anchor: str | None = None) -> str:
    """Recompute and write the standings files of a results folder; return the text table."""
    records, meta = load_results(folder)
    players = meta.pop("players_listed")
    if anchor is not None and anchor not in players and not any(anchor in r.seat_names() for r in records):
        raise UsageError(f"--anchor {anchor!r} is not a player of this tournament; players: {', '.join(players)}")
    standings = compute_standings(records, players=players, scoring=meta["scoring"], anchor=anchor)
    meta["totals"]["played"] = len(records)
    try:
        return write_standings(folder, standings, meta)
    except OSError as exc:
        raise UsageError(f"cannot write the standings in {show_path(folder)}: {exc.strerror}") from None
