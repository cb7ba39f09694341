#!/usr/bin/env python3
"""CodeCup Sudoku winning player, like the contest's "player3": plays a winning placement
(one that exactly one solution agrees with) with `!` when it sees one, which it does when
the grid has fewer than 2000 solutions; otherwise plays like sudoku_claimer.py.

Run: python players/sudoku_winner.py --game codecup-sudoku   (the codecup dialect: no Game line)
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, exit_now, run_bot  # noqa: E402
from arbiter.games.codecup_sudoku import CodecupSudoku, CodecupSudokuState, SudokuMove  # noqa: E402
from players.strategies import require_game  # noqa: E402
from players.strategies.sudoku import choose_winner  # noqa: E402


def choose(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """The winner player's move."""
    require_game(ctx, CodecupSudoku, "sudoku_winner")
    return choose_winner(state, ctx)


if __name__ == "__main__":
    exit_now(run_bot(choose, description=__doc__))
