"""The transport layer: bytes to protocol lines, and the bot processes behind them.

The referee talks to each seat through two small objects, so that it never knows
whether a bot sits behind pipes or a socket:

- a **channel** (`Channel`), which moves protocol lines:

  - `send_lines(lines, deadline) -> None | Timeout | Closed`: write the lines, each with
    its `\\n`, in one go. Never blocks past `deadline` (a `time.monotonic()` value): a
    peer that does not read its input gets `TIMEOUT`; a peer that is gone gets `Closed`.
  - `read_line(deadline) -> str | Timeout | Closed | BadLine`: the next line, without its
    line ending. Waits at most until `deadline`; `deadline <= now` only looks at what has
    already arrived, which is how the referee checks for output out of turn. A line over
    `MAX_LINE_BYTES` or not valid UTF-8 is a `BadLine`, found without buffering more than
    one line's worth of bytes. After `Closed` or `BadLine` the channel is finished.
  - `arrival() -> (earliest, latest)`: when the line `read_line` last returned arrived, as
    `time.monotonic()` values: after `earliest` (the channel's last look that found nothing
    waiting) and by `latest` (the look that found it). Neither a pipe nor ZeroMQ timestamps
    what arrives, so this is as exact as the arbiter's looks are punctual (`priority.py`);
    the referee judges a line against its deadline by it (docs/protocol.md, Time).
  - `input_pending() -> bool`: whether lines sent are still waiting for the bot to take
    them (bytes in its stdin pipe; over a socket, lines held until it connects). With its
    process asleep, a bot with none pending waits for input: it has finished starting.
  - `close_input()`: end of file on the bot's input (pipes); its output stays readable, so a
    bot that answers after the game's end writes into an open pipe, never a closed one.
  - `close()`: release the channel; idempotent.

- a **process handle** (`BotProcess` in `process.py`) for bots the arbiter launched, which
  owns the process tree: `suspend()`, `resume()`, `cpu_ms()`, `exit_status()`,
  `wait_exit(timeout_s)`, `end(...)` and `kill_tree()`. Remote bots have none.

`pipe.py` implements the channel over a bot's stdin/stdout; a socket transport implements
the same `Channel` and reuses `BotProcess` for bots it launches.
"""
from __future__ import annotations

import errno
import signal
from dataclasses import dataclass
from typing import Protocol, Sequence, Union

# An errno that says the machine or the arbiter ran short (of descriptors, memory, processes,
# buffers, space), not that a process is gone or a bot's command is wrong: such a failure is
# the arbiter's, raised as OSError (a tournament's arbiter fault: said, no bot blamed, played
# again on resume), wherever it shows: at a launch, at a look at a starting bot, at a socket.
SHORTAGES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN, errno.ENOSPC, errno.ENOBUFS})


def signal_name(signum: int) -> str:
    """`SIGSEGV`, or `signal 99` for a number the system does not name: how a process that a
    signal ended is said (a bot, a worker, the rules host, a check's or a probe's process)."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"

# A protocol line is at most this many bytes, line ending excluded (docs/protocol.md).
MAX_LINE_BYTES = 4096


class Timeout:
    """The deadline passed before the operation could complete."""

    _instance: Timeout | None = None

    def __new__(cls) -> Timeout:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "TIMEOUT"


TIMEOUT = Timeout()


@dataclass(frozen=True)
class Closed:
    """The peer closed its end (its output reached end of file, or its input is gone)."""

    why: str = "end of file"


@dataclass(frozen=True)
class BadLine:
    """Bytes that cannot be a protocol line: `why` says what is wrong, `head` shows the start."""

    why: str
    head: bytes = b""

    def describe(self) -> str:
        """`why`, plus the first bytes when there are any, for a record's detail."""
        return f"{self.why} (starts {self.head[:40]!r})" if self.head else self.why


ReadResult = Union[str, Timeout, Closed, BadLine]
SendResult = Union[None, Timeout, Closed]


class Channel(Protocol):
    """One seat's line channel; see the module docstring for the exact contract."""

    def send_lines(self, lines: Sequence[str], deadline: float) -> SendResult: ...

    def read_line(self, deadline: float) -> ReadResult: ...

    def arrival(self) -> tuple[float, float]: ...

    def input_pending(self) -> bool: ...

    def close_input(self) -> None: ...

    def close(self) -> None: ...


def decode_line(raw: bytes) -> str | BadLine:
    """One line's bytes (line ending removed) to text, or why they are not a line."""
    if len(raw) > MAX_LINE_BYTES:
        return BadLine(f"a line longer than {MAX_LINE_BYTES} bytes", raw[:40])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return BadLine(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", raw[:40])


__all__ = [
    "MAX_LINE_BYTES",
    "SHORTAGES",
    "TIMEOUT",
    "BadLine",
    "Channel",
    "Closed",
    "ReadResult",
    "SendResult",
    "Timeout",
    "decode_line",
    "signal_name",
]
