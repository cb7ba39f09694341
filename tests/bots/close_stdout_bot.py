"""Closes its stdout mid-game and keeps running."""
import os
import time

from misbehave import misbehaving_bot


def act(state, ctx):
    os.close(1)
    time.sleep(100000)


misbehaving_bot(act)
