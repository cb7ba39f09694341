"""Allocates (and touches) memory without end mid-game, far past any memory_mb."""
from misbehave import misbehaving_bot


def act(state, ctx):
    hoard = []
    while True:
        hoard.append(b"\x01" * (16 << 20))  # every page really written


misbehaving_bot(act)
