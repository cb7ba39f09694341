"""Functions the rules host runs in the tests of tests/test_rules_host.py: one that answers,
one that raises, and rules that crash (a segfault, an abort) or hang holding Python's lock."""
from __future__ import annotations

import ctypes
import os
import re


def pid_of_host() -> int:
    """The pid of the process it runs in."""
    return os.getpid()


def echo(value: object) -> object:
    return value


def raises() -> None:
    raise RuntimeError("the rules failed on purpose (move.cc:623 CHECK_TRUE(move.IsValid()))")


def segfault() -> None:
    ctypes.string_at(0)


def abort() -> None:
    os.abort()


def hang() -> None:
    re.match(r"(a+)+b", "a" * 64)  # catastrophic backtracking: in C, holding Python's lock, for ages


def crash_once(marker: str) -> str:
    """Crashes the first host it runs in (the one that creates `marker`), answers in the next:
    a crash from damage an earlier call left."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return "fine"
    os.abort()


def grow(megabytes: int) -> int:
    """Rules that take `megabytes` of memory (a board too big to hold): the host's cap stops them."""
    held = bytearray(megabytes << 20)
    return len(held)
