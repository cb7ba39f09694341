#!/usr/bin/env python3
"""CodeCup Sudoku random player, like the contest's "player1": a random placement that keeps
a solution and reduces the solutions; it never claims, so with one solution left it plays
any placement the rules allow (and loses 1-2).

Run: python players/sudoku_random.py --game codecup-sudoku   (the codecup dialect: no Game line)
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, exit_now, run_bot  # noqa: E402
from arbiter.games.codecup_sudoku import CodecupSudoku, CodecupSudokuState, SudokuMove  # noqa: E402
from players.strategies import require_game  # noqa: E402
from players.strategies.sudoku import choose_random  # noqa: E402


def choose(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """The random player's move."""
    require_game(ctx, CodecupSudoku, "sudoku_random")
    return choose_random(state, ctx)


if __name__ == "__main__":
    exit_now(run_bot(choose, description=__doc__))
