"""Closes its stdin mid-game after moving, and keeps running."""
import os
import time

from misbehave import first_legal, misbehaving_bot, write_raw


def act(state, ctx):
    write_raw((first_legal(state) + "\n").encode())
    os.close(0)
    time.sleep(100000)


misbehaving_bot(act)
