"""Plays honestly, but writes its second move twice in one write, as if the turn were still
its own (`arbiter check`: out-of-turn)."""
from misbehave import first_legal, misbehaving_bot, wait_for_quit, write_raw


def act(state, ctx):
    move = first_legal(state)
    write_raw(f"{move}\n{move}\n".encode())  # one write: the second line is read ahead, out of turn
    wait_for_quit()


misbehaving_bot(act)
