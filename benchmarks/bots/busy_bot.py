#!/usr/bin/env python3
"""A bot that spends a fixed share of its per-move cap on every move, busy on the CPU, then
plays a random legal move (benchmarks/bench_timeouts.py).

$BUSY_SHARE (default 0.8) of `move_ms`, on the clock $BUSY_CLOCK names: `cpu` (its process's
CPU time, as `clock: cpu` counts) or `wall` (monotonic time), from the moment its turn
reached it (the kit calls `choose` as soon as the turn's lines are read). Its start-up is
off the clock (docs/protocol.md, Start-up), so it is not counted either. With $BUSY_MS, that
many ms instead (a game without `move_ms`: benchmarks/bench_thief.py).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arbiter.bot import BotContext, run_bot  # noqa: E402
from arbiter.games import State  # noqa: E402

SHARE = float(os.environ.get("BUSY_SHARE", "0.8"))
BUSY_MS = os.environ.get("BUSY_MS")
CLOCK = time.process_time if os.environ.get("BUSY_CLOCK", "cpu") == "cpu" else time.monotonic


def choose(state: State, ctx: BotContext):
    """Burn SHARE of move_ms on CLOCK from the move's start, then a random legal move."""
    until = CLOCK() + (float(BUSY_MS) if BUSY_MS else SHARE * (ctx.move_ms or 0)) / 1000
    while CLOCK() < until:
        pass
    return ctx.rng.choice(state.legal_moves())


if __name__ == "__main__":
    sys.exit(run_bot(choose, description=__doc__))
