"""Mid-game, sends itself SIGSTOP in its own turn (and stays stopped)."""
import os
import signal

from misbehave import first_legal, misbehaving_bot


def act(state, ctx):
    os.kill(os.getpid(), signal.SIGSTOP)
    return first_legal(state)


misbehaving_bot(act)
