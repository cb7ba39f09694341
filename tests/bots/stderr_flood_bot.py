"""Floods stderr with FLOOD_MB megabytes (default 100) on its first move, then plays on honestly."""
import os
import sys

from misbehave import first_legal, misbehaving_bot


def act(state, ctx):
    chunk = (b"flood " * (1 << 18))[: (1 << 20) - 1] + b"\n"  # exactly 1 MiB
    for _ in range(int(os.environ.get("FLOOD_MB", "100"))):
        sys.stderr.buffer.write(chunk)
    sys.stderr.buffer.flush()
    return first_legal(state)


os.environ.setdefault("MISBEHAVE_AT", "1")
misbehaving_bot(act)
