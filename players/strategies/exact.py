"""Exact values of dots positions: bottom-up dynamic programming over sets of drawn edges.

The value of a position is the best net score the player to move can still reach over
the cells not yet taken (cells won from here minus cells conceded): 0 when no edge is
left; otherwise the maximum over free edges e of s + value(child) when e completes s >= 1
cells (the mover moves again), or -value(child) when it completes none.

A table holds the value of every subset of a set of k free edges (2^k int8 entries), so one
solve serves every later position of the game. The solve runs level by level in the
number of drawn edges, vectorized with numpy: the k edges are split into a high and a low
half, the table is laid out as a 2-D array whose rows (high-half subsets) and columns
(low-half subsets) are each sorted by popcount, so every (row level, column level) block
is a contiguous rectangle whose children lie in the next row block (high edges) or the
next column block (low edges), reached by small precomputed index maps. Whole-board tables
are cached on disk between runs, keyed by the board's geometry.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arbiter.games.dots import DotsGame

from .cell_index import bits

TABLE_FORMAT = 1  # bump when the table layout or the value definition changes
NO_MOVE = -128  # below every real value; every non-final state has a move


def solve_values(edge_count: int, cell_masks: list[int]) -> np.ndarray:
    """The value of every subset of `edge_count` edges (int8, indexed by the subset's bits).

    `cell_masks` gives each cell as the bitmask of its edges (cells already taken are left
    out). A cell is completed by the edge that draws its last missing side.
    """
    if len(cell_masks) > 127:
        raise ValueError(f"{len(cell_masks)} cells do not fit the int8 values of the table (at most 127)")
    k = edge_count
    low_bits = k // 2
    high_bits = k - low_bits
    rows = _Levels(high_bits)
    cols = _Levels(low_bits)
    low_mask = (1 << low_bits) - 1
    # For each edge: the other sides of each cell it borders, split into (high, low) halves.
    others = [
        [((m & ~(1 << e)) >> low_bits, (m & ~(1 << e)) & low_mask) for m in cell_masks if (m >> e) & 1]
        for e in range(k)
    ]
    table = np.zeros((1 << high_bits, 1 << low_bits), dtype=np.int8)
    for row_level in range(high_bits, -1, -1):
        r0, r1 = rows.bounds(row_level)
        row_values = rows.values[r0:r1]
        for col_level in range(low_bits, -1, -1):
            c0, c1 = cols.bounds(col_level)
            if row_level == high_bits and col_level == low_bits:
                table[r0:r1, c0:c1] = 0  # every edge drawn
                continue
            col_values = cols.values[c0:c1]
            best = np.full((r1 - r0, c1 - c0), NO_MOVE, dtype=np.int8)
            if row_level < high_bits:
                n0 = rows.bounds(row_level + 1)[0]
                for bit in range(high_bits):
                    sources, targets = rows.step(row_level, bit)
                    if len(sources):
                        child = table[n0 + targets, c0:c1]
                        completed = _completions(others[low_bits + bit], row_values[sources], col_values)
                        _improve(best, sources, slice(None), child, completed)
            if col_level < low_bits:
                n0 = cols.bounds(col_level + 1)[0]
                for bit in range(low_bits):
                    sources, targets = cols.step(col_level, bit)
                    if len(sources):
                        child = np.take(table[r0:r1], n0 + targets, axis=1)
                        completed = _completions(others[bit], row_values, col_values[sources])
                        _improve(best, slice(None), sources, child, completed)
            table[r0:r1, c0:c1] = best
    # Back to natural order: entry [high][low] is the value of the subset high << low_bits | low.
    table = np.take(table, rows.position, axis=0)  # one copy at a time: memory peaks at twice the table
    table = np.take(table, cols.position, axis=1)
    return table.reshape(-1)


class _Levels:
    """The subsets of n bits sorted by popcount, and where each one's children sit."""

    def __init__(self, n: int) -> None:
        subsets = np.arange(1 << n, dtype=np.int64)
        popcount = np.zeros(1 << n, dtype=np.int64)
        for bit in range(n):
            popcount += (subsets >> bit) & 1
        order = np.argsort(popcount, kind="stable")
        self.values = order  # the subset at each sorted position
        self.position = np.empty_like(order)
        self.position[order] = np.arange(1 << n)
        self.starts = np.searchsorted(popcount[order], np.arange(n + 2))
        self._steps: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        for level in range(n):
            here = order[self.starts[level] : self.starts[level + 1]]
            for bit in range(n):
                sources = np.flatnonzero(((here >> bit) & 1) == 0)
                targets = self.position[here[sources] | (1 << bit)] - self.starts[level + 1]
                self._steps[level, bit] = (sources, targets)

    def bounds(self, level: int) -> tuple[int, int]:
        """The sorted positions [start, end) of the subsets with `level` bits set."""
        return int(self.starts[level]), int(self.starts[level + 1])

    def step(self, level: int, bit: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions within `level` of the subsets lacking `bit`, and of their children within level+1."""
        return self._steps[level, bit]


def _completions(others: list[tuple[int, int]], row_values: np.ndarray,
                 col_values: np.ndarray) -> np.ndarray | None:
    """How many cells the edge completes at each (row, column); None when nowhere."""
    count = None
    for high, low in others:
        row_ok = (row_values & high) == high
        col_ok = (col_values & low) == low
        if row_ok.any() and col_ok.any():
            done = (row_ok[:, None] & col_ok[None, :]).astype(np.int8)
            count = done if count is None else count + done
    return count


def _improve(best: np.ndarray, rows: slice | np.ndarray, cols: slice | np.ndarray,
             child: np.ndarray, completed: np.ndarray | None) -> None:
    """best[rows, cols] = max(best, value of drawing the edge) for one edge over one block."""
    if completed is None:
        candidate = -child
    else:
        candidate = np.where(completed > 0, child + completed, -child)
    best[rows, cols] = np.maximum(best[rows, cols], candidate)


@dataclass
class ExactTable:
    """Values of every position reachable from `base` (the edges drawn when it was built)."""

    game: DotsGame
    base: int
    free: tuple[int, ...]  # the board edge behind each bit of a table index
    values: np.ndarray

    @property
    def whole_board(self) -> bool:
        return self.base == 0

    def covers(self, drawn: int) -> bool:
        """Whether the position with these edges drawn is in the table."""
        return drawn & self.base == self.base

    def index(self, drawn: int) -> int:
        """The table index of a covered position."""
        if self.base == 0:
            return drawn
        return sum(1 << i for i, edge in enumerate(self.free) if (drawn >> edge) & 1)

    def value(self, drawn: int) -> int:
        """The value of a covered position for the player to move."""
        return int(self.values[self.index(drawn)])

    def move_values(self, drawn: int) -> dict[int, int]:
        """Each free edge with the net score the mover reaches by drawing it, then playing on perfectly."""
        game = self.game
        result = {}
        for edge in range(len(game.edges)):
            if not (drawn >> edge) & 1:
                completed = game.completed_by(drawn, edge)
                after = self.value(drawn | (1 << edge))
                result[edge] = completed + after if completed else -after
        return result


def build_table(game: DotsGame, drawn: int = 0) -> ExactTable:
    """Solve every position that extends `drawn` (2^free-edges states): net values for two
    seats, max-n vectors (a `MaxnTable`) for more."""
    free, masks = _free_cells(game, drawn)
    if game.num_players > 2:
        players = game.num_players
        return MaxnTable(game, drawn, free, solve_maxn_values(len(free), masks, players), players)
    return ExactTable(game, drawn, free, solve_values(len(free), masks))


def _free_cells(game: DotsGame, drawn: int) -> tuple[tuple[int, ...], list[int]]:
    """The free edges, and the cells not yet complete as masks over those edges' local bits."""
    free = tuple(e for e in range(len(game.edges)) if not (drawn >> e) & 1)
    local = {edge: i for i, edge in enumerate(free)}
    masks = []
    for cell_mask in game.cell_masks:
        missing = cell_mask & ~drawn
        if missing:
            masks.append(sum(1 << local[e] for e in bits(missing)))
    return free, masks


def cache_dir() -> Path:
    """Where solved tables are kept between runs: $ARBITER_CACHE, else ~/.cache/arbiter."""
    configured = os.environ.get("ARBITER_CACHE")
    if configured:
        return Path(configured)
    try:
        return Path.home() / ".cache" / "arbiter"
    except RuntimeError:  # no home directory (a bare environment): the temporary folder
        return Path(tempfile.gettempdir()) / "arbiter-cache"


def board_key(game: DotsGame) -> str:
    """A file name that identifies the board's geometry (not its notation) and, beyond two
    seats, the seat count (a max-n table holds one plane per seat)."""
    shape = f"{TABLE_FORMAT}|{len(game.edges)}|{sorted(game.cell_masks)}"
    digest = hashlib.sha256(shape.encode()).hexdigest()[:16]
    kind = "dots-values" if game.num_players == 2 else f"dots-maxn{game.num_players}-values"
    return f"{kind}-{game.name}-{len(game.edges)}e-{digest}.npy"


def cached_board_table(game: DotsGame) -> ExactTable | None:
    """The whole-board table from the disk cache, or None when absent or unreadable."""
    path = cache_dir() / board_key(game)
    try:
        values = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):  # EOFError: an empty file
        return None
    players = game.num_players
    every_edge = tuple(range(len(game.edges)))
    if players > 2:
        if values.dtype != np.int8 or values.shape != (players, 1 << len(game.edges)):
            return None
        return MaxnTable(game, 0, every_edge, values, players)
    if values.dtype != np.int8 or values.shape != (1 << len(game.edges),):
        return None
    return ExactTable(game, 0, every_edge, values)


def save_board_table(table: ExactTable) -> Path | None:
    """Write a whole-board table to the cache (atomically); None if the cache is not writable."""
    directory = cache_dir()
    path = directory / board_key(table.game)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    except OSError:
        return None
    try:
        with os.fdopen(handle, "wb") as out:
            np.save(out, table.values, allow_pickle=False)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        return None
    return path


def board_table(game: DotsGame) -> ExactTable:
    """The whole-board table: from the cache, else solved now and cached."""
    table = cached_board_table(game)
    if table is None:
        table = build_table(game)
        save_board_table(table)
    return table


# --- three or more seats: max-n ------------------------------------------------------------
#
# With N seats a position's value is a vector: the cells each seat still takes from here,
# counted from the player to move (entry 0) round the table (entry j: the seat j places
# after it), when every player maximizes its own cells (max-n). Drawing edge e that
# completes s >= 1 cells adds s to entry 0 of the child's vector (the mover moves again);
# one that completes none rotates the child's vector by one place (the next seat moves).
# Among the moves that give the mover the most cells, the tie-break is deterministic: the
# fewest cells for the best-placed rival (the largest other entry), then the lowest edge
# index. Only cells still to be taken count, never scores already made, so the vector
# depends on the drawn edges alone and one table serves every position.

RIVAL_WEIGHT = 256  # tie-break key = own * 256 - best rival's cells; both are at most 127


def maxn_key(vector: tuple[int, ...] | np.ndarray) -> int | np.ndarray:
    """The order of max-n choices: most cells for the mover, then fewest for its best rival."""
    own = np.asarray(vector[0], dtype=np.int16)
    rival = np.max(np.stack([np.asarray(v, dtype=np.int16) for v in vector[1:]]), axis=0)
    key = own * RIVAL_WEIGHT - rival
    return int(key) if key.ndim == 0 else key


def solve_maxn_values(edge_count: int, cell_masks: list[int], players: int) -> np.ndarray:
    """The max-n vector of every subset of `edge_count` edges: int8 array (players, 2^edges).

    Same block layout as `solve_values`; the edges of each block are tried in index order
    (low half, then high half) and a later edge replaces the best only when strictly
    better, which makes the lowest edge index win a tie.
    """
    if len(cell_masks) > 127:
        raise ValueError(f"{len(cell_masks)} cells do not fit the int8 values of the table (at most 127)")
    if players < 2:
        raise ValueError(f"max-n needs at least 2 players, got {players}")
    k = edge_count
    low_bits = k // 2
    high_bits = k - low_bits
    rows = _Levels(high_bits)
    cols = _Levels(low_bits)
    low_mask = (1 << low_bits) - 1
    others = [
        [((m & ~(1 << e)) >> low_bits, (m & ~(1 << e)) & low_mask) for m in cell_masks if (m >> e) & 1]
        for e in range(k)
    ]
    table = np.zeros((players, 1 << high_bits, 1 << low_bits), dtype=np.int8)
    for row_level in range(high_bits, -1, -1):
        r0, r1 = rows.bounds(row_level)
        row_values = rows.values[r0:r1]
        for col_level in range(low_bits, -1, -1):
            c0, c1 = cols.bounds(col_level)
            if row_level == high_bits and col_level == low_bits:
                continue  # every edge drawn: nothing left to take (the table starts at zero)
            col_values = cols.values[c0:c1]
            best = np.zeros((players, r1 - r0, c1 - c0), dtype=np.int8)
            best_key = np.full((r1 - r0, c1 - c0), np.iinfo(np.int16).min, dtype=np.int16)
            if col_level < low_bits:
                n0 = cols.bounds(col_level + 1)[0]
                block = table[:, r0:r1]
                for bit in range(low_bits):
                    sources, targets = cols.step(col_level, bit)
                    if len(sources):
                        child = np.take(block, n0 + targets, axis=2)
                        completed = _completions(others[bit], row_values, col_values[sources])
                        _improve_maxn(best, best_key, (slice(None), sources), child, completed)
            if row_level < high_bits:
                n0 = rows.bounds(row_level + 1)[0]
                for bit in range(high_bits):
                    sources, targets = rows.step(row_level, bit)
                    if len(sources):
                        child = table[:, n0 + targets, c0:c1]
                        completed = _completions(others[low_bits + bit], row_values[sources], col_values)
                        _improve_maxn(best, best_key, (sources, slice(None)), child, completed)
            table[:, r0:r1, c0:c1] = best
    out = np.empty((players, 1 << k), dtype=np.int8)
    for seat in range(players):  # back to natural order, one seat at a time to bound memory
        plane = np.take(table[seat], rows.position, axis=0)
        out[seat] = np.take(plane, cols.position, axis=1).reshape(-1)
    return out


def _improve_maxn(best: np.ndarray, best_key: np.ndarray, where: tuple[slice | np.ndarray, ...],
                  child: np.ndarray, completed: np.ndarray | None) -> None:
    """Replace best[:, where] by the vector of drawing the edge wherever that is strictly better."""
    candidate = np.roll(child, 1, axis=0)  # nothing completed: the next seat moves
    if completed is not None:
        scored = child.copy()
        scored[0] += completed
        candidate = np.where(completed > 0, scored, candidate)
    key = maxn_key(candidate)
    held = best_key[where]
    better = key > held
    best_key[where] = np.where(better, key, held)
    seat_where = (slice(None), *where)
    best[seat_where] = np.where(better, candidate, best[seat_where])


@dataclass
class MaxnTable(ExactTable):
    """Max-n vectors (`values` is players x 2^free) of every position reachable from `base`."""

    players: int = 3

    def value(self, drawn: int) -> int:
        """The cells the player to move takes from here under max-n."""
        return int(self.values[0, self.index(drawn)])

    def vector(self, drawn: int) -> tuple[int, ...]:
        """The cells each seat takes from here under max-n, from the player to move round the table."""
        return tuple(int(v) for v in self.values[:, self.index(drawn)])

    def move_vectors(self, drawn: int) -> dict[int, tuple[int, ...]]:
        """Each free edge with the max-n vector (from the mover round the table) of drawing it."""
        game = self.game
        result = {}
        for edge in range(len(game.edges)):
            if not (drawn >> edge) & 1:
                completed = game.completed_by(drawn, edge)
                after = self.vector(drawn | (1 << edge))
                result[edge] = ((after[0] + completed, *after[1:]) if completed
                                else (after[-1], *after[:-1]))
        return result

    def best_move(self, drawn: int) -> tuple[int, tuple[int, ...]]:
        """The max-n move (ties: fewest cells for the best rival, then the lowest edge) and its vector."""
        moves = self.move_vectors(drawn)
        edge = max(moves, key=lambda e: (maxn_key(moves[e]), -e))
        return edge, moves[edge]
