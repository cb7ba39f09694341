#!/usr/bin/env python3
"""CodeCup Sudoku random player: a random placement that keeps a solution and reduces the
solutions; it never claims. With one solution left no such placement exists, and it plays
any placement the sudoku rules allow (and loses 1-2). Like the contest's "player1".

Run: python players/sudoku_random.py --game codecup-sudoku   (the codecup dialect)
"""
from __future__ import annotations

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, run_bot  # noqa: E402
from arbiter.games.codecup_sudoku import CodecupSudokuState, SudokuMove  # noqa: E402
from arbiter.games.sudoku_solver import PEERS, has_solution  # noqa: E402


def reducing_move(grid: bytes | bytearray, rng: random.Random) -> SudokuMove | None:
    """A random placement that leaves a solution and strictly reduces the solutions, or None
    when there is none (the grid has one solution left).

    Cells are tried in random order; the first cell where two digits each keep a solution
    is used, with one of those digits chosen uniformly.
    """
    empty = [cell for cell in range(81) if not grid[cell]]
    rng.shuffle(empty)
    for cell in empty:
        seen = {grid[peer] for peer in PEERS[cell]}
        digits = [d for d in range(1, 10) if d not in seen]
        rng.shuffle(digits)
        first: int | None = None
        trial = bytearray(grid)
        for digit in digits:
            trial[cell] = digit
            if has_solution(trial):
                if first is not None:
                    return SudokuMove(cell, first, False)  # a second digit fits: the cell is open
                first = digit
    return None


def choose(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """A random reducing placement, else any rule-legal placement; never a claim."""
    return reducing_move(state.grid, ctx.rng) or ctx.rng.choice(state.legal_moves())


if __name__ == "__main__":
    sys.exit(run_bot(choose, description=__doc__))
