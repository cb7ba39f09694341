"""A thief: at its first move it leaves behind a worker that thinks on the opponent's time,
hopping from process to process (each one burns CPU for HOP_MS, forks its successor and
exits), so that a suspension that lists the box's processes and stops them one by one never
finds the one running. It plays honest moves meanwhile; the worker ends after LIFE_S."""
import os
import sys
import time

from misbehave import first_legal

from arbiter.bot import run_bot

HOP_MS = float(os.environ.get("HOP_MS", "2"))
LIFE_S = float(os.environ.get("LIFE_S", "20"))
started = []


def hop_forever() -> None:
    end_of_life = time.monotonic() + LIFE_S
    while time.monotonic() < end_of_life:
        burn_until = time.process_time() + HOP_MS / 1000
        while time.process_time() < burn_until:
            pass
        if os.fork() != 0:
            os._exit(0)  # the successor goes on; this one was never listed
    os._exit(0)


def choose(state, ctx):
    if not started:
        started.append(True)
        if os.fork() == 0:
            os.setsid()
            hop_forever()
    return first_legal(state)


sys.exit(run_bot(choose))
