"""Plays at random, and writes every line it reads and sends to its stderr log
(`< line` read, `> line` sent): what a seat was told, and when, for the referee's tests."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arbiter.bot import StdioChannel, exit_now, run_bot  # noqa: E402


class LoggedChannel(StdioChannel):
    """The bot's stdin and stdout, each line also written to stderr."""

    def lines(self):  # type: ignore[no-untyped-def]
        for line in super().lines():
            print(f"< {line}", file=sys.stderr, flush=True)
            yield line

    def send(self, line: str) -> None:
        print(f"> {line}", file=sys.stderr, flush=True)
        super().send(line)


if __name__ == "__main__":
    exit_now(run_bot(lambda state, ctx: ctx.rng.choice(state.legal_moves()), argv=[], channel=LoggedChannel()))
