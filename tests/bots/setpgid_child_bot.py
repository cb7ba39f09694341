"""Starts a child that leaves the bot's process group (setpgid, same session) and sleeps forever."""
import os
import time

from misbehave import first_legal, misbehaving_bot

if os.fork() == 0:
    os.setpgid(0, 0)
    time.sleep(100000)


def act(state, ctx):
    return first_legal(state)


misbehaving_bot(act)
