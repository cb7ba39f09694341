"""CodeCup 2024 Sudoku: two players fill one empty 9 x 9 sudoku; the first to claim
correctly that exactly one solution is left wins.

A move is a row `A`-`I`, a column `a`-`i` and a digit `1`-`9` (`Dg7`), optionally
followed by `!` to claim that the grid has exactly one solution after it (`Dg7!`);
`!` alone claims that the opponent's last move left exactly one solution.

What ends the game, and the points (the player who ended it first, then the other):

| how                                                         | outcome name          | points |
| ----------------------------------------------------------- | --------------------- | ------ |
| a correct claim                                             | WIN                   | 2-1    |
| a wrong claim                                               | LOSE                  | 0-2    |
| a placement that leaves no solution                         | NO_SOLUTIONS_LEFT     | 1-2    |
| a placement every solution already had (does not reduce)    | NO_SOLUTION_DECREASED | 1-2    |
| unparsable move, occupied cell, digit already in its unit   | ILLEGAL (a fault)     | 0-2    |
| time limit exceeded                                         | TIMEOUT (a fault)     | 1-2    |
| crash or early exit                                         | EXIT (a fault)        | 0-2    |
| a protocol violation                                        | ILLEGAL (a fault)     | 0-2    |

A placement is judged before its claim: a claiming placement that leaves no solution or
does not reduce the solutions loses 1-2 as that, whatever the claim. The rules' last row,
"the grid runs out with no claim, 1-1", cannot happen: once one solution is left every
placement either contradicts it or repeats it, so the grid never fills without an ending
above (tests/test_codecup_sudoku.py shows it). The faults are adjudicated by the referee
through `fault_scores` and `fault_outcome`.

`State.outcome` reads `seat K NAME (what happened)`, naming the seat whose move or fault
ended the game, e.g. `seat 0 WIN (correct claim)`.
"""
from __future__ import annotations

import re
from collections import namedtuple

from .base import Game, GameError, MalformedMove, State
from .sudoku_solver import BOX_OF, COL_OF, ROW_OF, count_solutions, find_solution, solution_with_other_digit

# `typing` and `dataclasses` are left out (and SudokuMove is a collections.namedtuple) because
# every Sudoku bot imports this module at its start, in every game (arbiter/games/base.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Hashable

ROW_NAMES = "ABCDEFGHI"
COL_NAMES = "abcdefghi"
_PLACEMENT = re.compile(r"([A-I])([a-i])([1-9])(!?)")


class SudokuMove(namedtuple("SudokuMove", "cell digit claim")):
    """A placement of `digit` (int) in `cell` (int, 0-80, row-major) or the bare claim
    (`cell` None); `claim` (bool) says whether the move claims the last solution."""

    __slots__ = ()


CLAIM = SudokuMove(None, 0, True)  # `!` alone


def cell_name(cell: int) -> str:
    """`Dg` for cell 33 (row D, column g)."""
    return ROW_NAMES[cell // 9] + COL_NAMES[cell % 9]


class Ending:
    """How a game ended: the seat whose move (or fault) ended it, the name, the points."""

    __slots__ = ("seat", "name", "why", "points")

    def __init__(self, seat: int, name: str, why: str, points: tuple[int, int]) -> None:
        self.seat = seat
        self.name = name
        self.why = why
        self.points = points  # (that seat's points, the other seat's points)

    def scores(self) -> list[int]:
        """The points per seat."""
        own, other = self.points
        return [own, other] if self.seat == 0 else [other, own]

    def describe(self) -> str:
        """`seat 0 WIN (correct claim)`."""
        return f"seat {self.seat} {self.name} ({self.why})"


# Fault endings, keyed by the referee's termination value.
_FAULTS: dict[str, tuple[str, str, tuple[int, int]]] = {
    "timeout": ("TIMEOUT", "time limit exceeded", (1, 2)),
    "crash": ("EXIT", "crashed or exited early", (0, 2)),
    "malformed": ("ILLEGAL", "unparsable move", (0, 2)),
    "illegal": ("ILLEGAL", "occupied cell or digit already in its row, column or box", (0, 2)),
    "protocol": ("ILLEGAL", "protocol violation", (0, 2)),
}


class CodecupSudoku(Game[SudokuMove]):
    """The CodeCup 2024 game; no parameters."""

    name = "codecup-sudoku"

    def new_state(self) -> CodecupSudokuState:
        return CodecupSudokuState(self)

    def state_from_grid(self, text: str, to_move: int | None = None) -> CodecupSudokuState:
        """A position from 81 cells written `1`-`9` or `.`/`0` (whitespace ignored), row by row.

        The seat to move defaults to the one whose turn it would be after that many
        placements (seat 0 when the count is even). The grid must have a solution, as
        every position reached in play has.
        """
        cells = "".join(text.split())
        if len(cells) != 81 or any(ch not in ".0123456789" for ch in cells):
            raise GameError(f"{self.name}: a grid is 81 characters 1-9 or '.', got {len(cells)}: {cells!r}")
        state = self.new_state()
        for cell, ch in enumerate(cells):
            if ch not in ".0":
                digit = int(ch)
                reason = state._placement_problem(cell, digit)
                if reason is not None:
                    raise GameError(f"{self.name}: grid cell {cell_name(cell)}: {reason}")
                state._place(cell, digit)
        state.solution = find_solution(state.grid)
        if state.solution is None:
            raise GameError(f"{self.name}: the grid has no solution")
        filled = sum(1 for digit in state.grid if digit)
        state._to_move = filled % 2 if to_move is None else to_move
        return state

    def parse_move(self, text: str) -> SudokuMove:
        if text == "!":
            return CLAIM
        match = _PLACEMENT.fullmatch(text)
        if not match:
            raise MalformedMove(
                text, "expected a row A-I, a column a-i and a digit 1-9 (like 'Dg7'), "
                "optionally followed by '!' ('Dg7!'), or '!' alone"
            )
        cell = ROW_NAMES.index(match[1]) * 9 + COL_NAMES.index(match[2])
        return SudokuMove(cell, int(match[3]), match[4] == "!")

    def format_move(self, move: SudokuMove) -> str:
        if move.cell is None:
            return "!"
        return f"{cell_name(move.cell)}{move.digit}{'!' if move.claim else ''}"


class CodecupSudokuState(State[SudokuMove]):
    """The grid (81 digits, 0 = empty), used-digit masks per row/column/box, and the ending."""

    def __init__(self, game: CodecupSudoku) -> None:
        super().__init__(game)
        self.grid = bytearray(81)
        self.row_used = [0] * 9  # bit d-1 set when digit d stands in that row
        self.col_used = [0] * 9
        self.box_used = [0] * 9
        self._to_move = 0
        self.ending: Ending | None = None
        # One solution of the grid, kept from the last check, so a placement costs one search:
        # if it agrees with the placement, the placement leaves a solution; if not, it reduces.
        self.solution: list[int] | None = None  # None: not searched yet

    @property
    def current_player(self) -> int:
        return self._to_move

    @property
    def scores(self) -> list[int]:
        return self.ending.scores() if self.ending else [0, 0]

    @property
    def outcome(self) -> str | None:
        return self.ending.describe() if self.ending else None

    def is_over(self) -> bool:
        return self.ending is not None

    def legal_moves(self) -> list[SudokuMove]:
        """Every placement the sudoku rules allow (empty cell, digit new to its row, column
        and box), in cell then digit order; empty once the game is over.

        Claims are legal too (each placement with `!`, and `!` alone once a digit stands)
        but are not listed: they are deliberate choices, and listing them would have
        random openings and random bots end most games by a coin-flip claim. Placements
        that leave no solution or do not reduce the solutions are listed: they are legal
        moves that lose.
        """
        if self.ending is not None:
            return []
        moves = []
        grid, rows, cols, boxes = self.grid, self.row_used, self.col_used, self.box_used
        for cell in range(81):
            if grid[cell]:
                continue
            free = ~(rows[ROW_OF[cell]] | cols[COL_OF[cell]] | boxes[BOX_OF[cell]])
            moves.extend(SudokuMove(cell, digit, False) for digit in range(1, 10) if free >> (digit - 1) & 1)
        return moves

    def illegal_reason(self, move: SudokuMove) -> str | None:
        if move.cell is None:
            if not any(self.grid):
                return "'!' alone claims about the opponent's last move, and no move has been made"
            return None
        return self._placement_problem(move.cell, move.digit)

    def _placement_problem(self, cell: int, digit: int) -> str | None:
        if self.grid[cell]:
            return f"cell {cell_name(cell)} already holds {self.grid[cell]}"
        bit = 1 << (digit - 1)
        if self.row_used[ROW_OF[cell]] & bit:
            return f"{digit} already stands in row {ROW_NAMES[ROW_OF[cell]]}"
        if self.col_used[COL_OF[cell]] & bit:
            return f"{digit} already stands in column {COL_NAMES[COL_OF[cell]]}"
        if self.box_used[BOX_OF[cell]] & bit:
            return f"{digit} already stands in the box of {cell_name(cell)}"
        return None

    def _place(self, cell: int, digit: int) -> None:
        bit = 1 << (digit - 1)
        self.grid[cell] = digit
        self.row_used[ROW_OF[cell]] |= bit
        self.col_used[COL_OF[cell]] |= bit
        self.box_used[BOX_OF[cell]] |= bit

    def _apply(self, move: SudokuMove) -> None:
        mover = self._to_move
        if move.cell is None:
            self.ending = self._claim_ending(mover)
            return
        cell, digit = move.cell, move.digit
        before = bytes(self.grid)
        self._place(cell, digit)
        known = self.solution or find_solution(before)
        assert known is not None, "a position in play always has a solution"
        if known[cell] == digit:  # a solution remains; does one have another digit here?
            solvable, reduces = True, solution_with_other_digit(before, cell, digit) is not None
        else:  # it reduces; does anything remain?
            known = find_solution(self.grid)
            solvable, reduces = known is not None, True
        self.solution = known
        if not solvable:
            self.ending = Ending(mover, "NO_SOLUTIONS_LEFT", "the move left no solution", (1, 2))
        elif not reduces:
            self.ending = Ending(mover, "NO_SOLUTION_DECREASED",
                                 "every solution already had that digit there", (1, 2))
        elif move.claim:
            self.ending = self._claim_ending(mover)
        else:
            self._to_move = 1 - mover

    def _claim_ending(self, claimer: int) -> Ending:
        if count_solutions(self.grid, 2) == 1:
            return Ending(claimer, "WIN", "correct claim", (2, 1))
        return Ending(claimer, "LOSE", "wrong claim: more than one solution", (0, 2))

    def fault_scores(self, offender: int, termination: str) -> list[int]:
        """CodeCup's points for a fault: timeout 1-2; crash, malformed, illegal, protocol 0-2."""
        return self._fault_ending(offender, termination).scores()

    def fault_outcome(self, offender: int, termination: str) -> str | None:
        """`seat K TIMEOUT (...)`, `seat K EXIT (...)` or `seat K ILLEGAL (...)`."""
        return self._fault_ending(offender, termination).describe()

    def _fault_ending(self, offender: int, termination: str) -> Ending:
        kind = str(getattr(termination, "value", termination))  # a Termination or its value
        if kind not in _FAULTS:
            raise ValueError(f"codecup-sudoku: {termination!r} is not a fault; faults are {', '.join(_FAULTS)}")
        name, why, points = _FAULTS[kind]
        return Ending(offender, name, why, points)

    def key(self) -> Hashable:
        return (bytes(self.grid), self._to_move, self.outcome)

    def clone(self) -> CodecupSudokuState:
        copy = CodecupSudokuState(self.game)  # type: ignore[arg-type]
        copy.history = list(self.history)
        copy.grid = bytearray(self.grid)
        copy.row_used = list(self.row_used)
        copy.col_used = list(self.col_used)
        copy.box_used = list(self.box_used)
        copy._to_move = self._to_move
        copy.ending = self.ending
        copy.solution = self.solution
        return copy

    def render(self) -> str:
        lines = ["    a b c   d e f   g h i"]
        for row in range(9):
            if row and row % 3 == 0:
                lines.append("   -------+-------+-------")
            digits = [str(d) if d else "." for d in self.grid[row * 9:row * 9 + 9]]
            lines.append(f"{ROW_NAMES[row]}   " + " | ".join(" ".join(digits[b:b + 3]) for b in (0, 3, 6)))
        return "\n".join(lines)


__all__ = ["CLAIM", "CodecupSudoku", "CodecupSudokuState", "Ending", "SudokuMove", "cell_name"]
