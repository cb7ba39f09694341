"""Each entrant's own view of a tournament (docs/report.md, Each entrant's own folder): a folder per
player with its games alone, its own stderr logs alone (cut as a contest cuts them) and a report
page of its games, so that an organiser can hand every entrant its folder and nothing else.

CodeCup shows an entrant its own standard error of each game, about 10,000 characters of it, and
nobody else's; `LOG_CHARS` is that cap. The standings and the crosstable are the tournament's
(public to every entrant); the games, the records and the logs are the entrant's own: another
seat's log path is blanked in each record it gets, and no other log is copied.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..errors import UsageError
from ..records import GameRecord
from ..tournament.store import ResultsFolder
from .html import write_report_page
from .results import load_results
from .standings import standings_from_tally, summary_json

LOG_CHARS = 10_000  # what CodeCup shows an entrant of its standard error per game
CUT_NOTE = "\n[... cut by the arbiter's export: the first {chars} characters of {total} are shown]\n"


@dataclass(frozen=True)
class EntrantExport:
    """What one entrant's folder got: its games and its logs."""

    name: str
    folder: Path
    games: int
    logs: int


def export_entrants(results_dir: Path, to: Path, *, log_chars: int = LOG_CHARS,
                    only: Sequence[str] = ()) -> list[EntrantExport]:
    """Write `to/NAME/` for every player of the results folder (or those in `only`): its games
    (`games.jsonl`), its own logs cut at `log_chars` characters each (`logs/`) and `report.html`
    with its `report-games/` (the standings, and the viewer of its games alone). UsageError for an unknown name or an
    unwritable folder. The results folder is read, once, and nothing is written there."""
    tally, meta = load_results(results_dir, keep=False)
    config_order = meta.pop("players_listed")
    meta["totals"]["played"] = tally.records
    summary = summary_json(standings_from_tally(tally, players=config_order), meta)
    listed = [*config_order, *(name for name in tally.players if name not in config_order)]
    records = list(ResultsFolder(results_dir).store().records(audit=False))  # checked by load_results
    unknown = [name for name in only if name not in listed]
    if unknown:
        raise UsageError(f"--player {unknown[0]!r} is not a player of this tournament; players: {', '.join(listed)}")
    done = []
    for name in only or listed:
        target = Path(to) / name
        try:
            done.append(_export_one(name, records, summary, config_order, target, log_chars))
        except OSError as exc:
            raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    return done


def _export_one(name: str, records: Sequence[GameRecord], summary: dict[str, Any], listed: Sequence[str],
                target: Path, log_chars: int) -> EntrantExport:
    """One entrant's folder, written whole (an earlier export of it is replaced file by file)."""
    logs_dir = target / "logs"
    logs_dir.mkdir(parents=True, exist_ok=True)
    own: list[GameRecord] = []
    copied = 0
    for record in records:
        seats = [seat for seat, seat_name in enumerate(record.seat_names()) if seat_name == name]
        if not seats:
            continue
        logs: list[str | None] = [None] * len(record.logs)
        for seat in seats:
            source = record.logs[seat] if seat < len(record.logs) else None
            if source is not None and _copy_cut(Path(source), logs_dir / Path(source).name, log_chars):
                logs[seat] = f"logs/{Path(source).name}"
                copied += 1
        own.append(dataclasses.replace(record, logs=logs))
    lines = "".join(json.dumps(record.to_json(), separators=(",", ":")) + "\n" for record in own)
    (target / "games.jsonl").write_text(lines, encoding="utf-8")
    write_report_page(target / "report.html", summary, own, listed, f"{summary['name']} · {name}'s games")
    return EntrantExport(name, target, len(own), copied)


def cut_log(text: str, chars: int = LOG_CHARS) -> str:
    """A log's first `chars` characters, and a line saying how much was cut."""
    if len(text) <= chars:
        return text
    return text[:chars] + CUT_NOTE.format(chars=f"{chars:,}", total=f"{len(text):,}")


def _copy_cut(source: Path, target: Path, chars: int) -> bool:
    """Copy a log's first `chars` characters (`cut_log`); False when the log is gone (a game
    whose bot never started, a folder tidied by hand)."""
    try:
        text = source.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return False
    target.write_text(cut_log(text, chars), encoding="utf-8")
    return True


__all__ = ["EntrantExport", "LOG_CHARS", "cut_log", "export_entrants"]
