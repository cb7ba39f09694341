"""Reading /proc: one process's files, its children, its state; signals that tolerate a gone process.

Shared by the process owner (`process.py`) and the box's keeper (`sandbox.py`); Linux only.
"""
from __future__ import annotations

import os
import time
from typing import Iterator

from . import SHORTAGES

STAT_MAX_BYTES = 2048  # a stat line: 52 numbers of at most 20 digits and a 64-byte name at most


def read_proc(path: str, max_bytes: int | None = None) -> bytes | None:
    """A /proc file's contents, or None when the process is gone (a shortage of the arbiter's,
    `SHORTAGES`, is raised: it never reads as a gone process). With `max_bytes`, one read
    of at most that much: enough for a file of one short record (a `stat` line, a `syscall`),
    which the kernel hands over whole in one read, and a system call fewer than to the end."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        if exc.errno in SHORTAGES:
            raise
        return None
    try:
        if max_bytes is not None:
            return os.read(fd, max_bytes)
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def stat_fields(pid: int) -> list[bytes] | None:
    """Fields of /proc/PID/stat after the command name: [0] is field 3 (state)."""
    data = read_proc(f"/proc/{pid}/stat", STAT_MAX_BYTES)
    if not data:
        return None
    return data.rsplit(b")", 1)[1].split()


def open_proc(path: str) -> int | None:
    """A /proc file opened for reading, or None when the process is gone."""
    try:
        return os.open(path, os.O_RDONLY)
    except OSError as exc:
        if exc.errno in SHORTAGES:
            raise
        return None


def pread_proc(fd: int | None, path: str, max_bytes: int = 65536) -> bytes | None:
    """An open /proc file read again from the start, else the file at `path` read afresh.

    `max_bytes` is worth keeping small for the files read on every move: Python allocates
    that much, and a sysctl file (ns_last_pid) has the kernel zero that much, per read."""
    if fd is None:
        return read_proc(path)
    try:
        return os.pread(fd, max_bytes, 0)
    except OSError:
        return None  # the process is gone


def threads(pid: int) -> list[str]:
    """The thread ids of a process (names in /proc/PID/task); none when it is gone."""
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError as exc:
        if exc.errno in SHORTAGES:
            raise
        return []


def children(pid: int) -> list[int]:
    """The pids of a process's children (of all its threads); empty when it is gone."""
    tids = threads(pid)
    listed = b" ".join(read_proc(f"/proc/{pid}/task/{tid}/children") or b"" for tid in tids)
    return [int(child) for child in listed.split()]


def is_running(pid: int) -> bool:
    """Whether the process exists and is neither stopped nor a zombie."""
    fields = stat_fields(pid)
    return fields is not None and fields[0] not in (b"T", b"t", b"Z")


def reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def cpu_clock(pid: int) -> int:
    """The clock id of a process's CPU-time clock (Linux's CPUCLOCK_SCHED for the whole process)."""
    return ((~pid) << 3) | 2


def sample_cpu(pid: int, stat_fd: int | None = None,
                children_fd: int | None = None) -> tuple[int, int, list[int]] | None:
    """One process: (its CPU ns, its reaped children's CPU ticks, its children's pids), or None when gone."""
    # The main thread's stat: cheaper than the process's (no walk over threads), and its
    # cutime, cstime and num_threads are the whole process's.
    stat = pread_proc(stat_fd, f"/proc/{pid}/task/{pid}/stat", STAT_MAX_BYTES)
    if not stat:
        return None
    fields = stat.rsplit(b")", 1)[1].split(None, 18)
    try:
        own_ns = time.clock_gettime_ns(cpu_clock(pid))
    except OSError:
        own_ns = 0  # exited between the two reads
    reaped_ticks = int(fields[13]) + int(fields[14])  # cutime + cstime
    if int(fields[17]) == 1:  # num_threads: children hang off the thread that forked them
        listed = pread_proc(children_fd, f"/proc/{pid}/task/{pid}/children") or b""
    else:
        tids = threads(pid)
        listed = b" ".join(read_proc(f"/proc/{pid}/task/{tid}/children") or b"" for tid in tids)
    return own_ns, reaped_ticks, [int(child) for child in listed.split()]


def every_process() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, stat fields) of every process on the machine that we can read."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = stat_fields(int(name))
            if fields is not None:
                yield int(name), fields


def descendants(pid: int) -> Iterator[tuple[int, list[bytes]]]:
    """(pid, stat fields) of every descendant of a process."""
    pending = children(pid)
    while pending:
        child = pending.pop()
        fields = stat_fields(child)
        if fields is not None:
            yield child, fields
            pending.extend(children(child))
