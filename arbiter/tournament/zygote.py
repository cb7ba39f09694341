"""The zygote: the process the game workers are forked from (workers.py).

One per arbiter process, started on first use as `python -m arbiter.tournament.zygote FD
MODULE...`. It imports the modules it is given (`workers.py`: the referee, the rules'
registry) once and stays single-threaded, so
that a fork of it is safe (a fork of the arbiter, beside its threads, is not) and a worker
starts in milliseconds with nothing to import. Nothing of the arbiter's main module is run
again in it, whatever started the arbiter (the `arbiter` command, a benchmark, `python -`).

The arbiter asks on a unix socket (`SOCK_SEQPACKET`, one message a request): the worker's
role and the arbiter's `sys.path` now, with two descriptors, the worker's end of its
connection and the write end of its *status pipe*. The zygote forks; the child runs the role
(a function named `module:function`, `workers.ROLES`'s) on its connection and exits; the zygote answers with the child's pid,
reaps it when it ends and writes its exit code (negative: the signal) to the status pipe,
whose read end is the arbiter's `sentinel`, readable once the worker has ended. The zygote
ignores Ctrl-C (the arbiter stops its workers) and exits once the arbiter's end of the
socket is closed (the arbiter has exited); its workers live on until their own connections
tell them the same.
"""
from __future__ import annotations

import importlib
import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection, wait as wait_for
from typing import Any, Sequence

_CODE = struct.Struct("i")  # an exit code on a status pipe; a pid in an answer
MAX_REQUEST_BYTES = 1 << 16


class WorkerProcess:
    """A worker forked by the zygote, as the arbiter sees it: `pid`, `sentinel` (readable once
    it has ended) and `exitcode` (None while it runs; 255 if the zygote died before telling)."""

    def __init__(self, pid: int, sentinel: int) -> None:
        self.pid = pid
        self.sentinel = sentinel  # kept open while this object lives: a thread may be waiting on it
        self._code: int | None = None
        self._lock = threading.Lock()  # one reader of the status pipe, whichever thread asks
        weakref.finalize(self, os.close, sentinel)

    @property
    def exitcode(self) -> int | None:
        """The worker's exit code once it has ended (negative: the signal that ended it)."""
        with self._lock:
            if self._code is None and wait_for([self.sentinel], 0):
                data = os.read(self.sentinel, _CODE.size)  # written at once, or never (end of file)
                self._code = _CODE.unpack(data)[0] if len(data) == _CODE.size else 255
            return self._code

    def join(self, timeout: float | None = None) -> None:
        """Wait (up to `timeout` seconds) until the worker has ended."""
        if self.exitcode is None:
            wait_for([self.sentinel], timeout)


class Zygote:
    """The arbiter's end of its zygote."""

    def __init__(self, preload: Sequence[str] = ()) -> None:
        """Start the zygote, importing the modules named in `preload` before its first fork."""
        here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._control = here
        self._lock = threading.Lock()
        self._broken = False
        with there:
            self.process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(there.fileno()), *preload], pass_fds=(there.fileno(),),
                stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, sys.path))})

    @property
    def pid(self) -> int:
        """The zygote's own pid."""
        return self.process.pid

    def fork(self, role: str) -> tuple[WorkerProcess, Connection]:
        """A new worker running `role` (`module:function`, the function taking its connection)
        and the arbiter's end of its connection; OSError if the zygote is gone."""
        here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        status_r, status_w = os.pipe()
        try:
            request = pickle.dumps((role, list(sys.path)))
            with self._lock:
                try:
                    socket.send_fds(self._control, [request], [there.fileno(), status_w])
                    answer = self._control.recv(_CODE.size)
                except BaseException:  # Ctrl-C between the two: an answer may be left for the next request
                    self._broken = True
                    raise
            if len(answer) != _CODE.size:
                raise OSError("the workers' zygote has ended")
        except BaseException:
            os.close(status_r)
            here.close()
            raise
        finally:
            there.close()
            os.close(status_w)
        return WorkerProcess(_CODE.unpack(answer)[0], status_r), Connection(here.detach())

    def alive(self) -> bool:
        """Whether the zygote still runs and answers in step (a new one is started otherwise;
        this one exits once its socket is closed, when the arbiter exits)."""
        return not self._broken and self.process.poll() is None


# ---- the zygote's side ----------------------------------------------------------------------

def _ignore(signum: int, frame: Any) -> None:
    """A stop signal meant for the arbiter: nothing to do here."""


def main(control_fd: int, preload: Sequence[str] = ()) -> None:
    """The zygote's life: fork a worker per request, tell each one's end, until the arbiter has gone."""
    # The signals that stop the arbiter (cli.STOP_SIGNALS) reach the zygote too (a terminal's
    # Ctrl-C, a service manager's SIGTERM to every process): the arbiter stops, the zygote goes
    # when the arbiter has. A handler that does nothing, not SIG_IGN: what it forks inherits the
    # handler, and a bot they launch is born with the default (SIG_IGN would outlive the exec).
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _ignore)
    for module in preload:  # imported once for every worker
        importlib.import_module(module)
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # a handler, so that the wakeup is written
    status: dict[int, int] = {}  # a running worker's pid -> the write end of its status pipe
    while True:
        ready, _, _ = select.select([control, wake_r], [], [])
        if wake_r in ready:
            os.read(wake_r, 4096)
            _reap(status)
        if control in ready:
            try:
                request, fds, _, _ = socket.recv_fds(control, MAX_REQUEST_BYTES, 2)
            except OSError:
                request, fds = b"", []
            if not request:  # the arbiter has exited
                return
            role, path = pickle.loads(request)
            conn_fd, status_w = fds
            pid = os.fork()
            if pid == 0:
                os.close(status_w)
                for fd in (control.fileno(), wake_r, wake_w, *status.values()):
                    os.close(fd)
                _child(_function(role), conn_fd, path)
            os.close(conn_fd)
            status[pid] = status_w
            control.send(_CODE.pack(pid))


def _function(role: str) -> Any:
    """The function `module:function` names (its module imported already, or now)."""
    module, _, name = role.partition(":")
    return getattr(importlib.import_module(module), name)


def _reap(status: dict[int, int]) -> None:
    """Write the exit code of every worker that has ended to its status pipe."""
    while True:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        status_w = status.pop(pid, None)
        if status_w is not None:
            try:
                os.write(status_w, _CODE.pack(os.waitstatus_to_exitcode(wait_status)))
            except OSError:
                pass  # the arbiter has stopped listening
            os.close(status_w)


def _child(role: Any, conn_fd: int, path: list[str]) -> None:
    """A worker's life in the forked child: its role on its connection, then exit (no exit
    handlers: they are the zygote's)."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    sys.path[:] = path
    code = 0
    try:
        role(Connection(conn_fd))
    except BaseException:  # noqa: BLE001 - said on stderr, as a process's last words
        import traceback
        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: the arbiter's was closed (`arbiter ... >&-`)
                stream.flush()
        os._exit(code)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
