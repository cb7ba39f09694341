"""Daemonizes a grandchild (fork, setsid, fork, the middle one exits) that sleeps forever
outside the bot's session, then plays honestly (ESCAPE_THEN=crash: then exits mid-game)."""
import os
import sys
import time

from misbehave import first_legal, misbehaving_bot

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(100000)
    os._exit(0)
os.wait()


def act(state, ctx):
    if os.environ.get("ESCAPE_THEN") == "crash":
        sys.exit(4)
    return first_legal(state)


misbehaving_bot(act)
