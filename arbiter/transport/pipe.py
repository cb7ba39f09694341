"""The line channel over a bot's stdin and stdout pipes (see `arbiter.transport`)."""
from __future__ import annotations

import array
import fcntl
import math
import os
import select
import termios
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

from . import MAX_LINE_BYTES, TIMEOUT, BadLine, Channel, Closed, ReadResult, SendResult, decode_line
from .process import BotProcess
from .sandbox import SandboxSpec

READ_CHUNK_BYTES = 65536  # so at most one chunk plus one line's worth is ever buffered


class PipeChannel:
    """Protocol lines over two pipes: `write_fd` is the bot's stdin, `read_fd` its stdout.

    Both descriptors are made non-blocking and are owned (closed) by the channel. Every
    wait is a `poll` bounded by the caller's deadline, so no call blocks past it.

    A pipe does not say when bytes arrived: `arrival` bounds it by the channel's own looks,
    the last one that found the pipe empty and the one that found the line.
    """

    def __init__(self, write_fd: int, read_fd: int) -> None:
        os.set_blocking(write_fd, False)
        os.set_blocking(read_fd, False)
        self._write_fd = write_fd
        self._read_fd = read_fd
        self._buffer = bytearray()
        self._finished: Closed | BadLine | None = None
        self._reader = select.poll()
        self._reader.register(read_fd, select.POLLIN)
        self._writer = select.poll()
        self._writer.register(write_fd, select.POLLOUT)
        self._empty_at = time.monotonic()  # the last moment the pipe was seen holding nothing new
        self._arrival = (self._empty_at, self._empty_at)  # of the last chunk read, so of the line returned

    def send_lines(self, lines: Sequence[str], deadline: float) -> SendResult:
        """Write every line with its `\\n` in as few writes as the pipe allows."""
        if not lines:
            return None
        data = memoryview(("\n".join(lines) + "\n").encode())
        while data:
            try:
                written = os.write(self._write_fd, data)
            except BlockingIOError:
                # The pipe is full: the bot is not reading its input. Wait, but not past the deadline.
                if not self._wait_writable(deadline):
                    return TIMEOUT
                continue
            except (BrokenPipeError, OSError):
                return Closed("closed its standard input")
            data = data[written:]
        return None

    def read_line(self, deadline: float) -> ReadResult:
        """The next line (line ending removed), waiting at most until `deadline`."""
        buffer = self._buffer
        if not buffer and self._finished is None:
            now = time.monotonic()
            if deadline <= now and not self._reader.poll(0):
                self._empty_at = now
                return TIMEOUT  # only a look (the referee's, before every turn), and nothing there
        while self._finished is None:
            newline = buffer.find(b"\n")
            if newline >= 0:
                line = decode_line(bytes(buffer[:newline]))
                del buffer[: newline + 1]
                if line.__class__ is not str:
                    self._finished = line
                return line
            if len(buffer) > MAX_LINE_BYTES:
                # Give up on the line here: a 10 MB line is never held in memory whole.
                self._finished = BadLine(f"a line longer than {MAX_LINE_BYTES} bytes", bytes(buffer[:40]))
                break
            if not self._wait_readable(deadline):
                return TIMEOUT
            looked = time.monotonic()
            try:
                chunk = os.read(self._read_fd, READ_CHUNK_BYTES)
            except BlockingIOError:
                self._empty_at = looked
                continue
            # A chunk is read only when the buffer holds no line end, so the next line's end is
            # in this chunk: it arrived after the last empty look and before this read returned.
            self._arrival = (self._empty_at, time.monotonic())
            if not chunk:
                self._finished = Closed("closed its standard output")
            elif not buffer and chunk.find(b"\n") == len(chunk) - 1 and len(chunk) <= MAX_LINE_BYTES + 1:
                # The usual read, one whole line alone: returned without passing through the
                # buffer (a few microseconds a move). Bytes that are not UTF-8 take the buffer's
                # way, which says why they are not a line.
                try:
                    return chunk[:-1].decode("utf-8")
                except UnicodeDecodeError:
                    pass
            buffer += chunk
        return self._finished

    def arrival(self) -> tuple[float, float]:
        """When the line last returned arrived, as far as the channel's looks can tell: after
        the first moment and by the second (`time.monotonic()` values)."""
        return self._arrival

    def _wait_readable(self, deadline: float) -> bool:
        """Wait until the bot's output is readable; False if the deadline passes first, having
        noted when the pipe was last seen empty (a poll that finds nothing looked, at the
        earliest, when it was called, and a poll that timed out, when its time was up)."""
        poller = self._reader
        while True:
            now = time.monotonic()
            remaining_ms = math.ceil((deadline - now) * 1000)
            if remaining_ms <= 0:
                if poller.poll(0):
                    return True
                self._empty_at = now
                return False
            if poller.poll(remaining_ms):
                return True  # ready, or hung up / in error: the next read says which
            self._empty_at = max(self._empty_at, now + remaining_ms / 1000)

    def _wait_writable(self, deadline: float) -> bool:
        """Wait until the bot's input pipe has room; False if the deadline passes first."""
        while True:
            remaining_ms = math.ceil((deadline - time.monotonic()) * 1000)
            if remaining_ms <= 0:
                return bool(self._writer.poll(0))  # only a look: ready now, or not
            if self._writer.poll(remaining_ms):
                return True  # ready, or hung up / in error: the next write says which

    def input_pending(self) -> bool:
        """Whether the bot's stdin pipe still holds bytes it has not read."""
        if self._write_fd < 0:
            return False
        count = array.array("i", [0])
        try:
            fcntl.ioctl(self._write_fd, termios.FIONREAD, count, True)  # either end of a pipe answers
        except OSError:
            return False
        return count[0] > 0

    def close_input(self) -> None:
        """Close the bot's stdin (end of file for it); its stdout stays open and readable."""
        if self._write_fd >= 0:
            try:
                os.close(self._write_fd)
            except OSError:
                pass
            self._write_fd = -1

    def close(self) -> None:
        """Close both pipes; later reads report `Closed`."""
        for fd in (self._write_fd, self._read_fd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._write_fd = self._read_fd = -1
        if self._finished is None:
            self._finished = Closed("the arbiter closed the channel")


def output_look(channels: Sequence[Channel]) -> Callable[[], list[int]]:
    """A look at every channel's output at once, for the referee's check between turns: the
    call returns the indices of the channels that may hold something, which the caller reads
    with `read_line(0.0)` (a partial line still reads as TIMEOUT there).

    The pipe channels with nothing buffered are looked at with one `poll` over all their
    pipes (one system call a turn instead of one a seat), and each found empty is noted as
    seen empty then, as its own look would have. Any other channel (a socket) is always
    named. Made for the channels of one game: a channel closed since counts as named (its
    `read_line` says it is finished)."""
    pipes = [(index, channel) for index, channel in enumerate(channels) if isinstance(channel, PipeChannel)]
    others = [index for index, channel in enumerate(channels) if not isinstance(channel, PipeChannel)]
    poller = select.poll()
    by_fd: dict[int, int] = {}
    for index, channel in pipes:
        poller.register(channel._read_fd, select.POLLIN)
        by_fd[channel._read_fd] = index
    monotonic, poll = time.monotonic, poller.poll

    everyone = list(range(len(channels)))
    pipe_channels = [channel for _, channel in pipes]

    def look() -> list[int]:
        for channel in pipe_channels:
            if channel._buffer or channel._finished is not None:
                return everyone  # the rare case: each read on its own, as before
        now = monotonic()
        ready = poll(0)
        if not ready:  # the usual case
            for channel in pipe_channels:
                channel._empty_at = now
            return others
        found = {by_fd[fd] for fd, _ in ready}
        for index, channel in pipes:
            if index not in found:
                channel._empty_at = now
        return sorted(found.union(others))

    return look


def launch_pipe_bot(command: Sequence[str], *, cwd: str | None = None,
                    env: Mapping[str, str] | None = None, memory_mb: int | None = None,
                    log_path: Path | None = None,
                    sandbox: SandboxSpec | None = None) -> tuple[PipeChannel, BotProcess]:
    """Start a bot speaking the protocol on stdin/stdout (in a box with `sandbox`); raises
    LaunchError if it cannot start."""
    process, stdin_fd, stdout_fd = BotProcess.launch(
        command, cwd=cwd, env=env, memory_mb=memory_mb, log_path=log_path, sandbox=sandbox
    )
    return PipeChannel(stdin_fd, stdout_fd), process
