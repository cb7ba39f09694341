"""Starts a child that leaves the bot's process group and keeps sending the bot SIGCONT,
so that it could think while it is suspended; then plays honestly."""
import os
import signal
import time

from misbehave import first_legal, misbehaving_bot

parent = os.getpid()
if os.fork() == 0:
    os.setpgid(0, 0)
    while True:
        os.kill(parent, signal.SIGCONT)
        time.sleep(0.002)


def act(state, ctx):
    return first_legal(state)


misbehaving_bot(act)
