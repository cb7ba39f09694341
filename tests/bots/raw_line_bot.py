"""Plays honestly, but writes every move padded with PAD and ended by LINE_END (default "\\r\\n")."""
import os
import sys

from misbehave import first_legal

from arbiter.bot import StdioChannel, run_bot


class RawChannel(StdioChannel):
    def send(self, line):
        sys.stdout.write(os.environ.get("PAD", "") + line + os.environ.get("PAD", "") + os.environ.get("LINE_END", "\r\n"))
        sys.stdout.flush()


sys.exit(run_bot(lambda state, ctx: first_legal(state), channel=RawChannel()))
