"""Computes mid-game while starved of CPU: pinned to the CPU $STARVE_CPU, at the lowest
priority (nice 19, for itself and its session's scheduling group), it burns $BURN_MS of CPU time, then moves. Next to a busy program on
that CPU it spends most of that wall time waiting for it: runnable, never blocked."""
import os
import time

from misbehave import first_legal, misbehaving_bot


def act(state, ctx):
    os.sched_setaffinity(0, {int(os.environ["STARVE_CPU"])})
    os.nice(19)
    # Its own session's scheduling group too. The kernel takes an unprivileged write there at
    # most once per 100 ms machine-wide (EAGAIN meanwhile), and the test's busy program has just
    # written its own: try again for a second.
    for _ in range(100):
        try:
            with open("/proc/self/autogroup", "w") as group:
                group.write("19")
            break
        except BlockingIOError:
            time.sleep(0.01)
    until = time.process_time() + float(os.environ.get("BURN_MS", "30")) / 1000
    while time.process_time() < until:
        pass
    return first_legal(state)


misbehaving_bot(act)
