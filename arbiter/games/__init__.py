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

# A game of the user's own, named in a config as `package.module:ClassName` (docs/games.md):
# once imported, it is found by its class's `name` too (the name its records carry), in
# this process; a worker process is handed the `module:Class` form (`game_spec`).
_USER_GAMES: dict[str, str] = {}


def game_names() -> list[str]:
    """The canonical names of every game, in registry order."""
    return [name for name, _, _ in REGISTRY]


def game_class(name: str) -> type[Game[Any]]:
    """The class of the game called `name` (or an alias), its module imported on demand."""
    for prefix, module in FAMILIES:
        if isinstance(name, str) and name.startswith(prefix):
            return import_module(f"{__name__}.{module}").game_class(name[len(prefix):])
    where = _WHERE_BY_NAME.get(name) if isinstance(name, str) else None
    if where is not None:
        module, cls = where.split(":")
        return getattr(import_module(f"{__name__}.{module}"), cls)
    if isinstance(name, str) and (":" in name or name in _USER_GAMES):
        return _user_game(_USER_GAMES.get(name, name))
    families = "".join(f", {prefix}NAME" for prefix, _ in FAMILIES)
    raise GameParamError(f"unknown game {name!r}; games are: {', '.join(sorted(_WHERE_BY_NAME))}{families}, "
                         "or a game of your own as package.module:ClassName")


def _user_game(where: str) -> type[Game[Any]]:
    """The Game class `module:ClassName` names, its module imported from the installed
    packages or PYTHONPATH; GameParamError saying why not."""
    module_name, _, class_name = where.partition(":")
    try:
        module = import_module(module_name)
    except ImportError as exc:
        raise GameParamError(f"game {where!r}: cannot import module {module_name!r} ({exc}); a game of your "
                             "own is named package.module:ClassName, its module installed "
                             "or on PYTHONPATH") from None
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise GameParamError(f"game {where!r}: module {module_name} has no Game class named {class_name!r}")
    _USER_GAMES[cls.name] = where
    return cls


def game_spec(game: Game[Any]) -> str:
    """What finds `game`'s class in another process: its name, or `module:ClassName` for a
    game of the user's own."""
    name = game.name
    if name in _WHERE_BY_NAME or any(name.startswith(prefix) for prefix, _ in FAMILIES):
        return name
    cls = type(game)
    return f"{cls.__module__}:{cls.__qualname__}"


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
    "game_spec",
]
