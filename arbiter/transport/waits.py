"""Waiting for descriptors to become readable, whatever their numbers.

`select` waits to the microsecond, which the referee's punctual looks use (a pause that ends
at a bot's limit), but takes no descriptor numbered FD_SETSIZE (1024) or above: an arbiter
running many games at once holds more descriptors than that (every box's pipes, every bot's
pidfd and its /proc and control-group files), and `select` then raises ValueError. `poll`
takes any descriptor, to the millisecond (rounded up, so never before the time asked). So
`select` while every descriptor waited on is within its reach, and `poll` beyond it."""
from __future__ import annotations

import math
import select
from typing import Sequence

SELECT_LIMIT = 1024  # FD_SETSIZE on Linux: the first descriptor number `select` cannot take


def readable(fds: Sequence[int], timeout_s: float) -> list[int]:
    """Those of `fds` that are readable (or hung up, or in error) within `timeout_s` (0: only
    a look); the wait ends as soon as one is."""
    if all(fd < SELECT_LIMIT for fd in fds):
        return select.select(fds, [], [], max(0.0, timeout_s))[0]
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return [fd for fd, _ in poller.poll(max(0, math.ceil(timeout_s * 1000)))]


__all__ = ["SELECT_LIMIT", "readable"]
