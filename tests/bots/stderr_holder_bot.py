"""Leaves a grandchild outside its session holding stderr and stdout open, then crashes mid-game."""
import os
import sys
import time

from misbehave import misbehaving_bot

if os.fork() == 0:
    os.setsid()
    time.sleep(100000)


def act(state, ctx):
    sys.exit(5)


misbehaving_bot(act)
