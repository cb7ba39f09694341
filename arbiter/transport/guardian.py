"""The guardian: one small process per arbiter process that launches bots, started on first
use, holding the read end of a pipe. When that process dies in any way (even `kill -9`) the
pipe reaches end of file and the guardian SIGKILLs every registered session, grandchildren
included (process.py registers every bot's session, and a box's keeper's)."""
from __future__ import annotations

import subprocess
import sys
import threading

# Runs with `python -I -S -c`: reads `+ID`/`-ID` lines; at end of file (the arbiter is
# gone), SIGKILLs every process whose session or process group is a registered id.
_GUARDIAN_CODE = r"""
import os, signal, sys
for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(signum, signal.SIG_IGN)
ids = set()
for line in sys.stdin.buffer:
    (ids.add if line[:1] == b"+" else ids.discard)(int(line[1:]))
for sid in ids:
    try:
        os.killpg(sid, signal.SIGKILL)
    except OSError:
        pass
if ids:
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/" + name + "/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            if int(fields[2]) in ids or int(fields[3]) in ids:
                os.kill(int(name), signal.SIGKILL)
        except (OSError, IndexError, ValueError):
            pass
"""


class _Guardian:
    """The per-arbiter watchdog process; thread-safe, restarted if it ever dies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._registered: set[int] = set()

    def register(self, session_id: int) -> None:
        """From now on, the session dies when the arbiter dies."""
        with self._lock:
            self._registered.add(session_id)
            self._send(f"+{session_id}\n")

    def unregister(self, session_id: int) -> None:
        """The session is over; forget it (its id may be reused)."""
        with self._lock:
            self._registered.discard(session_id)
            self._send(f"-{session_id}\n")

    def _send(self, text: str) -> None:
        for _ in range(2):
            if self._process is None or self._process.poll() is not None:
                self._start()
            assert self._process is not None and self._process.stdin is not None
            try:
                self._process.stdin.write(text.encode())
                return
            except OSError:
                self._process = None  # it died; start a new one, told about every session

    def _start(self) -> None:
        # Its own session: a Ctrl-C at the terminal must not kill it before it can act.
        # No parent-death signal: outliving the arbiter is its purpose.
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _GUARDIAN_CODE],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, env={}, bufsize=0,
        )
        assert process.stdin is not None
        process.stdin.write("".join(f"+{sid}\n" for sid in self._registered).encode())
        self._process = process


GUARDIAN = _Guardian()


__all__ = ["GUARDIAN"]
