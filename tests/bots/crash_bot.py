"""Crashes mid-game: says why on stderr, then exits with status 3."""
import sys

from misbehave import misbehaving_bot


def act(state, ctx):
    ctx.log("crash_bot: giving up now")
    sys.exit(3)


misbehaving_bot(act)
