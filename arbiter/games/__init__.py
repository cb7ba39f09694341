"""The rules library: every game behind one interface, found by name.

>>> from arbiter.games import find_game
>>> game = find_game("dots-and-triangles", rows=4)
>>> state = game.new_state()
>>> state.play("2 4")  # parse, validate, apply; returns the move (an edge index)
3
>>> state.current_player
1
"""
from __future__ import annotations

from typing import Any

from .base import Game, GameError, GameParamError, IllegalMove, MalformedMove, Param, State
from .codecup_sudoku import CodecupSudoku
from .dots_and_boxes import DotsAndBoxes
from .dots_and_triangles import DotsAndTriangles
from .limit_nim import LimitNim

# Adding a game is adding its module and one line here.
GAMES: tuple[type[Game[Any]], ...] = (DotsAndTriangles, DotsAndBoxes, LimitNim, CodecupSudoku)

_BY_NAME: dict[str, type[Game[Any]]] = {
    name: cls for cls in GAMES for name in (cls.name, *cls.aliases)
}


def game_names() -> list[str]:
    """The canonical names of every game, in registry order."""
    return [cls.name for cls in GAMES]


def find_game(name: str, **params: Any) -> Game[Any]:
    """The game called `name` (or an alias) with the given parameters, validated.

    Parameter values may be typed or text (`rows=5` or `rows="5"`).
    """
    cls = _BY_NAME.get(name) if isinstance(name, str) else None
    if cls is None:
        raise GameParamError(f"unknown game {name!r}; games are: {', '.join(sorted(_BY_NAME))}")
    return cls(**params)


__all__ = [
    "GAMES",
    "Game",
    "GameError",
    "GameParamError",
    "IllegalMove",
    "MalformedMove",
    "Param",
    "State",
    "find_game",
    "game_names",
]
