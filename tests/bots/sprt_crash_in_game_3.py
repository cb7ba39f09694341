#!/usr/bin/env python3
"""Plays random legal moves, but crashes at its first move of the third game it is started for.

Games are counted across processes by claiming numbered files in the folder named by
$GAME_COUNTER (O_EXCL makes each claim unique, even with games running at once).
Used by tests/test_sprt_run.py: a release candidate that crashes in game 3.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arbiter.bot import BotContext, run_bot  # noqa: E402
from arbiter.games import State  # noqa: E402

CRASH_IN_GAME = 3


def claim_game_number(folder: str) -> int:
    """This process's game number: the first n whose file `game-n` it could create."""
    number = 1
    while True:
        try:
            os.close(os.open(os.path.join(folder, f"game-{number}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return number
        except FileExistsError:
            number += 1


def main() -> int:
    game_number = claim_game_number(os.environ["GAME_COUNTER"])

    def choose(state: State, ctx: BotContext):
        if game_number == CRASH_IN_GAME:
            os._exit(1)  # a hard crash: no Quit handling, no goodbye
        return ctx.rng.choice(state.legal_moves())

    return run_bot(choose)


if __name__ == "__main__":
    sys.exit(main())
