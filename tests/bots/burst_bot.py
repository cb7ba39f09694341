"""Mid-game, writes its move and then BURST_LINES (default 100000) more lines at once."""
import os

from misbehave import first_legal, misbehaving_bot, wait_for_quit, write_raw


def act(state, ctx):
    write_raw((first_legal(state) + "\n" + "1 1\n" * int(os.environ.get("BURST_LINES", "100000"))).encode())
    wait_for_quit()


misbehaving_bot(act)
