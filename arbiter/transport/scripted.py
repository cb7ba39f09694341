"""A scripted channel: a `Channel` that plays a script instead of a bot, for tests.

As python-chess's `MockTransport` does for engines: the test says which lines the referee
will send and what the "bot" answers to each, and afterwards `assert_done()` checks that the
whole script was played. No process, no pipe, and no private method patched: protocol and
clock tests hand such channels to `referee.play_channels` (docs/architecture.md).

>>> bot = ScriptedChannel()
>>> _ = bot.expect("Start", ["1 1"], after_ms=5).expect("Quit")

Timing is real but needs no process: a reply `after_ms` is there `after_ms` after the line
that asked for it was sent, and a read waits for it (a bot thinking) or for its deadline,
whichever comes first. `seen_after_ms` makes a reply that the arbiter "looked at" late: it
arrived after `after_ms` but was only seen at `seen_after_ms` (`arrival()`), which is how
a referee held up by a busy machine sees a line.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Sequence, Union

from . import TIMEOUT, BadLine, Closed, ReadResult, SendResult

Reply = Union[str, BadLine, Closed]


@dataclass(frozen=True)
class _Step:
    line: str  # what the referee is expected to send next
    replies: tuple[Reply, ...]  # what the bot answers to it
    after_ms: float  # ...this long after it was sent
    seen_after_ms: float | None  # ...seen by the arbiter this long after (None: at once)


class ScriptedChannel:
    """One seat's channel that plays a script (see the module docstring)."""

    def __init__(self) -> None:
        self._steps: deque[_Step] = deque()
        self._replies: deque[tuple[Reply, float, float]] = deque()  # (reply, arrives at, seen at)
        self._arrival = (0.0, 0.0)
        self.sent: list[str] = []  # every line the referee sent, in order
        self.input_closed = False
        self.closed = False

    def expect(self, line: str, replies: Sequence[Reply] = (), *, after_ms: float = 0.0,
               seen_after_ms: float | None = None) -> ScriptedChannel:
        """Script the referee's next line and the bot's answer to it; returns the channel, so
        that steps chain."""
        self._steps.append(_Step(line, tuple(replies), after_ms, seen_after_ms))
        return self

    def write(self, replies: Sequence[Reply]) -> ScriptedChannel:
        """Lines the bot writes unasked, there from now (output out of turn, or before its start)."""
        now = time.monotonic()
        self._replies.extend((reply, now, now) for reply in replies)
        return self

    def assert_done(self) -> None:
        """Every scripted line was sent, and every reply read."""
        assert not self._steps, f"the referee never sent {[step.line for step in self._steps]}; it sent {self.sent}"
        unread = [reply for reply, _, _ in self._replies]
        assert not unread, f"the referee never read {unread}"

    # --- the Channel interface (transport/__init__.py) ----------------------------------------
    def send_lines(self, lines: Sequence[str], deadline: float) -> SendResult:
        """Match each line against the script and queue its replies; `Closed` once the input is closed."""
        if self.input_closed or self.closed:
            return Closed("the bot's input is closed")
        now = time.monotonic()
        for line in lines:
            self.sent.append(line)
            assert self._steps, f"the referee sent {line!r}, past the end of the script"
            step = self._steps.popleft()
            assert line == step.line, f"the referee sent {line!r} where the script expected {step.line!r}"
            arrives = now + step.after_ms / 1000
            seen = arrives if step.seen_after_ms is None else now + step.seen_after_ms / 1000
            self._replies.extend((reply, arrives, seen) for reply in step.replies)
        return None

    def read_line(self, deadline: float) -> ReadResult:
        """The next reply once it has arrived, waiting at most until `deadline`."""
        if self.closed:
            return Closed("the arbiter closed the channel")
        now = time.monotonic()
        if not self._replies or self._replies[0][1] > max(deadline, now):  # a past deadline: what is there now
            if deadline > now:  # nothing by the deadline: the wait a bot that thinks on costs
                time.sleep(deadline - now)
            return TIMEOUT
        reply, arrives, seen = self._replies.popleft()
        if seen > now:
            time.sleep(seen - now)
        self._arrival = (arrives, max(arrives, seen))
        if isinstance(reply, Closed):
            self.closed = True
        return reply

    def arrival(self) -> tuple[float, float]:
        """When the last line read arrived: (after, by), as `time.monotonic()` values."""
        return self._arrival

    def input_pending(self) -> bool:
        """A script reads every line at once: nothing is ever pending."""
        return False

    def close_input(self) -> None:
        """End of file on the bot's input: later sends are `Closed`."""
        self.input_closed = True

    def close(self) -> None:
        """Release the channel (idempotent)."""
        self.closed = True


__all__ = ["Reply", "ScriptedChannel"]
