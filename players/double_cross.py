#!/usr/bin/env python3
"""Double-cross bot for the dots games: greedy play plus Berlekamp's endgame theory. It
keeps control of the endgame by declining the last two cells of a chain (four of a loop)
when that wins more, opens the cheapest component when it must give, and steers the last
safe moves toward a favorable chain count. --seed makes its random choices reproducible."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, exit_now, run_bot  # noqa: E402
from arbiter.games.dots import DotsGame, DotsState  # noqa: E402
from players.strategies import require_game  # noqa: E402
from players.strategies.double_cross import choose_double_cross  # noqa: E402


def choose(state: DotsState, ctx: BotContext) -> int:
    """The double-cross move."""
    require_game(ctx, DotsGame, "double_cross")
    return choose_double_cross(state, ctx)


if __name__ == "__main__":
    exit_now(run_bot(choose, description=__doc__))
