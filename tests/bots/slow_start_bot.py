"""Takes its time to start before it reads its first line, then plays honestly.

START_S seconds (default 1.5; `forever` never finishes), spent as START_HOW says: `busy`
(computing, as a bot building tables) or `sleep` (as a bot waiting on something else).
When done it notes `started at NS` on stderr (`time.monotonic_ns()`, the machine's clock)."""
import os
import sys
import time

from misbehave import first_legal

from arbiter.bot import run_bot

seconds = os.environ.get("START_S", "1.5")
until = float("inf") if seconds == "forever" else time.monotonic() + float(seconds)
if os.environ.get("START_HOW", "busy") == "sleep":
    while time.monotonic() < until:
        time.sleep(min(until - time.monotonic(), 3600))
else:
    while time.monotonic() < until:
        pass
print(f"started at {time.monotonic_ns()}", file=sys.stderr, flush=True)
sys.exit(run_bot(lambda state, ctx: first_legal(state)))
