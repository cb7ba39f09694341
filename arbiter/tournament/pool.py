"""Where a tournament's games are played: `GameSetup` (everything that decides how one
scheduled game is played), `play_setup` (one game from it, wherever it runs), and the
`GamePool` the runner submits games to: `workers.WorkerPool` (worker processes on this
machine) or `cluster.ClusterPool` (a Dask cluster). A module of its own so that the runner,
the workers and the cluster build on it without importing each other."""
from __future__ import annotations

import pickle
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from ..games import Game, State
from ..kept_bots import KeptBots
from ..records import GameRecord
from ..referee import PlayerSpec, TimeControl, play_game
from ..transport.sandbox import SandboxError
from .schedule import ScheduledGame

# What the machinery around a game raises when it fails (the machine, not a bot, and not a bug
# of the arbiter's logic): the box (SandboxError), the files and folders it uses (OSError), a
# tree too deep to walk (RecursionError). The runner notes such a game as an arbiter fault.
MACHINERY_FAILURES = (OSError, SandboxError, RecursionError)


def picklable(exc: BaseException, kind: type[Exception] = RuntimeError) -> BaseException:
    """`exc`, or (one that does not survive pickling, to be raised again in the parent) a
    `kind` in its words: what a worker or a check's process sends back of an exception."""
    try:
        return pickle.loads(pickle.dumps(exc))  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - any failure to pickle is the same failure here
        return kind(f"{type(exc).__name__}: {exc}")


def described(exc: BaseException) -> str:
    """`SpielError: quoridor.cc:623 ... (at rules.py:88)`: the exception and its innermost
    frame, for the sentence of a game (or a check) that failed in its process."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    at = f" (at {Path(frame.tb_frame.f_code.co_filename).name}:{frame.tb_lineno})" if frame is not None else ""
    return f"{type(exc).__name__}: {exc}{at}"


@dataclass(frozen=True)
class GameSetup:
    """Everything that decides how one scheduled game is played, here or on a cluster's worker."""

    players: tuple[PlayerSpec, ...]  # in seat order, each with the game's $ARBITER_SEED
    time: TimeControl
    opening: tuple[str, ...]
    log_prefix: str  # of the game's log file names
    chance_seed: int  # the seed of its chance outcomes, from the tournament's seed and the game id (chance.py)


class GamePool(Protocol):
    """Where games are played: worker processes here (`workers.WorkerPool`) or a Dask
    cluster (`cluster.ClusterPool`). The runner keeps `slots` games submitted and records each
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


def play_setup(game: Game[Any], setup: GameSetup, log_dir: Path, *, cancel: threading.Event,
               on_turn: Callable[[State[Any]], None] | None = None, kept: KeptBots | None = None,
               play: Callable[..., GameRecord] = play_game) -> GameRecord:
    """Play one game as `setup` says, its bots' logs in `log_dir`: what a local worker
    (workers.py) and a cluster's worker (cluster.py) each do with a task. `play` is the
    referee's `play_game`, or a test's stand-in for it (`on_turn` and `kept` are passed
    only when given, so a stand-in need not take them)."""
    options: dict[str, Any] = {}
    if on_turn is not None:
        options["on_turn"] = on_turn
    if kept is not None:
        options["kept"] = kept
    return play(game, list(setup.players), time=setup.time, opening=setup.opening, log_dir=log_dir,
                log_prefix=setup.log_prefix, cancel=cancel, chance_seed=setup.chance_seed, **options)


class StandInPool:
    """A test's stand-in `play` (scripted results, no process), its games in `slots` threads
    of this process. Real games are never played here: they go to workers (workers.py),
    where a game that crashes or hangs costs that game alone."""

    def __init__(self, slots: int, play_one: Callable[[ScheduledGame], GameRecord],
                 cancel: threading.Event) -> None:
        self.slots = slots
        self._cancel = cancel
        self._threads = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="game")
        self._play_one = play_one

    def submit(self, scheduled: ScheduledGame) -> Future[GameRecord]:
        """Play the stand-in game in a thread."""
        return self._threads.submit(self._play_one, scheduled)

    def stop(self) -> None:
        """Set the cancel flag the stand-in watches; unstarted games are cancelled."""
        self._cancel.set()

    def close(self) -> None:
        """Wait for the threads to end."""
        self._threads.shutdown(wait=True)


__all__ = ["MACHINERY_FAILURES", "GamePool", "GameSetup", "StandInPool", "play_setup"]
