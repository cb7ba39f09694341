"""A Limit Nim bot of two files, run as a package: `python3 nimpkg` (or `python3 -m nimpkg`
from its parent folder). This file speaks the protocol; strategy.py, beside it, chooses."""
import sys

from strategy import Position


def main() -> None:
    position = None
    forced = 0  # lines of an `Opening N` still to apply without answering
    for line in sys.stdin:
        line = line.strip()
        if line == "Quit":
            return
        if line.startswith("Game "):
            position = Position.from_game_line(line)
            continue
        if line.startswith("Opening "):
            forced = int(line.split()[1])
            continue
        if line != "Start":
            position.apply(line)
            if forced:
                forced -= 1
                continue
        if not forced:  # after `Start` or the other seat's move: our turn, maybe
            while position.our_turn():
                move = position.choose()
                print(move, flush=True)
                position.apply(move)


main()
