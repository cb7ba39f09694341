"""Closes its stdin mid-game (just before writing its move, so the close has happened by the
time the move is read), and keeps running."""
import os
import time

from misbehave import first_legal, misbehaving_bot, write_raw


def act(state, ctx):
    os.close(0)
    write_raw((first_legal(state) + "\n").encode())
    time.sleep(100000)


misbehaving_bot(act)
