"""Plays honestly but never flushes: its moves sit in its stdout buffer (`arbiter check`: seat-0)."""
import sys

from misbehave import first_legal

from arbiter.bot import StdioChannel, run_bot


class NoFlushChannel(StdioChannel):
    def send(self, line):
        sys.stdout.write(line + "\n")  # no flush: a pipe's stdout is block-buffered


sys.exit(run_bot(lambda state, ctx: first_legal(state), channel=NoFlushChannel()))
