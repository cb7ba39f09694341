"""What the dots strategies know about a position: cells by how many sides they miss.

`CellIndex` is the incremental index the greedy bot is built on: drawing (or undrawing)
an edge touches at most two cells, so every update is O(1). From it:

- the opportunities are the cells missing one side (the next edge completes them);
- a pitfall is a free edge of a cell missing two sides (drawing it hands that cell to the
  opponent: the third side of a box, the second side of a triangle);
- a safe move is a free edge that is neither, kept as a set updated with the index.

`capture_run` is the same knowledge on a bare bitmask, for searching hypothetical
positions: it plays out every capture that becomes available.
"""
from __future__ import annotations

from arbiter.games.dots import DotsGame

TYPE_CHECKING = False  # `typing` is for type checkers: it would cost every bot start (arbiter/games/base.py)
if TYPE_CHECKING:
    from typing import Any, Iterable


class CellIndex:
    """Sides still missing per cell, bucketed, plus the set of safe moves; O(1) per edge."""

    def __init__(self, game: DotsGame, drawn: int = 0) -> None:
        self.game = game
        self.drawn = 0
        self.missing = [len(cell) for cell in game.cells]
        most = max(self.missing, default=0)
        self.by_missing: list[set[int]] = [set() for _ in range(most + 1)]
        for cell, missing in enumerate(self.missing):
            self.by_missing[missing].add(cell)
        # danger[e]: how many of e's cells miss at most two sides (so e is not a safe move).
        self.danger = [0] * len(game.edges)
        for cell, missing in enumerate(self.missing):
            if missing <= 2:
                for edge in game.cells[cell]:
                    self.danger[edge] += 1
        self.safe = {e for e in range(len(game.edges)) if self.danger[e] == 0}
        for edge in bits(drawn):
            self.draw(edge)

    def draw(self, edge: int) -> int:
        """Draw one free edge; returns how many cells it completes."""
        game = self.game
        self.drawn |= 1 << edge
        self.safe.discard(edge)
        completed = 0
        for cell in game.edge_cells[edge]:
            missing = self.missing[cell]
            self.by_missing[missing].discard(cell)
            missing -= 1
            self.missing[cell] = missing
            self.by_missing[missing].add(cell)
            if missing == 2:
                for other in game.cells[cell]:
                    self.danger[other] += 1
                    self.safe.discard(other)
            elif missing == 0:
                completed += 1
        return completed

    def undraw(self, edge: int) -> None:
        """Take back a drawn edge (for search)."""
        game = self.game
        self.drawn &= ~(1 << edge)
        for cell in game.edge_cells[edge]:
            missing = self.missing[cell]
            self.by_missing[missing].discard(cell)
            if missing == 2:
                for other in game.cells[cell]:
                    self.danger[other] -= 1
                    if self.danger[other] == 0 and not (self.drawn >> other) & 1:
                        self.safe.add(other)
            missing += 1
            self.missing[cell] = missing
            self.by_missing[missing].add(cell)
        if self.danger[edge] == 0:
            self.safe.add(edge)

    def sync(self, drawn: int) -> None:
        """Catch up with a later position of the same game (edges only ever get added)."""
        for edge in bits(drawn & ~self.drawn):
            self.draw(edge)

    @property
    def opportunities(self) -> set[int]:
        """Cells missing exactly one side."""
        return self.by_missing[1] if len(self.by_missing) > 1 else set()

    def free_edges(self, cell: int) -> list[int]:
        """The cell's undrawn edges."""
        return [e for e in self.game.cells[cell] if not (self.drawn >> e) & 1]

    def capture_moves(self) -> dict[int, int]:
        """Each edge that completes a cell now, with how many cells it completes."""
        moves: dict[int, int] = {}
        for cell in self.opportunities:
            for edge in self.free_edges(cell):
                moves[edge] = moves.get(edge, 0) + 1
        return moves

    def is_pitfall(self, edge: int) -> bool:
        """True when drawing this free edge leaves a cell one side from done for the opponent."""
        return any(self.missing[c] == 2 for c in self.game.edge_cells[edge])


def tracked_index(game: DotsGame, drawn: int, memory: dict[str, Any]) -> CellIndex:
    """The index kept in a bot's per-game memory, brought up to date with `drawn`."""
    index = memory.get("cell_index")
    if not isinstance(index, CellIndex) or index.game is not game or index.drawn & ~drawn:
        index = CellIndex(game, drawn)
        memory["cell_index"] = index
    else:
        index.sync(drawn)
    return index


def bits(mask: int) -> Iterable[int]:
    """The indices of the set bits of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def missing_sides(game: DotsGame, drawn: int, cell: int) -> int:
    """How many of the cell's edges are not drawn in `drawn`."""
    mask = game.cell_masks[cell]
    return len(game.cells[cell]) - (drawn & mask).bit_count()


def capture_run(
    game: DotsGame, drawn: int, cells: Iterable[int] | None = None, stop_above: int | None = None
) -> tuple[int, int]:
    """Capture everything that becomes capturable, one completing edge after another.

    Starts from `cells` (by default every cell) and follows the cells next to each
    completing edge. Returns (cells captured, the edge set afterwards). The order does not
    matter: a cell missing one side stays capturable until someone takes it. With
    `stop_above`, it stops as soon as more than that many cells are captured (a caller
    looking for the least only needs to know the run is longer; the edge set is then partial).
    """
    work = list(range(len(game.cells)) if cells is None else cells)
    masks = game.cell_masks
    captured = 0
    while work:
        cell = work.pop()
        mask = masks[cell]
        free = mask & ~drawn
        if free == 0 or free & (free - 1):
            continue  # taken already, or more than one side missing
        drawn |= free
        edge = free.bit_length() - 1
        for neighbour in game.edge_cells[edge]:
            if drawn & masks[neighbour] == masks[neighbour]:
                captured += 1
                if stop_above is not None and captured > stop_above:
                    return captured, drawn
            else:
                work.append(neighbour)
    return captured, drawn
