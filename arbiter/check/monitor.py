"""Runs a bot under watch for `arbiter check`: its exit after `Quit`, what it leaves behind, its peak memory.

    python -m arbiter.check.monitor [--no-quit] BOT_COMMAND...

The monitor starts the bot as its child with the same standard input, output and error (so
every protocol line passes untouched), waits for it, and writes one report line on stderr,
which the arbiter saves in the bot's log. With `--no-quit` it passes the bot its input
line by line instead, and ends the game as CodeCup does after a winning move: `Quit` is not
passed on, the bot's input is closed in its place. The report line:

    arbiter-check-monitor: status=S peak_kb=K sigterm=T left=PID:NAME,...

`status` is the bot's wait status, `peak_kb` the largest peak resident set (VmHWM) read
from the bot or one of its children every 20 ms while it ran, `sigterm` 1 when the arbiter's SIGTERM (sent 0.5 s after `Quit`)
found the bot still running, `left` the processes of the bot's that were still alive
0.2 s after it exited. The arbiter already runs the monitor as the top of the bot's session
and as a child subreaper, so orphans of the bot come to it and show up here.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

from ..protocol import QUIT

TAG = "arbiter-check-monitor:"
LEFTOVER_WAIT_S = 0.2  # a child that is exiting too (its input closed with the bot's) gets this long
PEAK_POLL_S = 0.02  # how often the bot's peak memory is read while it runs


def _report(**fields: object) -> None:
    text = " ".join(f"{key}={value}" for key, value in fields.items())
    os.write(2, f"{TAG} {text}\n".encode())


def _peak_kb(pid: int) -> int:
    """The peak resident memory of a live process (VmHWM), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    """The bot's child processes (one level: helpers it starts)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as children:
            return [int(word) for word in children.read().split()]
    except (OSError, ValueError):
        return []


def _stat(pid: int | str) -> tuple[str, str, int, int] | None:
    """(name, state, ppid, session id) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read().decode(errors="replace")
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return text[text.index("(") + 1:text.rindex(")")], fields[0], int(fields[1]), int(fields[3])


def _ancestors() -> set[int]:
    """This process's ancestors (in a sandbox, its box's init and launcher share the session)."""
    found: set[int] = set()
    pid = os.getppid()
    while pid > 0 and pid not in found:
        found.add(pid)
        info = _stat(pid)
        pid = info[2] if info else 0
    return found


def _alive_others() -> list[str]:
    """Live processes of this session other than this one and its ancestors, and this process's children."""
    me = os.getpid()
    session = os.getsid(0)
    skip = _ancestors() | {me}
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in skip:
            continue
        info = _stat(entry)
        if info is None:
            continue
        name, state, ppid, sid = info
        if state in ("Z", "X"):
            if ppid == me:
                try:
                    os.waitpid(int(entry), os.WNOHANG)  # an orphan of the bot's, handed to us
                except ChildProcessError:
                    pass
            continue
        if sid == session or ppid == me:
            found.append(f"{entry}:{name.replace(',', '_').replace(' ', '_')}")
    return found


class _QuitWithheld:
    """The bot's input, passed on line by line but for `Quit`, which closes it instead."""

    def __init__(self, to_bot: int) -> None:
        self.to_bot: int | None = to_bot
        self.pending = b""

    def take(self) -> None:
        """Pass on what has arrived on our stdin (readable now)."""
        chunk = os.read(0, 65536)
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            if self.to_bot is None:
                return
            if line.strip() == QUIT.encode():
                self.close()
                return
            try:
                os.write(self.to_bot, line + b"\n")
            except OSError:
                self.close()  # the bot closed its input: nothing more to pass on
        if not chunk:
            self.close()

    def close(self) -> None:
        if self.to_bot is not None:
            os.close(self.to_bot)
            self.to_bot = None


def main(argv: list[str]) -> int:
    """Run `argv` as the watched bot; exit with its status."""
    withhold_quit = argv[:1] == ["--no-quit"]
    argv = argv[1:] if withhold_quit else argv
    if not argv:
        print("usage: python -m arbiter.check.monitor [--no-quit] BOT_COMMAND...", file=sys.stderr)
        return 2
    sigterm = False

    def on_term(signum: int, frame: object) -> None:
        nonlocal sigterm
        sigterm = True
        _report(sigterm=1, note="the bot was still running")

    signal.signal(signal.SIGTERM, on_term)
    try:
        bot = subprocess.Popen(argv, stdin=subprocess.PIPE if withhold_quit else None)
    except OSError as exc:
        print(f"{TAG} cannot start {argv[0]!r}: {exc}", file=sys.stderr)
        return 127
    relay = None
    if withhold_quit:
        assert bot.stdin is not None
        relay = _QuitWithheld(os.dup(bot.stdin.fileno()))
        bot.stdin.close()
    peak_kb = 0
    exited = os.pidfd_open(bot.pid)
    while True:  # poll: a child's ru_maxrss would count the monitor's own memory, copied at fork
        peak_kb = max(peak_kb, _peak_kb(bot.pid), *(_peak_kb(pid) for pid in _children(bot.pid)))
        pid, status = os.waitpid(bot.pid, os.WNOHANG)
        if pid:
            break
        # Waits on the bot's exit (and its input), not in a timed sleep: the arbiter takes a
        # process sleeping for a time it chose for one still starting (docs/protocol.md, Start-up).
        watched = [exited] + ([0] if relay is not None and relay.to_bot is not None else [])
        ready, _, _ = select.select(watched, [], [], PEAK_POLL_S)
        if 0 in ready and relay is not None:
            relay.take()
    deadline = time.monotonic() + LEFTOVER_WAIT_S
    left = _alive_others()
    while left and time.monotonic() < deadline:
        time.sleep(0.01)
        left = _alive_others()
    _report(status=status, peak_kb=peak_kb, sigterm=int(sigterm), left=",".join(left) or "-")
    return os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
