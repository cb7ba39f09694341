"""An honest bot that, before each move, runs a child process that burns CHILD_CPU_MS of CPU
(default 150) and waits for it: the child's CPU time belongs to the bot's move."""
import os
import subprocess
import sys

from misbehave import first_legal

from arbiter.bot import run_bot

BURN = "import time\nend = time.process_time() + {}\nwhile time.process_time() < end: pass\n"


def choose(state, ctx):
    subprocess.run([sys.executable, "-c", BURN.format(int(os.environ.get("CHILD_CPU_MS", "150")) / 1000)], check=True)
    return first_legal(state)


sys.exit(run_bot(choose))
