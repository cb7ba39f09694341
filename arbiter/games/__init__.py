"""The rules library: every game behind one interface, found by name.

>>> from arbiter.games import find_game
>>> game = find_game("dots-and-triangles", rows=4)
>>> state = game.new_state()
>>> state.play("2 4")  # parse, validate, apply; returns the move (an edge index)
3
>>> state.current_player
1

Finding a game imports only that game's module: a bot's start-up is on the clock of every
game it plays, and the other games' modules (Sudoku's solver above all) cost it
milliseconds for nothing. `GAMES`, every game class, imports them all on first use.
"""
from __future__ import annotations

from importlib import import_module

from .base import CHANCE, Game, GameError, GameParamError, IllegalMove, MalformedMove, Param, State

TYPE_CHECKING = False  # `typing` is for type checkers: every bot imports this package (see base.py)
if TYPE_CHECKING:
    from typing import Any

# Adding a game is adding its module and one line here: its name, its aliases and where its
# class is. (tests/test_games_registry.py checks each line against the class it names.)
REGISTRY: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("dots-and-triangles", ("triangle-war",), "dots_and_triangles:DotsAndTriangles"),
    ("dots-and-boxes", (), "dots_and_boxes:DotsAndBoxes"),
    ("limit-nim", (), "limit_nim:LimitNim"),
    ("codecup-sudoku", (), "codecup_sudoku:CodecupSudoku"),
)

# Families of games found by a name's prefix: `openspiel:connect_four` is OpenSpiel's game
# `connect_four`, made by the module's `game_class("connect_four")` (docs/games.md).
FAMILIES: tuple[tuple[str, str], ...] = (
    ("openspiel:", "openspiel"),
)

_WHERE_BY_NAME: dict[str, str] = {name: where for main, aliases, where in REGISTRY for name in (main, *aliases)}


def game_names() -> list[str]:
    """The canonical names of every game, in registry order."""
    return [name for name, _, _ in REGISTRY]


def game_class(name: str) -> type[Game[Any]]:
    """The class of the game called `name` (or an alias), its module imported on demand."""
    for prefix, module in FAMILIES:
        if isinstance(name, str) and name.startswith(prefix):
            return import_module(f"{__name__}.{module}").game_class(name[len(prefix):])
    where = _WHERE_BY_NAME.get(name) if isinstance(name, str) else None
    if where is None:
        families = "".join(f", {prefix}NAME" for prefix, _ in FAMILIES)
        raise GameParamError(f"unknown game {name!r}; games are: {', '.join(sorted(_WHERE_BY_NAME))}{families}")
    module, cls = where.split(":")
    return getattr(import_module(f"{__name__}.{module}"), cls)


def find_game(name: str, **params: Any) -> Game[Any]:
    """The game called `name` (or an alias) with the given parameters, validated.

    Parameter values may be typed or text (`rows=5` or `rows="5"`).
    """
    return game_class(name)(**params)


def __getattr__(attribute: str) -> object:
    """`GAMES`: every game class in registry order (importing every game module)."""
    if attribute == "GAMES":
        return tuple(game_class(name) for name in game_names())
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")


__all__ = [
    "CHANCE",
    "FAMILIES",
    "GAMES",
    "Game",
    "GameError",
    "GameParamError",
    "IllegalMove",
    "MalformedMove",
    "Param",
    "State",
    "find_game",
    "game_class",
    "game_names",
]
