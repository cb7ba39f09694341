"""Limit Nim entrant in Python: takes one stone from the biggest pile."""
import sys

stones: list[int] = []
forced = 0  # opening moves still to apply without answering


def move() -> None:
    pile = max(range(len(stones)), key=lambda i: stones[i])
    stones[pile] -= 1
    print(pile + 1, 1, flush=True)


for line in sys.stdin:
    if line.startswith("Game "):
        piles = next(word for word in line.split() if word.startswith("piles="))[len("piles="):]
        stones = [int(pile.split("/")[0]) for pile in piles.split(",")]
    elif line.startswith("Opening "):
        forced = int(line.split()[1])
    elif line.startswith("Start"):
        move()
    elif line.startswith("Quit"):
        break
    else:
        pile, taken = map(int, line.split())
        stones[pile - 1] -= taken
        if forced:
            forced -= 1
        elif sum(stones):
            move()
