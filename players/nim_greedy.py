#!/usr/bin/env python3
"""Greedy bot for Limit Nim: takes as many stones as a pile's limit allows, unless that
leaves a position from which the opponent can take everything. Random among equals;
--seed makes it reproducible."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, exit_now, run_bot  # noqa: E402
from arbiter.games.limit_nim import LimitNim, LimitNimState  # noqa: E402
from players.strategies import require_game  # noqa: E402
from players.strategies.nim import Move, choose_nim_greedy  # noqa: E402


def choose(state: LimitNimState, ctx: BotContext) -> Move:
    """The greedy move."""
    require_game(ctx, LimitNim, "nim_greedy")
    return choose_nim_greedy(state, ctx)


if __name__ == "__main__":
    exit_now(run_bot(choose, description=__doc__))
