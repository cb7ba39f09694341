"""Writes a 10 MB line."""
from misbehave import misbehaving_bot, wait_for_quit, write_raw


def act(state, ctx):
    write_raw(b"1" * (10 << 20) + b"\n")
    wait_for_quit()


misbehaving_bot(act)
