#!/usr/bin/env python3
"""A CodeCup Sudoku entry in miniature, written the way contest entries are written: no
arbiter code, only stdin and stdout. The first line is `Start` (we move first) or the
opponent's move; after each line we answer one move and flush; `Quit` ends the program.
It plays a random digit the sudoku rules allow in a random empty cell (no solver, so it
soon loses by leaving no solution) and never claims unless told to (options below).

Like the entries that met the contest's referee only, it trusts the dialogue completely:
any line it did not expect (a claim `Xy5!` or `!`, a move on a filled cell, `Start` twice)
is fatal: `ERROR ...` on stderr and exit status 1. On `Quit` it writes one line of
statistics to stderr (the moves it made and was sent), as entries do, and exits 0; at the
end of its input without `Quit` (how CodeCup may end a game) it exits 0 without a word.

Options (for the tests, which need every way a game can end):
  --seed N         the random moves' seed (default 2024)
  --claim-at N     append `!` (a claim of a unique solution) to our N-th move
  --bare-claim-at N  make our N-th move `!` alone (a claim that the opponent's last move
                   left a unique solution)
  --illegal-at N   play our N-th move on a cell that is already filled
  --solution       play the digits of one fixed solved grid (in random empty cells) instead of
                   random digits: every move keeps a solution, so the game ends when one does
                   not reduce the solutions
  --eof-error      take the end of input before `Quit` as fatal too (`arbiter check`:
                   end-without-quit)
  --eof-hang       stay at the end of input before `Quit` (`arbiter check`: end-without-quit)
"""
import argparse
import random
import sys
import time

ROWS = "ABCDEFGHI"
COLS = "abcdefghi"
# A solved grid (row-major): the digit of cell (r, c) is (3 * (r % 3) + r // 3 + c) % 9 + 1.
SOLVED = [[(3 * (r % 3) + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)]


def fail(why):
    sys.stderr.write(f"ERROR {why}\n")
    sys.stderr.flush()
    sys.exit(1)


def allowed(grid, row, col):
    used = set(grid[row]) | {grid[r][col] for r in range(9)}
    top, left = row - row % 3, col - col % 3
    used |= {grid[r][c] for r in range(top, top + 3) for c in range(left, left + 3)}
    return [d for d in range(1, 10) if d not in used]


def parse(line, grid):
    """The opponent's placement (row, col, digit); anything else is fatal."""
    if (len(line) != 3 or line[0] not in ROWS or line[1] not in COLS or line[2] not in "123456789"):
        fail(f"could not parse move {line!r}")
    row, col, digit = ROWS.index(line[0]), COLS.index(line[1]), int(line[2])
    if grid[row][col]:
        fail(f"move {line!r} is on a filled cell")
    return row, col, digit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--claim-at", type=int, default=0)
    parser.add_argument("--bare-claim-at", type=int, default=0)
    parser.add_argument("--illegal-at", type=int, default=0)
    parser.add_argument("--solution", action="store_true")
    parser.add_argument("--eof-error", action="store_true")
    parser.add_argument("--eof-hang", action="store_true")
    args = parser.parse_args()
    grid = [[0] * 9 for _ in range(9)]
    rng = random.Random(args.seed)
    lines = moves = started = 0
    while True:
        line = sys.stdin.readline()
        if not line:
            if args.eof_error:
                fail("end of input before Quit")
            if args.eof_hang:
                time.sleep(60)
            return
        line = line.strip()
        if not line:
            continue  # the contest server was seen to send empty lines
        lines += 1
        if line == "Quit":
            sys.stderr.write(f"Quit after {moves} moves of ours, {lines - 1 - started} of theirs\n")
            return
        if line == "Start":
            if lines != 1:
                fail("Start after the game had begun")
            started = 1
        else:
            row, col, digit = parse(line, grid)
            grid[row][col] = digit
        moves += 1
        if moves == args.bare_claim_at:
            sys.stdout.write("!\n")
            sys.stdout.flush()
            continue
        if moves == args.illegal_at:
            row, col = next((r, c) for r in range(9) for c in range(9) if grid[r][c])
            digit = grid[row][col]
        elif args.solution:
            row, col = rng.choice([(r, c) for r in range(9) for c in range(9) if not grid[r][c]])
            digit = SOLVED[row][col]
        else:
            options = [(r, c, d) for r in range(9) for c in range(9) if not grid[r][c]
                       for d in allowed(grid, r, c)]
            if not options:
                fail("no move left")
            row, col, digit = rng.choice(options)
        if not grid[row][col]:
            grid[row][col] = digit
        claim = "!" if moves == args.claim_at else ""
        sys.stdout.write(f"{ROWS[row]}{COLS[col]}{digit}{claim}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
