"""A 9 x 9 sudoku solution counter for the CodeCup Sudoku referee and its bots.

A grid is 81 digits, row-major, 0 for an empty cell. The search keeps one 9-bit
candidate mask per cell (bit d-1 set when digit d is still possible), propagates
naked singles (a cell with one candidate removes it from its 20 peers) and hidden
singles (a digit with one place left in a row, column or box goes there), and
branches on the open cell with the fewest candidates. Every query stops as soon as
its answer is known: counting stops at the limit, existence at the first solution.

Pure Python on purpose (no C extension): see docs/performance.md for what it costs.
"""
from __future__ import annotations

TYPE_CHECKING = False  # `typing` is for type checkers: Sudoku bots import this module (see base.py)
if TYPE_CHECKING:
    from typing import Sequence

    Grid = Sequence[int]

ALL_DIGITS = 0x1FF  # candidate mask with all nine digits

ROW_OF = tuple(cell // 9 for cell in range(81))
COL_OF = tuple(cell % 9 for cell in range(81))
BOX_OF = tuple((cell // 27) * 3 + (cell % 9) // 3 for cell in range(81))

UNITS: tuple[tuple[int, ...], ...] = (
    tuple(tuple(r * 9 + c for c in range(9)) for r in range(9))
    + tuple(tuple(r * 9 + c for r in range(9)) for c in range(9))
    + tuple(tuple(cell for cell in range(81) if BOX_OF[cell] == b) for b in range(9))
)
PEERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({p for unit in UNITS if cell in unit for p in unit} - {cell})) for cell in range(81)
)
_POPCOUNT = tuple(bin(mask).count("1") for mask in range(ALL_DIGITS + 1))


def count_solutions(grid: Grid, limit: int = 2) -> int:
    """How many solutions the grid has, counting no further than `limit`."""
    return _solve(grid, limit, None, None)


def has_solution(grid: Grid) -> bool:
    """Whether the grid can be completed at all."""
    return _solve(grid, 1, None, None) > 0


def find_solution(grid: Grid) -> list[int] | None:
    """One solution of the grid (the first the search meets), or None."""
    found: list[list[int]] = []
    _solve(grid, 1, None, found)
    return found[0] if found else None


def solution_with_other_digit(grid: Grid, cell: int, digit: int) -> list[int] | None:
    """A solution of the grid with something other than `digit` in `cell`, or None.

    This is the CodeCup "does the move reduce the solutions" question: placing
    `digit` in `cell` strictly reduces the solution set exactly when such a
    solution exists.
    """
    found: list[list[int]] = []
    _solve(grid, 1, (cell, digit), found)
    return found[0] if found else None


def enumerate_solutions(grid: Grid, limit: int) -> list[list[int]]:
    """The grid's solutions (each 81 digits), at most `limit` of them, in search order."""
    found: list[list[int]] = []
    _solve(grid, limit, None, found)
    return found


def _solve(grid: Grid, limit: int, banned: tuple[int, int] | None,
           found: list[list[int]] | None) -> int:
    if len(grid) != 81:
        raise ValueError(f"a sudoku grid has 81 cells, not {len(grid)}")
    candidates = [ALL_DIGITS] * 81
    queue: list[int] = []
    for cell, digit in enumerate(grid):
        if digit:
            if not 1 <= digit <= 9:
                raise ValueError(f"cell {cell} holds {digit!r}; digits are 1-9 (0 for empty)")
            candidates[cell] = 1 << (digit - 1)
            queue.append(cell)
    if banned is not None:
        cell, digit = banned
        mask = candidates[cell] & ~(1 << (digit - 1))
        if not mask:
            return 0
        candidates[cell] = mask
        if not mask & (mask - 1):
            queue.append(cell)
    return _search(candidates, queue, limit, found)


def _search(candidates: list[int], queue: list[int], limit: int,
            found: list[list[int]] | None) -> int:
    """Count completions of `candidates` (after propagating `queue`), up to `limit`."""
    if not _propagate(candidates, queue):
        return 0
    best_cell = -1
    best_size = 10
    popcount = _POPCOUNT
    for cell in range(81):
        size = popcount[candidates[cell]]
        if 1 < size < best_size:
            best_cell, best_size = cell, size
            if size == 2:
                break
    if best_cell < 0:
        if found is not None:
            found.append([mask.bit_length() for mask in candidates])
        return 1
    total = 0
    options = candidates[best_cell]
    while options:
        bit = options & -options
        options ^= bit
        child = candidates.copy()
        child[best_cell] = bit
        total += _search(child, [best_cell], limit - total, found)
        if total >= limit:
            break
    return total


def _propagate(candidates: list[int], queue: list[int]) -> bool:
    """Apply naked and hidden singles until nothing changes; False on a contradiction."""
    peers = PEERS
    while True:
        while queue:
            cell = queue.pop()
            bit = candidates[cell]
            for peer in peers[cell]:
                mask = candidates[peer]
                if mask & bit:
                    mask ^= bit
                    if not mask:
                        return False
                    candidates[peer] = mask
                    if not mask & (mask - 1):
                        queue.append(peer)
        for unit in UNITS:
            once = twice = 0
            for cell in unit:
                mask = candidates[cell]
                twice |= once & mask
                once |= mask
            if once != ALL_DIGITS:
                return False  # some digit has no place left in this unit
            single = once & ~twice
            if single:
                for cell in unit:
                    mask = candidates[cell]
                    hidden = mask & single
                    if hidden and hidden != mask:
                        if hidden & (hidden - 1):
                            return False  # two digits that each must go in this one cell
                        candidates[cell] = hidden
                        queue.append(cell)
        if not queue:
            return True


__all__ = [
    "BOX_OF",
    "COL_OF",
    "PEERS",
    "ROW_OF",
    "UNITS",
    "count_solutions",
    "enumerate_solutions",
    "find_solution",
    "has_solution",
    "solution_with_other_digit",
]
