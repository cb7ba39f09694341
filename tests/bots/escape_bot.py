"""Escapes clean-up: clears PR_SET_CHILD_SUBREAPER, then double-forks a daemon in a session of
its own that burns CPU forever (thinking on the opponent's time) and outlives its game."""
import ctypes
import os

from hostile import hostile_bot, report

PR_SET_CHILD_SUBREAPER = 36


def escape():
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                pass
        os._exit(0)
    os.wait()
    report("escape", False, "daemon started (the test looks for it after the game)")


hostile_bot(escape)
