#!/usr/bin/env python3
"""CodeCup Sudoku winning player: like sudoku_claimer.py, but first looks for a winning
placement, one that exactly one solution agrees with, and plays it with `!`. It sees such
a placement when the grid has fewer than ENUMERATION_LIMIT solutions (it lists them all and
counts, per cell and digit, the solutions that have that digit there). Like the contest's
"player3".

Run: python players/sudoku_winner.py --game codecup-sudoku   (the codecup dialect)
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, run_bot  # noqa: E402
from arbiter.games.codecup_sudoku import CodecupSudokuState, SudokuMove  # noqa: E402
from arbiter.games.sudoku_solver import enumerate_solutions  # noqa: E402
import sudoku_claimer  # noqa: E402

ENUMERATION_LIMIT = 2000  # listing this many solutions takes about 0.1 s here
UNIQUE_MINIMUM_GIVENS = 17  # no 9 x 9 sudoku with fewer givens has a unique solution


def winning_moves(grid: bytes | bytearray) -> list[SudokuMove]:
    """Every placement after which exactly one solution is left, when the grid has fewer than
    ENUMERATION_LIMIT solutions (and at least two); else an empty list."""
    if sum(1 for digit in grid if digit) + 1 < UNIQUE_MINIMUM_GIVENS:
        return []
    solutions = enumerate_solutions(grid, ENUMERATION_LIMIT)
    if not 2 <= len(solutions) < ENUMERATION_LIMIT:
        return []
    table = np.array(solutions, dtype=np.int8)  # one solution per row
    # agree[cell, d-1]: how many solutions have digit d in that cell
    agree = (table[:, :, None] == np.arange(1, 10, dtype=np.int8)).sum(axis=0)
    # A filled cell agrees with all solutions, so a count of 1 (< len(solutions)) is an open cell.
    return [SudokuMove(int(cell), int(d) + 1, True) for cell, d in np.argwhere(agree == 1)]


def choose(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """A winning claim if it sees one, else what sudoku_claimer.py would play."""
    wins = winning_moves(state.grid)
    if wins:
        return ctx.rng.choice(wins)
    return sudoku_claimer.choose(state, ctx)


if __name__ == "__main__":
    sys.exit(run_bot(choose, description=__doc__))
