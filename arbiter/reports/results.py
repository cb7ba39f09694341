"""A results folder read back: its records, and the settings its description keeps."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import UsageError, show_path
from ..tournament.audit import RecordAudit, scoring_of
from ..tournament.store import GameStore, ResultsFolder, TournamentDescription
from ..tournament.tally import Tally
from .ranking import swiss_tables
from .standings import standings_from_tally, write_standings


def sandbox_status(tally: Tally, described: Mapping[str, Any] | None) -> dict[str, Any]:
    """Whether the bots of these games ran sandboxed, from the records themselves (each says so
    per seat, as the tally counts them), with what the machine enforced (the description's
    `sandbox`); `line` says it in a sentence for the standings, loud when a launched bot played
    unsandboxed."""
    described = described or {}
    loose, games, unknown = tally.sandbox_loose, tally.sandbox_games, tally.sandbox_unknown
    machine = described.get("machine")
    if loose:
        who = ", ".join(f"{name} ({loose[name]} of {games[name]} games)" for name in sorted(loose))
        line = (f"WARNING: NOT sandboxed: {who}; such a bot could read, change or kill anything the arbiter "
                "could, these results included")
    elif games:
        line = "Sandbox: every launched bot ran sandboxed in every game" + (f" ({_box_detail(machine)})" if machine else "")
    else:
        line = None  # no game yet, or none that says
    if unknown and tally.records:
        note = f"{unknown} of {tally.records} games do not say whether their bots were sandboxed (recorded by an older arbiter)"
        line = f"{line}; {note}" if line else f"Sandbox: {note}"
    return {"line": line, "not_sandboxed": dict(loose), "games_unknown": unknown, "machine": machine,
            "enforced": described.get("enforced")}


def _box_detail(machine: str) -> str:
    """What the brackets of the machine's `bots are sandboxed (...)` hold (the sandbox module's
    own words), so the standings line does not say 'sandboxed' twice in nested brackets."""
    head = "bots are sandboxed ("
    if not machine.startswith(head):
        return machine
    inside, _, after = machine[len(head):].partition(")")
    return inside + after


def said_on_stderr(line: str) -> None:
    """A reader's word to whoever runs the command (a record accepted without its replay)."""
    print(f"arbiter: {line}", file=sys.stderr, flush=True)


def load_results(folder: Path, *, whole: bool = False, keep: bool = True,
                 note: Callable[[str], None] = said_on_stderr) -> tuple[Tally, dict[str, Any]]:
    """The records' aggregates and a description of the tournament (name, game, format,
    settings), every record checked (`GameStore.read`: those a checkpoint covers by their
    digest, or with `whole` replayed too; one whose replay the rules cannot finish is accepted
    and `note` told, audit.RecordAudit). With `keep`, the checkpoint is written afresh so
    that the next reader reads only what comes after (`arbiter export` writes nothing)."""
    results = results_folder(folder)
    description = results.read_description() or TournamentDescription()
    store = described_store(results, description)
    store.audit = audit = RecordAudit(scoring_of(description.scoring), note=note)
    tally = store.read(whole=whole)
    audit.said_in_all()
    if keep:
        store.checkpoint()
    return tally, results_meta(folder, description, tally)


def results_folder(folder: Path) -> ResultsFolder:
    """The results folder at `folder`; UsageError saying why it is not one."""
    results = ResultsFolder(folder)
    if not folder.exists():
        raise UsageError(f"{show_path(folder)} does not exist")
    if not folder.is_dir():
        raise UsageError(f"{show_path(folder)} is a file, not a results folder "
                         f"(give the folder that holds {results.games.name})")
    if not results.holds_results():
        raise UsageError(f"{show_path(folder)} is not a results folder: it has no {results.games.name}")
    return results


def described_store(results: ResultsFolder, description: TournamentDescription) -> GameStore:
    """The folder's records as its description says to read them: its players, its scoring,
    and each game's result kept for a Swiss tournament (what its checkpoint was written with)."""
    schedule = description.schedule
    return results.store(players=schedule.get("players", []), scoring=described_scoring(description),
                         keep_results=schedule.get("format") == "swiss")


def described_scoring(description: TournamentDescription) -> dict[str, Any]:
    """The scoring a folder's description keeps (1, 1/2, 0 when it keeps none)."""
    return description.scoring if description.scoring is not None else {"win": 1.0, "draw": 0.5, "loss": 0.0}


def results_meta(folder: Path, description: TournamentDescription, tally: Tally) -> dict[str, Any]:
    """What the standings files and pages say of a tournament besides its table: its name,
    game, format and settings from its description, and what the records' tally adds."""
    schedule = description.schedule
    first = tally.first
    meta = {
        "name": description.name if description.name is not None else folder.name,
        "game": schedule.get("game", first and first["game"]),
        "params": first["params"] if first is not None else schedule.get("params", {}),
        "format": schedule.get("format"),
        "settings": {
            "games_per_pairing": schedule.get("games_per_pairing"),
            "rounds": schedule.get("rounds"),
            "final": schedule.get("final"),  # a Swiss tournament's final stage (tournament/stages.py)
            "openings": schedule.get("openings"),
            "time": description.time,
        },
        "scoring": described_scoring(description),
        "players_listed": schedule.get("players", []),
        "totals": {"planned": description.planned if description.planned is not None else tally.records},
        "sandbox": sandbox_status(tally, description.sandbox),
    }
    meta.update(swiss_tables(tally.results, meta))  # a Swiss tournament's rounds, and its final ranking
    return meta


def report_results(folder: Path, *, anchor: str | None = None, whole: bool = False) -> str:
    """Recompute and write the standings files of a results folder; return the text table
    (`whole`: every record replayed, `arbiter report --audit`)."""
    tally, meta = load_results(folder, whole=whole)
    players = meta.pop("players_listed")
    if anchor is not None and anchor not in players and anchor not in tally.players:
        raise UsageError(f"--anchor {anchor!r} is not a player of this tournament; players: {', '.join(players)}")
    standings = standings_from_tally(tally, players=players, anchor=anchor)
    meta["totals"]["played"] = tally.records
    try:
        return write_standings(folder, standings, meta)
    except OSError as exc:
        raise UsageError(f"cannot write the standings in {show_path(folder)}: {exc.strerror}") from None
