"""Plays honestly but prints a debug line on stdout before its first move (`arbiter check`: stdout)."""
import sys

from misbehave import first_legal

from arbiter.bot import run_bot

said = False


def choose(state, ctx):
    global said
    if not said:
        said = True
        print(f"thinking about {len(state.legal_moves())} moves", flush=True)
    return first_legal(state)


sys.exit(run_bot(choose))
