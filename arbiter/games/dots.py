"""The rule shared by every dots game: draw an edge; complete cells to score and move again.

A board is a list of edges and a list of cells, each cell the set of edges around it.
`dots_and_triangles` and `dots_and_boxes` supply only the geometry and the notation.
"""
from __future__ import annotations

from abc import abstractmethod
from itertools import compress

from .base import Game, Param, State, int_range

TYPE_CHECKING = False  # `typing` is for type checkers: bots import this module (see base.py)
if TYPE_CHECKING:
    from typing import Hashable

PLAYERS_PARAM = Param(
    "players",
    2,
    "the number of seats, between 2 and 26 (cells are marked A to Z)",
    check=int_range(2, 26),
)

# Maps the characters '0'/'1' of a binary numeral to the bytes 0/1, for `itertools.compress`.
_BITS_TO_FLAGS = bytes.maketrans(b"01", b"\x00\x01")


class DotsGame(Game[int]):
    """A dots game: moves are edge indices into `edges`; cells list the edges around them."""

    edges: list[tuple[int, int]]  # each edge as a pair of dot numbers, smaller first
    cells: list[tuple[int, ...]]  # each cell as the indices of its edges
    edge_cells: list[tuple[int, ...]]  # for each edge, the cells it borders
    cell_masks: list[int]  # for each cell, the bitmask of its edges
    edge_index: dict[tuple[int, int], int]  # the inverse of `edges`
    full_mask: int
    # for each edge, (cell, cell mask) of the cells it borders: the one table `_apply` reads
    _edge_cell_masks: list[tuple[tuple[int, int], ...]]

    def _index_cells(self) -> None:
        """Derive the edge->cells index and the bitmasks from `edges` and `cells`."""
        touching: list[list[int]] = [[] for _ in self.edges]
        for cell, cell_edges in enumerate(self.cells):
            for edge in cell_edges:
                touching[edge].append(cell)
        self.edge_cells = [tuple(t) for t in touching]
        self.cell_masks = [sum(1 << e for e in cell_edges) for cell_edges in self.cells]
        self.full_mask = (1 << len(self.edges)) - 1
        self.edge_index = {edge: i for i, edge in enumerate(self.edges)}
        self._edge_cell_masks = [
            tuple((cell, self.cell_masks[cell]) for cell in cells) for cells in self.edge_cells
        ]

    def new_state(self) -> DotsState:
        return DotsState(self)

    def completed_by(self, drawn: int, edge: int) -> int:
        """How many cells drawing `edge` onto the edge set `drawn` completes."""
        with_edge = drawn | (1 << edge)
        return sum(1 for _, mask in self._edge_cell_masks[edge] if with_edge & mask == mask)

    @abstractmethod
    def render_state(self, state: DotsState) -> str:
        """The ASCII picture of a position on this board."""


class DotsState(State[int]):
    """A dots position: the drawn edges as a bitmask, owners of cells, scores, the mover."""

    def __init__(self, game: DotsGame) -> None:
        super().__init__(game)
        self.game: DotsGame = game
        self.drawn = 0
        self.owner: list[int] = [-1] * len(game.cells)
        self._scores = [0] * game.num_players
        self._current = 0
        self.last_completed = 0  # cells completed by the most recent move

    @property
    def current_player(self) -> int:
        return self._current

    @property
    def scores(self) -> list[int]:
        return list(self._scores)

    def legal_moves(self) -> list[int]:
        # The undrawn edges are the 1 bits of `undrawn`; reading them off its binary numeral
        # (lowest bit first) keeps this linear in the edge count even on large boards.
        undrawn = self.game.full_mask & ~self.drawn
        flags = bin(undrawn)[:1:-1].encode().translate(_BITS_TO_FLAGS)
        return list(compress(range(len(self.game.edges)), flags))

    def illegal_reason(self, move: int) -> str | None:
        if not 0 <= move < len(self.game.edges):
            return f"there is no edge {move}; edges are 0 to {len(self.game.edges) - 1}"
        if (self.drawn >> move) & 1:
            return "that edge is already drawn"
        return None

    def _apply(self, move: int) -> None:
        drawn = self.drawn | (1 << move)
        self.drawn = drawn
        completed = 0
        for cell, mask in self.game._edge_cell_masks[move]:
            if drawn & mask == mask:
                self.owner[cell] = self._current
                completed += 1
        self.last_completed = completed
        if completed:
            self._scores[self._current] += completed
        else:
            self._current = (self._current + 1) % len(self._scores)

    def is_over(self) -> bool:
        return self.drawn == self.game.full_mask

    def key(self) -> Hashable:
        return (self.drawn, self._current, tuple(self._scores))

    def sides_drawn(self, cell: int) -> int:
        """How many of the cell's edges are drawn."""
        return (self.drawn & self.game.cell_masks[cell]).bit_count()

    def clone(self) -> DotsState:
        copy = DotsState.__new__(DotsState)
        copy.game = self.game
        copy.history = list(self.history)
        copy.drawn = self.drawn
        copy.owner = list(self.owner)
        copy._scores = list(self._scores)
        copy._current = self._current
        copy.last_completed = self.last_completed
        return copy

    def render(self) -> str:
        return self.game.render_state(self)


def owner_letter(owner: int) -> str:
    """The letter drawn in a cell: A for seat 0, B for seat 1, ... and blank if untaken."""
    return " " if owner < 0 else chr(ord("A") + owner)
