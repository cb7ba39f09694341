"""An honest bot that notes on stderr when it is first asked for a move, as
`asked for a move at NS` (`time.monotonic_ns()`: the machine's monotonic clock, the same in
every process and box), so a test can order that after what another bot noted. Plays the
first legal move."""
import sys
import time

from misbehave import first_legal

from arbiter.bot import run_bot


def choose(state, ctx):
    if not ctx.memory:
        ctx.memory["asked"] = True
        ctx.log(f"asked for a move at {time.monotonic_ns()}")
    return first_legal(state)


sys.exit(run_bot(choose))
