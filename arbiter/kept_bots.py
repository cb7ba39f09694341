"""Bot processes kept alive between games, for players that play many games in one process.

A player with `reuse` (docs/config.md) may play game after game in one process: after a
game that ended normally, the referee hands its seat's live bot back here instead of ending
it, and the next game of that player takes it again and sends it the new `Game` line
(docs/protocol.md, Many games per process). Whatever ends a game otherwise (a fault of any
seat, a cancel) ends the bot as before, and the next game launches a fresh one.

One `KeptBots` belongs to one thread that plays games one after the other (a tournament's
worker thread), so a kept process is in one game at a time whatever the concurrency; the
lock is for `close`, which the thread that owns the pool calls once every game is over.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Hashable

from .protocol import QUIT
from .transport import Channel
from .transport.process import BotProcess, end_all


@dataclass
class LiveBot:
    """A bot process between two games: its channel, its process, how many games it has played
    (so the next is game `games + 1` of its process), and whether it is stopped (SIGSTOP or
    frozen) while it waits."""

    channel: Channel
    process: BotProcess
    games: int
    stopped: bool


_TOLD_LOCK = threading.Lock()  # over the `told` sets, which a pool's threads share


class KeptBots:
    """The live bots one game-playing thread keeps between games, one per player at most
    (keyed by what launched it), and the players found to end after one game anyway.

    `told`, shared by the KeptBots of one run's threads, holds the players the run has
    already told the user about (`one_game_only`), so that it says so once per run."""

    def __init__(self, note: Callable[[str], None] | None = None, *, told: set[Hashable] | None = None) -> None:
        self._note = note  # the run's way of telling the user
        self._told = set() if told is None else told
        self._lock = threading.Lock()
        self._live: dict[Hashable, LiveBot] = {}
        self._single: set[Hashable] = set()  # players that end after each game: launched afresh

    def take(self, key: Hashable) -> LiveBot | None:
        """The live bot kept under `key`, taken out for one game; None when there is none."""
        with self._lock:
            return self._live.pop(key, None)

    def wants(self, key: Hashable) -> bool:
        """Whether a bot kept under `key` is wanted after its game (not a player found to
        end after each game)."""
        with self._lock:
            return key not in self._single

    def keep(self, key: Hashable, bot: LiveBot) -> None:
        """Keep `bot` for the next game under `key` (none may be kept there already: the
        thread that took it gives it back)."""
        with self._lock:
            assert key not in self._live, "a player's bot was kept twice by one thread"
            self._live[key] = bot

    def one_game_only(self, key: Hashable, message: str) -> None:
        """The bot under `key` ended after its game anyway: from now on it is launched for each
        of this thread's games, and `message` is said once for the run."""
        with self._lock:
            self._single.add(key)
        with _TOLD_LOCK:
            first = key not in self._told
            self._told.add(key)
        if first and self._note is not None:
            self._note(message)

    def __len__(self) -> int:
        with self._lock:
            return len(self._live)

    def close(self, *, grace_s: float, term_grace_s: float) -> None:
        """End every kept bot as a game's end does: `Quit`, end of its input, the bounded end."""
        with self._lock:
            bots, self._live = list(self._live.values()), {}
        for bot in bots:
            bot.channel.send_lines([QUIT], 0.0)  # a fresh `Quit` fits in an idle pipe: no wait
            if bot.stopped:
                bot.process.resume()
            bot.channel.close_input()
        end_all([bot.process for bot in bots], grace_s=grace_s, term_grace_s=term_grace_s)
        for bot in bots:
            bot.channel.close()


__all__ = ["KeptBots", "LiveBot"]
