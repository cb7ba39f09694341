"""Writes a line that is not valid UTF-8."""
from misbehave import misbehaving_bot, wait_for_quit, write_raw


def act(state, ctx):
    write_raw(b"1 \xff\xfe\n")
    wait_for_quit()


misbehaving_bot(act)
