"""Mid-game, writes its move one byte at a time, CHUNK_S apart (default 0.3 s), so each byte
arrives well before the deadline but the whole line after it; PARTIAL=1: half a line, then hangs."""
import os
import time

from misbehave import first_legal, misbehaving_bot, write_raw


def act(state, ctx):
    line = (first_legal(state) + "\n").encode()
    if os.environ.get("PARTIAL"):
        write_raw(line[:1])
        time.sleep(100000)
    for byte in line:
        write_raw(bytes([byte]))
        time.sleep(float(os.environ.get("CHUNK_S", "0.3")))
    time.sleep(100000)


misbehaving_bot(act)
