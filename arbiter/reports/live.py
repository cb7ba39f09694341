"""The live page: the report's page, served while a tournament runs and updated as it goes.

`LiveServer` serves one results folder read-only over HTTP (aiohttp, in a thread of its own):
`/` is the same page as report.html with the data of the moment, `/events` pushes what changes
as server-sent events. Records come from the folder's `games.jsonl`, read as it grows by the
store's `RecordTail`, so `arbiter serve` watches a run started elsewhere exactly as `arbiter run
--serve` watches its own. The running games come only from the run itself: `RunFeed` is the
runner's `GameWatch`, told by each game's worker what the page needs (`turn_news.TurnNews`: the
moves with their seats and texts, the scores, who is to move), and its `on_turn` callback does
nothing but append that and a timestamp to a deque; the server thread turns them into boards
and clocks. The page keeps plain data of a running game and never runs a game's rules for it:
whatever they do, they do in the worker. docs/live.md explains the page; docs/performance.md
measures the callback's cost.
"""
from __future__ import annotations

import asyncio
import ipaddress
import json
import math
import os
import re
import shutil
import tempfile
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from aiohttp import web

from ..errors import UsageError, show_path
from ..games import Game
from ..records import GameRecord, MoveRecord, PlayerRef, Termination
from ..referee import TimeControl
from ..tournament.config import SprtSettings
from ..tournament.schedule import ScheduledGame
from ..tournament.sprt import SprtTest
from ..tournament.store import ResultsFolder, TournamentDescription
from ..tournament.tally import IdSet, Tally
from .html import GAME_FIELDS, GameChunks, PageData, render_page, tournament_tables
from .entrant_keys import key_holder
from .export import cut_log
from .results import described_store, results_folder, results_meta
from .standings import standings_from_tally, summary_json

if TYPE_CHECKING:  # the workers' machinery is the run's, not the page's: only the news's type
    from ..tournament.turn_news import TurnNews

LOOPBACK = "127.0.0.1"
PUMP_S = 0.1  # how often the server thread takes in the runner's notes
SCAN_S = 0.5  # how often it looks at the records and the description
RESULTS_MIN_S = 0.5  # standings are recomputed at most this often (the whole table each time)
RUNNING_MIN_S = 0.2  # running boards are pushed at most this often
LEFT_KEEP_S = 5.0  # an ended game stays in "now playing" until its record is read, at most this long
HEARTBEAT_S = 15.0  # a comment line on a quiet stream, so dead connections are noticed
CLIENT_QUEUE = 256  # updates waiting for one browser; a browser that far behind is disconnected
RETRY_MS = 1000  # how soon a browser reconnects after losing the stream
SCAN_BYTES = 1 << 20  # read a slice at a time (about 400 records, a few hundredths of a second), the page answering between
RECENT_KEPT = 1000  # records kept whole for the logs' seat names (older ones are looked up in the file)


def parse_address(text: str, option: str = "--serve") -> tuple[str, int]:
    """`HOST:PORT`, `[IPv6]:PORT` or `PORT` (on loopback); port 0 picks a free port."""
    match = re.fullmatch(r"(?:\[([0-9A-Fa-f:.]+)\]|([^:\s]*)):(\d{1,5})|(\d{1,5})", text.strip())
    if not match:
        raise UsageError(f"{option} {text!r}: expected HOST:PORT or PORT (e.g. 127.0.0.1:8000, or 0.0.0.0:8000 "
                         f"to be seen from other machines); a config file goes before {option}")
    host = match.group(1) or match.group(2) or LOOPBACK
    port = int(match.group(3) or match.group(4))
    if port > 65535:
        raise UsageError(f"{option} {text!r}: port {port} is not a port (0 to 65535; 0 picks a free one)")
    return host, port


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (the default; anything else was asked for)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# ---- the runner's side: notes taken on the referee's hot path ------------------------------

class _TurnNotes:
    """The `on_turn` callback of one game: what its worker said of a turn, and when."""

    __slots__ = ("game_id", "append")

    def __init__(self, game_id: str, append: Callable[[tuple[Any, ...]], None]) -> None:
        self.game_id = game_id
        self.append = append

    def __call__(self, news: TurnNews) -> None:
        # A pool thread waits for this: one deque append (atomic under the GIL), nothing
        # formatted. The server thread does the rest.
        self.append(("turn", self.game_id, time.monotonic(), news))


class RunFeed:
    """The runner's `GameWatch` for the live page: a thread-safe queue of what happened."""

    def __init__(self) -> None:
        self.notes: deque[tuple[Any, ...]] = deque()

    def game_started(self, scheduled: ScheduledGame, game: Game[Any],
                     clocks: list[TimeControl]) -> Callable[[TurnNews], None]:
        """Note a game about to start (its game's name and parameters, no rules); its `on_turn` callback."""
        self.notes.append(("start", scheduled.id, time.monotonic(), scheduled, game.name, game.json_params(),
                           [c.time_ms for c in clocks]))
        return _TurnNotes(scheduled.id, self.notes.append)

    def game_left(self, game_id: str) -> None:
        """Note that a game ended (recorded, faulted or cancelled)."""
        self.notes.append(("left", game_id, time.monotonic()))


# ---- the server thread's side ----------------------------------------------------------------

@dataclass
class _Running:
    """A game being played, as its worker told it: plain data, no rules."""

    scheduled: ScheduledGame
    game: str  # the game's name
    params: dict[str, Any]  # its parameters, as a record holds them
    limits_ms: list[int]
    started: float  # monotonic
    started_at: str
    moves: list[MoveRecord] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    to_move: int | None = None  # None once over (and until the worker's first word, a moment after the start)
    used_ms: list[float] = field(default_factory=list)
    last_turn: float = 0.0
    left: float | None = None


class LiveState:
    """What the page shows, built from the results folder and the runner's notes; used by the
    server thread only."""

    def __init__(self, folder: Path, *, feed: RunFeed | None, logs: bool) -> None:
        self.folder = folder
        self.results = ResultsFolder(folder)
        self.feed = feed
        self.logs = logs
        self.running: dict[str, _Running] = {}
        self.ended = False  # the run that feeds this page has finished
        # Set when the folder was read again from its start: every page must start again from a
        # snapshot (its games and running games index boards of the page data just replaced).
        self.restarted = False
        self.tail = self.results.store().tail()
        self._remove_games: weakref.finalize | None = None
        self._reset()

    def _reset(self) -> None:
        self.page = PageData()
        # The games list's chunks, as the report's (html.GameChunks), served at /games/NAME.js: the
        # page's first paint carries none of the games. Full chunks wait in a folder of their own.
        self.close()
        games_dir = Path(tempfile.mkdtemp(prefix="arbiter-live-games-"))
        # Removed by `close`, or when this state is dropped or the interpreter exits, whichever is first.
        self._remove_games = weakref.finalize(self, shutil.rmtree, games_dir, ignore_errors=True)
        self.chunks = GameChunks(games_dir)
        self.tally = Tally()  # the records read so far, as aggregates (remade with the scoring once the meta is read)
        self.tally_from = 0  # the bytes of games.jsonl the tally held before any record was read (a checkpoint's)
        self.reading = False  # more of the folder is there to read now
        self.record_ids = IdSet()
        self.recent: deque[GameRecord] = deque(maxlen=RECENT_KEPT)  # the latest records, for a log's seat names
        self.sprt_test: SprtTest | None = None
        self.description = TournamentDescription()
        self.identity_stamp: tuple[int, int] | None | str = "unread"  # the description's mtime and size
        self.meta: dict[str, Any] | None = None
        self.tables: dict[str, Any] = {}
        self.sprt: dict[str, Any] | None = None
        self.rate_base: tuple[float, int] | None = None  # (when, records then): for the ETA
        self.boards_sent: tuple[int, ...] | None = None  # each board's count of move texts, as last sent
        self.players_sent = -1
        self.results_dirty = True
        self.running_dirty = True

    # -- reading the folder --
    def scan(self) -> None:
        """Take in a changed description and the records appended since the last scan."""
        try:
            stat = self.results.description_file.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        # Started again (--fresh: the description went away, the records shrank or were
        # replaced) or another tournament (another description): read it from the start. A
        # description appearing where there was none is the run preparing its folder, not a new
        # tournament.
        replaced = isinstance(self.identity_stamp, tuple) and stamp != self.identity_stamp
        if replaced:
            self.tail.rewind()
        landed = self.tail.read(max_bytes=SCAN_BYTES)
        if replaced or landed.started_over:
            self._reset()
            self.restarted = True
        if stamp != self.identity_stamp:
            self.identity_stamp = stamp
            self._read_meta()
        self._take_records(landed.records, landed.ends)
        self.reading = landed.more  # a big folder is read a slice a pump at a time: the page answers meanwhile
        if self.rate_base is None and not self.reading:  # the ETA counts the games that land while this server watches
            self.rate_base = (time.monotonic(), self.tally.records)

    def _read_meta(self) -> None:
        """The description (the records are the tail's): what the page says besides the games."""
        if not self.results.holds_results():
            return  # not a results folder yet: `arbiter run` is about to prepare it
        try:
            description = self.results.read_description() or TournamentDescription()
        except UsageError:
            return  # being written: read at the next scan
        self.description = description
        if not self.tally.records and not self.chunks.count:  # tallied with the folder's scoring and format
            store = described_store(self.results, description)
            # The standings at once from the checkpoint (a view: `arbiter report` and a resume check
            # its digest); the records it covers still feed the games list as they are read.
            kept = store.unverified_checkpoint()
            self.tally, self.tally_from = kept if kept is not None else (Tally(store.scoring, keep_results=store.keep_results), 0)
        self.meta = results_meta(self.folder, description, self.tally)
        for name in self.meta["players_listed"]:
            self.page.player(name)
        self.sprt_test = self._new_sprt_test()
        self.results_dirty = True

    def _take_records(self, records: list[GameRecord], ends: list[int]) -> None:
        """Put newly read records on the page, each game once (a repeated id is shown as first read);
        those past the checkpoint the tally started from are counted in it too."""
        for record, end in zip(records, ends):
            game_id = record.id if record.id is not None else str(self.chunks.count + 1)
            if game_id in self.record_ids:
                continue
            self.record_ids.add(game_id)
            if end > self.tally_from:
                self.tally.add(record)
            self.recent.append(record)
            if self.sprt_test is not None:
                self._sprt_add(record)
            self.chunks.add(self.page.encode_game(record, fallback_id=game_id))
            self.results_dirty = True

    # -- the runner's notes --
    def take_notes(self) -> None:
        """Replay what the runner noted since the last call into the running games."""
        if self.feed is None:
            return
        notes = self.feed.notes
        while notes:
            note = notes.popleft()
            kind, game_id, when = note[:3]
            if kind == "start":
                self._start(game_id, when, *note[3:])
            elif kind == "turn" and game_id in self.running:
                self._turn(self.running[game_id], when, note[3])
            elif kind == "left" and game_id in self.running:
                self.running[game_id].left = when
            self.running_dirty = True
        now = time.monotonic()
        for game_id in [g for g, r in self.running.items()
                        if r.left is not None and (g in self.record_ids or now - r.left > LEFT_KEEP_S)]:
            del self.running[game_id]
            self.running_dirty = True

    def _start(self, game_id: str, when: float, scheduled: ScheduledGame, game: str, params: dict[str, Any],
               limits_ms: list[int]) -> None:
        seats = len(scheduled.seats)
        self.running[game_id] = _Running(scheduled, game, params, limits_ms, when,
                                         time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), scores=[0] * seats,
                                         used_ms=[0.0] * seats, last_turn=when)

    def _turn(self, running: _Running, when: float, news: TurnNews) -> None:
        running.scores, running.to_move = list(news.scores), news.to_move
        if news.forced:  # the opening, on the board before the first turn: no one's time
            running.moves += [MoveRecord(seat, text, 0.0, 0.0, forced=True) for seat, text in news.moves]
            return
        # The turn's time (from the last note; the first turn's includes starting the bots) is
        # its mover's, the seat of its first move that is not chance's: an estimate of its
        # clock, exact per move only in the record.
        spent_ms = (when - running.last_turn) * 1000
        running.last_turn = when
        charged = False
        for seat, text in news.moves:
            mover = not charged and seat >= 0
            if mover:
                running.used_ms[seat] += spent_ms
                charged = True
            running.moves.append(MoveRecord(seat, text, spent_ms if mover else 0.0, 0.0))

    # -- what the page is sent --
    def _recompute(self) -> None:
        if self.meta is None:
            return
        self.meta = results_meta(self.folder, self.description, self.tally)  # the records' part as they land
        meta = {key: value for key, value in self.meta.items() if key != "players_listed"}
        meta["totals"] = {**meta.get("totals", {}), "played": self.tally.records}
        standings = standings_from_tally(self.tally, players=self.meta["players_listed"])
        self.tables = tournament_tables(summary_json(standings, meta))
        self.sprt = self._sprt_status()

    def _new_sprt_test(self) -> SprtTest | None:
        """The test of a `format: sprt` folder, fed each record as it is read; None for others."""
        try:
            description = self.results.read_description()
            if description is None:
                return None
            schedule = description.schedule
            hypotheses = schedule.get("sprt")
            if schedule.get("format") != "sprt" or not isinstance(hypotheses, dict):
                return None
            settings = SprtSettings(**hypotheses, max_games=int(description.planned or 1000))
            candidate, baseline = schedule["players"]
            return SprtTest(settings, candidate, baseline)
        except (UsageError, ValueError, KeyError, TypeError):
            return None

    def _sprt_add(self, record: GameRecord) -> None:
        assert self.sprt_test is not None
        try:
            self.sprt_test.add(record)
        except ValueError:  # not a game of the test's pair: the folder is not this test's
            self.sprt_test = None

    def _sprt_status(self) -> dict[str, Any] | None:
        """The test's LLR against its bounds, for a `format: sprt` folder."""
        test = self.sprt_test
        if test is None:
            return None
        elo = test.elo()
        return {"candidate": test.candidate, "baseline": test.baseline, "llr": test.state.llr,
                "lower": test.state.lower, "upper": test.state.upper, "verdict": test.verdict,
                "pairs": test.pairs_counted, "void_pairs": test.pairs_void,
                "pentanomial": list(test.pentanomial), "elo": _finite(elo.elo), "elo_low": _finite(elo.low),
                "elo_high": _finite(elo.high), "status": test.status_line()}

    def progress(self) -> dict[str, Any]:
        """Games done and planned, the ETA from the rate seen by this server, and whether it goes on."""
        planned = int((self.meta or {}).get("totals", {}).get("planned") or 0)
        done = self.tally.records
        eta_s = None
        if self.rate_base is not None and planned > done:
            since, before = self.rate_base
            gained, elapsed = done - before, time.monotonic() - since
            if gained > 0 and elapsed > 0:
                eta_s = round(elapsed / gained * (planned - done), 1)
        return {"done": done, "planned": planned, "eta_s": eta_s, "running": len(self.running),
                "source": "run" if self.feed is not None else "folder", "ended": self.ended,
                "sprt": self.format_is_sprt()}

    def format_is_sprt(self) -> bool:
        return bool(self.meta and self.meta.get("format") == "sprt")

    def _running_json(self) -> list[dict[str, Any]]:
        now = time.monotonic()
        games = []
        for game_id, r in sorted(self.running.items()):
            names = r.scheduled.seats
            # The page draws a running game as a record so far: the viewer's own encoding and boards.
            so_far = GameRecord(
                game=r.game, params=r.params, players=[PlayerRef(name, "") for name in names], moves=r.moves,
                scores=list(r.scores), winner=None, termination=Termination.NORMAL, offender=None, detail="",
                started_at=r.started_at, duration_s=now - r.started, logs=[None] * len(names), id=game_id,
                round=r.scheduled.round)
            entry = self.page.encode_game(so_far, game_id)
            entry[GAME_FIELDS.index("termination")] = "running"
            over = r.to_move is None or r.left is not None
            games.append({"entry": entry, "used_ms": [round(u) for u in r.used_ms], "limits_ms": r.limits_ms,
                          "to_move": None if over else r.to_move,
                          "since_ms": round((now - r.last_turn) * 1000), "ended": r.left is not None})
        return games

    def snapshot(self) -> dict[str, Any]:
        """The whole page's data: what `/` inlines and every new event stream starts with."""
        # The updates' cursors stay: streams already open still need what is news to them.
        self._recompute()
        running = self._running_json()  # first: a running game may add its board to the page's
        return {**self._tables_or_empty(), **self.page.to_json(), "chunks": self._chunks_index(),
                "live": self._live(running)}

    def _chunks_index(self) -> dict[str, Any]:
        return {**self.chunks.index(), "folder": "games"}

    def close(self) -> None:
        """Remove the games list's chunks (the server has stopped, or the folder is read anew)."""
        if self._remove_games is not None:
            self._remove_games()

    def seat_name(self, game_id: str, seat: int) -> str | None:
        """Who played `seat` of a game recorded or running; None for no such game or seat."""
        running = self.running.get(game_id)
        if running is not None:
            names: Sequence[str] = running.scheduled.seats
        else:
            names = next((record.seat_names() for record in reversed(self.recent) if record.id == game_id), ())
            if not names and game_id in self.record_ids:  # an older game: looked up in the file
                names = self.results.seat_names_of(game_id)
        return names[seat] if 0 <= seat < len(names) else None

    def _tables_or_empty(self) -> dict[str, Any]:
        if self.tables:
            return self.tables
        name = self.folder.name
        return {"page": "tournament", "tournament": {"name": name, "game": "", "params": {}, "format": "",
                                                      "settings": {}, "scoring": {}, "totals": {}},
                "standings": [], "crosstable": {}, "head_to_head": None}

    def _live(self, running: list[dict[str, Any]]) -> dict[str, Any]:
        return {"events": "events", "logs": self.logs, "progress": self.progress(), "sprt": self.sprt,
                "running": running, "games_total": self.chunks.count}

    def nothing_sent(self) -> None:
        """Nobody is watching: nothing is news (whoever connects starts from a snapshot)."""
        self.boards_sent, self.players_sent = self._board_sizes(), len(self.page.players)
        self.results_dirty = self.running_dirty = False

    def _board_sizes(self) -> tuple[int, ...]:
        return tuple(len(board.move_texts) for board in self.page.boards)

    def update(self, now: float, last_results: float, last_running: float) -> dict[str, Any] | None:
        """What changed since the last update or snapshot, if it is time to send it."""
        send_results = self.results_dirty and now - last_results >= RESULTS_MIN_S
        send_running = (self.running_dirty or self.running) and now - last_running >= RUNNING_MIN_S
        if not (send_results or send_running):
            return None
        message: dict[str, Any] = {}
        if send_results:
            self._recompute()
            self.results_dirty = False
            message.update(self.tables)
            message["chunks"] = self._chunks_index()  # the page reloads the chunks it shows
        running = self._running_json() if send_running else None
        if send_running:
            self.running_dirty = False
        # Boards and players are sent whole when one was added (by a record or a running game),
        # boards also when a move new to a board's table was seen (a running game's move indexes it).
        sizes = self._board_sizes()
        if sizes != self.boards_sent or send_results:
            message["boards"] = [board.to_json() for board in self.page.boards]
            self.boards_sent = sizes
        if len(self.page.players) != self.players_sent:
            message["players"] = self.page.players
            self.players_sent = len(self.page.players)
        live = self._live(running if running is not None else [])
        if running is None:
            del live["running"]
        message["live"] = live
        return message


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None  # JSON has no infinity (an unbounded interval)


# ---- the HTTP server -----------------------------------------------------------------------

class _Client:
    """One browser's event stream."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(CLIENT_QUEUE)
        self.dropped = False


class LiveServer:
    """Serves one results folder's live page until `stop`; read-only, loopback unless asked."""

    def __init__(self, folder: Path, *, host: str = LOOPBACK, port: int = 0, feed: RunFeed | None = None,
                 logs: bool = False, option: str = "--serve") -> None:
        self.folder = Path(folder)
        self.host, self.port = host, port
        self.option = option  # the flag that gave the address, named when it cannot be listened on
        self.state = LiveState(self.folder, feed=feed, logs=logs)
        self.clients: set[_Client] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.url = ""
        self._stopping: asyncio.Event | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None

    def start(self) -> str:
        """Bind and serve in a thread; the page's address. UsageError when the address is taken."""
        self.thread = threading.Thread(target=self._thread, name="live-server", daemon=True)
        self.thread.start()
        self._started.wait()
        if self._error is not None:
            raise self._error
        return self.url

    def stop(self, *, ended: bool = True) -> None:
        """Send the last state (the run `ended`), close every stream and the server."""
        if self.loop is None or self.thread is None or not self.thread.is_alive():
            return
        future = asyncio.run_coroutine_threadsafe(self._finish(ended), self.loop)
        try:
            future.result(timeout=10)
        finally:
            self.thread.join(timeout=10)

    # -- in the server thread --
    def _thread(self) -> None:
        loop = self.loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:  # noqa: BLE001 - handed to start(), which raises it
            if not self._started.is_set():
                self._error = exc if isinstance(exc, UsageError) else UsageError(str(exc))
        finally:
            self._started.set()
            _finish_tasks(loop)
            loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        app = web.Application(middlewares=[self._guard])
        app.router.add_get("/", self._page)
        app.router.add_get("/events", self._events)
        app.router.add_get("/logs/{game}/{seat}", self._log)
        app.router.add_get("/games/{name}.js", self._chunk)
        app.router.add_get("/favicon.ico", _no_content)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise UsageError(f"{self.option} {self.host}:{self.port}: cannot listen there ({exc.strerror or exc})") from None
        host, port = runner.addresses[0][:2]
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{port}/"
        self.state.scan()
        self._started.set()
        pump = asyncio.ensure_future(self._pump())
        await self._stopping.wait()
        pump.cancel()
        await runner.cleanup()
        self.state.close()

    async def _pump(self) -> None:
        last_scan = last_results = last_running = 0.0
        while True:
            now = time.monotonic()
            self.state.take_notes()
            if now - last_scan >= SCAN_S or self.state.reading:
                self.state.scan()
                last_scan = now
            if not self.clients:
                self.state.nothing_sent()
            if self.state.restarted:
                self.state.restarted = False
                if self.clients:
                    self._broadcast("snapshot", self.state.snapshot())
                    last_results = last_running = now
            message = self.state.update(now, last_results, last_running) if self.clients else None
            if message is not None:
                if "standings" in message:
                    last_results = now
                if "running" in message["live"]:
                    last_running = now
                self._broadcast("update", message)
            await asyncio.sleep(0 if self.state.reading else PUMP_S)  # reading: on at once, requests served between

    def _broadcast(self, event: str, message: dict[str, Any]) -> None:
        payload = _event(event, message)
        for client in list(self.clients):
            try:
                client.queue.put_nowait(payload)
            except asyncio.QueueFull:  # far behind: it reconnects and starts from a snapshot
                client.dropped = True
                self.clients.discard(client)

    async def _finish(self, ended: bool) -> None:
        state = self.state
        state.ended = ended
        state.take_notes()
        state.scan()
        state.running.clear()
        self._broadcast("snapshot", state.snapshot())
        for client in list(self.clients):
            if client.queue.full():
                client.dropped = True
            else:
                client.queue.put_nowait(None)  # the end of its stream, after the last state
        # Give the streams a moment to write the last state before the server closes.
        deadline = time.monotonic() + 2.0
        while self.clients and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert self._stopping is not None
        self._stopping.set()

    @web.middleware
    async def _guard(self, request: web.Request, handler: Callable[..., Any]) -> web.StreamResponse:
        # A page on loopback answers only to loopback names: another site's script in the
        # viewer's browser cannot read it through a DNS name pointed at 127.0.0.1.
        if is_loopback(self.host) and not is_loopback((request.url.host or "").strip("[]")):
            return web.Response(status=403, text="this page answers to localhost only\n")
        response = await handler(request)
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    def _entrant(self, request: web.Request) -> tuple[str, str] | None | web.Response:
        """The entrant a request's link names, if its key is that entrant's (entrant_keys.py);
        None for a request without one; a 403 response for a key that is not valid."""
        name, key = request.query.get("entrant"), request.query.get("key")
        if name is None and key is None:
            return None
        if name is None or key is None or not key_holder(self.folder, name, key):
            return web.Response(status=403, text="this entrant link is not valid (ask the organiser for yours)\n")
        return name, key

    async def _page(self, request: web.Request) -> web.Response:
        entrant = self._entrant(request)
        if isinstance(entrant, web.Response):
            return entrant
        self.state.take_notes()
        self.state.scan()
        data = self.state.snapshot()
        if entrant is not None:  # this page shows the logs of the entrant's own seats
            data["live"] = {**data["live"], "entrant": entrant[0], "key": entrant[1]}
        text = render_page(data, f"{data['tournament']['name']} · arbiter live")
        return web.Response(text=text, content_type="text/html")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
        await response.prepare(request)
        client = _Client()
        self.state.take_notes()
        self.state.scan()
        snapshot = _event("snapshot", self.state.snapshot())
        self.clients.add(client)  # before the first await: every update after the snapshot reaches it
        try:
            await response.write(f"retry: {RETRY_MS}\n\n".encode() + snapshot)
            while not client.dropped:
                try:
                    payload = await asyncio.wait_for(client.queue.get(), HEARTBEAT_S)
                except asyncio.TimeoutError:
                    payload = b": still here\n\n"
                if payload is None:
                    break
                await response.write(payload)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.clients.discard(client)
        return response

    async def _chunk(self, request: web.Request) -> web.Response:
        """One chunk of the games list, as the report's games folder holds it (html.GameChunks)."""
        text = self.state.chunks.text(request.match_info["name"])
        if text is None:
            return web.Response(status=404, text="no such chunk of the games list\n")
        return web.Response(text=text, content_type="text/javascript")

    async def _log(self, request: web.Request) -> web.Response:
        entrant = self._entrant(request)
        if isinstance(entrant, web.Response):
            return entrant
        if not self.state.logs and entrant is None:
            return web.Response(status=404, text="bot logs are not served (start the server with --serve-logs)\n")
        game, seat = request.match_info["game"], request.match_info["seat"]
        if game not in self.state.record_ids and game not in self.state.running or not seat.isdigit():
            return web.Response(status=404, text="no such game\n")
        if not self.state.logs and entrant is not None and self.state.seat_name(game, int(seat)) != entrant[0]:
            return web.Response(status=403, text="this link shows its own entrant's logs only\n")
        # Only a file directly in logs/ named for that game and seat: no path from the request is opened.
        logs = self.state.results.seat_logs(game, int(seat))
        if not logs:
            return web.Response(status=404, text="no log for that seat\n")
        data = logs[0].read_bytes()
        if not self.state.logs:  # an entrant sees its log as the contest shows it (reports/export.py)
            data = cut_log(data.decode("utf-8", "replace")).encode()
        return web.Response(body=data, content_type="text/plain", charset="utf-8")


async def _no_content(request: web.Request) -> web.Response:
    return web.Response(status=204)


def _finish_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel whatever is still pending on the server's loop (a visitor's handler the server's
    shut-down did not reach) and let it end before the loop closes, as `asyncio.run` does: a
    task collected pending prints "Task was destroyed but it is pending!" on the terminal."""
    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in left:
        task.cancel()
    if left:
        loop.run_until_complete(asyncio.wait(left, timeout=5.0))
    loop.run_until_complete(loop.shutdown_asyncgens())


def _event(name: str, message: dict[str, Any]) -> bytes:
    data = json.dumps(message, separators=(",", ":"), allow_nan=False)
    return f"event: {name}\ndata: {data}\n\n".encode()


def check_results_folder(folder: Path) -> list[str]:
    """UsageError unless `folder` is a results folder `arbiter serve` can show; its players (the
    description's, then any other its checkpoint names). Nothing is replayed: the page shows
    what the folder holds, `arbiter report` judges it (docs/live.md)."""
    results = results_folder(folder)
    if not os.access(folder, os.R_OK):
        raise UsageError(f"{show_path(folder)} cannot be read")
    description = results.read_description() or TournamentDescription()
    schedule = description.schedule
    players = list(schedule.get("players", []))
    store = described_store(results, description)
    kept = store.unverified_checkpoint()
    if kept is not None:
        named = set(kept[0].players)
    elif players:
        named = set()
    else:  # a folder without a description or checkpoint (written by hand): its records name them
        named = {name for record in store.records(audit=False) for name in record.seat_names()}
    return players + sorted(named - set(players))


__all__ = ["LiveServer", "RunFeed", "check_results_folder", "is_loopback", "parse_address"]
