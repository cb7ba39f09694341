"""Strategies shared by the bundled bots, benchmarks and tests.

Each strategy is a function `choose(state, ctx) -> move` in the shape the bot kit
(`arbiter.bot.run_bot`) expects, so a bot is a thin program around it and a benchmark
can call it in-process on rules-library states. Everything here is pure game logic plus,
for exact play, an on-disk cache of solved tables.
"""
from __future__ import annotations

import os

from arbiter.bot import BotContext
from arbiter.games import Game

TYPE_CHECKING = False  # `typing` is for type checkers: it would cost every bot start (arbiter/games/base.py)
if TYPE_CHECKING:
    from typing import Any


# BOT_NODES_ONLY=1 in a bot's environment: its searches are bounded by their node counts
# alone, never by the clock, so it plays the same moves on a quiet machine and a loaded one
# (a reproducible run, a test); it then risks its clock on a slow machine (docs/bots.md).
NODES_ONLY = os.environ.get("BOT_NODES_ONLY") == "1"


def require_game(ctx: BotContext, kind: type[Game[Any]], bot: str) -> None:
    """Stop the bot with a clear message when it is asked to play a game it does not know."""
    if not isinstance(ctx.game, kind):
        from arbiter.games.dots import DotsGame  # not at the top: a nim or sudoku bot needs no dots

        wanted = "a dots game (dots-and-triangles, dots-and-boxes)" if kind is DotsGame else kind.name
        ctx.log(f"{bot}: cannot play {ctx.game.name}; this bot plays {wanted}")
        raise SystemExit(2)
