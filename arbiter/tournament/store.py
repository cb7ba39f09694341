"""The results folder: the one module that names its files and reads and writes its formats.

`games.jsonl` (the source of truth) is append-only and fsynced, tolerant of a torn last line
(`GameStore`); `tournament.json` is the tournament's description (`TournamentDescription`),
rewritten whole; `logs/` holds the bots' stderr; the standings, `summary.json` and
`report.html` are recomputed from the records by the reports, at the paths `ResultsFolder`
gives; `secret.json` holds the run's secret, which keys its dice and the bots' seeds
(`chance.RunSeeds`: no bot sees it); `.arbiter.lock` keeps two runs from appending to one
folder at once.
docs/records.md, The results folder, describes each file.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
from contextlib import contextmanager, suppress
from functools import partial
from dataclasses import dataclass, field
from pathlib import Path
from datetime import datetime, timezone
from typing import Any, BinaryIO, Callable, Collection, Iterator, Mapping, Sequence

from ..chance import RunSeeds, fresh_secret
from ..errors import UsageError, show_path
from ..records import GameRecord, NewerRecordError, RecordError, read_record
from ..referee import seat_log_name
from .tally import IdSet, Tally

GAMES_FILE = "games.jsonl"
DESCRIPTION_FILE = "tournament.json"
CONFIG_COPY_FILE = "config.yaml"
LOGS_FOLDER = "logs"
STANDINGS_TEXT_FILE = "standings.txt"
STANDINGS_MARKDOWN_FILE = "standings.md"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.html"
REPORT_GAMES_FOLDER = "report-games"  # beside report.html: its games in chunks (reports/html.py GameChunks)
ARBITER_FAULTS_FILE = "arbiter-faults.jsonl"  # games the arbiter's own machinery failed: none is a record
ENTRANTS_FILE = "entrants.json"  # who of the entrants was admitted, who kept out and why, the builds
LOCK_FILE = ".arbiter.lock"
SECRET_FILE = "secret.json"  # the run's secret (chance.RunSeeds), readable by the arbiter's user alone
CHECKPOINT_FILE = "checkpoint.json"  # the aggregates of games.jsonl's first records and their bytes' digest
CHECKPOINT_IDS_FILE = "checkpoint.ids"  # ... and their ids' 64-bit hashes, sorted, 8 bytes each (little-endian)
RESULTS_MARKS = (GAMES_FILE, DESCRIPTION_FILE, LOCK_FILE)
# What a run writes here (with LOGS_FOLDER): what --fresh moves into a backup, or deletes.
RUN_FILES = (GAMES_FILE, DESCRIPTION_FILE, CONFIG_COPY_FILE, STANDINGS_TEXT_FILE, STANDINGS_MARKDOWN_FILE,
             SUMMARY_FILE, REPORT_FILE, REPORT_GAMES_FOLDER, ARBITER_FAULTS_FILE, SECRET_FILE, CHECKPOINT_FILE, CHECKPOINT_IDS_FILE)  # files that make a folder a results folder
# The description's format. 1: the first to say (its `schema` key); a file without one (0) is
# read the same way. A change that older arbiters would misread raises it.
DESCRIPTION_SCHEMA = 1
CHECKPOINT_SCHEMA = 1
# A run writes the checkpoint after this many new records (and when it ends, however it ends):
# a resume after a crash replays at most these. Each write is the tally and 8 bytes a game.
CHECKPOINT_EVERY = 2000


class RecordNotWritten(UsageError):
    """A game's record could not be written whole to `games.jsonl` (its disk full, say): the
    run stops, nothing of the record is left, and a resume plays the game again."""

    def __init__(self, path: Path, game_id: str | None, exc: OSError) -> None:
        folder = path.parent
        why = exc.strerror or str(exc)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            what = (f"the disk of the results folder {show_path(folder)} is full ({why}); free some space there "
                    "(`df` names the disk) and run the same command again to resume")
        else:
            what = f"cannot write {show_path(path)} ({why}); once it can be written, run the same command again to resume"
        super().__init__(f"{what}: game {game_id} was not recorded and will be played again, "
                         "every game recorded before it is kept")


class GameStore:
    """One JSON object per finished game, one per line, in the order games finished, read
    and written as typed records (`records.GameRecord`, whose schema each line carries).

    `read` takes the whole file in as aggregates (`tally.Tally`) and the ids recorded, in
    bounded memory; once read, `append` keeps them current, and a checkpoint beside the file
    (`checkpoint.json`: the aggregates, the ids and the SHA-256 of the bytes they cover) lets
    the next `read` verify those bytes by their digest and replay only the records after them.
    The checkpoint is evidence and a cache, never the source of truth: without it every record
    is read and checked again (docs/records.md)."""

    def __init__(self, path: Path, players: Collection[str] = (),
                 audit: Callable[[GameRecord], str | None] | None = None,
                 scoring: Mapping[str, float] | None = None, *, keep_results: bool = False) -> None:
        self.path = path
        # Each player's program digest for the run that appends here (tournament/programs.py),
        # worked out once when the run's folder is prepared; stamped into each record.
        self.digests: dict[str, str | None] = {}
        self.players = tuple(players)  # the tournament's players, when known: records name only them
        self.audit = audit  # a further check of each record (audit.replay_problem: its moves give its result)
        # Where the run's games get their dice and the bots' seeds: the folder's kept secret once
        # the run's folder is prepared (`ResultsFolder.run_seeds`); until then one never kept.
        self.seeds = RunSeeds(fresh_secret())
        self.scoring = json.loads(json.dumps(dict(scoring))) if scoring is not None else None  # as JSON keeps it
        self.keep_results = keep_results  # a Swiss tournament's readers need each game's result
        self.tally: Tally | None = None  # set by `read`, kept current by `append`
        self.ids = IdSet()
        self._digest = hashlib.sha256()  # of the bytes read and appended so far
        self._bytes = 0  # ... which end here: after the last complete record
        self._lines = 0
        self._since_checkpoint = 0
        self._checkpointed = -1  # the bytes the checkpoint on disk covers, once read or written here

    @property
    def checkpoint_path(self) -> Path:
        return self.path.with_name(CHECKPOINT_FILE)

    def load(self, *, repair: bool = False) -> list[GameRecord]:
        """Every complete record, typed, in one list (`records` reads them one at a time)."""
        return list(self.records(repair=repair))

    def records(self, *, repair: bool = False, audit: bool = True) -> Iterator[GameRecord]:
        """Every complete record, typed, one at a time, checked (`read` says how; without `audit`,
        not replayed: for a reader of records `read` has just checked), in bounded memory."""
        for record, _ in self._scan(0, 0, IdSet(), repair=repair, audit=audit):
            if record is not None:
                yield record

    def read(self, *, repair: bool = False, whole: bool = False) -> Tally:
        """Take in every record as aggregates and ids (`tally`, `ids`), and return the tally.

        With a checkpoint whose digest matches the file's first bytes, only the records after
        it are read and replayed; a checkpoint that does not match means a record it covers was
        changed, removed or inserted: a UsageError says so. With `whole` (`arbiter report
        --audit`), every record is read and checked again, after the same digest check.
        A torn last line (a crash mid-write) is ignored, and with `repair` cut off the file so
        the next append starts on a clean line. A record that is not a game record, repeats a
        game id, or names someone not in `players` is a UsageError naming its line, and so is
        one that fails the store's `audit`, or that a newer arbiter wrote."""
        kept = self._verified_checkpoint()
        if kept is not None and not whole:
            tally, ids, self._digest, self._bytes, self._lines = kept
            self._checkpointed = self._bytes
        else:
            tally, ids = Tally(self.scoring, keep_results=self.keep_results), IdSet()
            self._digest, self._bytes, self._lines = hashlib.sha256(), 0, 0
        for record, line in self._scan(self._bytes, self._lines, ids, repair=repair):
            if record is not None:
                tally.add(record)
            self._digest.update(line)
            self._bytes += len(line)
            self._lines += 1
        self.tally, self.ids = tally, ids
        return tally

    def _scan(self, offset: int, lines_before: int, ids: IdSet, *,
              repair: bool, audit: bool = True) -> Iterator[tuple[GameRecord | None, bytes]]:
        """The records from byte `offset` (after `lines_before` lines), each checked and its id
        added to `ids`, with its line's bytes (None for a blank line)."""
        try:
            handle = open(self.path, "rb")
        except FileNotFoundError:
            return
        except OSError as exc:
            raise UsageError(f"cannot read {self.path}: {exc.strerror}") from None
        with handle:
            handle.seek(offset)
            for number, line in _lines(handle, self.path, lines_before + 1):
                complete = line.endswith(b"\n")
                if complete and line.isspace():
                    offset += len(line)
                    yield None, line  # no record, but bytes the digest covers
                    continue
                try:
                    parsed = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    parsed = None
                    if complete and handle.peek(1):
                        raise UsageError(
                            f"{self.path}:{number}: this line is not a valid game record, and it is not "
                            "the last line, so it was not a torn write; fix or remove it"
                        ) from None
                if parsed is None or not complete:
                    if line.strip() and repair:
                        with open(self.path, "r+b") as writer:
                            writer.truncate(offset)
                            os.fsync(writer.fileno())
                    return
                try:
                    record = read_record(parsed)
                    problem = self._problem(record, ids, number, audit)
                except NewerRecordError as exc:  # not to be fixed here: read by a newer arbiter
                    raise UsageError(f"{self.path}:{number}: {exc}") from None
                except RecordError as exc:
                    problem = str(exc)
                if problem is not None:
                    raise UsageError(f"{self.path}:{number}: {problem}; fix or remove this line "
                                     "(the standings would not be what was played)")
                if record.id is not None:
                    ids.add(record.id)
                offset += len(line)
                yield record, line

    def _problem(self, record: GameRecord, ids: IdSet, number: int, audit: bool = True) -> str | None:
        """What makes a well-formed record wrong here: a stranger, its id seen before, or the audit's finding."""
        strangers = [name for name in record.seat_names() if name not in self.players] if self.players else []
        if strangers:
            return (f"game {record.id}: {', '.join(map(repr, strangers))} is not a player of this tournament "
                    f"(players: {', '.join(self.players)})")
        if record.id is not None and record.id in ids:
            first = self._first_line_of(record.id, number)
            if first is not None:  # else two ids of one 64-bit hash: not a repeat
                return f"game {record.id} is recorded twice (first on line {first})"
        return self.audit(record) if self.audit is not None and audit else None

    def _first_line_of(self, game_id: str, before: int) -> int | None:
        """The first line before line `before` that records `game_id` (read again: ids are kept as hashes)."""
        number, _ = next(records_of(self.path, game_id), (None, None))
        return number if number is not None and number < before else None

    def append(self, record: GameRecord, *, sync: bool = True) -> None:
        """Write one record as a line and make it durable before returning, or write nothing:
        a line that cannot be written whole (its disk full, say) is taken back, and
        RecordNotWritten says so (the game is not counted; a resume plays it again). Without
        `sync` the line is not fsynced (records imported in bulk, made durable together by
        `checkpoint`, which syncs the file before it says what the file holds)."""
        line = (json.dumps(record.to_json(), separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise RecordNotWritten(self.path, record.id, exc) from None
        try:
            start = os.fstat(fd).st_size  # the one writer: the file ends here
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
            if sync:
                os.fsync(fd)
        except OSError as exc:
            try:  # what was written of it is taken back (shrinking a file needs no room)
                os.ftruncate(fd, start)
                os.fsync(fd)
            except OSError:
                pass  # then it is a torn last line, which `load` ignores and a resume cuts off
            raise RecordNotWritten(self.path, record.id, exc) from None
        finally:
            os.close(fd)
        if self.tally is not None:  # read: the aggregates follow the file
            self.tally.add(record)
            if record.id is not None:
                self.ids.add(record.id)
            self._digest.update(line)
            self._bytes += len(line)
            self._lines += 1
            self._since_checkpoint += 1
            if self._since_checkpoint >= CHECKPOINT_EVERY:
                self.checkpoint()

    # ---- the checkpoint ----------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Write the aggregates of the records read and appended so far beside the file, with the
        digest of their bytes and their ids (after `read`; nothing when the checkpoint on disk
        already covers them; a checkpoint that cannot be written is left out: the next read
        checks every record instead)."""
        if self.tally is None or self._bytes == self._checkpointed:
            return
        with suppress(OSError), open(self.path, "rb") as records:  # what it covers is on disk first
            os.fsync(records.fileno())
        ids = self.ids.folded().astype("<u8", copy=False)  # the file's byte order (the machine's, mostly: no copy)
        ids_path = self.path.with_name(CHECKPOINT_IDS_FILE)
        data = {"schema": CHECKPOINT_SCHEMA, "bytes": self._bytes, "lines": self._lines,
                "sha256": self._digest.hexdigest(), "written_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "players": list(self.players), "tally": self.tally.to_json(),
                "ids": {"file": CHECKPOINT_IDS_FILE, "count": len(ids),
                        "sha256": hashlib.sha256(memoryview(ids)).hexdigest()}}
        try:
            unfinished = ids_path.with_name(ids_path.name + ".partial")
            with open(unfinished, "wb") as handle:  # the ids first: a checkpoint.json never names ids not yet whole
                ids.tofile(handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(unfinished, ids_path)
            write_whole(self.checkpoint_path, json.dumps(data, separators=(",", ":")))
        except (OSError, UsageError):
            return  # a full disk, say: the records are what count; the next read replays them
        self._since_checkpoint = 0
        self._checkpointed = self._bytes

    def unverified_checkpoint(self) -> tuple[Tally, int] | None:
        """The checkpoint's tally and the bytes it covers, its digest NOT checked: for a page that
        shows a folder (the live page's first paint), never for a reader that judges it; None
        without a checkpoint this store can use."""
        kept = self._read_checkpoint()
        return None if kept is None else (kept[0], kept[2])

    def _read_checkpoint(self) -> tuple[Tally, IdSet, int, int, str, dict[str, Any]] | None:
        """The checkpoint as written (tally, ids, bytes, lines, digest, the whole), when it is one
        this store can use: None without one, or one another arbiter, other players or another
        scoring wrote."""
        try:
            data = json.loads(self.checkpoint_path.read_bytes())
            if data.get("schema") != CHECKPOINT_SCHEMA or list(data["players"]) != list(self.players):
                return None
            tally = Tally.from_json(data["tally"])
            if tally.scoring != (self.scoring or tally.scoring) or tally.keep_results != self.keep_results:
                return None
            kept = data["ids"]
            ids_path = self.path.with_name(str(kept["file"]))
            count, ids_digest = int(kept["count"]), str(kept["sha256"])
            if ids_path.name != CHECKPOINT_IDS_FILE or ids_path.stat().st_size != 8 * count:
                return None  # not the ids it names (a crash between the two files): every record read again
            ids = IdSet(partial(_load_ids, ids_path, count, ids_digest))
            return tally, ids, int(data["bytes"]), int(data["lines"]), str(data["sha256"]), data
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def _verified_checkpoint(self) -> tuple[Tally, IdSet, Any, int, int] | None:
        """The checkpoint's tally, ids, digest, bytes and lines when it is one this store can use
        and the file's first bytes are the ones it covers; None without one (or one another
        arbiter, other players or another scoring wrote); UsageError when the bytes differ."""
        kept = self._read_checkpoint()
        if kept is None:
            return None
        tally, ids, size, lines, expected, data = kept
        digest = hashlib.sha256()
        try:
            with open(self.path, "rb") as handle:
                left = size
                while left:
                    chunk = handle.read(min(left, 1 << 20))
                    if not chunk:
                        break
                    digest.update(chunk)
                    left -= len(chunk)
        except OSError as exc:
            raise UsageError(f"cannot read {self.path}: {exc.strerror}") from None
        if left or digest.hexdigest() != expected:
            raise UsageError(
                f"{show_path(self.path)}: its first {lines} records are not the ones the arbiter checked "
                f"({'the file is shorter' if left else 'their bytes differ'}; {CHECKPOINT_FILE} written "
                f"{data.get('written_at', '?')}): a record among them was changed, removed or inserted since. "
                f"Put the original file back; or, if you changed it on purpose (a void game's line deleted "
                f"to play it again), delete {show_path(self.checkpoint_path)} and every record is checked "
                "again from the first (docs/records.md)")
        return tally, ids, digest, size, lines

    def tail(self) -> RecordTail:
        """A reader of the records appended here from now on, one batch a call (the live page's)."""
        return RecordTail(self.path)


@dataclass(frozen=True)
class NewRecords:
    """What a `RecordTail` read in one call: the complete records appended since the last call,
    in file order, or, when `started_over`, every record from the file's start (it shrank or
    was replaced since: the folder was started again, or is another tournament's)."""

    records: list[GameRecord]
    started_over: bool = False
    # Where each record ends in the file (its next line's start), and whether the call stopped at
    # its `max_bytes` with more to read now: how it was read, not what was read (not compared).
    ends: list[int] = field(default_factory=list, compare=False)
    more: bool = field(default=False, compare=False)


class RecordTail:
    """Follows `games.jsonl` as a run appends to it, for a page that shows the records as they
    land: each `read` returns the records completed since the last one. A torn last line (a
    record being written) is kept and read with the rest of it next time. A line that is not a
    record this arbiter can read is skipped: the page shows what it can read, and `load`
    (`arbiter report`, a resume) names the line. A record is read as `GameRecord.from_json`
    reads it, without the tournament's checks (players, repeated ids, the audit): whoever
    shows them decides what to make of a repeated id."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rewind()

    def rewind(self) -> None:
        """Read from the file's start next time (the caller is starting over)."""
        self.offset = 0  # bytes of the file read so far, the torn last line included
        self.partial = b""  # the torn last line read so far
        self.identity: tuple[int, int] | None = None  # the file read (st_dev, st_ino), once read from

    def read(self, max_bytes: int | None = None) -> NewRecords:
        """The records completed since the last call (with `max_bytes`, those in about that many
        bytes: `more` says whether it stopped short); a file that cannot be read now is read next time."""
        try:
            stat = self.path.stat()
            size, identity = stat.st_size, (stat.st_dev, stat.st_ino)
        except OSError:  # gone (moved away by --fresh), or not written yet
            size, identity = 0, None
        started_over = size < self.offset or (self.identity is not None and identity is not None
                                             and identity != self.identity)
        if started_over:
            self.rewind()
        if size <= self.offset:
            return NewRecords([], started_over)
        wanted = size - self.offset if max_bytes is None else min(size - self.offset, max_bytes)
        start = self.offset - len(self.partial)  # where the data read below begins in the file
        try:
            with self.path.open("rb") as file:
                file.seek(self.offset)
                data = self.partial + file.read(wanted)
        except OSError:
            return NewRecords([], started_over)
        self.offset, self.identity = self.offset + wanted, identity
        lines = data.split(b"\n")
        self.partial = lines.pop()  # a record being written (or cut at max_bytes): read with the rest next time
        records, ends = [], []
        end = start
        for line in lines:
            end += len(line) + 1
            if not line.strip():
                continue
            try:
                records.append(GameRecord.from_json(json.loads(line)))
            except ValueError:  # RecordError, or not JSON
                continue
            ends.append(end)
        return NewRecords(records, started_over, ends, more=self.offset < size)


@dataclass(frozen=True)
class TournamentDescription:
    """What `tournament.json` holds: the tournament's name, what fixed its schedule and the
    conditions its games were played under (both checked on resume, arbiter/tournament/resume.py),
    its scoring and time control, the number of planned games, and what boxed the bots.
    A folder written by an older arbiter may lack any of them: they read as empty or None."""

    name: str | None = None
    schedule: Mapping[str, Any] = field(default_factory=dict)  # resume.schedule_identity
    scoring: Mapping[str, Any] | None = None  # the config's Scoring, as `asdict` gives it
    time: Mapping[str, Any] | None = None  # the config's TimeControl, as `asdict` gives it
    planned: int | None = None
    conditions: Mapping[str, Any] | None = None  # resume.play_conditions
    sandbox: Mapping[str, Any] | None = None  # runner.sandbox_report
    schema: int = DESCRIPTION_SCHEMA

    def to_json(self) -> dict[str, Any]:
        """The JSON object `tournament.json` holds."""
        return {"schema": self.schema, "name": self.name, "schedule": dict(self.schedule),
                "scoring": self.scoring, "time": self.time, "planned": self.planned,
                "conditions": self.conditions, "sandbox": self.sandbox}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentDescription:
        """Inverse of `to_json`, for any schema up to DESCRIPTION_SCHEMA; a missing or
        mistyped entry reads as empty, so an older or damaged file is compared, not trusted."""
        def mapping(key: str) -> Mapping[str, Any] | None:
            value = data.get(key)
            return value if isinstance(value, dict) else None

        planned = data.get("planned")
        name = data.get("name")
        return cls(name=name if isinstance(name, str) else None, schedule=mapping("schedule") or {},
                   scoring=mapping("scoring"), time=mapping("time"),
                   planned=planned if isinstance(planned, int) and not isinstance(planned, bool) else None,
                   conditions=mapping("conditions"), sandbox=mapping("sandbox"), schema=int(data.get("schema", 0)))


@dataclass(frozen=True)
class Entrants:
    """`entrants.json` as read: the admitted names, each kept-out entrant's (reason, log path)
    and each built player's build log path (None: none kept)."""

    admitted: tuple[str, ...] = ()
    kept_out: Mapping[str, tuple[str, str | None]] = field(default_factory=dict)
    build_logs: Mapping[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultsFolder:
    """A tournament's results folder: where each of its files is, and the description read and written."""

    path: Path

    @property
    def games(self) -> Path:
        """`games.jsonl`, the records: the source of truth."""
        return self.path / GAMES_FILE

    @property
    def description_file(self) -> Path:
        """`tournament.json`; read and written with `read_description` and `write_description`."""
        return self.path / DESCRIPTION_FILE

    def holds_results(self) -> bool:
        """Whether this is a results folder: it has records, or at least the description of a
        run (one stopped before its first game has no records yet)."""
        return self.games.is_file() or self.description_file.is_file()

    @property
    def logs(self) -> Path:
        """The folder of the bots' stderr logs, one file per seat per game, named after the game id."""
        return self.path / LOGS_FOLDER

    @property
    def standings_text(self) -> Path:
        return self.path / STANDINGS_TEXT_FILE

    @property
    def standings_markdown(self) -> Path:
        return self.path / STANDINGS_MARKDOWN_FILE

    @property
    def summary(self) -> Path:
        """`summary.json`, the standings for machines (docs/records.md)."""
        return self.path / SUMMARY_FILE

    @property
    def report(self) -> Path:
        return self.path / REPORT_FILE

    @property
    def entrant_secret(self) -> Path:
        """`entrant-secret`: the key of each entrant's own link to the live page
        (reports/entrant_keys.py); read and written by the arbiter alone (mode 0600)."""
        return self.path / "entrant-secret"

    @property
    def arbiter_faults(self) -> Path:
        """`arbiter-faults.jsonl`: one line per game the arbiter's machinery could not play
        (the game has no record, blames no bot, and is played again on a resume)."""
        return self.path / ARBITER_FAULTS_FILE

    def note_arbiter_fault(self, game_id: str, names: Sequence[str], problem: str) -> None:
        """Append one arbiter fault, durably (a courtesy: the records never depend on it)."""
        line = json.dumps({"id": game_id, "names": list(names), "problem": problem,
                           "at": datetime.now(timezone.utc).isoformat(timespec="milliseconds")},
                          ensure_ascii=False) + "\n"
        try:
            with open(self.arbiter_faults, "a", encoding="utf-8") as faults:
                faults.write(line)
                faults.flush()
                os.fsync(faults.fileno())
        except OSError:
            pass  # the terminal has said it already

    @property
    def entrants_file(self) -> Path:
        """`entrants.json`: who of an `entries:` folder (or of the built players) was admitted,
        who was kept out and why, and each build (written by preflight.admit; docs/records.md)."""
        return self.path / ENTRANTS_FILE

    def read_entrants(self) -> Entrants:
        """`entrants.json` read back (an empty Entrants when there is none, or it is not what
        the arbiter writes: it is a courtesy beside the records, never their judge)."""
        try:
            data = json.loads(self.entrants_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Entrants()
        if not isinstance(data, dict):
            return Entrants()

        def text(value: Any) -> str | None:
            return value if isinstance(value, str) else None

        kept_out = {entry["name"]: (text(entry.get("reason")) or "", text(entry.get("log")))
                    for entry in data.get("kept_out") or [] if isinstance(entry, dict) and text(entry.get("name"))}
        builds = {name: text(build.get("log")) for name, build in (data.get("builds") or {}).items()
                  if isinstance(name, str) and isinstance(build, dict)}
        admitted = tuple(name for name in data.get("admitted") or [] if isinstance(name, str))
        return Entrants(admitted, kept_out, builds)

    def check_logs(self, player: str) -> Path:
        """The folder of a player's logs from its check before the first game (`check: true`)."""
        return self.logs / f"check-{player}"

    def seat_logs(self, game_id: str, seat: int) -> list[Path]:
        """The stderr logs in `logs/` of one seat of one game (at most one, unless a name
        was reused), found by listing the folder: no path is built from the arguments."""
        prefix = seat_log_name(game_log_prefix(game_id), seat)
        try:
            names = sorted(n for n in os.listdir(self.logs) if n.startswith(prefix) and n.endswith(".log"))
        except OSError:
            names = []
        return [self.logs / name for name in names]

    def seat_names_of(self, game_id: str) -> list[str]:
        """The seat names of the game `game_id` as its record gives them ([] if none), found by
        reading the file a line at a time (for the odd lookup of an old game)."""
        try:
            _, record = next(records_of(self.games, game_id), (None, None))
        except UsageError:
            return []
        return [] if record is None else record.seat_names()

    def count_records(self) -> int:
        """How many complete records `games.jsonl` holds, counted by its lines (no record read)."""
        count = 0
        try:
            with open(self.games, "rb") as handle:
                for line in handle:
                    count += line.endswith(b"\n") and not line.isspace()
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise UsageError(f"cannot read {self.games}: {exc.strerror}") from None
        return count

    def store(self, players: Collection[str] = (),
              audit: Callable[[GameRecord], str | None] | None = None,
              scoring: Mapping[str, float] | None = None, *, keep_results: bool = False) -> GameStore:
        """The records, checked to name only `players` (when given) and by `audit`, tallied
        with `scoring` (`GameStore`)."""
        return GameStore(self.games, players=players, audit=audit, scoring=scoring, keep_results=keep_results)

    def prepare(self, *, fresh: bool, backup: bool = True) -> Path | None:
        """Make `logs/`. With `fresh`, first move every file an earlier run wrote here into a
        dated backup folder beside this one (`NAME.2026-11-25T14-33-00`), or with `backup`
        false delete them; the backup's path, or None when nothing was kept."""
        kept: Path | None = None
        try:
            if fresh:
                written = [path for path in (*(self.path / name for name in RUN_FILES), self.logs)
                           if path.exists() and not (path == self.logs and path.is_dir() and not any(path.iterdir()))]
                if backup and written:
                    kept = self._backup_folder()
                    kept.mkdir()
                    for path in written:
                        os.replace(path, kept / path.name)
                for path in written if not backup else ():
                    if path.is_dir() and not path.is_symlink():
                        shutil.rmtree(path)
                    else:
                        path.unlink(missing_ok=True)
            self.logs.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot prepare results folder {self.path}: {exc.strerror}") from None
        return kept

    def _backup_folder(self) -> Path:
        """A new sibling folder named after this one and the time (a second, `-2`, ... if taken)."""
        stamp = datetime.now().strftime("%Y-%m-%dT%H-%M-%S")  # local time: what the user's clock says
        candidate = self.path.with_name(f"{self.path.name}.{stamp}")
        number = 1
        while candidate.exists():
            number += 1
            candidate = self.path.with_name(f"{self.path.name}.{stamp}-{number}")
        return candidate

    def read_description(self) -> TournamentDescription | None:
        """The folder's `tournament.json`, or None if there is none; UsageError if it cannot
        be read, or was written by a newer arbiter."""
        path = self.description_file
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{path} cannot be read ({exc}); it is rewritten by `arbiter run CONFIG` "
                             "with that folder's config") from None
        if not isinstance(data, dict):
            raise UsageError(f"{path} is not a tournament description (a JSON object)")
        schema = data.get("schema", 0)
        if not isinstance(schema, int) or isinstance(schema, bool) or schema > DESCRIPTION_SCHEMA:
            raise UsageError(f"{path} is a tournament description of schema {schema!r}, which this arbiter "
                             f"(schema {DESCRIPTION_SCHEMA}) cannot read; read it with a newer arbiter")
        return TournamentDescription.from_json(data)

    def write_description(self, description: TournamentDescription) -> None:
        """Replace `tournament.json` at once."""
        write_whole(self.description_file, json.dumps(description.to_json(), indent=2) + "\n")

    def run_seeds(self, seed: int | None) -> RunSeeds:
        """The run's seeds: the organiser's `seed` (None if not given) and the folder's secret,
        drawn and kept (mode 0600, durable before the first game) the first time, read back on
        every resume; UsageError if it cannot be kept or read."""
        path = self.path / SECRET_FILE
        try:
            if not path.exists():
                partial = path.with_name(path.name + ".partial")
                partial.unlink(missing_ok=True)
                text = json.dumps({"secret": fresh_secret().hex(),
                                   "about": "keys this run's dice and bots' seeds (docs/records.md); keep it private"})
                fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text + "\n")
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(partial, path)
            data = json.loads(path.read_text(encoding="utf-8"))
            secret = bytes.fromhex(data["secret"])
        except OSError as exc:
            raise UsageError(f"cannot keep the run's secret in {path}: {exc.strerror}") from None
        except (ValueError, TypeError, KeyError):
            raise UsageError(f"{path} is not a run secret this arbiter wrote; restore it, or start over with "
                             "--fresh (the dice of games played so far are in their records)") from None
        if len(secret) < 16:
            raise UsageError(f"{path} holds a secret of {len(secret)} bytes, too short to keep the dice unknown; "
                             "restore it, or start over with --fresh")
        return RunSeeds(secret, seed)

    def write_config_copy(self, text: str) -> None:
        """Replace `config.yaml`, the copy of the config as it was read."""
        write_whole(self.path / CONFIG_COPY_FILE, text)


def records_of(path: Path, game_id: str) -> Iterator[tuple[int, GameRecord]]:
    """Each line of `path` that records `game_id`, numbered, with its record, found by reading
    the file a line at a time (ids are kept as hashes: an old game is looked up again here)."""
    wanted = {json.dumps(game_id, ensure_ascii=ascii).encode() for ascii in (False, True)}  # as written either way
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        for number, line in _lines(handle, path, 1):
            if any(form in line for form in wanted):
                with suppress(ValueError):
                    record = GameRecord.from_json(json.loads(line))
                    if record.id == game_id:
                        yield number, record


def _load_ids(path: Path, count: int, digest: str) -> Any:
    """A checkpoint's ids file, read when first asked (a report that reads no later record never
    does): its hashes, sorted; UsageError if it is not the one the checkpoint names."""
    import numpy as np
    try:
        ids = np.fromfile(path, dtype="<u8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if len(ids) != count or hashlib.sha256(memoryview(ids)).hexdigest() != digest:
        raise UsageError(f"{show_path(path)} is not the one {CHECKPOINT_FILE} names: delete both, and every "
                         "record is checked again from the first (docs/records.md)")
    return ids.astype(np.uint64, copy=False)


def _lines(handle: BinaryIO, path: Path, first: int) -> Iterator[tuple[int, bytes]]:
    """The file's lines from where it stands, numbered from `first`, each with its newline
    (the last may lack it: torn)."""
    try:
        yield from enumerate(handle, first)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def game_log_prefix(game_id: str) -> str:
    """What the names of a tournament game's log files start with (the referee adds the seat)."""
    return f"{game_id}-"


def write_whole(path: Path, text: str) -> None:
    """Replace a file at once (a stop mid-write leaves the old file, never half a new one)."""
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError as exc:
        with suppress(OSError):
            partial.unlink(missing_ok=True)  # on a full disk, what it holds is room
        hint = " (its disk is full: free some space there and run the command again)" \
            if exc.errno in (errno.ENOSPC, errno.EDQUOT) else ""
        raise UsageError(f"cannot write {path}: {exc.strerror}{hint}") from None


@contextmanager
def hold_results_folder(folder: Path, setting: str = "`results:`") -> Iterator[None]:
    """Create the results folder if needed and hold an exclusive lock on it until the block
    ends, so two runs never append the same games; UsageError if another run holds it, or if
    the folder cannot be created or already holds files that are not a tournament's (saying to
    change `setting`: the config's `results:`, or the command line's `--results`)."""
    try:
        str(folder).encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"results folder {show_path(folder)} is not a UTF-8 name: game records name their log "
                         "files, and games.jsonl is UTF-8 text; choose a folder whose path is UTF-8") from None
    try:
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"results folder {folder} is a file, not a folder; set {setting} to a folder")
        if folder.is_dir() and any(folder.iterdir()) and not any((folder / mark).exists() for mark in RESULTS_MARKS):
            raise UsageError(f"results folder {folder} already holds other files and no games.jsonl; an arbiter "
                             f"run writes files there (and --fresh moves them away): set {setting} to a new or empty "
                             "folder")
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
