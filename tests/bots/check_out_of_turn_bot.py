"""Plays honestly, but on its second move writes the move after it too, as if the turn were
still its own (`arbiter check`: out-of-turn)."""
from misbehave import first_legal, misbehaving_bot, write_raw


def act(state, ctx):
    move = first_legal(state)
    after = state.clone()
    after.play(move)
    write_raw(f"{move}\n{first_legal(after)}\n".encode())  # two moves when one is due
    return move  # the kit writes it again: a third line out of turn


misbehaving_bot(act)
