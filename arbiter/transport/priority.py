"""The arbiter's own punctuality: a real-time priority for the threads that watch the clocks
(the referee's during a game's turns, and ZeroMQ's I/O thread).

On a busy machine an ordinary thread asked to wake at a deadline may run milliseconds
later (4.6 ms at the median and 62 ms at worst here, with six CPU burners on 2 cores),
and a look at a bot's output that late cannot say whether a line found then arrived
before the deadline or after it. A thread at the lowest real-time priority (`SCHED_FIFO`
1) runs as soon as it wakes, ahead of every ordinary process (37 us at the median and
73 us at worst in the same run), so the referee looks when the deadline falls.

Where the arbiter may not raise its priority (it needs root, `CAP_SYS_NICE` or an
`RLIMIT_RTPRIO` of at least 1, `ulimit -r`), nothing changes but precision: a verdict the
arbiter's own lateness could have decided is given to the bot and noted in the record
(docs/protocol.md, Time).

`SCHED_RESET_ON_FORK` is always set with it: a bot, and every thread the arbiter starts,
is born an ordinary process whoever starts it.
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import Iterator

REALTIME_PRIORITY = 1  # the lowest: the arbiter only needs to wake ahead of ordinary processes
# How long a real-time thread sleeps to let an ordinary process run (`let_others_run`).
LET_RUN_S = 0.00005

_probe_lock = threading.Lock()
_allowed: bool | None = None
_raised = threading.local()  # `on`: this thread is inside `punctual` at real-time priority


def realtime_allowed() -> bool:
    """Whether this process may run a thread at REALTIME_PRIORITY (probed once, on a
    short-lived thread, so that no thread of the caller's is changed by the probe)."""
    global _allowed
    with _probe_lock:
        if _allowed is None:
            answer: list[bool] = []
            probe = threading.Thread(target=lambda: answer.append(_raise_thread()), name="arbiter-rt-probe")
            probe.start()
            probe.join()
            _allowed = bool(answer and answer[0])
        return _allowed


def _raise_thread() -> bool:
    """Put the calling thread at REALTIME_PRIORITY; whether the kernel allowed it."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, os.sched_param(REALTIME_PRIORITY))
    except (OSError, AttributeError):  # not permitted, or a platform without these calls
        return False
    return True


@contextmanager
def punctual() -> Iterator[bool]:
    """Run the block with the calling thread at REALTIME_PRIORITY when the machine allows
    it (yields whether it does), and give the thread back its own policy afterwards."""
    if not realtime_allowed():
        yield False
        return
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
    raised = policy & ~os.SCHED_RESET_ON_FORK != os.SCHED_FIFO and _raise_thread()
    was_on = getattr(_raised, "on", False)
    _raised.on = raised or policy & ~os.SCHED_RESET_ON_FORK == os.SCHED_FIFO
    try:
        yield _raised.on
    finally:
        _raised.on = was_on
        if raised:
            os.sched_setscheduler(0, policy, param)


def let_others_run() -> None:
    """Give the CPU to an ordinary process that is waiting for it (a bot that must run to
    take the SIGSTOP it was sent). An ordinary thread yields; a real-time one sleeps a moment
    (LET_RUN_S): `sched_yield` would hand the CPU straight back to it, ahead of every
    ordinary process."""
    if getattr(_raised, "on", False):
        time.sleep(LET_RUN_S)
    else:
        os.sched_yield()


__all__ = ["REALTIME_PRIORITY", "let_others_run", "punctual", "realtime_allowed"]
