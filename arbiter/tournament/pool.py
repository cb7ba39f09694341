"""Where a tournament's games are played: `GameSetup` (everything that decides how one
scheduled game is played), the `GamePool` the runner submits games to, and `LocalPool`, its
threads in this process; `cluster.ClusterPool` is the other pool. A module of its own so that
the runner and the cluster both build on it without importing each other.

Each thread of a `LocalPool` owns the bots it keeps between games for players with `reuse`
(`KeptBots`): a thread plays one game at a time, so a kept process is in one game at a time,
and with `concurrency: 2` a player has at most two processes."""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Hashable, Protocol

from ..kept_bots import KeptBots
from ..records import GameRecord
from ..referee import QUIT_GRACE_S, TERM_GRACE_S, PlayerSpec, TimeControl
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
    """Games in threads of this process, `slots` at once; with `keep_bots`, each thread keeps
    the bots of players with `reuse` between its games (`play_one` is then given them)."""

    def __init__(self, slots: int, play_one: Callable[[ScheduledGame, KeptBots | None], GameRecord],
                 cancel: threading.Event, *, keep_bots: bool = False,
                 note: Callable[[str], None] | None = None) -> None:
        self.slots = slots
        self._play_one = play_one
        self._cancel = cancel
        self._keep_bots = keep_bots
        self._note = note
        self._here = threading.local()  # the thread's own KeptBots
        self._kept: list[KeptBots] = []  # every thread's, to end them at `close`
        self._told: set[Hashable] = set()  # players the run was told end after each game: said once
        self._kept_lock = threading.Lock()
        self._threads = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="game")

    def submit(self, scheduled: ScheduledGame) -> Future[GameRecord]:
        """Play the game in a thread of this process."""
        return self._threads.submit(self._play_here, scheduled)

    def _play_here(self, scheduled: ScheduledGame) -> GameRecord:
        return self._play_one(scheduled, self._thread_kept() if self._keep_bots else None)

    def _thread_kept(self) -> KeptBots:
        """The bots this thread keeps between its games, made on its first game."""
        kept = getattr(self._here, "kept", None)
        if kept is None:
            kept = self._here.kept = KeptBots(self._note, told=self._told)
            with self._kept_lock:
                self._kept.append(kept)
        return kept

    def stop(self) -> None:
        """Set the cancel flag every running game's referee watches; unstarted ones are cancelled."""
        self._cancel.set()

    def close(self) -> None:
        """End the bots kept between games (no game is running: every future is done), then
        wait for the threads to end. Before: a bot launched by a game's thread gets its
        parent-death signal when that thread ends."""
        with self._kept_lock:
            kept, self._kept = self._kept, []
        for bots in kept:
            bots.close(grace_s=QUIT_GRACE_S, term_grace_s=TERM_GRACE_S)
        self._threads.shutdown(wait=True)


__all__ = ["GamePool", "GameSetup", "LocalPool"]
