"""Games in worker processes: the local `GamePool` (docs/architecture.md, Where games run).

The arbiter's own process schedules, records, serves the live page and answers Ctrl-C; it
never runs a game's rules, its sockets or its bots' pipes. Each game goes to one of
`concurrency` worker processes as a small picklable `WorkerTask` and comes back as its
`GameRecord`, played by `pool.play_setup`, the function a cluster's worker plays its
tasks with too. A worker is kept between games, so the bots it keeps for players with
`reuse` (`KeptBots`) stay with it, in one game at a time.

Whatever a game does to its worker happens to that game alone. A worker that dies (a
signal, an abort in native code), that lets an exception out of the game (the rules, a
shortage of descriptors or memory), or that is still playing past the game's longest
possible duration (`game_deadline_s`) is ended together with every bot of its game (the
bots' parent-death signal and the worker's guardian end them with it), replaced by a fresh
worker, and the game is recorded as VOID with a sentence saying what happened
(docs/records.md).

Games with a remote seat go to the one remote worker (`RemoteWorker`), which opens the
remote players' sockets at the check-in, keeps them (its bots connected between games) and
plays those games, several at once, each in a thread. When it dies, its running games are
void with a sentence and a replacement opens the seats again for the next remote game.

Workers are forked by the arbiter's zygote (zygote.py), which is safe beside the arbiter's
threads (a plain fork is not) and starts each worker in milliseconds from a process that
imported the referee once. They ignore Ctrl-C: the parent stops them.
"""
from __future__ import annotations

import itertools
import os
import queue
import re
import signal
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from multiprocessing.connection import Connection, wait as wait_for
from pathlib import Path
from typing import Any, Callable, Iterator

from ..games import Game, find_game, game_spec
from ..kept_bots import KeptBots
from ..records import GameRecord, PlayerRef, Termination
from ..referee import CPU_CLOCK_WALL_FACTOR, QUIT_GRACE_S, TERM_GRACE_S, GameAborted, seat_log_name
from ..transport import SHORTAGES, signal_name
from ..transport.endpoints import CHECK_IN_QUIET_MS, LeaseCancelled, SocketSpec
from .check_child import serve_check
from .pool import MACHINERY_FAILURES, GameSetup, described, picklable, play_setup
from .schedule import ScheduledGame
from .turn_news import TurnNews, TurnReporter
from .zygote import WorkerProcess, Zygote

# A game still running this long after the longest it could take by its clocks is hung
# (its rules in an endless loop, a worker stuck in native code): `game_deadline_s`. The
# share covers the waiting for a CPU that a `clock: cpu` seat is granted on a busy machine.
HANG_MARGIN_S = 10.0
HANG_SHARE = 1.25
STOP_GRACE_S = 5.0  # after a stop, how long a worker may take to end its game before it is killed
CLOSE_GRACE_S = 5.0  # at the pool's close, how long a worker may take to end its kept bots and exit

# A worker's messages to the parent (the first item of each tuple).
TURN, NOTE, DONE, ABORTED, VOID, RAISED = "turn", "note", "done", "aborted", "void", "raised"
WAITING = "waiting"  # the remote worker's check-in: the labels of the seats it still waits for
# The parent's own words to a game waiting on the remote worker (never sent over the pipe).
STOPPING, DIED = "stopping", "died"


@dataclass(frozen=True)
class WorkerTask:
    """One game as a worker gets it: the game (`games.game_spec`, so that a worker finds a
    game from a user's module too), its parameters, how it is played, where the logs go,
    whether its turns are forwarded for the live page, and the arbiter's working folder and
    environment now (what its bots start from: a worker's were the zygote's, taken once
    per process)."""

    game: str
    params: dict[str, Any]
    setup: GameSetup
    log_dir: str
    watched: bool
    cwd: str
    environ: dict[str, str]


def game_deadline_s(setup: GameSetup) -> float:
    """The longest a game may take before its worker is taken for hung: every seat's start-up
    and whole clock (under `clock: cpu`, the referee's wall cap, CPU_CLOCK_WALL_FACTOR times
    the clock) and its shut-down graces, and the longest wait for a remote seat's bot to
    connect (`connect_wait_ms`: they are waited for at once), times HANG_SHARE, plus HANG_MARGIN_S."""
    longest_s = 0.0
    for player in setup.players:
        clock = player.clock(setup.time)
        factor = CPU_CLOCK_WALL_FACTOR if clock.clock == "cpu" else 1
        longest_s += (clock.startup_ms + factor * clock.time_ms) / 1000 + QUIT_GRACE_S + TERM_GRACE_S
    longest_s += max((p.socket.connect_wait_ms / 1000 for p in setup.players if p.transport == "remote"), default=0.0)
    return longest_s * HANG_SHARE + HANG_MARGIN_S


_ZYGOTE: Zygote | None = None
_ZYGOTE_LOCK = threading.Lock()
_OUT_OF_STEP: list[Zygote] = []  # kept open: each still reports how the workers it forked end


def fork_worker(role: str) -> tuple[WorkerProcess, Connection]:
    """A new worker process playing `role` (ROLES) and this process's end of its connection,
    forked by this process's zygote (zygote.py), started on first use and again if it died."""
    global _ZYGOTE
    with _ZYGOTE_LOCK:
        if _ZYGOTE is None or not _ZYGOTE.alive():
            if _ZYGOTE is not None and _ZYGOTE.process.poll() is None:
                _OUT_OF_STEP.append(_ZYGOTE)
            _ZYGOTE = Zygote(preload=[__name__])  # the referee and the rules' registry, imported once
        zygote = _ZYGOTE
    return zygote.fork(f"{ROLES[role].__module__}:{ROLES[role].__name__}")


def zygote_pid() -> int | None:
    """The pid of this process's zygote, if it has started one (benchmarks measure its tree)."""
    return _ZYGOTE.pid if _ZYGOTE is not None else None


# ---- the worker's side ----------------------------------------------------------------------

def _serve(conn: Connection) -> None:
    """A worker's life: play the games the parent sends, one at a time, until told to close
    (or the parent is gone); then end the bots it kept."""
    _ignore_stop_signals()
    cancel = threading.Event()
    tasks: queue.SimpleQueue[Any] = queue.SimpleQueue()
    send_lock = threading.Lock()

    def send(message: tuple[Any, ...]) -> None:
        with send_lock:
            conn.send(message)

    def read() -> None:  # a thread: a stop must reach the referee while the game runs
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):  # the parent is gone: end the game and the worker
                cancel.set()
                tasks.put(None)
                return
            if message[0] == "stop":
                cancel.set()
            else:
                tasks.put(message)

    threading.Thread(target=read, name="worker-inbox", daemon=True).start()
    kept = KeptBots(lambda text: send((NOTE, text)))
    games = _Games()
    try:
        while True:
            message = tasks.get()
            if message is None or message[0] == "close":
                return
            try:
                answer = _play_task(message[1], games, cancel, send, kept)
            finally:  # once the game is over, never before it starts: its stop may come first
                cancel.clear()
            send(answer)
            if answer[0] == VOID:
                return  # this worker may be damaged: replaced by the parent
    finally:
        kept.close(grace_s=QUIT_GRACE_S, term_grace_s=TERM_GRACE_S)


class _Games:
    """A worker's games by name and parameters, each found once (its threads share them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: dict[tuple[str, str], Game[Any]] = {}

    def get(self, task: WorkerTask) -> Game[Any]:
        """The task's game."""
        key = (task.game, repr(sorted(task.params.items())))
        with self._lock:
            game = self._games.get(key)
            if game is None:
                game = self._games[key] = find_game(task.game, **task.params)
            return game


_PLACE_LOCK = threading.Lock()  # a remote worker's games start in threads of their own


def _play_task(task: WorkerTask, games: _Games, cancel: threading.Event, say: Callable[[tuple[Any, ...]], None],
               kept: KeptBots | None) -> tuple[Any, ...]:
    """Play one task; the answer for the parent: (DONE, record), (ABORTED,), (VOID, why,
    short: whether the worker ran out of something) or (RAISED, exception). `say` sends the
    parent the game's turns (when watched) as it goes."""
    try:  # not the game's failure: the arbiter's (the parent raises it, ending the run)
        with _PLACE_LOCK:
            _take_place(task)
        game = games.get(task)
    except Exception as exc:
        return (RAISED, picklable(exc))
    try:
        on_turn = TurnReporter(lambda *news: say((TURN, *news)), game, task.setup.opening) if task.watched else None
        return (DONE, play_setup(game, task.setup, Path(task.log_dir), cancel=cancel, on_turn=on_turn, kept=kept))
    except GameAborted:
        return (ABORTED,)
    except BaseException as exc:  # the game's exception: this worker may be damaged
        return _answer_to(exc)


def _take_place(task: WorkerTask | _Place) -> None:
    """Stand where the arbiter stands: its working folder and environment, as they are now."""
    if os.getcwd() != task.cwd:
        os.chdir(task.cwd)
    if os.environ != task.environ:
        os.environ.clear()
        os.environ.update(task.environ)


@dataclass(frozen=True)
class _Place:
    """Where the arbiter stands (as a `WorkerTask` says it): for a check-in, whose seats'
    files and `ipc://` paths may be relative to the working folder."""

    cwd: str
    environ: dict[str, str]


def _ignore(signum: int, frame: Any) -> None:
    """Ctrl-C reaches a worker too (it is in the terminal's process group), and a service
    manager's SIGTERM may reach every process of the run: the parent stops it."""


def _ignore_stop_signals() -> None:
    """Ignore the signals that stop the arbiter (cli.STOP_SIGNALS) with a handler, not SIG_IGN,
    so that the bots this worker launches are born with the default."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _ignore)


# The arbiter's known failures of the machinery around a game (runner.MACHINERY_FAILURES):
# raised again in the parent, where the runner notes them as an arbiter fault, as before.
def _answer_to(exc: BaseException) -> tuple[Any, ...]:
    """What the worker answers for an exception out of its game: the shortage or the failure
    as a VOID sentence and whether the worker is short of something (every game in it would
    be), or the machinery's own failure (pickled) to raise in the parent."""
    if isinstance(exc, OSError) and exc.errno in SHORTAGES:
        return (VOID, f"the worker playing this game ran out of {_SHORTAGE_WORDS.get(exc.errno, 'resources')} "
                      f"({exc.strerror or exc})", True)
    if isinstance(exc, MemoryError):
        return (VOID, "the worker playing this game ran out of memory", True)
    if isinstance(exc, MACHINERY_FAILURES):
        return (RAISED, picklable(exc, OSError))
    return (VOID, f"the game failed in its worker: {described(exc)}", False)


_SHORTAGE_WORDS = {24: "descriptors", 23: "descriptors", 12: "memory", 11: "processes or threads", 28: "disk space",
                   105: "buffer space"}  # EMFILE, ENFILE, ENOMEM, EAGAIN, ENOSPC, ENOBUFS


def _serve_remote(conn: Connection) -> None:
    """The remote worker's life: the check-in and the games with a remote seat, each in a
    thread of its own (several at once: the runner never starts two games on one remote
    endpoint, and a seat's lease keeps to one game anyway), until told to close or the parent
    is gone; then it ends its games and closes the seats. Every message to and from it names
    its game (or check-in) by a number, the second item."""
    _ignore_stop_signals()
    send_lock = threading.Lock()
    cancels: dict[int, threading.Event] = {}
    threads: list[threading.Thread] = []
    games = _Games()

    def send(message: tuple[Any, ...]) -> None:
        try:
            with send_lock:
                conn.send(message)
        except OSError:  # the parent is gone (the main thread sees it too): nobody to tell
            pass

    def play(key: int, task: WorkerTask, cancel: threading.Event) -> None:
        try:
            answer = _play_task(task, games, cancel, lambda message: send((message[0], key, *message[1:])), None)
            send((answer[0], key, *answer[1:]))
        finally:
            cancels.pop(key, None)

    def check_in(key: int, seats: list[tuple[str, SocketSpec]], place: _Place, cancel: threading.Event) -> None:
        try:
            _check_in(key, seats, place, send, cancel)
        finally:
            cancels.pop(key, None)

    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):  # the parent is gone
                return
            kind, key = message[0], message[1] if len(message) > 1 else None
            if kind == "close":
                return
            if kind == "stop":
                cancel = cancels.get(key)
                if cancel is not None:
                    cancel.set()
                continue
            cancel = cancels[key] = threading.Event()
            if kind == "check_in":
                thread = threading.Thread(target=check_in, args=(key, *message[2:], cancel), name=f"check-in-{key}",
                                          daemon=True)
            else:
                thread = threading.Thread(target=play, args=(key, message[2], cancel), name=f"game-{key}",
                                          daemon=True)
            threads = [t for t in threads if t.is_alive()] + [thread]
            thread.start()
    finally:
        for cancel in list(cancels.values()):
            cancel.set()  # each game tells its bots `Quit` and hands its seats back; a check-in stops waiting
        ends = time.monotonic() + STOP_GRACE_S
        for thread in threads:
            thread.join(max(0.0, ends - time.monotonic()))
        if "arbiter.transport.zmq" in sys.modules:
            from ..transport.zmq import end_runtime
            end_runtime()  # the seats, with a moment for a last `Quit` to leave (no atexit in a worker)


def _check_in(key: int, seats: list[tuple[str, SocketSpec]], place: _Place, send: Callable[[tuple[Any, ...]], None],
              cancel: threading.Event) -> None:
    """Open the remote seats and wait for their bots (`check_in_remote_seats`) until `cancel`,
    telling the parent whom it waits for: (DONE, key, {label: why} of those that never came)."""
    from ..transport.zmq import check_in_remote_seats  # ZeroMQ is loaded here, never in the arbiter's process
    try:
        with _PLACE_LOCK:
            _take_place(place)
        absent = check_in_remote_seats(seats, on_wait=lambda labels: send((WAITING, key, labels)), cancel=cancel)
    except LeaseCancelled:  # the worker is closing: nobody waits for the answer
        return
    except Exception as exc:  # EndpointError: the parent words it; anything else is the arbiter's
        send((RAISED, key, picklable(exc)))
        return
    send((DONE, key, absent))


# ---- the parent's side ----------------------------------------------------------------------

class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self) -> None:
        self.process, self.conn = fork_worker("game")
        self._sending = threading.Lock()  # its pool thread and a stop from the main thread both write

    def send(self, message: tuple[Any, ...]) -> None:
        """Write one message to the worker (OSError once it is gone)."""
        with self._sending:
            self.conn.send(message)

    def kill(self) -> None:
        """End the worker at once (its bots end with it) and reap it."""
        if self.process.exitcode is None:
            try:
                os.kill(self.process.pid, signal.SIGKILL)  # type: ignore[arg-type]
            except ProcessLookupError:
                pass
        self.process.join()
        self.conn.close()

    def close(self) -> None:
        """Ask the worker to end its kept bots and exit; killed after CLOSE_GRACE_S."""
        try:
            self.send(("close",))
        except OSError:
            pass
        self.process.join(CLOSE_GRACE_S)
        self.kill()

    def death(self) -> str:
        """How the (dead or dying) worker ended, as the end of a sentence."""
        self.process.join(1.0)
        return _death_words(self.process.exitcode)


def _death_words(code: int | None) -> str:
    """How a worker whose exit code is `code` ended, as the end of a sentence."""
    if code is None:
        return "stopped answering"
    if code < 0:
        return f"was killed by {signal_name(-code)}"
    return f"exited with status {code}"


class _RemoteProcess:
    """One remote worker process and the parent's end of its connection: a thread reads its
    messages into each game's inbox and, when it dies, learns how and tells every game still
    in it."""

    def __init__(self, number: int) -> None:
        self.process, self.conn = fork_worker("remote")
        self.ended = False  # reaped, and every game in it told: a new game needs a new worker
        self._gone = threading.Event()  # set with `ended`
        self._why = ""  # how it ended, the end of a sentence
        self._because: str | None = None  # why the parent ended it, for the games it costs
        self._lock = threading.Lock()
        self._sending = threading.Lock()
        self._inboxes: dict[int, queue.SimpleQueue[tuple[Any, ...]]] = {}
        threading.Thread(target=self._read, name=f"remote-worker-{number}", daemon=True).start()

    def open(self, key: int) -> queue.SimpleQueue[tuple[Any, ...]]:
        """The inbox of game (or check-in) `key`: its messages, then (DIED, key, how it ended)
        if the worker dies."""
        inbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        with self._lock:
            self._inboxes[key] = inbox
            if self.ended:
                inbox.put((DIED, key, self._why))
        return inbox

    def forget(self, key: int) -> None:
        """Game `key` is over: its inbox is closed."""
        with self._lock:
            self._inboxes.pop(key, None)

    def send(self, message: tuple[Any, ...]) -> None:
        """Write one message to the worker (OSError once it is gone)."""
        with self._sending:
            self.conn.send(message)

    def stopping(self) -> None:
        """Tell each game in this worker that the run stops (each then stops its game)."""
        with self._lock:
            inboxes = list(self._inboxes.items())
        for key, inbox in inboxes:
            inbox.put((STOPPING, key))

    def kill(self, because: str | None = None) -> None:
        """End the worker at once (the bots of its games end with it) and wait until it is
        reaped; the games still in it are told `because` (the end of a sentence) or how it died."""
        if because is not None and self._because is None:
            self._because = because
        if not self._gone.is_set():
            try:
                os.kill(self.process.pid, signal.SIGKILL)  # type: ignore[arg-type]
            except ProcessLookupError:
                pass
        self._gone.wait()

    def close(self) -> None:
        """Ask the worker to end its games and close the seats; killed after CLOSE_GRACE_S."""
        try:
            self.send(("close",))
        except OSError:
            pass
        self._gone.wait(CLOSE_GRACE_S)
        self.kill("was ended with the run")

    def _read(self) -> None:
        conn, sentinel = self.conn, self.process.sentinel
        while True:
            ready = wait_for([conn, sentinel])
            if conn in ready:
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    break
                with self._lock:
                    inbox = self._inboxes.get(message[1])
                if inbox is not None:
                    inbox.put(message)
            elif sentinel in ready:
                break
        self.process.join(1.0)
        if self.process.exitcode is None:  # its pipe is closed, yet it runs: of no use to anyone
            os.kill(self.process.pid, signal.SIGKILL)  # type: ignore[arg-type]
            self.process.join()
        conn.close()
        with self._lock:
            self._why = self._because or _death_words(self.process.exitcode)
            self.ended = True
            inboxes = list(self._inboxes.items())
        self._gone.set()
        for key, inbox in inboxes:
            inbox.put((DIED, key, self._why))


class RemoteWorker:
    """The one process that owns the remote seats (docs/architecture.md, Where games run): it
    does the check-in and plays every game with a remote seat, several at once, each in a
    thread of its own. When it dies (a crash in a game's rules, a game hung past its deadline,
    a shortage), each of its running games is void with a sentence and the next remote game
    starts a replacement, which opens the seats again and waits for the bots to reconnect
    (each game for up to its players' `connect_wait_ms`, as after any lost connection)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: _RemoteProcess | None = None
        self._started = 0
        self._keys = itertools.count(1)

    def check_in(self, seats: list[tuple[str, SocketSpec]], on_wait: Callable[[list[str]], None]) -> dict[str, str]:
        """`transport.zmq.check_in_remote_seats` in the worker: {label: why} of the seats whose bot
        never connected; `on_wait` as there. EndpointError as there; OSError if the worker dies,
        or has not answered by the longest wait, times HANG_SHARE, plus HANG_MARGIN_S."""
        longest_s = max((max(spec.connect_wait_ms, CHECK_IN_QUIET_MS) / 1000 for _, spec in seats), default=0.0)
        deadline = time.monotonic() + longest_s * HANG_SHARE + HANG_MARGIN_S
        process, key = self._live(), next(self._keys)
        inbox = process.open(key)
        try:
            process.send(("check_in", key, seats, _Place(os.getcwd(), dict(os.environ))))
            while True:
                try:
                    message = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    process.kill("did not answer")
                    raise OSError("the check-in of the remote players failed: the worker holding their seats "
                                  "did not answer, and was killed") from None
                if message[0] == WAITING:
                    on_wait(message[2])
                elif message[0] == DONE:
                    return message[2]
                elif message[0] == RAISED:
                    raise message[2]
                elif message[0] == DIED:
                    raise OSError(f"the check-in of the remote players failed: the worker holding their seats "
                                  f"{message[2]}")
        except OSError:
            process.kill()
            raise
        finally:
            process.forget(key)

    def play(self, task: WorkerTask, setup: GameSetup, on_turn: Callable[[TurnNews], None] | None,
             stopped: threading.Event, say: Callable[[str], None]) -> GameRecord | str:
        """The worker's record of the game, or why it is void; GameAborted once `stopped` (set
        before `stop` is called), and the machinery's failures the worker passed on, as
        `WorkerPool` does for a local worker's game."""
        process, key = self._live(), next(self._keys)
        inbox = process.open(key)
        try:
            try:
                process.send(("play", key, task))
            except OSError:  # it died between games: a fresh one plays this game
                process.forget(key)
                process.kill()
                process, key = self._live(), next(self._keys)
                inbox = process.open(key)
                process.send(("play", key, task))
            if stopped.is_set():  # a stop that came before its inbox was open
                inbox.put((STOPPING, key))
            return self._await(process, key, inbox, setup, on_turn, say)
        finally:
            process.forget(key)

    def stop(self) -> None:
        """Tell every running game to end (`play` raises GameAborted, or kills a worker that
        does not end its games within STOP_GRACE_S)."""
        with self._lock:
            process = self._process
        if process is not None:
            process.stopping()

    def close(self) -> None:
        """End the worker: its games end (bots told `Quit`), its seats close; killed after CLOSE_GRACE_S."""
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            process.close()

    def _live(self) -> _RemoteProcess:
        with self._lock:
            if self._process is None or self._process.ended:
                self._started += 1
                self._process = _RemoteProcess(self._started)
            return self._process

    def _await(self, process: _RemoteProcess, key: int, inbox: queue.SimpleQueue[tuple[Any, ...]],
               setup: GameSetup, on_turn: Callable[[TurnNews], None] | None, say: Callable[[str], None]) -> GameRecord | str:
        limit_s = game_deadline_s(setup)
        deadline = time.monotonic() + limit_s
        stop_deadline: float | None = None
        while True:
            until = deadline if stop_deadline is None else min(deadline, stop_deadline)
            try:
                message = inbox.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                if stop_deadline is not None and time.monotonic() >= stop_deadline:
                    process.kill("was ended because a game in it did not stop in time")
                    raise GameAborted("the game's worker did not stop in time and was killed") from None
                process.kill(f"was ended because another game in it did not finish within {limit_s:.0f} s (hung)")
                return f"the worker playing this game did not finish within {limit_s:.0f} s (hung) and was killed"
            kind = message[0]
            if kind == TURN:
                if on_turn is not None:
                    on_turn(TurnNews(*message[2:]))
            elif kind == NOTE:
                say(message[2])
            elif kind == DONE:
                return message[2]
            elif kind == ABORTED:
                raise GameAborted("the game was cancelled")
            elif kind == VOID:
                if message[3]:  # short of descriptors or memory: so is every game in it
                    process.kill("was ended because another game in it ran out of descriptors or memory")
                return message[2]
            elif kind == RAISED:
                raise message[2]
            elif kind == DIED:
                return f"the worker playing this game {message[2]}"
            elif kind == STOPPING and stop_deadline is None:
                stop_deadline = time.monotonic() + STOP_GRACE_S
                try:
                    process.send(("stop", key))
                except OSError:
                    pass  # dead: its DIED is on its way


_RUN_REMOTE: RemoteWorker | None = None  # the run's remote worker while `remote_worker_for_run` holds it


@contextmanager
def remote_worker_for_run() -> Iterator[RemoteWorker]:
    """A remote worker for a whole run (its check-in, then every pool's remote games), ended
    when the run ends; a pool opened outside one starts its own."""
    global _RUN_REMOTE
    worker = _RUN_REMOTE = RemoteWorker()
    try:
        yield worker
    finally:
        _RUN_REMOTE = None
        worker.close()


class WorkerPool:
    """`slots` worker processes, each played through by one thread of this process that
    sends it a game and waits for its record (pool.GamePool); a game with a remote seat goes
    to the run's `RemoteWorker` instead (or, outside `remote_worker_for_run`, the pool's own).
    `setup` makes a scheduled game's GameSetup; `watch` (the live page) sees each game's
    start, turns and end; `note` tells the user what a worker says (a kept bot that ends after
    each game)."""

    def __init__(self, slots: int, game: Game[Any], params: dict[str, Any],
                 setup: Callable[[ScheduledGame], GameSetup], log_dir: Path, *,
                 watch: Any = None, note: Callable[[str], None] | None = None) -> None:
        # `watch` is the run's runner.GameWatch (not imported: the runner imports this module).
        self.slots = slots
        self._game = game
        self._task_game = game_spec(game)
        self._params = dict(params)
        self._setup = setup
        self._log_dir = log_dir
        self._watch = watch
        self._note = note
        self._noted: set[str] = set()  # each worker says it once: the run too
        self._here = threading.local()  # the thread's own worker
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []  # every live one, to close them
        self._stopped = threading.Event()
        self._busy: set[_Worker] = set()
        self._remote: RemoteWorker | None = None  # where its games with a remote seat are played
        self._own_remote: RemoteWorker | None = None  # the pool's own (no run holds one), closed with it
        self._threads = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="game")

    def submit(self, scheduled: ScheduledGame) -> Future[GameRecord]:
        """Play the game in this thread's worker."""
        return self._threads.submit(self._play, scheduled)

    def stop(self) -> None:
        """Tell every worker to end its game (its future raises GameAborted); a worker that
        does not within STOP_GRACE_S is killed."""
        self._stopped.set()
        with self._lock:
            busy = list(self._busy)
        for worker in busy:
            try:
                worker.send(("stop",))
            except OSError:
                pass
        with self._lock:
            remote = self._remote
        if remote is not None:
            remote.stop()

    def close(self) -> None:
        """End every worker (and the bots it kept) once no game is running; then the threads.
        The run's remote worker stays for the run's next pool (a Swiss round's)."""
        self._threads.shutdown(wait=True)
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.close()
        if self._own_remote is not None:
            self._own_remote.close()

    # -- one game, in a thread of this process --
    def _worker(self) -> _Worker:
        worker = getattr(self._here, "worker", None)
        if worker is None or worker.process.exitcode is not None:
            if worker is not None:
                self._retire(worker, kill=True)
            worker = self._here.worker = _Worker()
            with self._lock:
                self._workers.append(worker)
        return worker

    def _retire(self, worker: _Worker, *, kill: bool) -> None:
        with self._lock:
            if worker in self._workers:
                self._workers.remove(worker)
        if kill:
            worker.kill()
        if getattr(self._here, "worker", None) is worker:
            self._here.worker = None

    def _play(self, scheduled: ScheduledGame) -> GameRecord:
        if self._stopped.is_set():
            raise GameAborted("the run was stopped before this game started")
        setup = self._setup(scheduled)
        task = WorkerTask(self._task_game, self._params, setup, str(self._log_dir), watched=self._watch is not None,
                          cwd=os.getcwd(), environ=dict(os.environ))
        on_turn = None
        if self._watch is not None:
            clocks = [player.clock(setup.time) for player in setup.players]
            on_turn = self._watch.game_started(scheduled, self._game, clocks)
        started_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        started = time.monotonic()
        try:
            if any(player.transport == "remote" for player in setup.players):
                void = self._remote_worker().play(task, setup, on_turn, self._stopped, self._say)
            else:
                void = self._play_in_worker(task, setup, on_turn)
            if isinstance(void, GameRecord):
                return void
            return self._void_record(setup, void, started_at, time.monotonic() - started)
        finally:
            if self._watch is not None:
                self._watch.game_left(scheduled.id)

    def _play_in_worker(self, task: WorkerTask, setup: GameSetup,
                        on_turn: Callable[[TurnNews], None] | None) -> GameRecord | str:
        """The game played by this thread's worker: its record, or why it is void."""
        worker = self._worker()
        try:
            worker.send(("play", task))
        except OSError:  # it died between games: a fresh one plays this game
            self._retire(worker, kill=True)
            worker = self._worker()
            worker.send(("play", task))
        with self._lock:
            self._busy.add(worker)
        if self._stopped.is_set():  # a stop that came before it was busy: it missed the stop's word
            try:
                worker.send(("stop",))
            except OSError:
                pass  # dead: its game ends as void, or as stopped past the stop's grace
        try:
            return self._await(worker, setup, on_turn)
        finally:
            with self._lock:
                self._busy.discard(worker)

    def _remote_worker(self) -> RemoteWorker:
        """The run's remote worker (`remote_worker_for_run`), or one of this pool's own."""
        with self._lock:
            if self._remote is None:
                self._remote = _RUN_REMOTE
                if self._remote is None:
                    self._remote = self._own_remote = RemoteWorker()
            return self._remote

    def _await(self, worker: _Worker, setup: GameSetup, on_turn: Callable[[TurnNews], None] | None) -> GameRecord | str:
        """The worker's record of the game, or why it is void (the worker then ended);
        raises GameAborted when stopped, and the machinery's failures the worker passed on."""
        limit_s = game_deadline_s(setup)
        deadline = time.monotonic() + limit_s
        stop_deadline: float | None = None
        conn, sentinel = worker.conn, worker.process.sentinel
        while True:
            now = time.monotonic()
            if stop_deadline is None and self._stopped.is_set():
                stop_deadline = now + STOP_GRACE_S
            until = deadline if stop_deadline is None else min(deadline, stop_deadline)
            ready = wait_for([conn, sentinel], timeout=max(0.0, min(until - now, 0.5)))
            if conn in ready:
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    message = None
                if message is None:
                    why = worker.death()
                    self._retire(worker, kill=True)
                    return f"the worker playing this game {why}"
                kind = message[0]
                if kind == TURN:
                    if on_turn is not None:
                        on_turn(TurnNews(*message[1:]))
                elif kind == NOTE:
                    self._say(message[1])
                elif kind == DONE:
                    return message[1]
                elif kind == ABORTED:
                    raise GameAborted("the game was cancelled")
                elif kind == VOID:
                    self._retire(worker, kill=True)
                    return message[1]
                elif kind == RAISED:
                    raise message[1]
                continue
            if sentinel in ready:
                why = worker.death()
                self._retire(worker, kill=True)
                return f"the worker playing this game {why}"
            if time.monotonic() >= until:
                self._retire(worker, kill=True)
                if stop_deadline is not None and time.monotonic() >= stop_deadline:
                    raise GameAborted("the game's worker did not stop in time and was killed")
                return f"the worker playing this game did not finish within {limit_s:.0f} s (hung) and was killed"

    def _say(self, text: str) -> None:
        """A worker's note, said once a run: each worker says it once (a kept bot that ends
        after each game), naming its own process; the same note from another is not repeated."""
        said = re.sub(r"\d+", "#", text)
        with self._lock:
            first = said not in self._noted
            self._noted.add(said)
        if first and self._note is not None:
            self._note(text)

    def _void_record(self, setup: GameSetup, detail: str, started_at: str, duration_s: float) -> GameRecord:
        """The record of a game its worker could not finish: no moves known here, no winner,
        no offender, every seat's log that was written."""
        logs = []
        for seat, player in enumerate(setup.players):
            path = self._log_dir / seat_log_name(setup.log_prefix, seat, player.name)
            logs.append(str(path) if path.exists() else None)
        return GameRecord(
            game=self._game.name, params=self._game.json_params(), players=[PlayerRef(p.name, p.command_text())
                                                                        for p in setup.players],
            moves=[], scores=[0] * len(setup.players), winner=None, termination=Termination.VOID, offender=None,
            detail=detail, started_at=started_at, duration_s=round(duration_s, 3), logs=logs,
            time_controls=[asdict(p.clock(setup.time)) for p in setup.players],
            chance_seed=setup.chance_seed,
        )


# What a forked worker does (zygote.py): a local game worker, the remote worker, or a
# player's check before the first game (`check: true`, preflight.py).
ROLES: dict[str, Callable[[Connection], None]] = {"game": _serve, "remote": _serve_remote, "check": serve_check}

__all__ = ["HANG_MARGIN_S", "RemoteWorker", "WorkerPool", "WorkerTask", "game_deadline_s",
           "remote_worker_for_run"]
