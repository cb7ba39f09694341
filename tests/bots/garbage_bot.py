"""Writes a line that is not a move."""
from misbehave import misbehaving_bot, wait_for_quit, write_raw


def act(state, ctx):
    write_raw(b"hello, referee\n")
    wait_for_quit()


misbehaving_bot(act)
