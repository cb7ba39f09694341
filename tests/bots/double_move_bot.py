"""Writes two moves when one is due (limit-nim: every turn is one move)."""
from misbehave import first_legal, misbehaving_bot, wait_for_quit, write_raw


def act(state, ctx):
    write_raw(f"{first_legal(state)}\n1 1\n".encode())
    wait_for_quit()


misbehaving_bot(act)
