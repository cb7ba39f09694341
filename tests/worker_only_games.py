"""A game whose rules may run in a worker only (tests/test_live_run.py).

`worker_only_games:WorkerOnlyNim` is Limit Nim whose rules fail when the arbiter's own process
calls them for a running game: in the process whose pid is $WORKER_ONLY_ARBITER_PID (the
arbiter's, which the test starts with it set; its workers and bots inherit the variable but
not the pid), who is to move and the scores fail as $WORKER_ONLY_FAILURE says
(`failing_games.fail`: raise, hang, segfault). What the page's board pictures take from the
rules library (html.py's `Board`: a move read from its text and written back, the positions'
ASCII pictures) works everywhere: moving those out of the arbiter's process is another change's.
"""
from __future__ import annotations

import os

from arbiter.games.limit_nim import LimitNim, LimitNimState
from failing_games import fail

PID_VARIABLE, FAILURE_VARIABLE = "WORKER_ONLY_ARBITER_PID", "WORKER_ONLY_FAILURE"


def _not_in_the_arbiter() -> None:
    if os.environ.get(PID_VARIABLE) == str(os.getpid()):
        fail(os.environ.get(FAILURE_VARIABLE, "raise"))


class WorkerOnlyNim(LimitNim):
    name = "worker_only_games:WorkerOnlyNim"

    def new_state(self) -> WorkerOnlyNimState:
        return WorkerOnlyNimState(self, self.params["piles"])


class WorkerOnlyNimState(LimitNimState):
    @property
    def current_player(self) -> int:
        _not_in_the_arbiter()
        return super().current_player

    @property
    def scores(self) -> list[int]:
        _not_in_the_arbiter()
        return super().scores
