"""A bot's stderr: read to its end by one reader thread per arbiter process, kept in its log up
to a cap (`StderrDrain`), so that a bot that floods stderr never blocks on a full pipe and never
fills the disk. A worker process that launches bots has its own reader (started on first use,
forgotten in a forked child)."""
from __future__ import annotations

import io
import os
import select
import threading
from pathlib import Path

LOG_CAP_BYTES = 1 << 20  # a bot's stderr log keeps this much, then a note, then discards
_READ_CHUNK_BYTES = 65536  # what one pass of the reader takes from one descriptor at most


class StderrDrain:
    """Reads a bot's stderr to its end, keeping at most `cap_bytes` in the log.

    Past the cap it writes a note and keeps reading and discarding, so a bot that floods
    stderr never blocks on a full pipe. With no log path everything is discarded, and a log
    that cannot be written is given up (`problem` says why) while the pipe is still read.
    The reading is done by the one reader thread of the arbiter's process (`_StderrReader`),
    which serves every drain: the drain is registered with it here, and ends (its descriptor
    and its log closed) at end of file or when `finish` gives up on it.
    """

    def __init__(self, fd: int, log_path: Path | None, cap_bytes: int = LOG_CAP_BYTES) -> None:
        """Drain `fd`, the read end of a pipe (the drain owns it from now on)."""
        self._fd = fd
        self._log_path = log_path
        self._cap_bytes = cap_bytes
        self._ended = threading.Event()  # set once the descriptor and the log are closed
        self._tail = b""
        self.logged_bytes = 0
        self.discarded_bytes = 0
        self.problem: str | None = None  # why the log could not be kept, if it could not
        # The log being written, and a lock over it and the counts: a bot kept for another
        # game has its log switched (`switch_log`) from the game's thread. Opened here, on the
        # launching thread: a slow file system holds up this launch, not every bot's stderr.
        self._log = self._open(log_path)
        self._log_lock = threading.Lock()
        try:
            _STDERR_READER.add(self)
        except BaseException:  # not read, so not owned: closed here (the arbiter ran short, say)
            self._end()
            raise

    def _open(self, path: Path | None) -> io.FileIO | None:
        """The log file at `path`, or None (and `problem` says why) when there is none."""
        if path is None:
            return None
        try:
            return open(path, "wb", buffering=0)
        except OSError as exc:  # the bot's stderr is still read to its end (discarded), never left to fill
            self.problem = f"its log {path} could not be written: {exc.strerror}"
            return None

    def _close_log(self) -> None:
        """Close the log being written, with the count of what it could not keep (lock held)."""
        log, self._log = self._log, None
        if log is None:
            return
        try:
            if self.discarded_bytes:
                log.write(f"[arbiter: {self.discarded_bytes} bytes discarded]\n".encode())
        except OSError as exc:
            self.problem = f"its log {self._log_path} could not be written: {exc.strerror}"
        finally:
            log.close()

    def switch_log(self, path: Path | None, header: str = "") -> None:
        """From now on write to a new log at `path` (a bot kept for its next game: each game
        has its own log), starting with `header` and with the cap counted afresh. What the bot
        wrote before and the drain has not read yet lands in the new log."""
        self.problem = None  # an earlier game's log problem is that game's
        log = self._open(path)
        if log is not None and header:
            log.write(header.encode())
        with self._log_lock:
            self._close_log()
            self._log = log
            self._log_path = path
            self.logged_bytes = self.discarded_bytes = 0
            self._tail = b""
            if self._ended.is_set():  # nothing more will come: the new log is closed at once
                self._close_log()

    def _keep(self, chunk: bytes) -> None:
        """Log what fits under the cap of a chunk read, count the rest."""
        with self._log_lock:
            log = self._log
            self._tail = (self._tail + chunk)[-1024:]
            kept = chunk[: max(self._cap_bytes - self.logged_bytes, 0)]
            self.logged_bytes += len(kept)
            dropped = len(chunk) - len(kept)
            self.discarded_bytes += dropped
            if kept and log:
                log.write(kept)
            if dropped and self.discarded_bytes == dropped and log:
                log.write(f"\n[arbiter: log truncated at {self._cap_bytes} bytes; "
                          "further output is discarded]\n".encode())

    def _lose_log(self, exc: Exception) -> None:
        """Give up the log after a failure (a write on a full disk, say): from now on what the
        bot writes is read and discarded, and `problem` says why."""
        with self._log_lock:
            log, self._log = self._log, None
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else repr(exc)
            self.problem = f"its log {self._log_path} could not be written: {why}"
            if log is not None:
                try:
                    log.close()
                except OSError:
                    pass  # what it held is lost either way; `problem` says so

    def _end(self) -> None:
        """End of file, or given up: close the log and the descriptor (on the reader thread)."""
        try:
            with self._log_lock:
                self._close_log()
        except Exception as exc:  # never left unended: `wait_eof` and `finish` wait for it
            self._lose_log(exc)
        try:
            os.close(self._fd)
        except OSError:
            pass  # closed already (not by us): nothing left to release
        self._ended.set()

    def wait_eof(self, timeout_s: float) -> bool:
        """Wait up to `timeout_s` for end of file; whether it came."""
        return self._ended.wait(timeout_s)

    def finish(self, timeout_s: float) -> None:
        """Wait for end of file (all writers gone), at most `timeout_s`; then stop anyway."""
        if not self._ended.wait(timeout_s) and _STDERR_READER.stop(self):  # an escaped process holds the pipe
            self._ended.wait(0.5)

    def last_line(self) -> str:
        """The last non-empty line written so far, shortened, for a crash report."""
        lines = self.last_lines()
        return lines[-1].strip()[:200] if lines else ""

    def last_lines(self) -> list[str]:
        """The non-empty lines among the last kilobyte written so far (the first may be cut)."""
        return [ln for ln in self._tail.decode("utf-8", "replace").splitlines() if ln.strip()]


class _StderrReader:
    """The one thread of the arbiter's process that reads every drain's descriptor.

    A thread a bot cost about 150 us of CPU to start and end, woke every 100 ms to look at
    its stop flag, and with several games at once added GIL hand-offs (docs/performance.md,
    One stderr reader). This thread, started on the first drain, waits in one `epoll` over
    every drain's descriptor and a wake-up pipe. A drain is added by the thread that makes
    it, straight into the epoll set (which a wait under way sees: no wake-up a bot); the
    pipe carries only `finish`'s requests to stop reading a pipe that never ends. Each pass
    reads at most one chunk from each ready descriptor, so a bot that floods its stderr
    takes its turn with the others and never starves them; past its cap it is still read
    (and discarded) as fast as it writes. A descriptor at end of file or in error ends its
    own drain only, and a drain whose log fails loses its log, not the thread. In a forked
    child the thread is not there: the child starts its own on its first drain (the process
    that started it is remembered; the parent's epoll set is not touched).
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._owner_pid = 0  # the process whose thread this is (0: none started)
        self._epoll: select.epoll | None = None
        self._wake_r = self._wake_w = -1
        self._drains: dict[int, StderrDrain] = {}  # those being read, by descriptor
        self._stopping: list[StderrDrain] = []  # given up by `finish`, not yet ended

    def add(self, drain: StderrDrain) -> None:
        """Read `drain`'s descriptor from now on (starting this process's thread if need be)."""
        os.set_blocking(drain._fd, False)  # never a read that waits, whoever else holds the pipe
        with self._lock:
            if self._owner_pid != os.getpid():
                self._start()
            assert self._epoll is not None
            self._drains[drain._fd] = drain  # before it can be reported
            try:
                self._epoll.register(drain._fd, select.EPOLLIN)
            except OSError:  # not a pipe (epoll takes no regular file): the arbiter's own mistake
                del self._drains[drain._fd]
                raise

    def stop(self, drain: StderrDrain) -> bool:
        """Have `drain` ended without waiting for its end of file; False when there is nothing to
        end (it has ended, or it is not this process's: a forked child's copy of the parent's)."""
        with self._lock:
            if self._owner_pid != os.getpid() or self._drains.get(drain._fd) is not drain:
                return False
            self._stopping.append(drain)
        try:
            os.write(self._wake_w, b"\0")
        except BlockingIOError:
            pass  # the pipe is full of wake-ups already: the thread will look
        return True

    def _start(self) -> None:
        """Start the thread (lock held)."""
        self._epoll = select.epoll()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._epoll.register(self._wake_r, select.EPOLLIN)
        self._owner_pid = os.getpid()
        threading.Thread(target=self._run, args=(self._epoll, self._wake_r), name="stderr-reader", daemon=True).start()

    def forget(self) -> None:
        """In a forked child: the thread, its epoll set and its drains are the parent's."""
        if self._epoll is not None:
            self._epoll.close()  # this copy only: the parent's set is the parent's
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._reset()  # a new lock too: the parent's may be held by a thread that is not here

    def _run(self, epoll: select.epoll, wake_r: int) -> None:
        drains = self._drains
        while True:
            for fd, _ in epoll.poll():
                if fd == wake_r:
                    self._take_stops(wake_r, epoll)
                    continue
                drain = drains.get(fd)
                if drain is None:
                    continue  # ended earlier in this pass
                try:
                    self._serve(drain, epoll)
                except Exception as exc:  # a log write failing, say: that drain loses its log, never this thread
                    drain._lose_log(exc)

    def _serve(self, drain: StderrDrain, epoll: select.epoll) -> None:
        """Read one chunk of `drain`'s pipe into its log, or end it at end of file or an error."""
        try:
            chunk = os.read(drain._fd, _READ_CHUNK_BYTES)
        except BlockingIOError:
            return  # someone else read it first (a forked child holding the pipe)
        except OSError:
            chunk = b""  # a descriptor in error ends its drain
        if chunk:
            drain._keep(chunk)
        else:
            self._drop(drain, epoll)

    def _take_stops(self, wake_r: int, epoll: select.epoll) -> None:
        """End the drains `finish` gave up on since the last wake-up."""
        try:
            while os.read(wake_r, 4096):
                pass
        except BlockingIOError:
            pass
        with self._lock:
            stopping, self._stopping = self._stopping, []
        for drain in stopping:
            if self._drains.get(drain._fd) is drain:
                self._drop(drain, epoll)

    def _drop(self, drain: StderrDrain, epoll: select.epoll) -> None:
        """Stop reading `drain` and end it."""
        with self._lock:
            self._drains.pop(drain._fd, None)
        try:
            epoll.unregister(drain._fd)
        except OSError:
            pass  # its descriptor was closed under it: nothing is registered any more
        drain._end()


_STDERR_READER = _StderrReader()
os.register_at_fork(after_in_child=_STDERR_READER.forget)
