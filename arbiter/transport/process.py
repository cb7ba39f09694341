"""Owning bot processes: launch, suspend, measure, and end them with everything they started.

A plain bot (`BotProcess`) runs in a new session (its own process group, id = its pid), its
memory capped by `RLIMIT_DATA` (heap and private writable mappings, not reserved address
space), killed by `PR_SET_PDEATHSIG` if the thread that launched it dies, itself a child
subreaper (a process that leaves its session stays in its tree), and its session registered
with the guardian (`guardian.py`), which kills it if the arbiter dies in any way. A boxed bot
(`BoxedBot`) is its box's keeper and what the box holds (`sandbox.py`). The arbiter is a
child subreaper too: the orphans of a plain bot's tree are its children, and are reaped.

Ending bots (`end_all`): a grace for those told to quit, then SIGTERM (and SIGCONT, so that
stopped processes see it) to every live process of each, then SIGKILL, then a wait until none
is alive; every process ever seen in a bot's tree is ended with it.
"""
from __future__ import annotations

import ctypes
import functools
import os
import platform
import resource
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

from .priority import let_others_run
from . import SHORTAGES, signal_name
from .guardian import GUARDIAN
from .procfs import (STAT_MAX_BYTES, children, cpu_clock, descendants, every_process, is_running, kill, open_proc,
                     pread_proc, read_proc, reap, sample_cpu, stat_fields, threads)
from . import spawn
from .waits import readable
# LOG_CAP_BYTES, StderrDrain and unstartable are also imported from here (check, cluster, probe, zmq).
from .logs import LOG_CAP_BYTES, StderrDrain  # noqa: F401
from .startable import unstartable
from .sandbox import PACKAGE_DIR, PLAYERS_DIR, Box, SandboxError, SandboxSpec

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_CLOCK_TICKS_PER_S = os.sysconf("SC_CLK_TCK")
# The pid most recently handed out in our pid namespace (to any process or thread).
# A pid reading this recent is reused by `track_descendants` (a fork after it is caught by
# the next full walk, at most CPU_RECHECK_S later, as in `cpu_ms`).
LAST_PID_FRESH_S = 0.001
_LAST_PID_PATH = "/proc/sys/kernel/ns_last_pid"
# How long a bot found alone is read without looking for children; a child's time that
# raced a reading is counted at most this late (reaped children count in 10 ms ticks anyway).
CPU_RECHECK_S = 0.01
SUSPEND_TRIES = 250  # walks, SUSPEND_PAUSE_S apart, for a bot's processes to be stopped (no freezer)
SUSPEND_PAUSE_S = 0.0002
SUSPEND_YIELDS = 20  # the first walks are SUSPEND_PAUSE_S apart only after this many yields
BOX_START_WAIT_S = 2.0  # how long the first `suspend` of a boxed bot waits for its process to exist
# The system calls (numbers, as /proc/PID/syscall shows them, per machine) in which a thread
# sleeps for a time it chose (nanosleep, clock_nanosleep): a bot sleeping so is still starting,
# not waiting for its input. On another machine such a sleep passes for a wait for input.
_TIMED_SLEEPS: tuple[bytes, ...] = {"x86_64": (b"35", b"230"),
                                    "aarch64": (b"101", b"115")}.get(platform.machine(), ())


T = TypeVar("T")


class LaunchError(Exception):
    """The bot's command could not be started (not found, not executable, bad cwd)."""



def _not_started(command: Sequence[str], where: str, exc: BaseException) -> Exception:
    """What a launch of `command` that failed with `exc` raises: the machine's shortage
    (`SHORTAGES`) as an OSError that names it, anything else as the bot's LaunchError."""
    if isinstance(exc, OSError) and exc.errno in SHORTAGES:
        return OSError(exc.errno, f"the arbiter could not start {command[0]!r}{where}: {exc.strerror}")
    return LaunchError(f"cannot start {command[0]!r}{where}: {exc}")


# --- launching side by side ----------------------------------------------------------

_LAUNCHERS: ThreadPoolExecutor | None = None
_LAUNCHERS_LOCK = threading.Lock()


def launch_side_by_side(launches: Sequence[Callable[[], T]]) -> list[T | BaseException]:
    """Run every launch at once; each one's result, or what it raised, in their order.

    A game's bots start together (a bot's start is mostly its own CPU, and a launch is mostly
    waiting: an unboxed launch runs Python between fork and exec, 3 to 4 ms here), so the last
    bot of a game is not held up by the launches before it. They run on threads kept for the
    life of the process, never on short-lived ones: an unboxed bot's parent-death signal, and
    a box's own (sandbox.py), fire when the *thread* that started them ends. A single
    launch runs on the caller's thread, as every launch did before (a game's thread, which
    outlives its bots)."""
    if len(launches) < 2:
        return [_outcome(launch) for launch in launches]
    futures = [_launchers().submit(_outcome, launch) for launch in launches]
    return [future.result() for future in futures]


def _launchers() -> ThreadPoolExecutor:
    """The threads that launch bots, kept for the life of the process."""
    global _LAUNCHERS
    with _LAUNCHERS_LOCK:
        if _LAUNCHERS is None:
            _LAUNCHERS = ThreadPoolExecutor(max_workers=32, thread_name_prefix="bot-launch")
        return _LAUNCHERS


def _forget_launchers() -> None:
    """In a forked child (a worker): the parent's launcher threads are not its own."""
    global _LAUNCHERS
    _LAUNCHERS = None


os.register_at_fork(after_in_child=_forget_launchers)


def _outcome(launch: Callable[[], T]) -> T | BaseException:
    try:
        return launch()
    except BaseException as exc:  # handed to the caller, who decides what each failure means
        return exc


# --- /proc ---------------------------------------------------------------------------

def session_members(session_ids: Iterable[int]) -> dict[int, list[tuple[int, str, int]]]:
    """For each id: (pid, state letter, ppid) of every process in that session or group.

    Our bots' sessions hold only processes our bots started, so only our own tree is looked
    at while this process is a child subreaper (`_set_child_subreaper`): a process whose
    parent dies is handed to its nearest subreaper ancestor, a bot or us, never out of our
    tree. Otherwise every process on the machine is (100 to 200 reads on a quiet one)."""
    wanted = set(session_ids)
    found: dict[int, list[tuple[int, str, int]]] = {sid: [] for sid in wanted}
    if not wanted:
        return found
    for pid, fields in descendants(os.getpid()) if _SUBREAPER_OF == os.getpid() else every_process():
        pgrp, session = int(fields[2]), int(fields[3])
        owner = session if session in wanted else pgrp if pgrp in wanted else None
        if owner is not None:
            found[owner].append((pid, fields[0].decode(), int(fields[1])))
    return found


_SUBREAPER_OF = 0  # the pid of this process once it is a child subreaper (a forked child is not)


def _set_child_subreaper() -> None:
    """Make orphaned descendants of our bots our children, so they can be reaped (and are
    found in our tree: `session_members`)."""
    global _SUBREAPER_OF
    if _SUBREAPER_OF == os.getpid():
        return
    try:
        if _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
            _SUBREAPER_OF = os.getpid()
    except (OSError, AttributeError):
        pass  # not Linux: orphans go to init as usual


# The soft limit on the arbiter's open descriptors, raised to this at its first launch where the
# hard limit allows. A bot holds about 15 of them (its pipes, pidfd, /proc and control-group
# files): many games at once pass the usual 1024.
OPEN_FILES_WANTED = 8192
_OPEN_FILES_OF: int | None = None  # the process whose limit was raised (a fork's is its parent's)


def _raise_open_files() -> None:
    """Raise the arbiter's soft limit on open descriptors to OPEN_FILES_WANTED (at most its
    hard limit, never lower than it was), once per process: many games at once need more than
    the usual 1024. Bots started since inherit it; a boxed one is capped at MAX_OPEN_FILES
    in its box."""
    global _OPEN_FILES_OF
    if _OPEN_FILES_OF == os.getpid():
        return
    _OPEN_FILES_OF = os.getpid()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(OPEN_FILES_WANTED, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (OSError, ValueError):
            pass  # kept as it was: fewer games at once fit, each failing launch says why


_LIBC: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL:
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


@functools.cache
def _write_kit_bytecode() -> None:
    """Write the bytecode caches (`__pycache__`) of the bot kit and the bundled players, once per
    arbiter process, before its first launch. A box shows them read-only, so a boxed bot cannot
    write them, nor can any bot under PYTHONDONTWRITEBYTECODE (which an unboxed one inherits):
    in such a checkout every start of a Python bot compiled the kit again (docs/performance.md,
    Bot start-up). Those up to date are only looked at (2 to 3 ms); what the arbiter may not
    write is left as it is."""
    import compileall  # only here: not on any bot's start-up
    for folder, depth in ((PACKAGE_DIR, 0), (PACKAGE_DIR / "games", 0), (PLAYERS_DIR, 5)):
        if folder.is_dir():
            compileall.compile_dir(folder, maxlevels=depth, quiet=2)




# --- the process ---------------------------------------------------------------------

def _prepare_child(parent_pid: int, memory_bytes: int | None, prctl: object) -> None:
    """Runs in the child of an unsandboxed bot between fork and exec: parent-death signal,
    subreaper, the memory cap. (A boxed bot needs none of it here: its box dies with its
    parent, holds every descendant, and sets its limits: sandbox.py.)"""
    prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # type: ignore[operator]
    # A subreaper (kept across exec): while the bot lives, every process it starts stays in
    # its tree, even one that leaves its session with setsid() and loses its parent.
    prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # type: ignore[operator]
    if os.getppid() != parent_pid:
        os._exit(125)  # the arbiter died before the signal was armed
    if memory_bytes is not None:
        resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))


def _spawn(helper: str, command: Sequence[str], parent_pid: int, memory_bytes: int | None,
           options: dict[str, object], where: str) -> subprocess.Popen[bytes]:
    """Start `command` through the launch helper (`spawn.py`), which subprocess starts with
    vfork; what the helper could not do comes back as an errno on a pipe it closes on exec."""
    report_r, report_w = os.pipe()
    try:
        try:
            popen = subprocess.Popen([helper, "bot", str(parent_pid), "-" if memory_bytes is None else str(memory_bytes),
                                      str(report_w), *command], pass_fds=(report_w,),
                                     **options)  # type: ignore[call-overload]
        except (OSError, subprocess.SubprocessError) as exc:
            raise _not_started(command, where, exc) from None
        finally:
            os.close(report_w)
        report = b""
        while chunk := os.read(report_r, 64):  # end of file: the program has started
            report += chunk
    finally:
        os.close(report_r)
    if report:
        popen.wait()
        for stream in (popen.stdin, popen.stdout, popen.stderr):
            if stream is not None:
                stream.close()
        code = int(report) if report.isdigit() else 0
        raise _not_started(command, where, OSError(code, os.strerror(code), command[0]))
    return popen


class BotProcess:
    """A launched bot: its process tree, suspension, CPU time and exit status. One interface,
    two kinds: this class is a bot run plainly (its own session, its tree walked), `BoxedBot`
    one run in a box, which its `Box` keeps; `launch` makes the one the spec asks for, and
    nothing else asks which it is.

    `stdin_fd` and `stdout_fd` are the arbiter's ends of the bot's stdin and stdout; the
    caller hands them to a channel, which then owns them.
    """

    box: Box | None = None  # the bot's box (a BoxedBot's), for what the box alone can say

    def __init__(self, popen: subprocess.Popen[bytes], drain: StderrDrain) -> None:
        self._popen = popen
        self._own_pid = popen.pid  # the command's own process (in a box: the box init's child, once known)
        self.pid = popen.pid
        self.session_id = popen.pid  # setsid: session id = process group id = pid
        self.drain = drain
        self._pidfd = os.pidfd_open(popen.pid)
        self._stat_fd = self._children_fd = self._last_pid_fd = None
        try:
            self._stat_fd = open_proc(f"/proc/{popen.pid}/task/{popen.pid}/stat")
            self._children_fd = open_proc(f"/proc/{popen.pid}/task/{popen.pid}/children")
            self._last_pid_fd = open_proc(_LAST_PID_PATH)
        except OSError:  # the arbiter ran short: none of them stays open
            for fd in (self._pidfd, self._stat_fd, self._children_fd):
                if fd is not None:
                    os.close(fd)
            raise
        self._cpu_clock = cpu_clock(popen.pid)
        # Set when the last full CPU reading found the bot alone (no child process): the
        # last pid handed out before it, the bot's reaped children's CPU time, and when.
        self._alone_since: bytes | None = None
        self._alone_reaped_ms = 0.0
        self._alone_checked = 0.0
        self._status: int | None = None
        self._closed = False
        # Every descendant seen in the bot's tree, with its start time (so that a reused pid
        # is never mistaken for it): one that left the session is still ended with the bot.
        self._descendants: dict[int, bytes] = {}
        self._stopped: list[int] = []  # descendants stopped by `suspend`, to continue on `resume`
        # The last full walk of the tree: the last pid handed out before it, what it found, and when.
        self._walk_since: bytes | None = None
        self._walk_found: list[int] = []
        self._walk_checked = 0.0
        self._last_pid_seen: bytes | None = None  # the last pid read by `cpu_ms`, and when
        self._last_pid_at = float("-inf")
        # What a referee calls every turn, as one call each (`turn_calls`).
        self._turn_calls: tuple[Callable[[], None], Callable[[], None], Callable[[], float]] = (
            self.suspend, self.resume, self.cpu_ms)

    @classmethod
    def launch(cls, command: Sequence[str], *, cwd: str | None = None,
               env: Mapping[str, str] | None = None, memory_mb: int | None = None,
               log_path: Path | None = None, sandbox: SandboxSpec | None = None,
               seat_dir: str | None = None) -> tuple[BotProcess, int, int]:
        """Start `command` (already split); returns the process and its stdin/stdout fds.

        With `sandbox`, the bot runs in a box (`sandbox.py`; whether this machine can make one
        was decided with the spec, `sandbox.box_here`), with `seat_dir` shown in it; its
        environment is then only `env` and the box's."""
        if not command:
            raise LaunchError("the command is empty")
        _set_child_subreaper()
        _raise_open_files()
        _write_kit_bytecode()
        if sandbox is not None:
            why = unstartable(command, cwd)  # inside the box, a missing program would look like a crash
            if why is not None:
                raise LaunchError(f"cannot start {command[0]!r}: {why}")
            box: Box | None = Box(command, cwd=cwd, env=env or {}, spec=sandbox, memory_mb=memory_mb, seat_dir=seat_dir)
            try:
                popen = box.start()
            except OSError as exc:  # the box's making, not the bot's command
                box.remove()
                if exc.errno in SHORTAGES:
                    raise
                raise SandboxError(f"cannot make a box for {command[0]!r}: {exc}") from None
            except BaseException:
                box.remove()
                raise
            try:
                GUARDIAN.register(popen.pid)
            except OSError as exc:  # no guardian, no bot: it could outlive a killed arbiter
                _undo_launch(popen, box, None, ())
                raise OSError(exc.errno, f"the arbiter could not start its guardian process: {exc.strerror}") from None
        else:
            box, popen = None, cls._launch_unboxed(command, cwd=cwd, env=env, memory_mb=memory_mb)
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        drain: StderrDrain | None = None
        kept: list[int] = []  # the bot's stdin and stdout, as the caller's own descriptors
        try:
            drain = StderrDrain(os.dup(popen.stderr.fileno()), log_path)
            kept = [os.dup(popen.stdin.fileno())]
            kept.append(os.dup(popen.stdout.fileno()))
            bot = BoxedBot(popen, drain, box) if box is not None else BotProcess(popen, drain)
        except BaseException:  # the arbiter ran short (descriptors, say): no bot is left behind
            _undo_launch(popen, box, drain, kept)
            raise
        for stream in (popen.stdin, popen.stdout, popen.stderr):
            stream.close()
        return bot, kept[0], kept[1]

    @staticmethod
    def _launch_unboxed(command: Sequence[str], *, cwd: str | None, env: Mapping[str, str] | None,
                        memory_mb: int | None) -> subprocess.Popen[bytes]:
        """Start an unsandboxed bot in its own session, with its parent-death signal, the
        subreaper flag and its memory cap set between fork and exec (by the launch helper,
        `spawn.py`, where this machine could build it; else by `_prepare_child`), and
        registered with the guardian."""
        memory_bytes = None
        if memory_mb is not None:
            _, hard = resource.getrlimit(resource.RLIMIT_DATA)
            memory_bytes = memory_mb << 20
            if hard != resource.RLIM_INFINITY:
                memory_bytes = min(memory_bytes, hard)
        parent_pid = os.getpid()
        options: dict[str, object] = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          cwd=cwd, env={**os.environ, **(env or {})}, bufsize=0, close_fds=True,
                                          start_new_session=True)
        where = f" in {cwd}" if cwd else ""
        helper = spawn.helper()
        if helper is None:  # no launch helper here: the same steps in Python, in a copy of the arbiter
            prctl = _libc().prctl  # looked up here, not between fork and exec
            try:
                popen = subprocess.Popen(list(command), **options,  # type: ignore[call-overload]
                                         preexec_fn=lambda: _prepare_child(parent_pid, memory_bytes, prctl))
            except (OSError, subprocess.SubprocessError) as exc:
                raise _not_started(command, where, exc) from None
        else:
            popen = _spawn(helper, command, parent_pid, memory_bytes, options, where)
        try:
            GUARDIAN.register(popen.pid)
        except OSError as exc:  # no guardian, no bot: it could outlive a killed arbiter
            popen.kill()
            popen.wait()
            raise OSError(exc.errno, f"the arbiter could not start its guardian process: {exc.strerror}") from None
        return popen

    # --- control ---------------------------------------------------------------------
    def turn_calls(self) -> tuple[Callable[[], None], Callable[[], None], Callable[[], float]]:
        """(`suspend`, `resume`, `cpu_ms`) as the calls that do them, for a caller that makes
        them every turn: a box's freezer and CPU reading are then called directly, one call
        deep instead of three (a few microseconds a turn)."""
        return self._turn_calls

    def suspend(self) -> None:
        """Stop the bot and all it started: it cannot think while it is not its turn.

        SIGSTOP to its process group at once (a fork cannot race a signal sent to its group),
        then walks of its tree that stop each process found, until a walk finds every process
        stopped and none it had not seen before (a process that forks and exits in a loop
        leaves children the previous walk did not list)."""
        self._signal_group(signal.SIGSTOP)
        self._stop_by_walks(set(), group=True)

    def _stop_by_walks(self, spare: set[int], *, group: bool) -> None:
        """Walks of the bot's tree that SIGSTOP each process found but the `spare` ones, until
        two in a row find the same processes, all stopped, and none born since (`group`: the
        process group was stopped first, and a walk that finds nothing new ends it)."""
        seen: set[int] = set()
        previous: set[int] | None = None  # what the walk before this one found...
        previous_before: bytes | None = None  # ...and the last pid handed out when it began
        roots = (self.pid,) if group else ()
        for attempt in range(SUSPEND_TRIES):
            before = pread_proc(self._last_pid_fd, _LAST_PID_PATH, 32)
            # A box is walked afresh every time: a walk that a parent's exit raced (its child
            # moved to the box's init after init's children were listed) misses that child,
            # and no pid is handed out to tell.
            found = [pid for pid in self.track_descendants(signal.SIGSTOP, spare, fresh=not group)
                     if pid not in spare]
            after = pread_proc(self._last_pid_fd, _LAST_PID_PATH, 32)
            seen.update(found)
            if group and not found and after == before:
                break  # the process group's stop holds every process: one signal, at once
            # Conclusive when two walks in a row found the same processes and no process was
            # born since the first began: then none left and none came, so none was missed
            # (a miss needs a parent to exit during a walk, which the next walk sees).
            settled = previous == set(found) and after == previous_before
            running = [pid for pid in roots + tuple(found) if is_running(pid)]
            if settled and not running:
                break
            for pid in running:
                kill(pid, signal.SIGSTOP)
            previous, previous_before = set(found), before
            # A stop lands when its process next runs: on a busy CPU, let it run first.
            let_others_run() if attempt < SUSPEND_YIELDS else time.sleep(SUSPEND_PAUSE_S)
        self._stopped = sorted(seen)

    def resume(self) -> None:
        """Let the bot and all it started run again: SIGCONT each process exactly once.

        Once, because a bot that stops itself (SIGSTOP) between two SIGCONTs sent to it
        would be woken by the second and escape the timeout its own stop earns it. The
        bot's process group is not signalled: every process that `suspend` stopped is in
        the bot's tree, and so in `_stopped`."""
        for pid in (self.pid, *self._stopped):
            kill(pid, signal.SIGCONT)
        self._stopped = []

    def _own_stat(self) -> int | None:
        """The open stat file of the bot's own process (the command's), None until it runs."""
        return self._stat_fd

    def _bot_pids(self) -> list[int]:
        """The bot's processes: its own and every descendant."""
        return [self.pid, *self.track_descendants()]

    def waits_for_input(self) -> bool:
        """Whether the bot has finished starting, as far as its processes show: every thread
        of every process of the bot (its box's keepers apart) is asleep, and the main thread of
        the bot's own process (the command's) not in a timed sleep (`sleep()`, `nanosleep`),
        so it waits for something from outside: its input.

        Read from /proc: each thread's state letter, and the system call the main thread
        sleeps in. A process in the middle of a disk read (`D`) or stopped is not waiting.
        Other threads' and processes' timed sleeps are not looked at: runtimes keep such
        threads (Go's monitor thread, watchdogs), bots start helpers that sleep, and taking
        them for start-up would fail a bot that has started."""
        own_fd = self._own_stat()
        if own_fd is None:
            return False  # the bot's program has not run yet
        # First the one thread that must be asleep whatever else is (one read, while a bot
        # is still starting the usual answer): the bot's own process's main thread.
        own = pread_proc(own_fd, f"/proc/{self._own_pid}/task/{self._own_pid}/stat", STAT_MAX_BYTES)
        if not own:
            return False  # gone (in a box, reaped by the box's init before the box ends): ending, not waiting
        own_state = own.rsplit(b")", 1)[1].split(None, 1)[0]
        if own_state not in (b"S", b"Z", b"X"):
            return False
        # A main thread that has exited (`Z`) leaves a live process only if another thread runs
        # on; a process with no live thread has exited, and is not waiting either (in a box,
        # until the box's init reaps it the box itself lives on).
        own_lives = own_state == b"S"
        for pid in self._bot_pids():
            for tid in threads(pid):  # none: gone since the walk
                stat = read_proc(f"/proc/{pid}/task/{tid}/stat", STAT_MAX_BYTES)
                if not stat:
                    continue
                state = stat.rsplit(b")", 1)[1].split(None, 1)[0]
                if state in (b"Z", b"X"):
                    continue  # an exited thread or process, not yet reaped
                if state != b"S":
                    return False
                own_lives = own_lives or pid == self._own_pid
                if _TIMED_SLEEPS and pid == self._own_pid and tid == str(pid):
                    call = read_proc(f"/proc/{pid}/task/{tid}/syscall", 256)  # unreadable: not known to sleep
                    # "running": the kernel saw the thread wake while it looked (its state read
                    # a moment ago is stale), so whether it waits is not known yet: look again.
                    if call and call.split(None, 1)[0] in (*_TIMED_SLEEPS, b"running"):
                        return False
        return own_lives

    def track_descendants(self, signum: int | None = None, spare: set[int] = frozenset(),  # type: ignore[assignment]
                          fresh: bool = False) -> list[int]:
        """Walk the bot's tree from the top (sending `signum` to each process on the way, so a
        stopped parent cannot add children behind the walk) and remember every descendant;
        returns their pids. The bot is a subreaper, so a process that left its session or
        process group is in the tree as long as the bot lives. With `fresh`, always a walk,
        never the last one's answer."""
        # As in `cpu_ms`: while no pid has been handed out since the last walk, the tree holds
        # no process that walk did not find (a full walk is still made every CPU_RECHECK_S, for
        # a fork that raced the last one). This keeps a turn of a bot that starts nothing at one
        # small read, boxed or not (a box's tree is its two keepers and the bot).
        now = time.monotonic()
        # The referee reads the CPU time just before it ends a turn: its pid reading is fresh.
        if now - self._last_pid_at < LAST_PID_FRESH_S:
            last_pid = self._last_pid_seen
        else:
            last_pid = pread_proc(self._last_pid_fd, _LAST_PID_PATH, 32)
        if (not fresh and last_pid is not None and last_pid == self._walk_since
                and now - self._walk_checked < CPU_RECHECK_S):
            if signum is not None:
                for pid in self._walk_found:
                    if pid not in spare:
                        kill(pid, signum)
            return list(self._walk_found)
        found = []
        pending = [self.pid]
        while pending:
            pid = pending.pop()
            for child in children(pid):
                stat = stat_fields(child)
                if stat is None:
                    continue
                if signum is not None and child not in spare:
                    kill(child, signum)
                self._descendants[child] = stat[19]  # field 22, starttime
                found.append(child)
                pending.append(child)
        self._walk_since, self._walk_found, self._walk_checked = last_pid, found, now
        return found

    def tracked_descendants(self) -> list[int]:
        """The descendants ever seen that are still alive (the same process, not a reused pid)."""
        alive = []
        for pid, started in list(self._descendants.items()):
            stat = stat_fields(pid)
            if stat is None or stat[19] != started or stat[0] == b"Z":
                del self._descendants[pid]
                if stat is not None and stat[0] == b"Z" and int(stat[1]) == os.getpid():
                    reap(pid)  # an orphan handed to us as subreaper
            else:
                alive.append(pid)
        return alive

    def waiting_for_cpu(self) -> tuple[float, bool]:
        """How long the threads of the bot's live processes (a box's own included) have been
        runnable but waiting for a CPU, in ms since each started (the kernel's run delay,
        which counts a wait when the thread gets the CPU); and whether one is runnable now."""
        waited_ns, runnable = 0, False
        for pid in (self.pid, *self.track_descendants()):
            for tid in threads(pid):
                schedstat = read_proc(f"/proc/{pid}/task/{tid}/schedstat")
                stat = read_proc(f"/proc/{pid}/task/{tid}/stat")
                if schedstat and stat:
                    waited_ns += int(schedstat.split()[1])
                    runnable = runnable or stat.rsplit(b")", 1)[-1][1:2] == b"R"
        return waited_ns / 1e6, runnable

    def terminate(self) -> None:
        """SIGTERM the bot's process group, and SIGCONT so that a stopped bot sees it."""
        self._signal_group(signal.SIGTERM)
        self._signal_group(signal.SIGCONT)

    def _signal_group(self, signum: int) -> None:
        try:
            os.killpg(self.session_id, signum)
        except (ProcessLookupError, PermissionError):
            pass  # the whole group is gone; the channel will say so

    def cpu_ms(self) -> float:
        """CPU time (user + system) of the bot and its live descendants, plus reaped children.

        Live processes are read with nanosecond precision (their CPU-time clocks); the
        children they have reaped only in clock ticks (10 ms). A descendant orphaned
        mid-game no longer counts. The bot's own /proc files stay open.

        After a full reading finds the bot alone (no child process), it is read with one
        small `pread` and a `clock_gettime`: while no pid has been handed out since that
        reading, the bot cannot have started a child, nor so reaped one, and its reaped
        children's time is unchanged. A full reading is still made every CPU_RECHECK_S: a
        child whose fork or reaping raced the last one (its pid taken before it, the child
        listed or reaped during it) has its time counted that much late, never lost.
        """
        last_pid = pread_proc(self._last_pid_fd, _LAST_PID_PATH, 32)
        now = time.monotonic()
        self._last_pid_seen, self._last_pid_at = last_pid, now
        if last_pid == self._alone_since and last_pid is not None and now - self._alone_checked < CPU_RECHECK_S:
            try:
                return time.clock_gettime_ns(self._cpu_clock) / 1e6 + self._alone_reaped_ms
            except OSError:
                pass  # it is gone: the full reading says what is left
        self._alone_since = None
        sample = sample_cpu(self.pid, self._stat_fd, self._children_fd)
        if sample is None:
            return 0.0
        total_ns, reaped_ticks, pending = sample
        if not pending:
            self._alone_since, self._alone_checked = last_pid, now
            self._alone_reaped_ms = reaped_ticks * 1000 / _CLOCK_TICKS_PER_S
        while pending:
            sample = sample_cpu(pending.pop())
            if sample is not None:
                total_ns += sample[0]
                reaped_ticks += sample[1]
                pending.extend(sample[2])
        return total_ns / 1e6 + reaped_ticks * 1000 / _CLOCK_TICKS_PER_S

    def exit_status(self) -> int | None:
        """The bot's exit status if it has exited (negative: killed by that signal), else None.

        The exited process is left a zombie until `close()`, so that its pid, which is also
        its session id, cannot be reused while the arbiter still signals that session.
        """
        if self._status is None:
            try:
                info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                info = None
            if info is not None:
                exited = info.si_code == os.CLD_EXITED
                self._status = self._bots_status(info.si_status) if exited else -info.si_status
        return self._status

    def wait_exit(self, timeout_s: float) -> int | None:
        """Wait up to `timeout_s` for the bot process to exit; its status, or None."""
        if self.exit_status() is None and timeout_s > 0:
            readable([self._pidfd], timeout_s)
        return self.exit_status()

    @staticmethod
    def wait_any_exit(processes: Sequence[BotProcess], timeout_s: float) -> set[BotProcess]:
        """Wait up to `timeout_s` for any of `processes` to exit (a pause that a bot's exit cuts
        short); those that have exited, possibly none. One system call, however many bots."""
        by_fd = {process._pidfd: process for process in processes}
        return {by_fd[fd] for fd in readable(list(by_fd), timeout_s)}

    def describe_exit(self, status: int) -> str:
        """`exited with status 1` or `was killed by SIGSEGV`, and which limit of its box it hit."""
        if status >= 0:
            text = f"exited with status {status}"
        else:
            text = f"was killed by {signal_name(-status)}"
        hit = self.limit_hit()
        return f"{text}: {hit}" if hit else text

    def limit_hit(self) -> str | None:
        """Why the kernel stopped the bot's processes, when a limit of its box did it."""
        return None

    def _bots_status(self, status: int) -> int:
        """The bot's own exit status from its process's (a box's keeper says 128+N for a signal)."""
        return status

    def close(self) -> None:
        """Release the handle once the tree is dead: guardian registration, zombie, pidfd, log."""
        if self._closed:
            return
        self._closed = True
        GUARDIAN.unregister(self.session_id)  # before the reap frees the id for reuse
        try:
            status = self._popen.wait(timeout=1.0)
            if self._status is None:
                self._status = self._bots_status(status) if status > 0 else status
        except subprocess.TimeoutExpired:
            pass  # stuck in the kernel (uninterruptible); Popen reaps it later
        for fd in (self._pidfd, self._stat_fd, self._children_fd, self._last_pid_fd):
            if fd is not None:
                os.close(fd)
        self._release()
        self.drain.finish(0.5)

    # Found among the processes of its session (`session_members`); a box's are its tree.
    by_session = True

    def _top(self) -> list[tuple[int, str, int]]:
        """(pid, state, ppid) of the process the arbiter launched, when it is not found by session."""
        fields = stat_fields(self.pid)
        return [] if fields is None else [(self.pid, fields[0].decode(), int(fields[1]))]

    def _spared(self, signum: int) -> set[int]:
        """Ready the bot for `signum` from `end_all`; the processes that must not get it."""
        return set()

    def _release(self) -> None:
        """Release what the bot's launch made beside its process (a box's groups)."""

    def kill_tree(self) -> None:
        """SIGKILL every process of the bot's session at once and wait until they are dead."""
        end_all([self], grace_s=0, term_grace_s=0)


class BoxedBot(BotProcess):
    """A bot in a box (`sandbox.Box`): the process the arbiter launched is the box's keeper,
    which ends with the box; the box is frozen whole, its CPU time read from its group, and
    its keepers (the keeper and bubblewrap's two) are never signalled one by one."""

    by_session = False  # every process of its box is in its tree, which none can leave

    def __init__(self, popen: subprocess.Popen[bytes], drain: StderrDrain, box: Box) -> None:
        super().__init__(popen, drain)
        self.box = self._box = box
        self._own_stat_fd: int | None = None  # the bot's own process's, once it has begun
        # The box's CPU time in one reading (every process it ever had), and its freezer,
        # called directly every turn where the machine has them.
        self._box_cpu = box.cpu_reader()
        freezer = box.freezer_calls()
        self._turn_calls = (*(freezer or (self.suspend, self.resume)), self._box_cpu or self.cpu_ms)

    def suspend(self) -> None:
        """Freeze the box whole (`Box.suspend`): whatever its processes do with fork, exit,
        threads or sessions, none of them runs until `resume`. Without a freezer, SIGSTOP walks
        of its tree that spare the box's keepers, once the bot's own process exists."""
        box = self._box
        if box.freezes:
            box.suspend()
            return
        deadline = time.monotonic() + BOX_START_WAIT_S  # so that no bot starts unstopped
        while self._own_stat() is None and time.monotonic() < deadline and self.exit_status() is None:
            time.sleep(0.0005)
        self._stop_by_walks(box.keepers(), group=False)

    def resume(self) -> None:
        """Thaw the box, or SIGCONT once each process the walks stopped."""
        box = self._box
        if box.freezes:
            box.resume()
            return
        for pid in self._stopped:
            kill(pid, signal.SIGCONT)
        self._stopped = []

    def _own_stat(self) -> int | None:
        if self._own_stat_fd is None:
            bot = self._box.bot_pid()
            if bot is None:
                return None
            self._own_pid = bot
            self._own_stat_fd = open_proc(f"/proc/{bot}/task/{bot}/stat")
        return self._own_stat_fd

    def _bot_pids(self) -> list[int]:
        keepers = self._box.keepers()
        return [pid for pid in self.track_descendants() if pid not in keepers]

    def terminate(self) -> None:
        """SIGTERM (and SIGCONT) every process of the thawed box but its keepers, whose death
        would end the box at once: the bot is owed the same grace for SIGTERM as unboxed."""
        self._box.resume()
        self.track_descendants()
        spare = self._box.keepers()
        for pid in self.tracked_descendants():
            if pid not in spare:
                kill(pid, signal.SIGTERM)
                kill(pid, signal.SIGCONT)

    def cpu_ms(self) -> float:
        """The box's CPU time from its control group, else as a plain bot's."""
        return self._box_cpu() if self._box_cpu is not None else super().cpu_ms()

    def limit_hit(self) -> str | None:
        return self._box.limit_hit()

    def _bots_status(self, status: int) -> int:
        return Box.exit_status(status)

    def _spared(self, signum: int) -> set[int]:
        """SIGTERM spares the box's keepers (see `terminate`), its box thawed so that its
        processes see it; SIGKILL kills the box whole, the keeper apart, which then reaps
        them and ends."""
        if signum == signal.SIGKILL:
            self._box.kill()
            return {self.pid}
        self._box.resume()
        return self._box.keepers()

    def _release(self) -> None:
        if self._own_stat_fd is not None:
            os.close(self._own_stat_fd)
            self._own_stat_fd = None
        self._box.remove()


def _undo_launch(popen: subprocess.Popen[bytes], box: Box | None, drain: StderrDrain | None,
                 kept: Sequence[int]) -> None:
    """End a bot whose launch failed after its process started (the arbiter out of descriptors,
    say): its session killed (in a box, the box's processes, whose keeper then reaps them and
    ends), reaped, and everything the launch had made for it closed or removed, so that a
    failed launch leaves no process, descriptor or control group behind."""
    if box is not None:
        box.kill()
    else:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except OSError:
            pass  # gone already
    popen.wait()
    GUARDIAN.unregister(popen.pid)
    for stream in (popen.stdin, popen.stdout, popen.stderr):
        if stream is not None:
            stream.close()
    for fd in kept:
        os.close(fd)
    if drain is not None:
        drain.finish(0.5)  # its pipe has ended with the bot's processes
    if box is not None:
        box.remove()




def _signal_all(members: Sequence[tuple[int, str, int]], session_id: int, signum: int,
                spare: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    """Signal every member (and the session), except the `spare` pids (then not the session)."""
    for pid, _, _ in members:
        if pid not in spare:
            kill(pid, signum)
    if spare:
        return
    try:
        os.killpg(session_id, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _live(processes: Sequence[BotProcess]) -> dict[BotProcess, list[tuple[int, str, int]]]:
    """Every live member of each bot's session; zombies that are ours are reaped on the way."""
    members = session_members(p.session_id for p in processes if p.by_session)
    me = os.getpid()
    alive: dict[BotProcess, list[tuple[int, str, int]]] = {}
    for process in processes:
        live = []
        for pid, state, ppid in members[process.session_id] if process.by_session else process._top():
            if state == "Z":
                if ppid == me and pid != process.pid:
                    reap(pid)  # an orphan handed to us as subreaper
                continue
            live.append((pid, state, ppid))
        # Those that left the session: in the bot's tree now, or seen in it before.
        listed = {pid for pid, _, _ in live}
        process.track_descendants()
        live += [(pid, "?", 0) for pid in process.tracked_descendants() if pid not in listed]
        if live:
            alive[process] = live
    return alive


def end_all(processes: Sequence[BotProcess], *, grace_s: float, term_grace_s: float,
            kill_wait_s: float = 2.0) -> None:
    """Bounded shutdown of bots already told to quit: grace, SIGTERM, grace, SIGKILL, reap.

    Returns once no process of any of their sessions is alive (or, if the kernel is slow
    to finish SIGKILLed processes, after `kill_wait_s`). Closes each handle.
    """
    deadline = time.monotonic() + grace_s
    for process in processes:
        process.wait_exit(deadline - time.monotonic())  # a boxed bot's keeper ends with its box
    stages = ((signal.SIGTERM, term_grace_s),) if term_grace_s > 0 else ()
    for signum, wait_s in (*stages, (signal.SIGKILL, kill_wait_s)):
        alive = _live(processes)
        if not alive:
            break
        for process, members in alive.items():
            spare = process._spared(signum)
            _signal_all(members, process.session_id, signum, spare)
            if signum == signal.SIGTERM:
                _signal_all(members, process.session_id, signal.SIGCONT, spare)  # stopped ones must see it
        deadline = time.monotonic() + wait_s
        delay_s = 0.001
        while alive and time.monotonic() < deadline:
            time.sleep(delay_s)  # no event to await for non-children; back off gently
            delay_s = min(delay_s * 2, 0.02)
            alive = _live(list(alive))
    for process in processes:
        process.close()
