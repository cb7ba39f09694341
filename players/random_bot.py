#!/usr/bin/env python3
"""Random bot: plays a uniformly random legal move, in every game."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, exit_now, run_bot  # noqa: E402
from arbiter.games import State  # noqa: E402


def choose(state: State, ctx: BotContext):
    """A uniformly random legal move."""
    return ctx.rng.choice(state.legal_moves())


if __name__ == "__main__":
    exit_now(run_bot(choose, description=__doc__))
