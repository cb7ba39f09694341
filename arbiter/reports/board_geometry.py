"""Drawing data for the report's game viewer, computed from the rules library.

A `Board` is what the page needs to draw every position of one game with fixed
parameters: its geometry (dots, edges as segments and cells as polygons; nim piles),
and a table of the moves seen, so that a game's moves travel as small integers
(indices into that table) and the page replays them itself.

Each move in the table has an *effect*: what it does on the board, in the board kind's
own terms (a dots game: the edge index; limit nim: `[pile, count]`; a sudoku grid:
`[cell, digit, claim]`). A move text that is not a move of the game gets the effect None:
the viewer lists it but cannot draw it.

Adding a game to the viewer is adding a builder to `BUILDERS`; a game without one (or
one missing from the rules library) falls back to the `text` kind, which shows each
position as the game's own ASCII `render()`.

The pictures are made by replaying the moves, in the process writing the report or serving
the live page. Rules that are not the arbiter's own (OpenSpiel's, a user's `module:Class`:
`rules_host.hosted`) are made and replayed in the rules host instead (tournament/rules_host.py):
a game whose replay crashes or hangs them there is shown without pictures, with a sentence
saying why, and the report is written whole.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Literal

from ..games import Game, GameError, find_game
from ..games.dots import DotsGame
from ..games.codecup_sudoku import COL_NAMES, ROW_NAMES, CodecupSudoku
from ..games.limit_nim import LimitNim
from ..tournament.rules_host import RULES_HOST, RulesFailed, hosted, made_game

# The viewer's board kinds, each drawn by its own function in page.js: dots (edge-drawing
# games), nim (piles of stones), grid (a sudoku-style grid of digits) and text (the game's
# own ASCII rendering, the fallback).
BoardKind = Literal["dots", "nim", "grid", "text"]
Point = tuple[float, float]


@dataclass
class Board:
    """Everything the viewer needs to draw the positions of one game with fixed parameters.

    `move_texts[i]` is a move's text and `move_effects[i]` what it does (None when it is
    not a move of this game). Games refer to moves by index via `encode`.
    """

    kind: BoardKind
    game_name: str
    params: dict[str, Any]
    seats: int
    geometry: dict[str, Any]
    game: Game[Any] | None  # None when the rules library does not know the game
    # A parsed move (from `game.parse_move`) -> its JSON effect; None for the text kind.
    move_effect: Callable[[Any], Any] | None = None
    note: str = ""  # a sentence for the viewer when the board cannot be drawn fully
    hosted: bool = False  # its rules are made and replayed in the rules host (`game` is None here)
    move_texts: list[str] = field(default_factory=list)
    move_effects: list[Any] = field(default_factory=list)
    _index_of_text: dict[str, int] = field(default_factory=dict, repr=False)
    _index_of_effect: dict[Hashable, int] = field(default_factory=dict, repr=False)

    def encode(self, text: str) -> int:
        """The index of a move text in this board's move table, adding it on first sight."""
        index = self._index_of_text.get(text)
        if index is None:
            index = self._intern(text)
        return index

    def _intern(self, text: str) -> int:
        effect = self._effect(text)
        key = _effect_key(effect)
        if key is not None and key in self._index_of_effect:
            index = self._index_of_effect[key]  # another spelling of a known move, e.g. `4 2`
        else:
            index = self._add(text, effect)
        self._index_of_text[text] = index
        return index

    def _add(self, text: str, effect: Any) -> int:
        index = len(self.move_texts)
        self.move_texts.append(text)
        self.move_effects.append(effect)
        self._index_of_text[text] = index
        key = _effect_key(effect)
        if key is not None:
            self._index_of_effect[key] = index
        return index

    def _effect(self, text: str) -> Any:
        if self.game is None or self.move_effect is None:
            return None
        try:
            return self.move_effect(self.game.parse_move(text))
        except GameError:
            return None

    def frames(self, texts: list[str], game_id: str = "?") -> list[str] | str | None:
        """For the text kind: the ASCII picture after each move (index 0 = the start),
        stopping at the first move the rules reject; None when the game is unknown; for
        rules in the host, the sentence saying why there are none when they failed there."""
        if self.kind != "text":
            return None
        if self.hosted:
            try:
                return RULES_HOST.call(f"{__name__}:{hosted_frames.__name__}", self.game_name,
                                       json.dumps(self.params, sort_keys=True), texts,
                                       game=self.game_name, doing=f"drawing the positions of game {game_id}")
            except RulesFailed as exc:
                return f"No pictures of this game's positions: {exc}."
        return None if self.game is None else _pictures(self.game, texts)

    def to_json(self) -> dict[str, Any]:
        """The board as the page reads it."""
        return {
            "kind": self.kind,
            "game": self.game_name,
            "params": self.params,
            "seats": self.seats,
            "note": self.note,
            "geometry": self.geometry,
            "move_texts": self.move_texts,
            "move_effects": self.move_effects,
        }


def _pictures(game: Game[Any], texts: list[str]) -> list[str]:
    """The ASCII picture of each position, from the start, until a move the rules reject."""
    state = game.new_state()
    pictures = [state.render()]
    for text in texts:
        try:
            state.play(text)
        except GameError:
            break
        pictures.append(state.render())
    return pictures


def hosted_frames(name: str, params: str, texts: list[str]) -> list[str]:
    """In the rules host: `Board.frames` of the game `name` with these parameters (JSON)."""
    return _pictures(made_game(name, params), texts)


def hosted_board(name: str, params: dict[str, Any]) -> tuple[str, dict[str, Any], int] | str:
    """In the rules host: the game's own name, parameters and seats, or why it cannot be made."""
    try:
        game = find_game(name, **params)
    except GameError as exc:
        return str(exc)
    return game.name, dict(game.params), game.num_players


def _effect_key(effect: Any) -> Hashable | None:
    if effect is None:
        return None
    return tuple(effect) if isinstance(effect, list) else effect


def _round(value: float) -> float:
    return round(value, 4)


def dots_board(game: DotsGame, positions: list[Point], labels: list[tuple[float, float, str]]) -> Board:
    """A dots game's board: `positions[d]` is where dot number d+1 sits (unit spacing)."""
    dot_count = len(positions)
    edges = [[a - 1, b - 1] for a, b in game.edges]
    if any(not 0 <= d < dot_count for edge in edges for d in edge):
        raise AssertionError(f"{game.describe()}: an edge names a dot outside 1..{dot_count}")
    polygons = []
    for cell_edges in game.cells:
        corners = sorted({d for e in cell_edges for d in edges[e]})
        cx = sum(positions[d][0] for d in corners) / len(corners)
        cy = sum(positions[d][1] for d in corners) / len(corners)
        corners.sort(key=lambda d: math.atan2(positions[d][1] - cy, positions[d][0] - cx))
        polygons.append(corners)
    board = Board(
        kind="dots",
        game_name=game.name,
        params=dict(game.params),
        seats=game.num_players,
        game=game,
        move_effect=int,  # the edge index
        geometry={
            "dots": [[_round(x), _round(y)] for x, y in positions],
            "edges": edges,
            "cells": [list(cell) for cell in game.cells],
            "polygons": polygons,
            "labels": [[_round(x), _round(y), text] for x, y, text in labels],
        },
    )
    # Seed the table with every edge in order, so a move's index is its edge index.
    for edge in range(len(game.edges)):
        board._add(game.format_move(edge), edge)
    return board


def triangles_board(game: Game[Any]) -> Board:
    """Dots and Triangles: rows of dots from the apex, one unit apart; dots labelled 1..n."""
    assert isinstance(game, DotsGame)
    rows = game.params["rows"]
    height = math.sqrt(3) / 2
    positions = [((i - 1) - (r - 1) / 2, (r - 1) * height) for r in range(1, rows + 1) for i in range(1, r + 1)]
    labels = [(x, y - 0.21, str(number)) for number, (x, y) in enumerate(positions, 1)]
    return dots_board(game, positions, labels)


def boxes_board(game: Game[Any]) -> Board:
    """Dots and Boxes: a grid of dots one unit apart; row and column numbers in the margin."""
    assert isinstance(game, DotsGame)
    rows, cols = game.params["rows"], game.params["cols"]
    positions = [(c - 1, r - 1) for r in range(1, rows + 2) for c in range(1, cols + 2)]
    labels = [(c - 1, -0.4, str(c)) for c in range(1, cols + 2)] + [
        (-0.4, r - 1, str(r)) for r in range(1, rows + 2)
    ]
    return dots_board(game, [(float(x), float(y)) for x, y in positions], labels)


def nim_board(game: Game[Any]) -> Board:
    """Limit Nim: the starting piles as `[stones, limit]`."""
    assert isinstance(game, LimitNim)
    piles = [[int(stones), int(limit)] for stones, limit in game.params["piles"]]
    return Board(
        kind="nim",
        game_name=game.name,
        params={"piles": piles},
        seats=game.num_players,
        game=game,
        move_effect=lambda move: [move[0], move[1]],  # [pile (0-based), stones taken]
        geometry={"piles": piles},
    )


def sudoku_board(game: Game[Any]) -> Board:
    """CodeCup Sudoku: a 9 x 9 grid in 3 x 3 boxes, rows A-I and columns a-i.

    A move's effect is `[cell (0-80, row-major; -1 for a bare claim), digit, claim (0/1)]`."""
    assert isinstance(game, CodecupSudoku)
    return Board(
        kind="grid",
        game_name=game.name,
        params=dict(game.params),
        seats=game.num_players,
        game=game,
        move_effect=lambda move: [-1 if move.cell is None else move.cell, move.digit, int(move.claim)],
        geometry={"size": 9, "box": 3, "row_names": ROW_NAMES, "col_names": COL_NAMES},
    )


def text_board(game: Game[Any]) -> Board:
    """The fallback for a game with no drawing of its own: its ASCII rendering per position."""
    return Board(
        kind="text",
        game_name=game.name,
        params=dict(game.params),
        seats=game.num_players,
        game=game,
        geometry={},
    )


# Canonical game name -> the function that builds its board. Games not listed use text_board.
BUILDERS: dict[str, Callable[[Game[Any]], Board]] = {
    "dots-and-triangles": triangles_board,
    "dots-and-boxes": boxes_board,
    "limit-nim": nim_board,
    "codecup-sudoku": sudoku_board,
}


def board_for(game_name: str, params: dict[str, Any]) -> Board:
    """The board for a game as named in a record; a game the rules library cannot build
    still gets a board (kind `text`, no pictures) so its moves can be listed. Rules that are
    not the arbiter's own are made in the rules host: their board is of kind `text`, its
    pictures drawn there."""
    if hosted(game_name):
        try:
            made = RULES_HOST.call(f"{__name__}:{hosted_board.__name__}", game_name, dict(params),
                                   game=game_name, doing="making the game")
        except RulesFailed as exc:
            made = str(exc)
        if isinstance(made, str):
            return _unknown_board(game_name, params, made)
        name, made_params, seats = made
        return Board(kind="text", game_name=name, params=made_params, seats=seats, geometry={}, game=None, hosted=True)
    try:
        game = find_game(game_name, **params)
    except GameError as exc:
        return _unknown_board(game_name, params, str(exc))
    return BUILDERS.get(game.name, text_board)(game)


def _unknown_board(game_name: str, params: dict[str, Any], why: str) -> Board:
    """A board without pictures, whose note says why the game cannot be drawn."""
    return Board(kind="text", game_name=game_name, params=dict(params), seats=0, geometry={}, game=None,
                 note=f"This game cannot be drawn: {why}.")
