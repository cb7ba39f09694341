"""Plays honestly, but traps SIGTERM and stays alive after `Quit`."""
import signal
import time

from misbehave import first_legal, misbehaving_bot

signal.signal(signal.SIGTERM, signal.SIG_IGN)


def act(state, ctx):
    return first_legal(state)


try:
    misbehaving_bot(act)
finally:
    while True:  # `Quit` ended run_bot: linger anyway
        time.sleep(1)
