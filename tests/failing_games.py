"""Games whose rules fail on purpose, as native rules do (tests/test_workers.py).

`failing_games:FailingNim` is Limit Nim whose rules, in the arbiter's own processes (not in
a bot's, which has $ARBITER_SEED), fail at the third move of the one game that creates the
`marker` file first: they raise, hang holding Python's lock, segfault, use up every
descriptor, or ask for more memory than there is; or (`deaf`) hang where no Ctrl-C reaches
them, as native code in an endless loop does. Its `name` is its own `module:Class`, so the bot kit finds it from the `Game`
line as the arbiter finds it from the config (both with this folder on PYTHONPATH).
"""
from __future__ import annotations

import ctypes
import os
import re
import signal
import time

from arbiter.games.base import Param
from arbiter.games.limit_nim import LimitNim, LimitNimState

FAILURES = ("raise", "hang", "segfault", "descriptors", "memory", "deaf")


class RulesFailed(Exception):
    """What the rules raise, as OpenSpiel's SpielError would."""


class FailingNim(LimitNim):
    name = "failing_games:FailingNim"
    parameters = (*LimitNim.parameters,
                  Param("failure", "raise", f"one of {', '.join(FAILURES)}", parse=str,
                        check=lambda value: None if value in FAILURES else f"one of {', '.join(FAILURES)}"),
                  Param("marker", "", "a file the failing game creates (one game fails)", parse=str))

    def format_param(self, name: str) -> str:
        return super().format_param(name) if name == "piles" else str(self.params[name])

    def new_state(self) -> FailingNimState:
        return FailingNimState(self, self.params["piles"])


class FailingNimState(LimitNimState):
    def _apply(self, move: tuple[int, int]) -> None:
        if len(self.history) == 2 and "ARBITER_SEED" not in os.environ and self._first():
            fail(self.game.params["failure"])
        super()._apply(move)

    def _first(self) -> bool:
        try:
            os.close(os.open(self.game.params["marker"], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True


def fail(failure: str) -> None:
    """Fail as the rules of `failure` do."""
    if failure == "raise":
        raise RulesFailed("the rules failed on purpose (move.cc:623 CHECK_TRUE(move.IsValid()))")
    if failure == "hang":
        re.match(r"(a+)+b", "a" * 64)  # catastrophic backtracking: in C, holding Python's lock, for ages
    if failure == "deaf":  # the regex above checks for signals now and then; a native loop never does
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        time.sleep(3600)
    if failure == "segfault":
        ctypes.string_at(0)
    if failure == "memory":
        bytearray(1 << 60)  # an exabyte: MemoryError at once, as an allocation that fails does
    if failure == "descriptors":
        held = []
        while True:
            held.append(os.open(os.devnull, os.O_RDONLY))  # until EMFILE escapes
