"""Plays honestly, but starts a helper process it never ends: it outlives the bot's exit on
`Quit` (`arbiter check`: processes)."""
import subprocess
import sys

from misbehave import first_legal

from arbiter.bot import run_bot

helper = subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
sys.exit(run_bot(lambda state, ctx: first_legal(state)))
