"""Plays OpenSpiel's Connect Four with the other player's mark: `o3` where `x3` is legal (a
well-formed move of the game, illegal for its seat), from its first move on."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arbiter.bot import exit_now, run_bot  # noqa: E402


def choose(state, ctx):  # type: ignore[no-untyped-def]
    move = ctx.rng.choice(state.legal_moves())
    return {"x": "o", "o": "x"}[move[0]] + move[1:]


if __name__ == "__main__":
    exit_now(run_bot(choose))
