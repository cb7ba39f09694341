"""Traps SIGTERM, as do its CHILDREN (default 5) children; all linger after Quit."""
import os
import signal
import time

from misbehave import first_legal, misbehaving_bot

signal.signal(signal.SIGTERM, signal.SIG_IGN)
for _ in range(int(os.environ.get("CHILDREN", "5"))):
    if os.fork() == 0:
        while True:
            time.sleep(1)


def act(state, ctx):
    return first_legal(state)


try:
    misbehaving_bot(act)
finally:
    while True:
        time.sleep(1)
