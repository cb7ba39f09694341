"""The rules host: a child process that runs a game's rules for the arbiter's own process.

The process that records, serves the live page and answers Ctrl-C must never run rules that
could take it down (docs/architecture.md, Where games run). Games are played in worker
processes, but three readers still need the rules outside a game: the tamper check
(tournament/audit.py), random openings (tournament/plan.py) and the report's pictures of a
game's positions (reports/board_geometry.py). For rules that are not the arbiter's own
(OpenSpiel's native code, a user's `module:Class` game: `hosted`, the one predicate every
caller asks), they ask this host: `RULES_HOST.call("module:function", *args, game=...,
doing=...)` runs the function there and
returns its result, or raises `RulesFailed` with a sentence ("the rules of openspiel:hex
crashed (SIGABRT) replaying game 0042"). The arbiter's own Python games run in process: they
raise, never crash, and cost no round trip.

- A host that dies (a signal, an abort in native code) or does not answer by the call's
  deadline (hung, perhaps holding Python's lock) is killed; the call is tried once more in a
  fresh host, because a crash can come from damage earlier calls left in a native library's
  memory (the fuzz met one after ~2,500 games in one process, never in a fresh one). Failing
  twice, it is the rules' failure with this call. An exception the function raises is
  answered and is the rules' failure at once (a Python exception is the same in a fresh host).
- The host is replaced after RECYCLE_AFTER_CALLS calls, before such damage builds up.
- It is started as `python -m arbiter.tournament.rules_host FD` (a fork beside the arbiter's
  threads is unsafe), in a session of its own (a Ctrl-C at the terminal is the arbiter's to
  answer), registered with the guardian (transport/guardian.py), which kills it if the arbiter
  dies in any way; it exits by itself when the arbiter's end of its socket closes.
"""
from __future__ import annotations

import functools
import importlib
import json
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from typing import Any, Callable

from ..games import REGISTRY, Game, find_game
from ..transport import signal_name
from ..transport.guardian import GUARDIAN

CALL_DEADLINE_S = 30.0  # a call's answer: one game's replay or pictures take milliseconds to a second
START_DEADLINE_S = 30.0  # a fresh host's word that it is ready: an interpreter and the arbiter's registry imported
RECYCLE_AFTER_CALLS = 1000  # a host serves this many calls, then a fresh one takes over
# The host's heap (RLIMIT_DATA), as game_probe caps its child: one game's replay or pictures
# take a few megabytes; rules that grow past it fail there (MemoryError, or a native abort),
# never taking the machine's memory from the arbiter and its games.
RULES_HOST_MEMORY_MB = 2048
END_GRACE_S = 5.0  # how long a host whose socket has closed may take to be seen ended (its status)
_LENGTH = struct.Struct("!Q")  # a message's length before its pickled bytes

_OWN_GAMES = frozenset(name for main, aliases, _ in REGISTRY for name in (main, *aliases))


def hosted(game: str) -> bool:
    """Whether the rules of the game called `game` (as a config or a record names it) run in
    the rules host: OpenSpiel's native rules, a user's `module:Class`, any game but the
    arbiter's own Python games, whose rules raise but cannot take the arbiter down."""
    return game not in _OWN_GAMES  # a family's `openspiel:NAME` is none of them


class RulesFailed(Exception):
    """The rules could not do what they were asked: `str(exc)` is the sentence saying so."""


class RulesHost:
    """The arbiter's end of its rules host (one per arbiter process: RULES_HOST), started on
    first use; thread-safe (calls wait for each other)."""

    def __init__(self, *, recycle_after: int = RECYCLE_AFTER_CALLS) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._socket: socket.socket | None = None
        self._calls = 0  # answered by the host now running
        self._recycle_after = recycle_after
        self.started = 0  # hosts started so far (the tests see a replacement by it)

    @property
    def pid(self) -> int | None:
        """The pid of the host now running, if one is."""
        return self._process.pid if self._process is not None else None

    def call(self, function: str, *args: Any, game: str, doing: str, deadline_s: float = CALL_DEADLINE_S) -> Any:
        """`function(*args)` (`module:function`) run in the host, its result returned; RulesFailed
        naming `game` and what it was `doing` ("replaying game 0042") when the function raised,
        or when the host crashed or hung on it twice, the second time a fresh one."""
        request = pickle.dumps((function, args), pickle.HIGHEST_PROTOCOL)
        with self._lock:
            kind, value = self._try(request, deadline_s)
            if kind == "failed":  # the host was ended: again in a fresh one
                first = value
                kind, value = self._try(request, deadline_s)
                if kind == "raised":
                    raise RulesFailed(f"the rules of {game} {first} {doing}, then raised {value} in a fresh process")
                if kind == "failed":
                    again = "again" if value == first else f"then {value}"
                    raise RulesFailed(f"the rules of {game} {first} {doing}, and {again} in a fresh process")
            if kind == "raised":
                raise RulesFailed(f"the rules of {game} raised {value} {doing}")
            return value

    def close(self) -> None:
        """End the host now (the next call starts another)."""
        with self._lock:
            self._end()

    # ---- under the lock ----

    def _try(self, request: bytes, deadline_s: float) -> tuple[str, Any]:
        """One try: ("ok", the answer), ("raised", what the function raised), or ("failed",
        how the host died or hung, as the end of a sentence; it was ended)."""
        if self._process is not None and self._calls >= self._recycle_after:
            self._end()
        if self._process is None:
            how = self._start()
            if how is not None:
                return "failed", how
        assert self._socket is not None
        deadline = time.monotonic() + deadline_s
        try:
            _send(self._socket, request, deadline)
            kind, value = pickle.loads(_receive(self._socket, deadline))
        except TimeoutError:
            self._end()
            return "failed", f"did not answer within {deadline_s:g} s (hung)"
        except (OSError, EOFError):
            return "failed", self._death()
        except BaseException:  # a Ctrl-C mid-call: this host's answer would be read by the next call
            self._end()
            raise
        self._calls += 1
        return kind, value

    def _start(self) -> str | None:
        """Start a host and wait for its word that it is ready; None once it is, else how it failed."""
        here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with there:
            process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(there.fileno())], pass_fds=(there.fileno(),),
                # stdout is the arbiter's answer (`arbiter report` prints the standings there): no
                # print of a game's rules may land in it; stderr is shared (a native library's last words).
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, sys.path))})
        try:
            GUARDIAN.register(process.pid)  # its own session: the guardian kills it with the arbiter
        except BaseException:
            _kill(process)
            here.close()
            raise
        self._process, self._socket, self._calls = process, here, 0
        self.started += 1
        try:
            _receive(here, time.monotonic() + START_DEADLINE_S)
        except TimeoutError:
            self._end()
            return f"did not start within {START_DEADLINE_S:g} s"
        except (OSError, EOFError):
            return self._death()
        return None

    def _death(self) -> str:
        """How the host that stopped answering ended (reaped), as the end of a sentence."""
        process = self._process
        assert process is not None
        try:
            code = process.wait(END_GRACE_S)
        except subprocess.TimeoutExpired:  # it closed its socket but lives on: ended all the same
            code = None
        self._end()
        if code is None:
            return "stopped answering"
        if code < 0:
            return f"crashed ({signal_name(-code)})"
        return f"ended the process (status {code})"

    def _end(self) -> None:
        """End the host: its socket closed, killed and reaped. Killing it loses nothing: it
        holds no state between calls, and waiting for an idle host to exit costs a recycle
        tens of milliseconds of polling (Popen.wait)."""
        process, self._process = self._process, None
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        if process is None:
            return
        _kill(process)
        GUARDIAN.unregister(process.pid)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the host's session (whatever it started too) and reap the host."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
    process.wait()


def _send(sock: socket.socket, data: bytes, deadline: float) -> None:
    sock.settimeout(max(deadline - time.monotonic(), 0.001))
    sock.sendall(_LENGTH.pack(len(data)) + data)


def _receive(sock: socket.socket, deadline: float | None) -> bytes:
    """One message from `sock` (EOFError if it closes first; TimeoutError past `deadline`).
    The length and the bytes are read together: one read takes most messages whole."""
    data = bytearray()
    size = _LENGTH.size
    while len(data) < size:
        if deadline is not None:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
        chunk = sock.recv(max(size - len(data), 1 << 16))
        if not chunk:
            raise EOFError("the other end has closed")
        data += chunk
        if len(data) >= _LENGTH.size and size == _LENGTH.size:
            size += _LENGTH.unpack_from(data)[0]
    return bytes(data[_LENGTH.size:])


RULES_HOST = RulesHost()


@functools.lru_cache(maxsize=64)
def made_game(name: str, params: str) -> Game[Any]:
    """The game `name` with these parameters (JSON, as a record keeps them), made once for
    every call about it: a game's rules are immutable (each game is a new state), and making
    them is a fifth of a Triangle War record's replay."""
    return find_game(name, **json.loads(params))


# ---- the host's side ------------------------------------------------------------------------

def main(fd: int) -> None:
    """The host's life: answer each call, one at a time, until the arbiter's end closes."""
    import resource

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash of the rules leaves no core file behind
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    cap = RULES_HOST_MEMORY_MB << 20
    resource.setrlimit(resource.RLIMIT_DATA, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    sock = socket.socket(fileno=fd)
    sock.setblocking(True)
    functions: dict[str, Callable[..., Any]] = {}
    sock.sendall(_LENGTH.pack(0))  # ready: imported, waiting for calls
    while True:
        try:
            function, args = pickle.loads(_receive(sock, None))
        except (EOFError, OSError):
            return  # the arbiter has gone
        try:
            if function not in functions:
                module, _, name = function.partition(":")
                functions[function] = getattr(importlib.import_module(module), name)
            answer = pickle.dumps(("ok", functions[function](*args)), pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - the rules' failure, answered as a sentence
            answer = pickle.dumps(("raised", f"{type(exc).__name__}: {_one_line(exc)}"), pickle.HIGHEST_PROTOCOL)
        try:
            sock.sendall(_LENGTH.pack(len(answer)) + answer)
        except OSError:
            return


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


if __name__ == "__main__":
    main(int(sys.argv[1]))

__all__ = ["CALL_DEADLINE_S", "RECYCLE_AFTER_CALLS", "RULES_HOST", "RULES_HOST_MEMORY_MB", "RulesFailed", "RulesHost", "hosted", "made_game"]
