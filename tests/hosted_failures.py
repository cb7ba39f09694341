"""A game whose rules crash on the arbiter's side only, for the rules host's tests
(tests/test_rules_host.py): `hosted_failures:CrashingNim` is Limit Nim whose rules crash
(`failure`: abort, segfault or hang) when they apply move number `at` (1-based), or only
when that move is `move`, in any process but a game's worker (forked by the zygote) and a
bot (which has $ARBITER_SEED): where the arbiter replays records (the tamper check), draws
random openings and draws the report's pictures. Games are played as usual. Its `name` is
its own `module:Class`, so the bot kit finds it from the `Game` line as the arbiter does
from the config (both with this folder on PYTHONPATH).
"""
from __future__ import annotations

import ctypes
import os
import re
import sys

from arbiter.games.base import Param
from arbiter.games.limit_nim import LimitNim, LimitNimState

FAILURES = ("abort", "segfault", "hang")


class CrashingNim(LimitNim):
    name = "hosted_failures:CrashingNim"
    parameters = (*LimitNim.parameters,
                  Param("failure", "abort", f"one of {', '.join(FAILURES)}", parse=str,
                        check=lambda value: None if value in FAILURES else f"one of {', '.join(FAILURES)}"),
                  Param("at", 3, "the move (1-based) whose application crashes", parse=int),
                  Param("move", "", "crash only when move number `at` is this one", parse=str))

    def format_param(self, name: str) -> str:
        return super().format_param(name) if name == "piles" else str(self.params[name])

    def new_state(self) -> CrashingNimState:
        return CrashingNimState(self, self.params["piles"])


def on_the_arbiters_side() -> bool:
    """Neither a game's worker (forked by the zygote: its argv is the zygote's) nor a bot."""
    return not sys.argv[0].endswith("zygote.py") and "ARBITER_SEED" not in os.environ


class CrashingNimState(LimitNimState):
    def _apply(self, move: tuple[int, int]) -> None:
        params = self.game.params
        if (len(self.history) + 1 == params["at"] and params["move"] in ("", self.game.format_move(move))
                and on_the_arbiters_side()):
            if params["failure"] == "abort":
                os.abort()
            if params["failure"] == "segfault":
                ctypes.string_at(0)
            re.match(r"(a+)+b", "a" * 64)  # hang: in C, holding Python's lock, for ages
        super()._apply(move)
