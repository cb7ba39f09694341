"""Does a game survive its parameters? A probe in a child process, for games whose rules are
native code (OpenSpiel's, `openspiel:NAME`): a value out of the range a game supports can
crash the process that plays it (`rows=0` makes Connect Four's legal moves a segmentation
fault), where our own error cannot be raised. Such a game is played once in a child, from its
start through random moves; a crash there is a one-line error naming the parameter.

Called where the user's parameters come in (a config's `params:`, `-p` of `arbiter play` and
`arbiter check`), after the game has taken them (`find_game`): the arbiter's own process,
the referee and the bots never meet a game that crashes in its first moves.

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

PROBED_FAMILIES = ("openspiel:",)  # games whose rules are native code; ours are Python and raise
PROBE_PLIES = 60  # moves of a random game played in the probe (chance's outcomes among them)
PROBE_TIMEOUT_S = 60.0  # a child that takes longer has not crashed: the game is taken as it is


def parameter_problem(name: str, params: Mapping[str, Any]) -> tuple[str | None, str] | None:
    """None when the game `name` plays with `params` (already accepted by `find_game`) without
    crashing; else the parameter to blame (None when no single one crashes alone) and a
    sentence saying so."""
    if not name.startswith(PROBED_FAMILIES) or not params:
        return None
    given = {key: str(value) for key, value in params.items()}
    crash = _crash(name, tuple(sorted(given.items())))
    if crash is None:
        return None
    alone = [key for key in sorted(given) if _crash(name, ((key, given[key]),)) is not None]
    if len(alone) == 1:
        key = alone[0]
        return key, (f"{name}: parameter {key}={given[key]} crashes the game ({crash}): "
                     "it is outside the range the game supports")
    shown = " ".join(f"{k}={v}" for k, v in sorted(given.items()))
    return None, f"{name}: the parameters {shown} crash the game together ({crash}): they are outside what it supports"


@lru_cache(maxsize=64)
def _crash(name: str, params: tuple[tuple[str, str], ...]) -> str | None:
    """How the child playing the game died (`SIGSEGV`, ...), or None when it did not."""
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run([sys.executable, "-m", "arbiter.tournament.game_probe", name, json.dumps(dict(params))],
                              capture_output=True, text=True, env=env, timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode < 0:
        try:
            return signal.Signals(-done.returncode).name
        except ValueError:
            return f"signal {-done.returncode}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"it stopped with status {done.returncode}: {last}"
    return None


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
    _play(sys.argv[1], json.loads(sys.argv[2]))

__all__ = ["parameter_problem"]
