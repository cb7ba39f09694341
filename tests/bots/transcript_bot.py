"""An honest bot that copies every line it receives to stderr as `got: LINE`, so a test can
read the exact wire traffic from its log. Plays the first legal move."""
import sys

from misbehave import first_legal

from arbiter.bot import StdioChannel, run_bot


class TranscriptChannel(StdioChannel):
    def lines(self):
        for line in super().lines():
            print(f"got: {line}", file=sys.stderr, flush=True)
            yield line


sys.exit(run_bot(lambda state, ctx: first_legal(state), channel=TranscriptChannel()))
