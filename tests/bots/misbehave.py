"""Shared by the misbehaving test bots: play legal moves, then misbehave on a chosen move.

Each bot in this folder is one way a real bot goes wrong (tests/test_referee_faults.py).
It plays the first legal move until its MISBEHAVE_AT-th move (default 2, so the fault
comes mid-game), where it calls its `act` instead.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from arbiter.bot import BotContext, run_bot  # noqa: E402
from arbiter.games import State  # noqa: E402

Act = Callable[[State[Any], BotContext], Any]


def first_legal(state: State[Any]) -> str:
    """The first legal move, as text."""
    return state.game.format_move(state.legal_moves()[0])


def misbehaving_bot(act: Act) -> None:
    """Run the bot: honest moves, then `act(state, ctx)` on move MISBEHAVE_AT."""
    at_move = int(os.environ.get("MISBEHAVE_AT", "2"))
    moves = 0

    def choose(state: State[Any], ctx: BotContext) -> Any:
        nonlocal moves
        moves += 1
        if moves == at_move:
            return act(state, ctx)
        return first_legal(state)

    sys.exit(run_bot(choose))


def write_raw(data: bytes) -> None:
    """Bytes straight to stdout, bypassing the kit."""
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def wait_for_quit() -> None:
    """Read until `Quit` (or end of file), then exit quietly."""
    for line in sys.stdin:
        if line.strip() == "Quit":
            break
    sys.exit(0)
