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

Workers come from a forkserver, which is safe beside the arbiter's threads (a plain fork
is not) and starts each worker in milliseconds from a process that imported the referee
once. They ignore Ctrl-C: the parent stops them.
"""
from __future__ import annotations

import multiprocessing
import os
from multiprocessing import spawn
import pickle
import queue
import re
import signal
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from multiprocessing.connection import Connection, wait as wait_for
from pathlib import Path
from typing import Any, Callable

from ..games import Game, find_game, game_spec
from ..kept_bots import KeptBots
from ..records import GameRecord, PlayerRef, Termination
from ..referee import CPU_CLOCK_WALL_FACTOR, QUIT_GRACE_S, TERM_GRACE_S, GameAborted, seat_log_name
from ..transport import SHORTAGES
from .pool import MACHINERY_FAILURES, GameSetup, play_setup
from .schedule import ScheduledGame

# A game still running this long after the longest it could take by its clocks is hung
# (its rules in an endless loop, a worker stuck in native code): `game_deadline_s`. The
# share covers the waiting for a CPU that a `clock: cpu` seat is granted on a busy machine.
HANG_MARGIN_S = 10.0
HANG_SHARE = 1.25
STOP_GRACE_S = 5.0  # after a stop, how long a worker may take to end its game before it is killed
CLOSE_GRACE_S = 5.0  # at the pool's close, how long a worker may take to end its kept bots and exit

# A worker's messages to the parent (the first item of each tuple).
TURN, NOTE, DONE, ABORTED, VOID, RAISED = "turn", "note", "done", "aborted", "void", "raised"


@dataclass(frozen=True)
class WorkerTask:
    """One game as a worker gets it: the game (`games.game_spec`, so that a worker finds a
    game from a user's module too), its parameters, how it is played, where the logs go,
    whether its turns are forwarded for the live page, and the arbiter's working folder and
    environment now (what its bots start from: a worker's were the forkserver's, taken once
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
    the clock) and its shut-down graces, times HANG_SHARE, plus HANG_MARGIN_S."""
    longest_s = 0.0
    for player in setup.players:
        clock = player.clock(setup.time)
        factor = CPU_CLOCK_WALL_FACTOR if clock.clock == "cpu" else 1
        longest_s += (clock.startup_ms + factor * clock.time_ms) / 1000 + QUIT_GRACE_S + TERM_GRACE_S
    return longest_s * HANG_SHARE + HANG_MARGIN_S


WORKER_NAME = "arbiter-worker-"  # and its number: each worker process's name


def _context() -> Any:
    """The forkserver, its workers importing the referee once (in the server), not per worker."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    if spawn.get_preparation_data is not _without_main:
        _without_main.original = spawn.get_preparation_data  # type: ignore[attr-defined]
        spawn.get_preparation_data = _without_main
    return context


def _without_main(name: str) -> dict[str, Any]:
    """What multiprocessing tells a new process to prepare, less the arbiter's main module for
    a game worker: a worker needs none, and would otherwise run the script the arbiter was
    started from again (the `arbiter` command's, a benchmark's) or fail on one it cannot
    find (`python -` reads it from its input). Other processes get all of it."""
    data = _without_main.original(name)  # type: ignore[attr-defined]
    if name.startswith(WORKER_NAME):
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
    return data


# ---- the worker's side ----------------------------------------------------------------------

def _serve(conn: Connection) -> None:
    """A worker's life: play the games the parent sends, one at a time, until told to close
    (or the parent is gone); then end the bots it kept."""
    signal.signal(signal.SIGINT, _ignore)  # a handler, not SIG_IGN: the bots it launches get the default
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
    games: dict[tuple[str, str], Game[Any]] = {}
    try:
        while True:
            message = tasks.get()
            if message is None or message[0] == "close":
                return
            task: WorkerTask = message[1]
            try:  # not the game's failure: the arbiter's (the parent raises it, ending the run)
                _take_place(task)
                key = (task.game, repr(sorted(task.params.items())))
                game = games.get(key)
                if game is None:
                    game = games[key] = find_game(task.game, **task.params)
            except Exception as exc:
                send((RAISED, _picklable(exc)))
                continue
            try:
                on_turn = _Forward(send, len(task.setup.opening)) if task.watched else None
                record = play_setup(game, task.setup, Path(task.log_dir), cancel=cancel, on_turn=on_turn, kept=kept)
            except GameAborted:
                send((ABORTED,))
                continue
            except BaseException as exc:  # the game's exception: this worker may be damaged
                answer = _answer_to(exc)
                send(answer)
                if answer[0] == VOID:
                    return  # replaced by the parent
                continue
            finally:  # once the game is over, never before it starts: its stop may come first
                cancel.clear()
            send((DONE, record))
    finally:
        kept.close(grace_s=QUIT_GRACE_S, term_grace_s=TERM_GRACE_S)


def _take_place(task: WorkerTask) -> None:
    """Stand where the arbiter stands: its working folder and environment, as they are now."""
    if os.getcwd() != task.cwd:
        os.chdir(task.cwd)
    if os.environ != task.environ:
        os.environ.clear()
        os.environ.update(task.environ)


def _ignore(signum: int, frame: Any) -> None:
    """Ctrl-C reaches a worker too (it is in the terminal's process group): the parent stops it."""


class _Forward:
    """A watched game's `on_turn` in the worker: the moves since the last turn, sent to the
    parent (one small message a turn), where the run's `GameWatch` notes them."""

    __slots__ = ("send", "seen")

    def __init__(self, send: Callable[[tuple[Any, ...]], None], seen: int) -> None:
        self.send = send
        self.seen = seen  # the referee's state holds the opening before the first turn

    def __call__(self, state: Any) -> None:
        moves = state.history[self.seen:]
        self.seen += len(moves)
        self.send((TURN, moves))


# The arbiter's known failures of the machinery around a game (runner.MACHINERY_FAILURES):
# raised again in the parent, where the runner notes them as an arbiter fault, as before.
def _answer_to(exc: BaseException) -> tuple[Any, ...]:
    """What the worker answers for an exception out of its game: the shortage or the failure
    as a VOID sentence, or the machinery's own failure (pickled) to raise in the parent."""
    if isinstance(exc, OSError) and exc.errno in SHORTAGES:
        return (VOID, f"the worker playing this game ran out of {_SHORTAGE_WORDS.get(exc.errno, 'resources')} "
                      f"({exc.strerror or exc})")
    if isinstance(exc, MemoryError):
        return (VOID, "the worker playing this game ran out of memory")
    if isinstance(exc, MACHINERY_FAILURES):
        return (RAISED, _picklable(exc, OSError))
    return (VOID, f"the game failed in its worker: {_where(exc)}")


def _picklable(exc: BaseException, kind: type[Exception] = RuntimeError) -> BaseException:
    """`exc`, or (one that does not survive pickling) a `kind` in its words."""
    try:
        return pickle.loads(pickle.dumps(exc))
    except Exception:
        return kind(f"{type(exc).__name__}: {exc}")


_SHORTAGE_WORDS = {24: "descriptors", 23: "descriptors", 12: "memory", 11: "processes or threads", 28: "disk space",
                   105: "buffer space"}  # EMFILE, ENFILE, ENOMEM, EAGAIN, ENOSPC, ENOBUFS


def _where(exc: BaseException) -> str:
    """`SpielError: quoridor.cc:623 ... (at rules.py:88)`: the exception and its innermost frame."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    at = f" (at {Path(frame.tb_frame.f_code.co_filename).name}:{frame.tb_lineno})" if frame is not None else ""
    return f"{type(exc).__name__}: {exc}{at}"


# ---- the parent's side ----------------------------------------------------------------------

class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, context: Any, number: int) -> None:
        here, there = context.Pipe()
        self.process = context.Process(target=_serve, args=(there,), name=f"{WORKER_NAME}{number}", daemon=True)
        self.process.start()
        there.close()
        self.conn: Connection = here
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
        code = self.process.exitcode
        if code is None:
            return "stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"was killed by {name}"
        return f"exited with status {code}"


class _History:
    """What a parent-side `on_turn` reads of the game's state: its moves so far."""

    __slots__ = ("history",)

    def __init__(self, opening: int) -> None:
        self.history: list[Any] = [None] * opening


class WorkerPool:
    """`slots` worker processes, each played through by one thread of this process that
    sends it a game and waits for its record (pool.GamePool). `setup` makes a scheduled
    game's GameSetup; `watch` (the live page) sees each game's start, turns and end; `note`
    tells the user what a worker says (a kept bot that ends after each game)."""

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
        self._context = _context()
        self._here = threading.local()  # the thread's own worker
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []  # every live one, to close them
        self._started = 0
        self._stopped = threading.Event()
        self._busy: set[_Worker] = set()
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

    def close(self) -> None:
        """End every worker (and the bots it kept) once no game is running; then the threads."""
        self._threads.shutdown(wait=True)
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.close()

    # -- one game, in a thread of this process --
    def _worker(self) -> _Worker:
        worker = getattr(self._here, "worker", None)
        if worker is None or worker.process.exitcode is not None:
            if worker is not None:
                self._retire(worker, kill=True)
            with self._lock:
                self._started += 1
                number = self._started
            worker = self._here.worker = _Worker(self._context, number)
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
                # A remote seat is a socket this process opened at the check-in and keeps open
                # for the run, its bot connected between games: its games are played here.
                return play_setup(self._game, setup, self._log_dir, cancel=self._stopped, on_turn=on_turn)
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
                void = self._await(worker, setup, on_turn)
            finally:
                with self._lock:
                    self._busy.discard(worker)
            if isinstance(void, GameRecord):
                return void
            return self._void_record(setup, void, started_at, time.monotonic() - started)
        finally:
            if self._watch is not None:
                self._watch.game_left(scheduled.id)

    def _await(self, worker: _Worker, setup: GameSetup, on_turn: Any) -> GameRecord | str:
        """The worker's record of the game, or why it is void (the worker then ended);
        raises GameAborted when stopped, and the machinery's failures the worker passed on."""
        limit_s = game_deadline_s(setup)
        deadline = time.monotonic() + limit_s
        stop_deadline: float | None = None
        history = _History(len(setup.opening))
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
                        history.history.extend(message[1])
                        on_turn(history)
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


__all__ = ["HANG_MARGIN_S", "WorkerPool", "WorkerTask", "game_deadline_s"]
