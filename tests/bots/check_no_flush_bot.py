"""Plays honestly but never flushes: its moves sit in its stdout buffer (`arbiter check`: seat-0)."""
import io
import sys

from misbehave import first_legal

from arbiter.bot import StdioChannel, run_bot

# Block-buffered whatever the environment says (PYTHONUNBUFFERED would flush every write).
OUT = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False), 65536))


class NoFlushChannel(StdioChannel):
    def send(self, line):
        OUT.write(line + "\n")  # and no flush


sys.exit(run_bot(lambda state, ctx: first_legal(state), channel=NoFlushChannel()))
