"""Loops forever mid-game, burning CPU."""
from misbehave import misbehaving_bot


def act(state, ctx):
    while True:
        pass


misbehaving_bot(act)
