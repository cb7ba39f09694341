"""The double-cross strategy: greedy play plus the endgame theory of Dots and Boxes.

Seen as strings and coins (cells are coins, free edges are strings, an edge on the rim
ties its cell to the ground), a position with no safe move left falls apart into
components: chains (paths of cells missing two sides, ending on the ground) and loops
(cycles of them), plus junction cells still missing three or more sides. The player who
must move there opens a component; the other player either takes it all and must open
the next one, or takes all but the last two cells of a chain (four of a loop) and hands
those back with a double-dealing move, keeping control: the opener takes them in a
double-cross and must open the next component too (Berlekamp, *The Dots and Boxes Game*).
The same reasoning holds on a triangle grid, for chains of triangles.

How the strategy plays, given the position:

- Cells to capture: take them, but when keeping control is worth more than taking
  everything (judged by the value of what remains, below), stop short of the last two
  cells of a chain (four of a loop) and play the double-dealing move.
- Safe moves left: play one. When few are left (at most `SAFE_SEARCH_MOVES`), search to
  the end of the safe phase, safe moves and sacrifices alike (giving a cell or two can
  change who runs out of safe moves first), and steer toward the component structure
  that leaves the opponent to open the first long chain: what the long chain rule
  approximates. With more safe moves left, pick one at random.
- No safe move: open the component that costs least, taking into account whether the
  opponent can then keep control (so short chains go first, and a two-cell chain is
  opened in the middle, where it cannot be declined).

Values are net cells for the player to move, like the exact solver's. Positions made
only of chains and loops are valued with the classic recursion over the components;
positions with junctions by a budgeted search over opening moves, each answered by the
take-all-or-keep-control choice. When a search would exceed its budget the strategy
falls back to the greedy choice (random safe move, or the cheapest gift).
"""
from __future__ import annotations

import time
from functools import lru_cache

from arbiter.bot import BotContext
from arbiter.games.dots import DotsGame, DotsState

from . import NODES_ONLY
from .cell_index import CellIndex, bits, capture_run, missing_sides, tracked_index
from .greedy import best_keys, cheapest_gifts, greedy_move

# `typing` and `dataclasses` are left out, Group and Component are plain classes: the bot
# imports this module at its start, in every game (arbiter/games/base.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

SAFE_SEARCH_MOVES = 10  # search the safe phase once at most this many safe moves are left,
SEARCH_EDGES = 40  # and at most this many edges are free (else the search is hopeless)
SEARCH_NODES = 20_000  # positions valued per decision before giving up on the search
MAX_DECISION_S = 0.5  # and at most this long, or this share of the clock left:
DECISION_SHARE = 0.02
DEFAULT_TIME_MS = 30_000  # the arbiter's default game budget, when the Game line gives none


class Group:
    """Cells the mover can capture one after another, in capture order.

    `edges[i]` is the free edge of `cells[i]` leading on (the one that captures it); the
    last edge leads to the ground (`end == "ground"`), into a junction cell that is not
    captured (`end == "junction"`), or is shared with a last cell capturable from its
    own side too (`end == "both"`: an opened loop).
    """

    __slots__ = ("cells", "edges", "end")

    def __init__(self, cells: tuple[int, ...], edges: tuple[int, ...], end: str) -> None:
        self.cells = cells
        self.edges = edges
        self.end = end

    @property
    def keep(self) -> int:
        """How many cells can be handed back to keep control (0 when none)."""
        if self.end == "ground" and len(self.cells) >= 2:
            return 2
        if self.end == "both" and len(self.cells) >= 4:
            return 4
        return 0

    def double_deal(self) -> int:
        """The double-dealing move, once only the kept cells are left."""
        assert self.keep and len(self.cells) == self.keep
        # A chain: close its ground end. A loop: cut its last four cells in the middle.
        return self.edges[-1] if self.end == "ground" else self.edges[1]


def capture_groups(game: DotsGame, drawn: int, starts: Iterable[int] | None = None) -> list[Group]:
    """The capturable runs of cells, each followed from a cell missing one side.

    `starts` limits where runs may begin (after one edge is drawn in a position with
    nothing to capture, only that edge's cells can be); by default every cell.
    """
    missing: dict[int, int] = {}

    def missing_of(cell: int) -> int:
        if cell not in missing:
            missing[cell] = missing_sides(game, drawn, cell)
        return missing[cell]

    seen: set[int] = set()
    groups = []
    for start in range(len(game.cells)) if starts is None else starts:
        if start in seen or missing_of(start) != 1:
            continue
        cells, edges = [start], []
        seen.add(start)
        cell, came_by, end = start, -1, "junction"
        while True:
            edge = next(e for e in game.cells[cell] if not (drawn >> e) & 1 and e != came_by)
            edges.append(edge)
            ahead = [c for c in game.edge_cells[edge] if c != cell]
            if not ahead:
                end = "ground"
                break
            nxt = ahead[0]
            if missing_of(nxt) == 1:
                cells.append(nxt)
                seen.add(nxt)
                end = "both"
                break
            if missing_of(nxt) != 2:
                break  # a junction: capturing up to it leaves it with one side fewer
            cells.append(nxt)
            seen.add(nxt)
            cell, came_by = nxt, edge
        groups.append(Group(tuple(cells), tuple(edges), end))
    return groups


class Component:
    """A chain (ends on the ground) or a loop of cells each missing two sides, with its free edges."""

    __slots__ = ("kind", "cells", "edges", "ground")

    def __init__(self, kind: str, cells: tuple[int, ...], edges: tuple[int, ...], ground: tuple[int, ...]) -> None:
        self.kind = kind  # "chain" or "loop"
        self.cells = cells
        self.edges = edges
        self.ground = ground  # the edges that border only one cell: a chain's two ends

    def openings(self) -> tuple[int, ...]:
        """Where to open it: a two-chain in the middle (so it cannot be handed back), a
        longer chain at an end, a loop anywhere."""
        if self.kind == "chain" and len(self.cells) == 2:
            return tuple(e for e in self.edges if e not in self.ground)
        return self.ground if self.kind == "chain" else self.edges


def chains_and_loops(game: DotsGame, drawn: int) -> list[Component] | None:
    """The components of a position of only chains and loops; None when there are junctions.

    Meant for positions with nothing to capture and no safe move: every cell not taken
    misses exactly two sides there, unless it is a junction.
    """
    free_of: dict[int, list[int]] = {}
    for cell, mask in enumerate(game.cell_masks):
        free = mask & ~drawn
        if free:
            sides = list(bits(free))
            if len(sides) != 2:
                return None
            free_of[cell] = sides
    found = []
    seen: set[int] = set()
    for start in free_of:
        if start in seen:
            continue
        cells, edges, ground, todo = [], set(), set(), [start]
        seen.add(start)
        while todo:
            cell = todo.pop()
            cells.append(cell)
            for edge in free_of[cell]:
                edges.add(edge)
                across = [c for c in game.edge_cells[edge] if c != cell]
                if not across:
                    ground.add(edge)
                elif across[0] not in seen:
                    seen.add(across[0])
                    todo.append(across[0])
        found.append(Component("chain" if ground else "loop", tuple(sorted(cells)), tuple(sorted(edges)),
                               tuple(sorted(ground))))
    return found


def components(game: DotsGame, drawn: int) -> tuple[tuple[str, int], ...] | None:
    """A position of only chains and loops as sorted (kind, cells) pairs; None with junctions."""
    found = chains_and_loops(game, drawn)
    return None if found is None else tuple(sorted((c.kind, len(c.cells)) for c in found))


@lru_cache(maxsize=None)
def components_value(parts: tuple[tuple[str, int], ...]) -> int:
    """Net cells for the player who must open one of these chains and loops, both sides at their best."""
    if not parts:
        return 0
    return max(opening_value(parts, i) for i in range(len(parts)))


def opening_value(parts: tuple[tuple[str, int], ...], i: int) -> int:
    """Net cells for the opener of `parts[i]` (sorted parts): the other side then takes it
    all and opens the next one, or keeps control by handing back the last two cells of a
    chain of three or more (four of a loop); a two-chain is opened in the middle, where
    nothing can be handed back."""
    rest = components_value(parts[:i] + parts[i + 1 :])
    kind, size = parts[i]
    reply = size + rest
    keep = 2 if kind == "chain" and size >= 3 else 4 if kind == "loop" and size >= 4 else 0
    if keep:
        reply = max(reply, size - 2 * keep - rest)
    return -reply


class SearchBudgetExceeded(Exception):
    """A decision needed more positions, or more time, than its budget allows."""


class DoubleCross:
    """The double-cross player's knowledge of one game: values of positions, memoized."""

    def __init__(self, game: DotsGame, search_nodes: int = SEARCH_NODES) -> None:
        self.game = game
        self.search_nodes = search_nodes
        self.values: dict[int, int] = {}  # positions with nothing to capture -> value for the mover
        self.unsearchable: set[int] = set()  # positions whose search ran out of budget
        self._nodes_left = 0
        self._deadline = float("inf")

    # --- values -------------------------------------------------------------------
    def quiet_value(self, drawn: int) -> int:
        """Value for the mover of a position with nothing to capture."""
        known = self.values.get(drawn)
        if known is not None:
            return known
        self._spend()
        game = self.game
        if drawn == game.full_mask:
            value = 0
        else:
            safe = safe_edges(game, drawn)
            parts = None if safe else components(game, drawn)
            if parts is not None:
                value = components_value(parts)
            elif len(safe) > SAFE_SEARCH_MOVES or free_count(game, drawn) > SEARCH_EDGES:
                value = 0  # too early, or too big, to tell who will have to open the first long chain
            else:
                value = max(self.move_values(drawn, safe).values())
        self.values[drawn] = value
        return value

    def move_values(self, drawn: int, safe: set[int]) -> dict[int, int]:
        """Each free edge of a position with nothing to capture, valued for the mover.

        A safe move passes the turn in a quiet position; any other move hands the
        opponent cells, who then takes all or keeps control. Sacrifices count too: giving
        a cell or two early can change who runs out of safe moves first.
        """
        game = self.game
        return {
            e: -self.quiet_value(drawn | (1 << e)) if e in safe
            else -self.capture_plan(drawn | (1 << e), game.edge_cells[e])[1]
            for e in free_edges(game, drawn)
        }

    def capture_plan(self, drawn: int, starts: Iterable[int] | None = None) -> tuple[Group | None, int]:
        """The group to hand back (None: take everything) and the resulting value for the
        mover, in a position with cells to capture (starting among `starts` if given)."""
        self._spend()
        groups = capture_groups(self.game, drawn, starts)
        count, after = capture_run(self.game, drawn, starts)
        rest = self.quiet_value(after)
        take_all = count + rest
        keepable = [g for g in groups if g.keep]
        if keepable and sum(len(g.cells) for g in groups) == count:
            group = min(keepable, key=lambda g: g.keep)
            keep_control = count - 2 * group.keep - rest
            if keep_control > take_all:
                return group, keep_control
        return None, take_all

    def _spend(self) -> None:
        self._nodes_left -= 1
        if self._nodes_left < 0 or (self._nodes_left % 64 == 0 and time.monotonic() > self._deadline):
            raise SearchBudgetExceeded

    # --- moves --------------------------------------------------------------------
    def choose(self, index: CellIndex, rng: Any, time_limit_s: float | None = None) -> int:
        """The double-cross move in the indexed position (searching for at most `time_limit_s`)."""
        drawn = index.drawn
        self._nodes_left = self.search_nodes
        self._deadline = float("inf") if time_limit_s is None or NODES_ONLY else time.monotonic() + time_limit_s
        try:
            if index.opportunities:
                return self._capture_move(index, rng)
            if len(index.safe) > SAFE_SEARCH_MOVES:
                return rng.choice(sorted(index.safe))
            if not index.safe:
                found = chains_and_loops(self.game, drawn)
                if found is not None:
                    return rng.choice(self.cheapest_openings(found))
            if free_count(self.game, drawn) > SEARCH_EDGES:
                return greedy_move(index, rng)
            return rng.choice(self.best_moves(self.move_values(drawn, index.safe)))
        except SearchBudgetExceeded:
            if index.opportunities or index.safe:
                return greedy_move(index, rng)
            return rng.choice(cheapest_gifts(self.game, drawn))

    def best_moves(self, values: dict[int, int]) -> list[int]:
        """The moves of the best value, in edge order."""
        return best_keys(values)

    def cheapest_openings(self, found: list[Component]) -> list[int]:
        """Where to open, in a position of chains and loops."""
        return cheapest_openings(found)

    def _capture_move(self, index: CellIndex, rng: Any) -> int:
        # Every run starts at a cell missing one side: starting only there (in cell order, as
        # a scan of every cell would find them) keeps a capture O(run) on a big board.
        starts = sorted(index.opportunities)
        after = capture_run(self.game, index.drawn, starts)[1]
        if after in self.unsearchable:  # the same captures, one move later: do not search again
            kept = None
        else:
            try:
                kept, _ = self.capture_plan(index.drawn, starts)
            except SearchBudgetExceeded:
                self.unsearchable.add(after)
                raise
        if kept is None:
            return rng.choice(best_keys(index.capture_moves()))
        others = [g for g in capture_groups(self.game, index.drawn, starts) if g.cells != kept.cells]
        if others:
            return others[0].edges[0]
        if len(kept.cells) > kept.keep:
            return kept.edges[0]
        return kept.double_deal()


def cheapest_openings(found: list[Component]) -> list[int]:
    """Where to open, in a position of chains and loops: the components worth the most to
    open (short chains first, then the smallest long ones), each at its opening edges."""
    parts = tuple(sorted((c.kind, len(c.cells)) for c in found))
    values = {part: opening_value(parts, parts.index(part)) for part in set(parts)}
    best = max(values.values())
    return sorted(e for c in found if values[(c.kind, len(c.cells))] == best for e in c.openings())


def safe_edges(game: DotsGame, drawn: int) -> set[int]:
    """The free edges that hand the opponent no cell: every cell they border misses 3+ sides."""
    unsafe = drawn
    for cell, mask in enumerate(game.cell_masks):
        if len(game.cells[cell]) - (drawn & mask).bit_count() <= 2:
            unsafe |= mask
    return set(bits(game.full_mask & ~unsafe))


def free_edges(game: DotsGame, drawn: int) -> list[int]:
    """The undrawn edges, in index order."""
    return [e for e in range(len(game.edges)) if not (drawn >> e) & 1]


def free_count(game: DotsGame, drawn: int) -> int:
    """How many edges are undrawn."""
    return len(game.edges) - drawn.bit_count()


def decision_time_limit_s(time_ms: int | None, used_s: float, move_ms: int | None = None) -> float:
    """How long one decision may search: a small share of what is left of the game clock
    (and at most a quarter of the per-move cap, if there is one)."""
    left_s = (DEFAULT_TIME_MS if time_ms is None else time_ms) / 1000 - used_s
    limit_s = min(MAX_DECISION_S, left_s * DECISION_SHARE)
    if move_ms is not None:
        limit_s = min(limit_s, move_ms / 1000 / 4)
    return max(0.0, limit_s)


def double_cross_player(game: DotsGame) -> DoubleCross:
    """The double-cross player for this game's seat count."""
    return DoubleCross(game) if game.num_players == 2 else DoubleCrossSeats(game)


def choose_double_cross(state: DotsState, ctx: BotContext) -> int:
    """The double-cross move for the player to move (at any number of seats)."""
    index = tracked_index(state.game, state.drawn, ctx.memory)
    player = ctx.memory.get("double_cross")
    if not isinstance(player, DoubleCross) or player.game is not state.game:
        player = double_cross_player(state.game)
        ctx.memory["double_cross"] = player
        ctx.memory["double_cross_used_s"] = 0.0
    started = time.monotonic()
    limit_s = decision_time_limit_s(ctx.time_ms, ctx.memory["double_cross_used_s"], ctx.move_ms)
    try:
        return player.choose(index, ctx.rng, limit_s)
    finally:
        ctx.memory["double_cross_used_s"] += time.monotonic() - started


# --- three or more seats ----------------------------------------------------------------
#
# With N seats whoever a move gives cells to is the next player, and a double-dealing move
# hands control not back to the decliner but on round the table: the next player takes the
# cells handed back and must open the next component, which the seat after it captures. So
# values become vectors, as in perfect_dp's max-n: the cells each seat takes from here,
# counted from the player to move round the table, every player choosing the move best for
# itself (most cells for itself, then fewest for its best rival). The reasoning is the same
# as for two seats, with "negate the value" replaced by "pass the turn" (rotate the vector).

Vector = tuple[float, ...]  # floats: an unknown future is valued as an equal split


def gain(vector: Vector, cells: int) -> Vector:
    """The vector after the player it counts from takes `cells` more."""
    return (vector[0] + cells, *vector[1:])


def pass_turn(vector: Vector) -> Vector:
    """A vector counted from the next player, recounted from the player before it."""
    return (vector[-1], *vector[:-1])


def vector_rank(vector: Vector) -> tuple[float, float]:
    """How the player a vector counts from ranks it: its own cells, then fewest for its best rival."""
    return vector[0], -max(vector[1:])


def best_vector(vectors: Iterable[Vector]) -> Vector:
    """The first of the best-ranked vectors."""
    return max(vectors, key=vector_rank)


@lru_cache(maxsize=None)
def components_vector(parts: tuple[tuple[str, int], ...], players: int) -> Vector:
    """Cells each seat takes (from the one who must open one of these chains and loops round
    the table), every seat at its best."""
    if not parts:
        return (0.0,) * players
    return best_vector(opening_vector(parts, i, players) for i in range(len(parts)))


def opening_vector(parts: tuple[tuple[str, int], ...], i: int, players: int) -> Vector:
    """Cells each seat takes once the opener opens `parts[i]`: the next seat takes it all and
    opens the next one, or takes all but the last two cells of a chain (four of a loop) and
    hands those to the seat after it, which then opens the next one."""
    rest = components_vector(parts[:i] + parts[i + 1 :], players)
    kind, size = parts[i]
    reply = gain(rest, size)
    keep = 2 if kind == "chain" and size >= 3 else 4 if kind == "loop" and size >= 4 else 0
    if keep:
        declined = gain(pass_turn(gain(rest, keep)), size - keep)
        reply = best_vector((reply, declined))
    return pass_turn(reply)


def mean_vector(vectors: Iterable[Vector]) -> Vector:
    """The mean of some vectors: what a seat choosing among them at random expects."""
    listed = list(vectors)
    return tuple(sum(column) / len(listed) for column in zip(*listed))


class DoubleCrossSeats(DoubleCross):
    """The double-cross player for three or more seats: the same play, valued as vectors.

    One more difference: in its search over the last safe moves, a position where safe moves
    are left is valued as the mean over them, not the best for its mover: the decider picks
    its best safe move, and the rivals are taken to play theirs at random (greedy does, and
    who runs out of safe moves first is a fight of the whole table that no seat steers).
    Measured (bench_strength --seats 3), that took 3.96 cells a game from two greedy bots
    where choosing the best for every mover took 3.67."""

    def __init__(self, game: DotsGame, search_nodes: int = SEARCH_NODES) -> None:
        super().__init__(game, search_nodes)
        self.players = game.num_players
        self.values: dict[int, Vector] = {}  # type: ignore[assignment]

    def quiet_value(self, drawn: int) -> Vector:  # type: ignore[override]
        """Cells each seat takes from a position with nothing to capture."""
        known = self.values.get(drawn)
        if known is not None:
            return known
        self._spend()
        game = self.game
        if drawn == game.full_mask:
            value: Vector = (0.0,) * self.players
        else:
            safe = safe_edges(game, drawn)
            parts = None if safe else components(game, drawn)
            if parts is not None:
                value = components_vector(parts, self.players)
            elif len(safe) > SAFE_SEARCH_MOVES or free_count(game, drawn) > SEARCH_EDGES:
                # Too early to tell who will open the first long chain: an equal split.
                left = sum(1 for mask in game.cell_masks if mask & ~drawn)
                value = (left / self.players,) * self.players
            elif safe:
                value = mean_vector(self.move_values(drawn, safe).values())
            else:
                value = best_vector(self.move_values(drawn, safe).values())
        self.values[drawn] = value
        return value

    def move_values(self, drawn: int, safe: set[int]) -> dict[int, Vector]:  # type: ignore[override]
        """Each move of a position with nothing to capture, as the cells each seat then takes.

        While safe moves are left, only those: with two seats a sacrifice can win the fight
        over who opens the first long chain, but with more the cells go to the next player
        and the fight is over the turn order of the whole table, which a sacrifice rarely
        settles. Measured (bench_strength --seats 3), sacrificing lost cells to greedy."""
        game = self.game
        edges = sorted(safe) if safe else free_edges(game, drawn)
        return {
            e: pass_turn(self.quiet_value(drawn | (1 << e))) if e in safe
            else pass_turn(self.capture_plan(drawn | (1 << e), game.edge_cells[e])[1])
            for e in edges
        }

    def capture_plan(self, drawn: int,  # type: ignore[override]
                     starts: Iterable[int] | None = None) -> tuple[Group | None, Vector]:
        """The group to hand on (None: take everything) and the cells each seat then takes."""
        self._spend()
        groups = capture_groups(self.game, drawn, starts)
        count, after = capture_run(self.game, drawn, starts)
        rest = self.quiet_value(after)
        take_all = gain(rest, count)
        keepable = [g for g in groups if g.keep]
        if keepable and sum(len(g.cells) for g in groups) == count:
            group = min(keepable, key=lambda g: g.keep)
            # The next seat takes the kept cells and must move in the same position.
            declined = gain(pass_turn(gain(rest, group.keep)), count - group.keep)
            if vector_rank(declined) > vector_rank(take_all):
                return group, declined
        return None, take_all

    def best_moves(self, values: dict[int, Vector]) -> list[int]:  # type: ignore[override]
        """The moves best for the mover, in edge order."""
        best = max(vector_rank(v) for v in values.values())
        return sorted(e for e, v in values.items() if vector_rank(v) == best)

    def cheapest_openings(self, found: list[Component]) -> list[int]:
        """Where to open: the components whose opening is best for the opener, at their opening edges."""
        parts = tuple(sorted((c.kind, len(c.cells)) for c in found))
        ranks = {part: vector_rank(opening_vector(parts, parts.index(part), self.players)) for part in set(parts)}
        best = max(ranks.values())
        return sorted(e for c in found if ranks[(c.kind, len(c.cells))] == best for e in c.openings())
