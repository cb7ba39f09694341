#!/usr/bin/env python3
"""CodeCup Sudoku claiming player, like the contest's "player2": claims `!` when the
opponent's move left one solution; otherwise plays like sudoku_random.py and adds `!` when
its own placement leaves one solution.

Run: python players/sudoku_claimer.py --game codecup-sudoku   (the codecup dialect: no Game line)
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, exit_now, run_bot  # noqa: E402
from arbiter.games.codecup_sudoku import CodecupSudoku, CodecupSudokuState, SudokuMove  # noqa: E402
from players.strategies import require_game  # noqa: E402
from players.strategies.sudoku import choose_claimer  # noqa: E402


def choose(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """The claimer player's move."""
    require_game(ctx, CodecupSudoku, "sudoku_claimer")
    return choose_claimer(state, ctx)


if __name__ == "__main__":
    exit_now(run_bot(choose, description=__doc__))
