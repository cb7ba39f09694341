#!/usr/bin/env python3
"""Perfect bot for Limit Nim: makes a winning play (one after which the opponent has no
winning play) whenever one exists, found with memoized per-pile Grundy numbers; plays
greedy when there is none (or when a pile has more stones than it can solve)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, exit_now, run_bot  # noqa: E402
from arbiter.games.limit_nim import LimitNim, LimitNimState  # noqa: E402
from players.strategies import require_game  # noqa: E402
from players.strategies.nim import Move, make_nim_perfect_chooser  # noqa: E402

perfect = make_nim_perfect_chooser()  # one solver for the whole process: its table carries over


def choose(state: LimitNimState, ctx: BotContext) -> Move:
    """A winning play if there is one."""
    require_game(ctx, LimitNim, "nim_perfect")
    return perfect(state, ctx)


if __name__ == "__main__":
    exit_now(run_bot(choose, description=__doc__))
