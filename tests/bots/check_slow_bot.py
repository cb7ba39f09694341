"""Plays honestly but thinks a fixed 300 ms per move, whatever its clock: fine under a
normal budget, out of time under a small one (`arbiter check`: small-clock)."""
import sys
import time

from misbehave import first_legal

from arbiter.bot import run_bot


def choose(state, ctx):
    time.sleep(0.3)
    return first_legal(state)


sys.exit(run_bot(choose))
