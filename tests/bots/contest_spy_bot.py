"""A bot that looks around the contest folder it was entered in (issue 38): from its own
folder (`entries/NAME/`) it walks the folder two levels up and says on stderr, before playing
at random, each file it could read there (`SPY read PATH`) and that it looked (`SPY done`).
A box must show it its own folder and nothing around it: no other entrant's code, config,
results or log."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from arbiter.bot import run_bot


def spy() -> None:
    root = Path(__file__).resolve().parents[2]
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as file:
                    file.read(1)
            except OSError:
                continue
            print(f"SPY read {path}", file=sys.stderr)
    print(f"SPY done {root}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    spy()
    run_bot(lambda state, ctx: ctx.rng.choice(state.legal_moves()), description="a bot that spies")
