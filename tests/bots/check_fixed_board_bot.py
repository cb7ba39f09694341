"""Assumes the default board: crashes on a Game line with any other parameter but `players`
(`arbiter check`: params)."""
import sys

from misbehave import first_legal

from arbiter.bot import run_bot
from arbiter.games import find_game


def choose(state, ctx):
    defaults = find_game(ctx.game.name).params
    for name, value in ctx.game.params.items():
        if name != "players" and value != defaults[name]:
            raise SystemExit(f"fixed_board: only the default board is supported, not {name}={value}")
    return first_legal(state)


sys.exit(run_bot(choose))
