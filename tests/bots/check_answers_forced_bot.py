"""Treats the moves after `Opening N` as ordinary relayed moves, answering them whenever they
make it its turn (`arbiter check`: opening)."""
import sys

from misbehave import first_legal

from arbiter.bot import StdioChannel, run_bot


class NoOpeningChannel(StdioChannel):
    def lines(self):
        for line in super().lines():
            if not line.startswith("Opening "):  # forget the framing: forced moves look relayed
                yield line


sys.exit(run_bot(lambda state, ctx: first_legal(state), channel=NoOpeningChannel()))
