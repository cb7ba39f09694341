"""A kit bot that plays at random and counts the games of its process, for the tests of many
games per process (tests/test_reuse.py). Each behaviour is an option, N counting this
process's games from 1:

  --crash-in-game N     exit with status 3 at its first move of game N
  --exit-on-game N      exit as soon as it reads its N-th `Game` line (it does not play a next game)
  --burn-first-move MS  burn MS of CPU at its first move of every game
  --burn-on-game MS     burn MS of CPU each time it reads a `Game` line (taking in a new game)
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arbiter.bot import StdioChannel, bot_arguments, exit_now, run_bot  # noqa: E402

parser = bot_arguments(__doc__.splitlines()[0])
for option in ("--crash-in-game", "--exit-on-game", "--burn-first-move", "--burn-on-game"):
    parser.add_argument(option, type=int, default=0)
args = parser.parse_args()
games = 0  # `Game` lines read by this process
moved_in = 0  # the game of the last move made


def burn(cpu_ms: int) -> None:
    end = time.process_time() + cpu_ms / 1000
    while time.process_time() < end:
        pass


class CountingChannel(StdioChannel):
    """Stdin and stdout, counting `Game` lines as they arrive."""

    def lines(self):
        global games
        for line in super().lines():
            if line.startswith("Game "):
                games += 1
                print(f"reuse_probe_bot: game {games} of process {os.getpid()}", file=sys.stderr, flush=True)
                if games == args.exit_on_game:
                    exit_now(0)
                burn(args.burn_on_game)
            yield line


def choose(state, ctx):
    global moved_in
    if moved_in != games:
        moved_in = games
        if games == args.crash_in_game:
            ctx.log(f"reuse_probe_bot: crashing in game {games}")
            exit_now(3)
        burn(args.burn_first_move)
    return ctx.rng.choice(state.legal_moves())


exit_now(run_bot(choose, parser=parser, channel=CountingChannel()))
