#!/usr/bin/env python3
"""Greedy bot for the dots games: completes a cell whenever it can (the most first), else
plays a safe move (one that gives the opponent no cell), else gives away as few cells as
possible. Random among equals; --seed makes it reproducible."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, exit_now, run_bot  # noqa: E402
from arbiter.games.dots import DotsGame, DotsState  # noqa: E402
from players.strategies import require_game  # noqa: E402
from players.strategies.greedy import choose_greedy  # noqa: E402


def choose(state: DotsState, ctx: BotContext) -> int:
    """The greedy move."""
    require_game(ctx, DotsGame, "greedy")
    return choose_greedy(state, ctx)


if __name__ == "__main__":
    exit_now(run_bot(choose, description=__doc__))
