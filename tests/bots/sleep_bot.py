"""Sleeps past any budget mid-game (SLEEP_S seconds, default an hour), then moves."""
import os
import time

from misbehave import first_legal, misbehaving_bot


def act(state, ctx):
    time.sleep(float(os.environ.get("SLEEP_S", "3600")))
    return first_legal(state)


misbehaving_bot(act)
