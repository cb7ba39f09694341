"""Starts FORKS (default 200) children that sleep forever, then plays honestly."""
import os
import time

from misbehave import first_legal, misbehaving_bot

for _ in range(int(os.environ.get("FORKS", "200"))):
    if os.fork() == 0:
        time.sleep(100000)
        os._exit(0)


def act(state, ctx):
    return first_legal(state)


misbehaving_bot(act)
