#!/usr/bin/env python3
"""A random bot that thinks for SLOW_MS milliseconds per move: keeps a tournament busy long
enough to be interrupted in the middle."""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arbiter.bot import run_bot  # noqa: E402


def choose(state, ctx):
    time.sleep(int(os.environ.get("SLOW_MS", "20")) / 1000)
    return ctx.rng.choice(state.legal_moves())


if __name__ == "__main__":
    sys.exit(run_bot(choose))
