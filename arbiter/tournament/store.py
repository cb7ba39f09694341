"""The results folder: `games.jsonl`, append-only and fsynced, tolerant of a torn last line,
and the lock that keeps two runs from appending to one folder at once."""
from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Collection, Iterator

from ..errors import UsageError, show_path


class GameStore:
    """One JSON object per finished game, one per line, in the order games finished."""

    def __init__(self, path: Path, players: Collection[str] = (),
                 audit: Callable[[dict[str, Any]], str | None] | None = None) -> None:
        self.path = path
        self.players = tuple(players)  # the tournament's players, when known: records name only them
        self.audit = audit  # a further check of each record (audit.replay_problem: its moves give its result)

    def load(self, *, repair: bool = False) -> list[dict[str, Any]]:
        """Every complete record. A torn last line (a crash mid-write) is ignored, and with
        `repair` cut off the file so the next append starts on a clean line. A record that is
        not a game record, repeats a game id, or names someone not in `players` is a
        UsageError naming its line, and so is one that fails the store's `audit`: records are
        never dropped silently."""
        if not self.path.exists():
            return []
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read {self.path}: {exc.strerror}") from None
        records: list[dict[str, Any]] = []
        lines_of: dict[str, int] = {}  # game id -> its line
        offset = 0
        for number, line in enumerate(data.splitlines(keepends=True), 1):
            complete = line.endswith(b"\n")
            if complete and not line.strip():
                offset += len(line)
                continue
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                record = None
                if complete and offset + len(line) < len(data):
                    raise UsageError(
                        f"{self.path}:{number}: this line is not a valid game record, and it is not "
                        "the last line, so it was not a torn write; fix or remove it"
                    ) from None
            if record is None or not complete:
                if line.strip() and repair:
                    with open(self.path, "r+b") as handle:
                        handle.truncate(offset)
                        os.fsync(handle.fileno())
                break
            problem = record_problem(record, self.players)
            if problem is None and record["id"] in lines_of:
                problem = f"game {record['id']} is recorded twice (first on line {lines_of[record['id']]})"
            if problem is None and self.audit is not None:
                problem = self.audit(record)
            if problem is not None:
                raise UsageError(f"{self.path}:{number}: {problem}; fix or remove this line "
                                 "(the standings would not be what was played)")
            lines_of[record["id"]] = number
            records.append(record)
            offset += len(line)
        return records

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a line and make it durable before returning."""
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())


RECORD_KEYS = ("id", "names", "winner", "termination", "moves")


def record_problem(record: Any, players: Collection[str] = ()) -> str | None:
    """What makes a parsed line unusable as a tournament's game record, or None."""
    if not isinstance(record, dict):
        return f"a game record is a JSON object, not {type(record).__name__}"
    missing = [key for key in RECORD_KEYS if key not in record]
    if missing:
        return f"this game record lacks {', '.join(missing)}"
    if not isinstance(record["id"], str) or not isinstance(record["moves"], list):
        return "a game record's id is a string and its moves a list"
    names = record["names"]
    if not (isinstance(names, list) and len(names) >= 2 and all(isinstance(n, str) for n in names)):
        return f"game {record['id']}: names must be the players' names in seat order, not {names!r}"
    seats = range(len(names))
    listed = ", ".join(map(str, seats))  # "0, 1" for two seats
    if record["winner"] is not None and (record["winner"] not in seats or isinstance(record["winner"], bool)):
        return f"game {record['id']}: winner must be {listed} or null, not {record['winner']!r}"
    if not isinstance(record["termination"], str):
        return f"game {record['id']}: termination must be a string, not {record['termination']!r}"
    points = record.get("points", [0] * len(names))
    if not (isinstance(points, list) and len(points) == len(names) and all(_is_number(p) for p in points)):
        count = {2: "two", 3: "three", 4: "four"}.get(len(names), str(len(names)))
        return f"game {record['id']}: points must be {count} numbers, not {points!r}"
    places = record.get("places", [1] * len(names))
    if not (isinstance(places, list) and len(places) == len(names)
            and all(isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= len(names) for p in places)):
        return f"game {record['id']}: places must be {len(names)} places from 1 to {len(names)}, not {places!r}"
    if not all(isinstance(m, dict) and m.get("seat") in seats and _is_number(m.get("wall_ms"))
               for m in record["moves"]):
        return f"game {record['id']}: every move needs a seat ({listed.rpartition(', ')[0]} or {len(names) - 1}) and its wall_ms"
    strangers = [name for name in names if players and name not in players]
    if strangers:
        return (f"game {record['id']}: {', '.join(map(repr, strangers))} is not a player of this tournament "
                f"(players: {', '.join(players)})")
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


LOCK_FILE = ".arbiter.lock"
RESULTS_MARKS = ("games.jsonl", "tournament.json", LOCK_FILE)  # files that make a folder a results folder


@contextmanager
def hold_results_folder(folder: Path) -> Iterator[None]:
    """Create the results folder if needed and hold an exclusive lock on it until the block
    ends, so two runs never append the same games; UsageError if another run holds it, or if
    the folder cannot be created or already holds files that are not a tournament's."""
    try:
        str(folder).encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"results folder {show_path(folder)} is not a UTF-8 name: game records name their log "
                         "files, and games.jsonl is UTF-8 text; choose a folder whose path is UTF-8") from None
    try:
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"results folder {folder} is a file, not a folder; set `results:` to a folder")
        if folder.is_dir() and any(folder.iterdir()) and not any((folder / mark).exists() for mark in RESULTS_MARKS):
            raise UsageError(f"results folder {folder} already holds other files and no games.jsonl; an arbiter "
                             "run writes (and --fresh deletes) files there: set `results:` to a new or empty folder")
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / LOCK_FILE, "a")
    except OSError as exc:
        raise UsageError(f"cannot create results folder {folder}: {exc.strerror}") from None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"results folder {folder} is in use by another arbiter run (it holds "
                             f"{folder / LOCK_FILE}); wait for that run to end, or stop it") from None
        yield  # the lock ends when the file is closed, or when this process dies
