#!/usr/bin/env python3
"""CodeCup Sudoku claiming player: claims `!` when the opponent's move left one solution,
otherwise plays like sudoku_random.py and adds `!` when its own placement leaves one
solution. Like the contest's "player2".

Run: python players/sudoku_claimer.py --game codecup-sudoku   (the codecup dialect)
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, run_bot  # noqa: E402
from arbiter.games.codecup_sudoku import CLAIM, CodecupSudokuState, SudokuMove  # noqa: E402
from arbiter.games.sudoku_solver import count_solutions  # noqa: E402
from sudoku_random import reducing_move  # noqa: E402


def choose(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """`!` on a unique grid, else a random reducing placement, with `!` if it leaves one solution."""
    grid = state.grid
    if count_solutions(grid, 2) == 1:
        return CLAIM
    move = reducing_move(grid, ctx.rng)
    assert move is not None, "two or more solutions always leave a reducing placement"
    after = bytearray(grid)
    after[move.cell] = move.digit  # type: ignore[index]
    if count_solutions(after, 2) == 1:
        return move._replace(claim=True)
    return move


if __name__ == "__main__":
    sys.exit(run_bot(choose, description=__doc__))
