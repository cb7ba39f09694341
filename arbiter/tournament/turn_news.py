"""What a watched game tells the live page (docs/live.md), computed where the game is played so
that the arbiter's own process never runs its rules for a running game: `TurnReporter` is the
referee's `on_turn` in the worker, and each turn's `TurnNews` is what the page keeps of it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..games import Game, State


@dataclass(frozen=True)
class TurnNews:
    """What the live page is told of a watched game, computed where the game is played (so
    that the arbiter's process never runs its rules): once as it starts (the forced opening,
    `forced`, perhaps no move) and after each turn (the moves since)."""

    moves: tuple[tuple[int, str], ...]  # each new move's seat (CHANCE for a draw) and its text, as the game writes it
    scores: tuple[int, ...]  # every seat's score after them
    to_move: int | None  # the seat to move next; None once the game is over
    forced: bool = False  # the moves are the forced opening, on the board before the first turn

    @property
    def over(self) -> bool:
        """Whether the game is over."""
        return self.to_move is None


class TurnReporter:
    """A watched game's `on_turn` where the game is played: after each turn, the new moves
    with their seats and texts, the scores and who is to move, handed to `tell` as the
    fields of a `TurnNews` (a worker sends them to the parent as one small message a turn);
    the forced opening's news as it is made.

    A move's seat is who was to move before it, which the referee's state no longer says
    after the turn: a copy of the game, fed the same moves, says it (the rules' work the
    arbiter's process did for the page before). Whatever the rules raise here ends the
    reporting (the page's card of that game stops until its record lands), never the game;
    rules that crash or hang here do so in the worker, as the referee's own calls would."""

    __slots__ = ("tell", "game", "replay", "seen")

    def __init__(self, tell: Callable[..., None], game: Game[Any], opening: Sequence[str]) -> None:
        self.tell = tell
        self.game = game
        self.seen = len(opening)  # the referee's state holds the opening before the first turn
        self.replay: State[Any] | None = None
        try:
            replay = game.new_state()
            forced = []
            for text in opening:
                seat = replay.current_player
                forced.append((seat, game.format_move(replay.play(text))))
            news = (tuple(forced), tuple(replay.scores), None if replay.is_over() else replay.current_player, True)
        except Exception:  # noqa: BLE001 - the rules' failure: the referee meets it again and says so
            return
        self.replay = replay
        tell(*news)

    def __call__(self, state: State[Any]) -> None:
        replay, game = self.replay, self.game
        if replay is None:
            return
        try:
            moves = []
            for move in state.history[self.seen:]:
                seat = replay.current_player
                replay.apply(move)
                moves.append((seat, game.format_move(move)))
            self.seen = len(state.history)
            news = (tuple(moves), tuple(state.scores), None if state.is_over() else state.current_player)
        except Exception:  # noqa: BLE001 - the game goes on; its moves are in its record
            self.replay = None
            return
        self.tell(*news)


__all__ = ["TurnNews", "TurnReporter"]
