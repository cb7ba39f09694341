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
from typing import Sequence

from ..errors import UsageError, show_path
from ..tournament.store import Entrants, GameStore, ResultsFolder
from .html import write_report_page
from .results import load_results
from .standings import standings_from_tally, summary_json

LOG_CHARS = 10_000  # what CodeCup shows an entrant of its standard error per game
BUILD_LOG_CHARS = 100_000  # of an entrant's build log (its compiler's words on its own source)
VERDICT_FILE = "verdict.txt"  # an entrant's admission: admitted, or kept out and why
CUT_NOTE = "\n[... cut by the arbiter's export: the first {chars} characters of {total} are shown]\n"


@dataclass(frozen=True)
class EntrantExport:
    """What one entrant's folder got: its games and its logs (`kept_out`: it played no game,
    and its folder holds why, with the log of its failed build or check)."""

    name: str
    folder: Path
    games: int
    logs: int
    kept_out: bool = False


OPEN_AT_ONCE = 200  # entrants whose games files are written in one pass over the records


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
    entrants = ResultsFolder(results_dir).read_entrants()
    listed = [*config_order, *(name for name in tally.players if name not in config_order)]
    kept_out = [name for name in entrants.kept_out if name not in listed]
    unknown = [name for name in only if name not in listed and name not in kept_out]
    if unknown:
        raise UsageError(f"--player {unknown[0]!r} is not a player of this tournament; players: "
                         f"{', '.join([*listed, *kept_out])}")
    chosen = [name for name in only or listed if name in listed]
    done = []
    for start in range(0, len(chosen), OPEN_AT_ONCE):  # a pass over the records per group of entrants
        group = chosen[start:start + OPEN_AT_ONCE]
        counts = _write_games(results_dir, {name: Path(to) / name for name in group}, log_chars)
        for name in group:
            target = Path(to) / name
            try:
                own = GameStore(target / "games.jsonl").records(audit=False)
                write_report_page(target / "report.html", summary, own, config_order,
                                  f"{summary['name']} · {name}'s games")
                _write_verdict(target, entrants, name, log_chars)
            except OSError as exc:
                raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
            done.append(EntrantExport(name, target, *counts[name]))
    for name in (name for name in only or kept_out if name in kept_out):
        target = Path(to) / name
        try:
            target.mkdir(parents=True, exist_ok=True)
            _write_verdict(target, entrants, name, log_chars)
        except OSError as exc:
            raise UsageError(f"cannot write {show_path(target)}: {exc.strerror or exc}") from None
        done.append(EntrantExport(name, target, 0, 0, kept_out=True))
    return done


def _write_games(results_dir: Path, targets: dict[str, Path], log_chars: int) -> dict[str, tuple[int, int]]:
    """Each entrant's `games.jsonl` and cut logs, from one pass over the results' records (each
    record read once and written to the folder of each of `targets` it seats); each entrant's
    (games, logs copied)."""
    counts = {name: [0, 0] for name in targets}
    files = {}
    current = next(iter(targets.values()), Path("."))  # the folder being written, for the error
    try:
        try:
            for name, target in targets.items():
                current = target
                (target / "logs").mkdir(parents=True, exist_ok=True)
                files[name] = open(target / "games.jsonl", "w", encoding="utf-8")
            for record in ResultsFolder(results_dir).store().records(audit=False):  # checked by load_results
                for name in targets.keys() & set(record.seat_names()):
                    current = targets[name]
                    logs: list[str | None] = [None] * len(record.logs)
                    for seat, seat_name in enumerate(record.seat_names()):
                        source = record.logs[seat] if seat_name == name and seat < len(record.logs) else None
                        if source is not None and _copy_cut(Path(source), current / "logs" / Path(source).name,
                                                            log_chars):
                            logs[seat] = f"logs/{Path(source).name}"
                            counts[name][1] += 1
                    own = dataclasses.replace(record, logs=logs)
                    files[name].write(json.dumps(own.to_json(), separators=(",", ":")) + "\n")
                    counts[name][0] += 1
        finally:
            failed: OSError | None = None
            for name, handle in files.items():  # every one closed; a full disk may show only now
                try:
                    handle.close()
                except OSError as exc:
                    current, failed = (targets[name], exc) if failed is None else (current, failed)
            if failed is not None:
                raise failed
    except OSError as exc:
        raise UsageError(f"cannot write {show_path(current)}: {exc.strerror or exc}") from None
    return {name: (games, logs) for name, (games, logs) in counts.items()}


def _write_verdict(target: Path, entrants: Entrants, name: str, log_chars: int) -> None:
    """An entrant of an entries folder (or a built player) gets its admission in `verdict.txt`,
    its own build log (`build.log`), and when kept out the log of the check it failed
    (`check.log`): what CodeCup tells an entrant of its submission. Others get nothing here."""
    reason, check_log = entrants.kept_out.get(name, (None, None))
    build_log = entrants.build_logs.get(name)
    if reason is None and name not in entrants.admitted and build_log is None:
        return
    lines = [f"{name}: kept out of the tournament: {reason}" if reason is not None
             else f"{name}: admitted to the tournament"]
    if build_log is not None and _copy_cut(Path(build_log), target / "build.log", BUILD_LOG_CHARS):
        lines.append("build.log: the build's output")
    if check_log is not None and check_log != build_log and _copy_cut(Path(check_log), target / "check.log", log_chars):
        lines.append("check.log: the log of the check it failed")
    (target / VERDICT_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")


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
