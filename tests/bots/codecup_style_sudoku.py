#!/usr/bin/env python3
"""A CodeCup Sudoku entry in miniature, written the way contest entries are written: no
arbiter code, only stdin and stdout. The first line is `Start` (we move first) or the
opponent's move; after each line we answer one move and flush; `Quit` ends the program.
It plays a random digit the sudoku rules allow in a random empty cell (no solver, so it
soon loses by leaving no solution) and never claims.
"""
import random
import sys

ROWS = "ABCDEFGHI"
COLS = "abcdefghi"


def allowed(grid, row, col):
    used = set(grid[row]) | {grid[r][col] for r in range(9)}
    top, left = row - row % 3, col - col % 3
    used |= {grid[r][c] for r in range(top, top + 3) for c in range(left, left + 3)}
    return [d for d in range(1, 10) if d not in used]


def main():
    grid = [[0] * 9 for _ in range(9)]
    rng = random.Random(2024)
    while True:
        line = sys.stdin.readline()
        if not line:
            return  # the referee closed our input
        line = line.strip()
        if not line:
            continue  # the contest server was seen to send empty lines
        if line == "Quit":
            return
        if line != "Start":
            grid[ROWS.index(line[0])][COLS.index(line[1])] = int(line[2])
        options = [(r, c, d) for r in range(9) for c in range(9) if not grid[r][c]
                   for d in allowed(grid, r, c)]
        row, col, digit = rng.choice(options)
        grid[row][col] = digit
        sys.stdout.write(f"{ROWS[row]}{COLS[col]}{digit}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
