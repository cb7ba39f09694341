"""The sudoku solution counter against brute force and against a plain backtracker.

Solved grids come from a plain randomized backtracker (never from the solver under
test); test grids are solved grids with cells emptied (and sometimes one
emptied cell refilled with a wrong digit the rules allow), so small cases can be checked
by trying every assignment of the empty cells.
"""
from __future__ import annotations

import itertools
import random

import pytest

from arbiter.games.sudoku_solver import (
    count_solutions,
    enumerate_solutions,
    has_solution,
    solution_with_other_digit,
)

def units_of(grid: list[int]) -> list[list[int]]:
    rows = [grid[r * 9:r * 9 + 9] for r in range(9)]
    cols = [grid[c::9] for c in range(9)]
    boxes = [[grid[(b // 3 * 3 + i // 3) * 9 + b % 3 * 3 + i % 3] for i in range(9)] for b in range(9)]
    return rows + cols + boxes


def is_solved(grid: list[int]) -> bool:
    return all(sorted(unit) == list(range(1, 10)) for unit in units_of(grid))


def allowed_digits(grid: list[int], cell: int) -> list[int]:
    """The digits the rules allow in `cell`: not yet in its row, column or box."""
    r, c = divmod(cell, 9)
    br, bc = r // 3 * 3, c // 3 * 3
    seen = set(grid[r * 9:r * 9 + 9]) | set(grid[c::9])
    seen |= {grid[(br + i) * 9 + bc + j] for i in range(3) for j in range(3)}
    return [d for d in range(1, 10) if d not in seen]


def random_solution(rng: random.Random) -> list[int]:
    """A solved grid by plain backtracking in random digit order (no use of the solver)."""
    grid = [0] * 81

    def fill(cell: int) -> bool:
        if cell == 81:
            return True
        digits = allowed_digits(grid, cell)
        rng.shuffle(digits)
        for digit in digits:
            grid[cell] = digit
            if fill(cell + 1):
                return True
        grid[cell] = 0
        return False

    assert fill(0) and is_solved(grid)
    return grid


def brute_force_solutions(grid: list[int]) -> set[tuple[int, ...]]:
    """Every solution, by trying all 9^k fillings of the k empty cells."""
    empty = [cell for cell in range(81) if not grid[cell]]
    found = set()
    for digits in itertools.product(range(1, 10), repeat=len(empty)):
        trial = list(grid)
        for cell, digit in zip(empty, digits):
            trial[cell] = digit
        if is_solved(trial):
            found.add(tuple(trial))
    return found


def plain_backtracker_count(grid: list[int], limit: int) -> int:
    """A reference counter with no propagation: first empty cell, every digit the rules allow."""
    grid = list(grid)
    if not all(len([d for d in u if d]) == len({d for d in u if d}) for u in units_of(grid)):
        return 0

    def count(remaining: int) -> int:
        if 0 not in grid:
            return 1
        cell = grid.index(0)
        total = 0
        for digit in allowed_digits(grid, cell):
            grid[cell] = digit
            total += count(remaining - total)
            grid[cell] = 0
            if total >= remaining:
                break
        return total

    return count(limit)


def deadly_rectangle(solution: list[int]) -> list[int] | None:
    """Four cells in two rows and two columns, within two boxes, holding a b / b a:
    emptying them leaves exactly two solutions (the a's and b's swapped). None if absent."""
    for r1, r2 in itertools.combinations(range(9), 2):
        for c1, c2 in itertools.combinations(range(9), 2):
            if (r1 // 3 == r2 // 3) == (c1 // 3 == c2 // 3):
                continue  # the four cells must lie in exactly two boxes
            a, b = solution[r1 * 9 + c1], solution[r1 * 9 + c2]
            if solution[r2 * 9 + c1] == b and solution[r2 * 9 + c2] == a:
                return [r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2]
    return None


def small_case(seed: int) -> list[int]:
    """A grid with at most 4 empty cells: unique, two-solution, or unsolvable."""
    rng = random.Random(seed)
    solution = random_solution(rng)
    while deadly_rectangle(solution) is None:
        solution = random_solution(rng)
    grid = list(solution)
    kind = seed % 3
    if kind == 0:  # one or more solutions: up to 4 random empty cells
        for cell in rng.sample(range(81), rng.randint(1, 4)):
            grid[cell] = 0
    elif kind == 1:  # a deadly rectangle: two solutions
        for cell in deadly_rectangle(solution) or []:
            grid[cell] = 0
    else:  # a wrong digit the rules allow, among a few empty cells: usually no solution
        while True:
            grid = list(solution)
            blanks = rng.sample(range(81), 12)
            for cell in blanks:
                grid[cell] = 0
            wrong = [(c, d) for c in blanks for d in allowed_digits(grid, c) if d != solution[c]]
            if not wrong:
                continue
            cell, digit = rng.choice(wrong)
            grid[cell] = digit
            for other in blanks:
                if other != cell and solution[other] in allowed_digits(grid, other):
                    grid[other] = solution[other]
                    if grid.count(0) == 3:
                        break
            if grid.count(0) <= 4:
                break
    return grid


SMALL_SEEDS = range(36)


@pytest.mark.parametrize("seed", SMALL_SEEDS)
def test_counter_matches_brute_force_on_grids_with_few_empty_cells(seed: int) -> None:
    grid = small_case(seed)
    truth = brute_force_solutions(grid)
    assert count_solutions(grid, 2) == min(len(truth), 2)
    assert count_solutions(grid, 1000) == len(truth)
    assert has_solution(grid) == bool(truth)
    assert {tuple(s) for s in enumerate_solutions(grid, 1000)} == truth
    for cell in (c for c in range(81) if not grid[c]):
        for digit in range(1, 10):
            other = solution_with_other_digit(grid, cell, digit)
            expected = any(s[cell] != digit for s in truth)
            assert (other is not None) == expected, (cell, digit)
            if other is not None:
                assert tuple(other) in truth and other[cell] != digit


def test_small_cases_cover_no_one_and_several_solutions() -> None:
    counts = {min(len(brute_force_solutions(small_case(seed))), 2) for seed in SMALL_SEEDS}
    assert counts == {0, 1, 2}


@pytest.mark.parametrize("seed", range(12))
def test_counter_matches_a_plain_backtracker_on_sparser_grids(seed: int) -> None:
    rng = random.Random(1000 + seed)
    grid = random_solution(rng)
    for cell in rng.sample(range(81), 30 + seed):
        grid[cell] = 0
    if seed % 2:  # a digit the rules allow in an empty cell, usually a wrong one
        cell = next(c for c in range(81) if not grid[c])
        grid[cell] = allowed_digits(grid, cell)[-1]
    for limit in (1, 2, 50):
        assert count_solutions(grid, limit) == plain_backtracker_count(grid, limit)


def test_the_empty_grid_has_at_least_two_solutions_and_they_are_valid() -> None:
    assert count_solutions([0] * 81, 2) == 2
    solutions = enumerate_solutions([0] * 81, 3)
    assert len({tuple(s) for s in solutions}) == 3
    assert all(is_solved(s) for s in solutions)


def test_a_hard_unique_puzzle_is_solved() -> None:
    puzzle = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
    grid = [0 if ch == "." else int(ch) for ch in puzzle]
    assert count_solutions(grid, 2) == 1
    (solution,) = enumerate_solutions(grid, 2)
    assert is_solved(solution)
    assert all(g in (0, s) for g, s in zip(grid, solution))
    open_cell = grid.index(0)
    assert solution_with_other_digit(grid, open_cell, solution[open_cell]) is None


def test_clashing_givens_have_no_solution() -> None:
    grid = [0] * 81
    grid[0] = grid[8] = 5  # same row
    assert count_solutions(grid, 2) == 0
    assert not has_solution(grid)


@pytest.mark.parametrize("grid, message", [
    ([0] * 80, "81 cells"),
    ([10] + [0] * 80, "digits are 1-9"),
])
def test_bad_grids_are_rejected_with_a_reason(grid: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        count_solutions(grid)
