"""CodeCup Sudoku strategies, like the contest's three sample players.

- `choose_random` ("player1"): a random placement that keeps a solution and reduces the
  solutions; never claims.
- `choose_claimer` ("player2"): `!` when the opponent left one solution; otherwise a random
  reducing placement, with `!` when it leaves one solution.
- `choose_winner` ("player3"): a winning placement (one that exactly one solution agrees
  with, played with `!`) when it sees one; otherwise as the claimer.
"""
from __future__ import annotations

import random
import time

from arbiter.bot import BotContext
from arbiter.games.codecup_sudoku import CLAIM, CodecupSudokuState, SudokuMove
from arbiter.games.sudoku_solver import PEERS, count_solutions, enumerate_solutions, has_solution

ENUMERATION_LIMIT = 2000  # the winner lists up to this many solutions (about 0.1 s here)
UNIQUE_MINIMUM_GIVENS = 17  # no 9 x 9 sudoku with fewer givens has a unique solution


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


def winning_moves(grid: bytes | bytearray) -> list[SudokuMove]:
    """Every placement after which exactly one solution is left (claims), when the grid has
    at least two and fewer than ENUMERATION_LIMIT solutions; else an empty list."""
    if sum(1 for digit in grid if digit) + 1 < UNIQUE_MINIMUM_GIVENS:
        return []
    solutions = enumerate_solutions(grid, ENUMERATION_LIMIT)
    if not 2 <= len(solutions) < ENUMERATION_LIMIT:
        return []
    import numpy as np  # here, not at the top: only the winner counts, and only late in a game

    table = np.array(solutions, dtype=np.int8)  # one solution per row
    # agree[cell, d-1]: how many solutions have digit d in that cell
    agree = (table[:, :, None] == np.arange(1, 10, dtype=np.int8)).sum(axis=0)
    # A filled cell agrees with every solution, so a count of 1 (< len(solutions)) is an open cell.
    return [SudokuMove(int(cell), int(d) + 1, True) for cell, d in np.argwhere(agree == 1)]


def choose_random(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """A random reducing placement, else (one solution left) any placement the rules allow."""
    return reducing_move(state.grid, ctx.rng) or ctx.rng.choice(state.legal_moves())


def choose_claimer(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """`!` on a grid with one solution, else a random reducing placement, with `!` if it
    leaves one solution."""
    grid = state.grid
    if count_solutions(grid, 2) == 1:
        return CLAIM
    move = reducing_move(grid, ctx.rng)
    assert move is not None and move.cell is not None, "two solutions always leave a reducing placement"
    after = bytearray(grid)
    after[move.cell] = move.digit
    if count_solutions(after, 2) == 1:
        return move._replace(claim=True)
    return move


def choose_winner(state: CodecupSudokuState, ctx: BotContext) -> SudokuMove:
    """A winning claim when it sees one, else what the claimer plays. Listing solutions costs
    up to about 0.1 s a move, so once its searches have used an eighth of the game's budget
    (`time_ms`, when the Game line gives it) it plays as the claimer."""
    spent_s = ctx.memory.get("enumeration_s", 0.0)
    if ctx.time_ms is None or spent_s < ctx.time_ms / 8000:
        started = time.monotonic()
        wins = winning_moves(state.grid)
        ctx.memory["enumeration_s"] = spent_s + time.monotonic() - started
        if wins:
            return ctx.rng.choice(wins)
    return choose_claimer(state, ctx)
