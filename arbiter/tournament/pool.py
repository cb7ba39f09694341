"""Where a tournament's games are played: `GameSetup` (everything that decides how one
scheduled game is played), the `GamePool` the runner submits games to, and `LocalPool`, its
threads in this process; `cluster.ClusterPool` is the other pool. A module of its own so that
the runner and the cluster both build on it without importing each other."""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Protocol

from ..records import GameRecord
from ..referee import PlayerSpec, TimeControl
from .schedule import ScheduledGame


@dataclass(frozen=True)
class GameSetup:
    """Everything that decides how one scheduled game is played, here or on a cluster's worker."""

    players: tuple[PlayerSpec, ...]  # in seat order, each with the game's $ARBITER_SEED
    time: TimeControl
    opening: tuple[str, ...]
    log_prefix: str  # of the game's log file names
    chance_seed: int  # the seed of its chance outcomes, from the tournament's seed and the game id (chance.py)


class GamePool(Protocol):
    """Where games are played: threads of this process (`LocalPool`) or a Dask cluster
    (`cluster.ClusterPool`). The runner keeps `slots` games submitted and records each
    result itself, so the records have one writer wherever the games run."""

    slots: int

    def submit(self, scheduled: ScheduledGame) -> Future[GameRecord]:
        """Start (or queue) one game; its future gives the referee's record, or raises
        GameAborted when the game was stopped."""
        ...

    def stop(self) -> None:
        """End the running games (their futures raise GameAborted) and drop those not started."""
        ...

    def close(self) -> None:
        """Release the pool once no future is pending."""
        ...


class LocalPool:
    """Games in threads of this process, `slots` at once."""

    def __init__(self, slots: int, play_one: Callable[[ScheduledGame], GameRecord], cancel: threading.Event) -> None:
        self.slots = slots
        self._play_one = play_one
        self._cancel = cancel
        self._threads = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="game")

    def submit(self, scheduled: ScheduledGame) -> Future[GameRecord]:
        """Play the game in a thread of this process."""
        return self._threads.submit(self._play_one, scheduled)

    def stop(self) -> None:
        """Set the cancel flag every running game's referee watches; unstarted ones are cancelled."""
        self._cancel.set()

    def close(self) -> None:
        """Wait for the threads to end."""
        self._threads.shutdown(wait=True)


__all__ = ["GamePool", "GameSetup", "LocalPool"]
