#!/usr/bin/env python3
"""A bot that spends a fixed share of its per-move cap on every move, busy on the CPU, then
plays a random legal move (benchmarks/bench_timeouts.py).

$BUSY_SHARE (default 0.8) of `move_ms`, on the clock $BUSY_CLOCK names: `cpu` (its process's
CPU time, as `clock: cpu` counts) or `wall` (monotonic time). A move's time runs from the
moment its turn reached the bot, and the first move's from the process's start: the arbiter
counts the bot's start-up on its first move (the bot is stopped from its launch until its
first turn), so this bot counts it too and never means to use more than its share.
"""
import time

# The process's start, as well as it can be known from inside: when it was launched, if it
# has been running since (start-up is CPU-bound). Read before any import.
BORN_WALL_S = time.monotonic() - time.process_time()

import os  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arbiter.bot import BotContext, run_bot  # noqa: E402
from arbiter.games import State  # noqa: E402

SHARE = float(os.environ.get("BUSY_SHARE", "0.8"))
CLOCK = time.process_time if os.environ.get("BUSY_CLOCK", "cpu") == "cpu" else time.monotonic


def choose(state: State, ctx: BotContext):
    """Burn SHARE of move_ms on CLOCK from the move's start, then a random legal move."""
    if "moved" in ctx.memory:
        move_start = CLOCK()  # the kit calls choose as soon as the turn's lines are read
    else:
        move_start = 0.0 if CLOCK is time.process_time else BORN_WALL_S
        ctx.memory["moved"] = True
    until = move_start + SHARE * (ctx.move_ms or 0) / 1000
    while CLOCK() < until:
        pass
    return ctx.rng.choice(state.legal_moves())


if __name__ == "__main__":
    sys.exit(run_bot(choose, description=__doc__))
