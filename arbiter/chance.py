"""The referee's dice: chance outcomes drawn from one game's seed (docs/protocol.md, Chance).

A game with chance nodes (OpenSpiel's backgammon, Pig) stops at each and lists the possible
outcomes with their probabilities (`State.chance_outcomes`); it never draws one itself. The
referee draws it here, from a generator seeded by the game's seed alone, applies it like a
move and sends it to every seat. The seed is kept in the record (`chance_seed`), so the
dice of a recorded game can be drawn again and compared (`tournament/audit.py`).

The draw, documented so that anyone can repeat it: Python's `random.Random(seed)` (the
Mersenne Twister, seeded from the integer), one `random()` in [0, 1) per chance node, and
the first outcome, in the game's order, at which the running sum of the probabilities
exceeds it (the last outcome, should rounding leave the sum below it).

It sits beside the floors (like `records.py`) and imports nothing but the rules' interface.
"""
from __future__ import annotations

import hashlib
import random
import secrets
from typing import Any

from .games import CHANCE, State

SEED_BYTES = 8  # a seed is a whole number below 2**64: too many to search for from the dice seen


def chance_seed(tournament_seed: int, game_id: str) -> int:
    """The seed of one tournament game's dice, from the tournament's seed and the game's id:
    the same across runs, resumes and machines, and not the bots' own `$ARBITER_SEED`."""
    digest = hashlib.sha256(f"chance:{tournament_seed}:{game_id}".encode()).digest()
    return int.from_bytes(digest[:SEED_BYTES], "big")


def fresh_seed() -> int:
    """A seed for a game nobody gave one (`arbiter play`, `arbiter check`), from the system's
    randomness; the record keeps it."""
    return secrets.randbits(8 * SEED_BYTES)


class ChanceDice:
    """One game's dice: a generator seeded by the game's seed, one draw per chance node."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._random = random.Random(seed)
        self.drawn = 0  # chance nodes drawn so far

    def draw(self, state: State[Any]) -> Any:
        """The outcome of the chance node `state` is at (`state.current_player == CHANCE`)."""
        outcomes = state.chance_outcomes()
        if state.current_player != CHANCE or not outcomes:
            raise ValueError("the game is not at a chance node")
        self.drawn += 1
        number = self._random.random()
        total = 0.0
        for move, probability in outcomes:
            total += probability
            if number < total:
                return move
        return outcomes[-1][0]


__all__ = ["ChanceDice", "chance_seed", "fresh_seed"]
