"""Starts a grandchild that sleeps forever, then plays honestly (or, with GRANDCHILD_THEN=sleep,
sleeps on its first move)."""
import os
import subprocess
import sys
import time

from misbehave import first_legal, misbehaving_bot

subprocess.Popen([sys.executable, "-c", "import time; time.sleep(100000)  # grandchild"])


def act(state, ctx):
    if os.environ.get("GRANDCHILD_THEN") == "sleep":
        time.sleep(100000)
    return first_legal(state)


misbehaving_bot(act)
