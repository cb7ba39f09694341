"""The HTML report: standings, crosstable, rating chart, games list and viewer.

A game's page (`write_game_page`) is one file with its CSS, JavaScript and data inline (no
network). A tournament's page (`write_tournament_report`) is the same page with its tables
inline and its games in a folder beside it (`report-games/`, written by `GameChunks` while the
records are read one at a time), which the page loads a chunk at a time as it shows them
(docs/report.md, The games folder). Python computes the data (`tournament_tables`,
`PageData`); `page.js` draws it. Each game is one compact array (fields named in
`GAME_FIELDS`): moves are indices into its board's move table (see `board_geometry`), seats
one base-36 character per move, times whole milliseconds. The page decodes a game only when it
is opened.
"""
from __future__ import annotations

import errno
import html
import json
import math
import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from ..errors import UsageError
from ..games import CHANCE
from ..records import GameRecord, Termination
from ..tournament.progress import ordinal
from ..tournament.store import REPORT_GAMES_FOLDER, ResultsFolder, write_whole
from .board_geometry import Board, board_for

# One game as the page reads it; `frames` is present only for boards of kind `text`.
GAME_FIELDS = (
    "id",  # str: the tournament's game id
    "round",  # int or None
    "board",  # index into data.boards
    "players",  # index into data.players, per seat
    "scores",  # final scores per seat, as recorded
    "winner",  # seat or None
    "termination",  # a Termination value
    "offender",  # seat or None
    "detail",  # the record's sentence about the ending
    "outcome",  # game-specific end name or None
    "forced",  # how many leading moves are forced opening moves
    "seats",  # one base-36 character per move: the seat that made it
    "moves",  # comma-separated indices into the board's move_texts
    "times_ms",  # comma-separated whole milliseconds (wall clock) per move
    "started_at",  # ISO 8601
    "duration_s",  # float
    "frames",  # text boards only: the ASCII picture after each move, or why there are none (the rules failed)
)


GAME_INDEX = {name: i for i, name in enumerate(GAME_FIELDS)}
# One row of the games list (a report's `list-K.js`): what the list shows, without the moves.
LIST_FIELDS = ("id", "round", "players", "scores", "winner", "termination", "offender", "moves", "duration_s")
GAMES_FOLDER = REPORT_GAMES_FOLDER  # beside report.html: one folder per written report, the page names its own
PARTIAL_PREFIX = ".partial-"  # a games folder still being written (or left by a report that stopped)
ROWS_PER_CHUNK = 1000  # list rows per list file, and positions per filter file (about 60 KB)
GAMES_PER_CHUNK = 100  # games with their moves per games file (about 100 to 300 KB)
ID_BUCKETS = 256  # ids files: a game's address (#game=ID) loads one of them to find the game
ID_FLUSH = 256  # ids held per bucket before they are appended to its file
CHUNK_NAME = re.compile(r"(list|games|ids|p\d+|e\d+|p\d+e\d+)-(\d+)")  # what a chunk file is called


class ReportError(UsageError):
    """The results folder cannot be turned into a report (missing or unreadable files)."""


class PageData:
    """Collects players, boards and games into the JSON the page is drawn from."""

    def __init__(self, players: Iterable[str] = ()) -> None:
        self.players: list[str] = []
        self._player_index: dict[str, int] = {}
        self.boards: list[Board] = []
        self._board_index: dict[str, int] = {}
        self._last_board: tuple[str, dict[str, Any], int] | None = None
        self.games: list[list[Any]] = []
        for name in players:
            self.player(name)

    def player(self, name: str) -> int:
        """The index of a player's name, adding it on first sight."""
        index = self._player_index.get(name)
        if index is None:
            index = self._player_index[name] = len(self.players)
            self.players.append(name)
        return index

    def board(self, game: str, params: dict[str, Any]) -> int:
        """The index of the board for a game and its parameters, building it on first sight."""
        last = self._last_board
        if last is not None and last[0] == game and last[1] == params:
            return last[2]  # a tournament's games share one board: no key to make for each
        key = json.dumps([game, params], sort_keys=True, default=str)
        index = self._board_index.get(key)
        if index is None:
            index = self._board_index[key] = len(self.boards)
            self.boards.append(board_for(game, params))
        self._last_board = (game, params, index)
        return index

    def add_game(self, record: GameRecord, fallback_id: str) -> None:
        """Append one game, encoded compactly."""
        self.games.append(self.encode_game(record, fallback_id))

    def encode_game(self, record: GameRecord, fallback_id: str) -> list[Any]:
        """One game as the page reads it (`GAME_FIELDS`), its players and board added if new."""
        board_index = self.board(record.game, record.params)
        board = self.boards[board_index]
        moves = record.moves
        texts = [m.move for m in moves]
        forced = 0
        while forced < len(moves) and moves[forced].forced:
            forced += 1
        encode = board.encode
        # List comprehensions, not generators, in the joins: a report encodes every game.
        seats = [_SEAT_CHARS.get(m.seat) or _seat_char(m.seat) for m in moves]
        entry: list[Any] = [
            record.id if record.id is not None else fallback_id,
            record.round,
            board_index,
            [self.player(p.name) for p in record.players],
            list(record.scores),
            record.winner,
            record.termination.value,
            record.offender,
            record.detail,
            record.outcome,
            forced,
            "".join(seats),
            ",".join([str(encode(text)) for text in texts]),
            ",".join([str(round(m.wall_ms)) for m in moves]),
            record.started_at,
            round(record.duration_s, 3),
        ]
        frames = board.frames(texts, entry[0])
        if frames is not None:
            entry.append(frames)
        return entry

    def to_json(self) -> dict[str, Any]:
        """The shared part of every page's data."""
        return {
            "game_fields": list(GAME_FIELDS),
            "terminations": [t.value for t in Termination],
            "players": self.players,
            "boards": [board.to_json() for board in self.boards],
            "games": self.games,
        }


_SEAT_CHARS = {CHANCE: "*", **{seat: char for seat, char in enumerate("0123456789abcdefghijklmnopqrstuvwxyz")}}


def _seat_char(seat: int) -> str:
    if seat == CHANCE:
        return "*"  # page.js: chance's draw
    if not 0 <= seat < 36:
        raise ValueError(f"seat {seat} cannot be encoded (the viewer supports seats 0 to 35)")
    return "0123456789abcdefghijklmnopqrstuvwxyz"[seat]


class GameChunks:
    """A report's games written as small script files (docs/report.md, The games folder), one
    game at a time: the list's rows, the games with their moves, the filters' positions and the
    ids' positions, each in chunks of a fixed size, so that the page loads only what it shows."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0
        self._rows: list[list[Any]] = []
        self._games: list[list[Any]] = []
        self._views: dict[str, list[int]] = {}
        self._view_counts: dict[str, int] = {}
        self._ids: list[list[str]] = [[] for _ in range(ID_BUCKETS)]
        self._term_index = {t.value: i for i, t in enumerate(Termination)}
        self._finished = False  # the ids files are whole scripts only once finished

    def add(self, entry: list[Any]) -> None:
        """Take one encoded game (`GAME_FIELDS`) at the next position, writing each chunk it fills."""
        position = self.count
        self.count += 1
        self._rows.append(list_row(entry))
        if len(self._rows) == ROWS_PER_CHUNK:
            self._write(f"list-{position // ROWS_PER_CHUNK}", self._rows)
            self._rows = []
        self._games.append(entry)
        if len(self._games) == GAMES_PER_CHUNK:
            self._write(f"games-{position // GAMES_PER_CHUNK}", self._games)
            self._games = []
        ending = f"e{self._term_index[entry[GAME_INDEX['termination']]]}"
        players = dict.fromkeys(entry[GAME_INDEX["players"]])  # a player in two seats: listed once
        for view in (ending, *(f"p{p}" for p in players), *(f"p{p}{ending}" for p in players)):
            self._note(view, position)
        bucket = self._ids[id_bucket(str(entry[GAME_INDEX["id"]]))]
        bucket.append(f"{json.dumps(str(entry[GAME_INDEX['id']]))}:{position},")
        if len(bucket) >= ID_FLUSH:
            self._flush_ids()

    def _note(self, view: str, position: int) -> None:
        positions = self._views.setdefault(view, [])
        positions.append(position)
        if len(positions) == ROWS_PER_CHUNK:
            seen = self._view_counts.get(view, 0)
            self._write(f"{view}-{seen // ROWS_PER_CHUNK}", positions)
            self._view_counts[view] = seen + len(positions)
            self._views[view] = []

    def _flush_ids(self) -> None:
        # A bucket's file grows as ids come: an object literal whose members each end in a comma
        # (JavaScript allows the last one), closed by `finish`.
        for number, bucket in enumerate(self._ids):
            if bucket:
                with open(self.folder / f"ids-{number}.js", "a", encoding="utf-8") as handle:
                    handle.write("".join(bucket))
                bucket.clear()

    def finish(self) -> dict[str, Any]:
        """Write what is left and return what the page needs to find every chunk (`index`)."""
        if self._rows:
            self._write(f"list-{(self.count - 1) // ROWS_PER_CHUNK}", self._rows)
        if self._games:
            self._write(f"games-{(self.count - 1) // GAMES_PER_CHUNK}", self._games)
        for view, positions in self._views.items():
            seen = self._view_counts.get(view, 0)
            if positions:
                self._write(f"{view}-{seen // ROWS_PER_CHUNK}", positions)
            self._view_counts[view] = seen + len(positions)
            self._views[view] = []
        self._flush_ids()
        for number in range(ID_BUCKETS):
            path = self.folder / f"ids-{number}.js"
            members = path.read_text(encoding="utf-8") if path.exists() else ""
            path.write_text(_ids_script(number, members), encoding="utf-8")
        self._finished = True
        return self.index()

    def index(self) -> dict[str, Any]:
        """What the page needs to find every chunk: counts, chunk sizes, and each filter's count."""
        views = {view: self._view_counts.get(view, 0) + len(positions) for view, positions in self._views.items()}
        return {"total": self.count, "list_fields": list(LIST_FIELDS), "rows_per_chunk": ROWS_PER_CHUNK,
                "games_per_chunk": GAMES_PER_CHUNK, "id_buckets": ID_BUCKETS, "views": views}

    def text(self, name: str) -> str | None:
        """The script of one chunk as it stands, written or not (the live page serves these as
        games arrive, before `finish`); None for a name that is no chunk."""
        match = CHUNK_NAME.fullmatch(name)
        if match is None:
            return None
        kind, number = match.group(1), int(match.group(2))
        if kind == "ids":
            if number >= ID_BUCKETS:
                return None
            path = self.folder / f"ids-{number}.js"
            written = path.read_text(encoding="utf-8") if path.exists() else ""
            return written if self._finished else _ids_script(number, written + "".join(self._ids[number]))
        per = GAMES_PER_CHUNK if kind == "games" else ROWS_PER_CHUNK
        held = self._rows if kind == "list" else self._games if kind == "games" else self._views.get(kind, [])
        written = self.count - len(held) if kind in ("list", "games") else self._view_counts.get(kind, 0)
        if number < written // per:
            return (self.folder / f"{name}.js").read_text(encoding="utf-8")
        if number == written // per and held:
            return _chunk_script(name, held)
        return None

    def _write(self, name: str, payload: Any) -> None:
        (self.folder / f"{name}.js").write_text(_chunk_script(name, payload), encoding="utf-8")


def _chunk_script(name: str, payload: Any) -> str:
    """A chunk file's text: a call that hands its payload to the page (page.js, arbiterChunk)."""
    return f"arbiterChunk({json.dumps(name)},{json.dumps(payload, separators=(',', ':'), allow_nan=False)});\n"


def _ids_script(number: int, members: str) -> str:
    # The members each end in a comma, which a JavaScript object literal allows after the last.
    return f"arbiterChunk({json.dumps(f'ids-{number}')},{{{members}}});\n"


def list_row(entry: list[Any]) -> list[Any]:
    """What the games list shows of an encoded game (`LIST_FIELDS`): no moves."""
    return [entry[GAME_INDEX["id"]], entry[GAME_INDEX["round"]], entry[GAME_INDEX["players"]],
            entry[GAME_INDEX["scores"]], entry[GAME_INDEX["winner"]], entry[GAME_INDEX["termination"]],
            entry[GAME_INDEX["offender"]], len(entry[GAME_INDEX["seats"]]), entry[GAME_INDEX["duration_s"]]]


def id_bucket(game_id: str) -> int:
    """Which ids file holds a game id: FNV-1a (32 bits) of its UTF-8 bytes, as page.js computes it."""
    digest = 0x811C9DC5
    for byte in game_id.encode("utf-8"):
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return digest % ID_BUCKETS


def tournament_tables(summary: dict[str, Any]) -> dict[str, Any]:
    """The tournament page's data but the games: header, standings, crosstable (the live page
    sends these again whenever a record lands)."""
    summary = _json_safe(summary)
    return {
        "page": "tournament",
        "tournament": {
            "name": summary["name"],
            "game": summary.get("game", ""),
            "params": summary.get("params", {}),
            "format": summary.get("format", ""),
            "settings": summary.get("settings", {}),
            "scoring": summary.get("scoring", {}),
            "totals": summary.get("totals", {}),
            "sandbox": summary.get("sandbox"),
            "overview": overview_rows(summary),
        },
        "seats": summary.get("seats", 2),
        "standings": summary["players"],
        "crosstable": summary.get("crosstable", {}),
        "crosstable_counts": summary.get("crosstable_counts", "points"),
        "head_to_head": summary.get("head_to_head"),
        # A Swiss tournament's rounds and, with a final, its staged ranking (reports/ranking.py).
        "rounds": summary.get("rounds"),
        "ranking": summary.get("ranking"),
        "final_top": summary.get("final_top"),
        "final_round": summary.get("final_round"),
    }


def overview_rows(summary: dict[str, Any]) -> list[list[str]]:
    """The tournament card as label and sentence pairs: what was played, how, and how it was
    counted, in words (summary.json's settings, scoring, totals and sandbox)."""
    settings = summary.get("settings") or {}
    seats = summary.get("seats", 2)
    rows = [["Game", _game_sentence(summary.get("game", ""), summary.get("params") or {})],
            ["Format", _format_sentence(summary.get("format") or "", settings, seats)]]
    openings = _openings_sentence(settings.get("openings"), seats)
    if openings:
        rows.append(["Openings", openings])
    time = _time_sentence(settings.get("time"))
    if time:
        rows.append(["Time", time])
    rows.append(["Scoring", _scoring_sentence(summary.get("scoring") or {}, seats)])
    rows.append(["Games", _totals_sentence(summary.get("totals") or {})])
    sandbox = (summary.get("sandbox") or {}).get("line")
    if sandbox:
        rows.append(["Sandbox", _sentence(sandbox.removeprefix("Sandbox: "))])
    return rows


def _sentence(text: str) -> str:
    """`text` with a capital first letter and a full stop."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _param_value(value: Any) -> str:
    """As the page's header prints a parameter: lists joined by commas, inner lists by '/', a
    switch as a config writes it (`false`, not Python's `False`)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join("/".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v) for v in value)
    return str(value)


def _game_sentence(game: str, params: dict[str, Any]) -> str:
    """`limit-nim with piles 10/9,10/9`; `dots-and-boxes with rows 3, cols 3 and players 3`."""
    parts = [f"{key} {_param_value(value)}" for key, value in params.items() if value is not None]
    if not parts:
        return f"{game}."
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"
    return f"{game} with {listed}."


def _format_sentence(fmt: str, settings: dict[str, Any], seats: int) -> str:
    per_group = settings.get("games_per_pairing")
    unit = "pair of players" if seats == 2 else f"group of {seats} players"
    games = "" if per_group is None else f" {_plural(per_group, 'game')}"
    if fmt == "round-robin":
        return f"Round robin: every {unit} plays{games}."
    if fmt == "gauntlet":
        return f"Gauntlet: the candidate plays every {unit} it is in{games}."
    if fmt == "swiss":
        rounds = settings.get("rounds")
        swiss = f"Swiss, {_plural(rounds, 'round') if rounds else 'in rounds'}: each round, every {unit} plays{games}."
        final = settings.get("final")
        if not final:
            return swiss
        return (f"{swiss} Then the top {final['top']} of the Swiss ranking play a round robin, every {unit} "
                f"{_plural(final['games_per_pairing'], 'game')}, for the final ranking.")
    if fmt == "sprt":
        return "SPRT: the candidate plays the baseline in pairs of games until the test decides."
    return _sentence(fmt or "unknown")


def _openings_sentence(openings: Any, seats: int) -> str | None:
    """`Each opening is 2 random moves (seed 1), played twice with the seats swapped.`"""
    if not isinstance(openings, dict):
        return None
    played = ("played twice with the seats swapped" if seats == 2
              else f"played in {seats} seat orders, each player once in each seat")
    lines = openings.get("lines") or []
    if lines:
        return f"Each opening is one of {_plural(len(lines), 'line')} of a file, in turn, {played}."
    moves = openings.get("random_moves") or 0
    if moves:
        return f"Each opening is {_plural(moves, 'random move')} (seed {openings.get('seed')}), {played}."
    return "None: every game starts from the initial position."


def _seconds(ms: Any) -> str:
    return f"{ms / 1000:g} s"


def _time_sentence(time: Any) -> str | None:
    if not isinstance(time, dict) or "time_ms" not in time:
        return None
    clock = "CPU time" if time.get("clock") == "cpu" else "wall-clock time"
    text = f"{_seconds(time['time_ms'])} of {clock} per player and game"
    text += f", at most {_seconds(time['move_ms'])} a move" if time.get("move_ms") else ""
    if time.get("startup_ms") is not None:
        where = "on the clock" if time.get("charge_startup") else "off the clock"
        text += f"; {_seconds(time['startup_ms'])} to start, {where}"
    if time.get("suspend_idle"):
        text += "; a bot is suspended while it waits for its turn"
    if time.get("memory_mb"):
        text += f"; {time['memory_mb']} MB of memory"
    return text + "."


def _scoring_sentence(scoring: dict[str, Any], seats: int) -> str:
    if scoring.get("game_points"):
        return "Each player scores its points in the game."
    places = scoring.get("places") or []
    if places:
        return "By place: " + ", ".join(f"{ordinal(k)} {v:g}" for k, v in enumerate(places, 1)) + "."
    win, draw, loss = (scoring.get(k) for k in ("win", "draw", "loss"))
    if None in (win, draw, loss):
        return "As configured."
    if seats == 2:
        return f"{win:g} point{'' if win == 1 else 's'} for a win, {draw:g} for a draw, {loss:g} for a loss."
    return f"{win:g} points for a first place alone, {draw:g} for a shared one, {loss:g} otherwise."


def _totals_sentence(totals: dict[str, Any]) -> str:
    played, planned = totals.get("games", totals.get("played")), totals.get("planned")
    faults, void = totals.get("faults"), totals.get("void") or 0
    if played is not None and "games" in totals:
        played += void  # `games` counts the games that count; void ones were played too
    if planned is not None and played is not None:
        text = f"{played} of {planned} planned games played"
    else:
        text = f"{played} games played"
    if faults is not None:
        text += ", none ended by a fault" if faults == 0 else f", {faults} ended by a fault"
    if void:
        text += f", {void} void (counted for no one)"
    return text + "."


def _json_safe(value: Any) -> Any:
    """`value` with infinite or NaN floats (an unbounded rating interval) as None: JSON has none."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def game_page_data(record: GameRecord) -> dict[str, Any]:
    """The data of a single game's page."""
    page = PageData()
    page.add_game(record, fallback_id="game")
    return {"page": "game", **page.to_json()}


def render_page(data: dict[str, Any], title: str) -> str:
    """The whole HTML document: template, CSS, JavaScript and data inline."""
    package = resources.files(__package__)
    template = (package / "page.html").read_text(encoding="utf-8")
    # In a <script> element only `</` could end it early: JSON allows `<` escaped as \u003c.
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")
    parts = {
        "title": html.escape(title),
        "css": (package / "page.css").read_text(encoding="utf-8"),
        "js": (package / "page.js").read_text(encoding="utf-8"),
        "data": payload,
    }
    found = re.findall(r"\{\{(\w+)\}\}", template)
    if sorted(found) != sorted(parts):
        raise AssertionError(f"page.html has markers {found}, expected one each of {sorted(parts)}")
    # One pass over the template, so text put in (a player named `{{data}}`) is never re-read.
    return re.sub(r"\{\{(\w+)\}\}", lambda match: parts[match.group(1)], template)


def write_tournament_report(results_dir: Path) -> Path:
    """Write `report.html` and its games folder into a results folder, from its summary.json
    and its games.jsonl read one record at a time."""
    folder = ResultsFolder(Path(results_dir))
    summary_path = folder.summary
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportError(f"cannot read {summary_path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ReportError(f"{summary_path}: not valid JSON ({exc})") from None
    description = folder.read_description()
    listed = description.schedule.get("players", []) if description is not None else []
    return write_report_page(folder.report, summary, folder.store().records(), listed,
                             f"{summary.get('name', '')} · arbiter report")


def write_report_page(path: Path, summary: dict[str, Any], records: Iterable[GameRecord],
                      listed: Iterable[str], title: str) -> Path:
    """Write a tournament's page at `path` and its games, in chunks, into `report-games/` beside it.

    The records are read once, one at a time, and each game is written out as it is read: what
    is held is one chunk of each kind, never the games. `listed` is the config's order of the
    players (tournament.json's): a player's colour follows its place in data.players, and the
    live page lists them in that order too, so a player has one colour on both pages whatever
    the standings. Players not listed follow in standings order."""
    for key in ("name", "players"):
        if key not in summary:
            raise ReportError(f"summary.json has no {key!r} key; is it a tournament summary?")
    page = PageData([*listed, *(p["name"] for p in summary["players"])])
    path = Path(path)
    games_root = path.with_name(GAMES_FOLDER)
    try:
        games_root.mkdir(exist_ok=True)
        # A new folder of its own: the page on disk points at the old one, whole, until it is replaced.
        partial = Path(tempfile.mkdtemp(prefix=PARTIAL_PREFIX, dir=games_root))
    except OSError as exc:
        raise ReportError(f"cannot write {games_root}: {exc.strerror}") from None
    try:
        chunks = GameChunks(partial)
        for number, record in enumerate(records, 1):
            chunks.add(page.encode_game(record, fallback_id=str(number)))
        index = chunks.finish()
        done = partial.with_name(partial.name.removeprefix(PARTIAL_PREFIX))
        partial.rename(done)
    except OSError as exc:
        shutil.rmtree(partial, ignore_errors=True)  # on a full disk, what it holds is room
        full = " (its disk is full: free some space there and run the command again)" \
            if exc.errno in (errno.ENOSPC, errno.EDQUOT) else ""
        raise ReportError(f"cannot write {exc.filename or partial}: {exc.strerror}{full}") from None
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    index["folder"] = f"{GAMES_FOLDER}/{done.name}"
    data = {**tournament_tables(summary), **page.to_json(), "chunks": index}
    try:
        write_whole(path, render_page(data, title))
    except BaseException:
        shutil.rmtree(done, ignore_errors=True)
        raise
    # Only now is the old folder unused (and any left by a report that stopped half way).
    for old in games_root.iterdir():
        if old != done:
            shutil.rmtree(old, ignore_errors=True)
    return path


def write_game_page(record: GameRecord, path: Path) -> Path:
    """Write the viewer for one game as a self-contained HTML file."""
    path = Path(path)
    names = " vs ".join(p.name for p in record.players)
    path.write_text(render_page(game_page_data(record), f"{names} · {record.game}"), encoding="utf-8")
    return path
