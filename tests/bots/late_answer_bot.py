"""Plays honestly, then answers once more after `Quit`, as an entry that never saw the game
end would: with SIGPIPE's default action, so that writing into a closed pipe kills it."""
import signal
import sys
import time

from misbehave import first_legal

from arbiter.bot import run_bot

signal.signal(signal.SIGPIPE, signal.SIG_DFL)
status = run_bot(lambda state, ctx: first_legal(state))
time.sleep(0.05)
sys.stdout.write("1 1\n")
sys.stdout.flush()
print("late answer written", file=sys.stderr, flush=True)
sys.exit(status)
