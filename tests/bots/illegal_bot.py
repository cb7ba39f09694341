"""Writes a well-formed move that is not allowed: in limit-nim, more stones than pile 1's limit."""
from misbehave import misbehaving_bot


def act(state, ctx):
    return "1 99"


misbehaving_bot(act)
