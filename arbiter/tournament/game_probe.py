"""Does a game survive its parameters? A probe in a child process, for games whose rules are
native code (OpenSpiel's, `openspiel:NAME`): a value out of the range a game supports can
crash the process that plays it (`rows=0` makes Connect Four's legal moves a segmentation
fault), or make a board too big to hold (`rows=100000 columns=100000`), where our own error
cannot be raised. Such a game is played once in a child, from its start through random moves,
with its memory and CPU time capped by the child's own rlimits and a deadline in the parent;
a crash, a board too big or too slow there is a one-line error naming the parameter.

Called where the user's parameters come in (a config's `params:`, `-p` of `arbiter play` and
`arbiter check`), BEFORE the game is made in the arbiter's own process: the arbiter, the
referee and the bots never meet a game that crashes in its first moves or that would grow the
arbiter to gigabytes (making the game object there is what did).

    python -m arbiter.tournament.game_probe NAME '{"rows": 0}'    (the child)
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..transport import signal_name

PROBED_FAMILIES = ("openspiel:",)  # games whose rules are native code; ours are Python and raise
PROBE_PLIES = 60  # moves of a random game played in the probe (chance's outcomes among them)
PROBE_MEMORY_MB = 2048  # the child's heap (RLIMIT_DATA): go 19x19 plays in 100 MB, the arbiter's own import in 40
PROBE_CPU_S = 20  # the child's CPU time (RLIMIT_CPU): 60 moves of any game the tests play take under 1 s
PROBE_DEADLINE_S = 60.0  # the parent's: 3 times the CPU cap, for a child that gets a third of a core or blocks
# The child's exit statuses that are no crash: the rules refused the parameters with their own
# error (the arbiter's own `find_game` then says so), or the game did not fit its memory.
REFUSED_STATUS, MEMORY_STATUS = 3, 4
CRASHES = "crashes"  # how a failure that is a crash is worded (the others: "makes a game too ...")


def parameter_problem(name: str, params: Mapping[str, Any]) -> tuple[str | None, str] | None:
    """None when the game `name` plays with `params` without crashing, growing past
    PROBE_MEMORY_MB or taking PROBE_CPU_S in its first moves (or when its rules refuse the
    parameters: `find_game`, asked next, says why); else the parameter to blame (None when no
    single one fails alone) and a sentence saying so. Ask it before making the game in this
    process: making it is what a board too big would grow."""
    if not name.startswith(PROBED_FAMILIES) or not params:
        return None
    given = {key: str(value) for key, value in params.items()}
    failure = _failure(name, tuple(sorted(given.items())))
    if failure is None:
        return None
    if len(given) == 1:
        alone = list(given)
    elif failure.startswith(CRASHES):  # which one alone? A board too big is all of them together
        alone = [key for key in sorted(given) if _failure(name, ((key, given[key]),)) is not None]
    else:  # ... and asking each alone could take as long again (columns=100000 alone: 4 s of CPU)
        alone = []
    if len(alone) == 1:
        key = alone[0]
        return key, f"{name}: parameter {key}={given[key]} {failure}: it is outside the range the game supports"
    shown = " ".join(f"{k}={v}" for k, v in sorted(given.items()))
    return None, f"{name}: the parameters {shown} together {failure.replace('makes', 'make', 1)}: they are outside " \
                 "what it supports"


@lru_cache(maxsize=64)
def _failure(name: str, params: tuple[tuple[str, str], ...]) -> str | None:
    """What playing the game did (`crashes the game (SIGSEGV)`, `makes a game too big ...`), or
    None when it played."""
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run([sys.executable, "-m", "arbiter.tournament.game_probe", name, json.dumps(dict(params))],
                              capture_output=True, text=True, env=env, timeout=PROBE_DEADLINE_S,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:  # run() has killed and reaped it
        return f"makes a game too slow to play (its first {PROBE_PLIES} moves took more than {PROBE_DEADLINE_S:g} s)"
    if done.returncode in (0, REFUSED_STATUS):
        return None
    if done.returncode == MEMORY_STATUS:
        return f"makes a game too big to play (it needs more than {PROBE_MEMORY_MB} MB of memory)"
    if done.returncode == -signal.SIGXCPU:
        return f"makes a game too slow to play (its first {PROBE_PLIES} moves take more than {PROBE_CPU_S} s of CPU)"
    if done.returncode < 0:
        return f"{CRASHES} the game ({signal_name(-done.returncode)})"
    last = (done.stderr.strip().splitlines() or ["no message"])[-1]
    return f"{CRASHES} the game (it stopped with status {done.returncode}: {last})"


def _limit_self() -> None:
    """The child's own bounds, set before the game is made: its heap, its CPU time, no core."""
    import resource

    heap = PROBE_MEMORY_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_DATA, (heap, heap))
    resource.setrlimit(resource.RLIMIT_CPU, (PROBE_CPU_S, PROBE_CPU_S + 1))  # SIGXCPU, then SIGKILL
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _play(name: str, params: dict[str, str]) -> None:
    """The child: the game, from its start, through random moves: every call the arbiter makes."""
    from ..games import find_game

    game = find_game(name, **params)
    state = game.new_state()
    rng = random.Random(0)
    for _ in range(PROBE_PLIES):
        state.render()
        state.key()
        state.clone()
        if state.is_over():
            break
        state.play(game.format_move(rng.choice(state.legal_moves())))
    _ = state.scores, state.winner(), state.outcome


if __name__ == "__main__":
    _limit_self()
    from ..games import GameError

    try:
        _play(sys.argv[1], json.loads(sys.argv[2]))
    except GameError as exc:  # the rules' own refusal, said again by the arbiter's find_game
        print(exc, file=sys.stderr)
        sys.exit(REFUSED_STATUS)
    except MemoryError:
        sys.exit(MEMORY_STATUS)

__all__ = ["parameter_problem"]
