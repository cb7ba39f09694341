"""The referee's dice: chance outcomes drawn from one game's seed (docs/protocol.md, Chance).

A game with chance nodes (OpenSpiel's backgammon, Pig) stops at each and lists the possible
outcomes with their probabilities (`State.chance_outcomes`); it never draws one itself. The
referee draws it here, from a generator seeded by the game's seed alone, applies it like a
move and sends it to every seat. The seed is kept in the record (`chance_seed`), so the
dice of a recorded game can be drawn again and compared (`tournament/audit.py`).

Where a tournament game's seeds come from (`RunSeeds`): unless the organiser sets `seed:`,
which makes the dice reproducible and so public to whoever knows it, each results folder
holds a secret of its own, drawn when the folder is first used and never shown to a bot,
that keys the dice. Each game's `$ARBITER_SEED` comes from the organiser's seed (0 when not
given) and the game id by a hash of its own, never from the dice's seed: a bot that knows
it and its game's id (ids are guessable) learns nothing that leads to the dice, which only
the secret gives. A run with `seed:` is reproducible game for game, dice included; without
it, a game without chance still is.

The draw, documented so that anyone can repeat it: Python's `random.Random(seed)` (the
Mersenne Twister, seeded from the integer), one `random()` in [0, 1) per chance node, and
the first outcome, in the game's order, at which the running sum of the probabilities
exceeds it (the last outcome, should rounding leave the sum below it).

It sits beside the floors (like `records.py`) and imports nothing but the rules' interface.
"""
from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from dataclasses import dataclass, field
from typing import Any

from .games import CHANCE, State

SEED_BYTES = 8  # a seed is a whole number below 2**64: too many to search for from the dice seen
SECRET_BYTES = 32  # a run's secret: 256 bits, beyond any search
BOT_SEED_BYTES = 4  # $ARBITER_SEED is a whole number below 2**32


def chance_seed(tournament_seed: int, game_id: str) -> int:
    """The seed of one tournament game's dice from the organiser's `seed:` and the game's id
    (SHA-256 of `chance:SEED:ID`, its first 8 bytes): the same across runs, resumes and
    machines, so anyone who knows the seed knows the dice."""
    digest = hashlib.sha256(f"chance:{tournament_seed}:{game_id}".encode()).digest()
    return int.from_bytes(digest[:SEED_BYTES], "big")


def bot_seed(tournament_seed: int | None, game_id: str) -> int:
    """A tournament game's `$ARBITER_SEED`: SHA-256 of `bots:SEED:ID` (SEED the organiser's, 0
    when not given), its first 4 bytes. Never a function of the dice's seed, so it tells a bot
    nothing of them; and the same in every run of a config, so a game without chance is played
    the same again (its bots' random choices seeded by it) whether or not a seed was set."""
    digest = hashlib.sha256(f"bots:{tournament_seed or 0}:{game_id}".encode()).digest()
    return int.from_bytes(digest[:BOT_SEED_BYTES], "big")


def keyed_seed(secret: bytes, purpose: str, game_id: str, size: int = SEED_BYTES) -> int:
    """A number of `size` bytes for one game and one purpose, keyed by a run's secret
    (HMAC-SHA-256 of `PURPOSE:ID`): without the secret it is as good as random."""
    digest = hmac.new(secret, f"{purpose}:{game_id}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:size], "big")


def fresh_seed() -> int:
    """A seed for a game nobody gave one (`arbiter play`, `arbiter check`), from the system's
    randomness; the record keeps it."""
    return secrets.randbits(8 * SEED_BYTES)


def fresh_secret() -> bytes:
    """A new run secret, from the system's randomness."""
    return secrets.token_bytes(SECRET_BYTES)


@dataclass(frozen=True)
class RunSeeds:
    """Where one run's games get their dice: its `secret` (kept in its results folder, never
    shown to a bot) and the organiser's `seed`, None unless the config or `--seed` gives one."""

    secret: bytes = field(repr=False)  # never in a message or a traceback
    seed: int | None = None

    def chance(self, game_id: str) -> int:
        """The seed of the game's dice: `chance_seed` of the organiser's seed when there is one
        (reproducible, and public to whoever knows it), else keyed by the secret."""
        if self.seed is not None:
            return chance_seed(self.seed, game_id)
        return keyed_seed(self.secret, "chance", game_id)



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


__all__ = ["ChanceDice", "RunSeeds", "bot_seed", "chance_seed", "fresh_secret", "fresh_seed", "keyed_seed"]
