#!/usr/bin/env python3
"""A starter bot in Python for any of OpenSpiel's games as the arbiter referees them
(`openspiel:NAME`, docs/games.md): the bot kit (arbiter/bot.py) speaks the protocol and
keeps the position with OpenSpiel's own rules, `Chance` lines (dice) included; this file is
only the strategy. It wins at once when a move wins, and otherwise plays a random legal move.

Build:  nothing to build (pip install -e '.[openspiel]')
Check:  arbiter check openspiel:connect_four "python examples/bots/openspiel_starter.py"

`state.legal_moves()` are the moves' texts as OpenSpiel writes them (`x3`, `Nf3`, `roll`);
`state.clone()` and `state.play(text)` look ahead; `state.spiel_state` is OpenSpiel's own
state, for its algorithms (players/openspiel_mcts.py runs its MCTS).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # a checkout

from arbiter.bot import exit_now, run_bot  # noqa: E402


def choose(state, ctx):  # type: ignore[no-untyped-def]
    """A move that wins at once if there is one, else a random legal move."""
    moves = state.legal_moves()
    for move in moves:
        after = state.clone()
        after.play(move)
        if after.is_over() and after.winner() == ctx.seat:
            return move
    return ctx.rng.choice(moves)


if __name__ == "__main__":
    exit_now(run_bot(choose))
