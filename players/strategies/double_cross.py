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
- Safe moves left: play one. When few are left (at most `safe_search_moves`), search to
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

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arbiter.bot import BotContext
from arbiter.games.dots import DotsGame, DotsState

from .cell_index import CellIndex, bits, capture_run, missing_sides, tracked_index
from .greedy import best_keys, cheapest_gifts, greedy_move

GROUND = -1  # the rim, in the strings-and-coins picture
SAFE_SEARCH_MOVES = 10  # search the safe phase once at most this many safe moves are left
SEARCH_NODES = 10_000  # positions valued per decision before giving up on the search


@dataclass(frozen=True)
class Group:
    """Cells the mover can capture one after another, in capture order.

    `edges[i]` is the free edge of `cells[i]` leading on (the one that captures it); the
    last edge leads to the ground (`end == "ground"`), into a junction cell that is not
    captured (`end == "junction"`), or is shared with a last cell capturable from its
    own side too (`end == "both"`: an opened loop).
    """

    cells: tuple[int, ...]
    edges: tuple[int, ...]
    end: str

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


def capture_groups(game: DotsGame, drawn: int) -> list[Group]:
    """The capturable runs of cells, each followed from a cell missing one side."""
    missing = [missing_sides(game, drawn, c) for c in range(len(game.cells))]
    seen: set[int] = set()
    groups = []
    for start in range(len(game.cells)):
        if missing[start] != 1 or start in seen:
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
            if missing[nxt] == 1:
                cells.append(nxt)
                seen.add(nxt)
                end = "both"
                break
            if missing[nxt] != 2:
                break  # a junction: capturing up to it leaves it with one side fewer
            cells.append(nxt)
            seen.add(nxt)
            cell, came_by = nxt, edge
        groups.append(Group(tuple(cells), tuple(edges), end))
    return groups


def components(game: DotsGame, drawn: int) -> tuple[tuple[str, int], ...] | None:
    """A position of only chains and loops as sorted (kind, cells) pairs; None with junctions.

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
        size, grounded, todo = 0, 0, [start]
        seen.add(start)
        while todo:
            cell = todo.pop()
            size += 1
            for edge in free_of[cell]:
                across = [c for c in game.edge_cells[edge] if c != cell]
                if not across:
                    grounded += 1
                elif across[0] not in seen:
                    seen.add(across[0])
                    todo.append(across[0])
        found.append(("chain" if grounded else "loop", size))
    return tuple(sorted(found))


@lru_cache(maxsize=None)
def components_value(parts: tuple[tuple[str, int], ...]) -> int:
    """Net cells for the player who must open one of these chains and loops, both sides at their best."""
    if not parts:
        return 0
    best = None
    for i, part in enumerate(parts):
        if i and parts[i - 1] == part:
            continue
        rest = components_value(parts[:i] + parts[i + 1 :])
        kind, size = part
        reply = size + rest  # the opponent takes it all and opens the next one
        keep = 2 if kind == "chain" and size >= 3 else 4 if kind == "loop" and size >= 4 else 0
        # A two-chain is opened in the middle (a hard-hearted handout): nothing to keep.
        if keep:
            reply = max(reply, size - 2 * keep - rest)
        best = -reply if best is None else max(best, -reply)
    assert best is not None
    return best


class SearchBudgetExceeded(Exception):
    """A decision needed more positions than its budget allows."""


class DoubleCross:
    """The double-cross player's knowledge of one game: values of positions, memoized."""

    def __init__(self, game: DotsGame, safe_search_moves: int = SAFE_SEARCH_MOVES,
                 search_nodes: int = SEARCH_NODES) -> None:
        self.game = game
        self.safe_search_moves = safe_search_moves
        self.search_nodes = search_nodes
        self.values: dict[int, int] = {}  # capture-free positions -> value for the mover
        self._budget = 0

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
            safe = CellIndex(game, drawn).safe
            parts = None if safe else components(game, drawn)
            if parts is not None:
                value = components_value(parts)
            elif len(safe) > self.safe_search_moves:
                value = 0  # too early to tell who will have to open the first long chain
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
        return {
            e: -self.quiet_value(drawn | (1 << e)) if e in safe else -self.reply_value(drawn | (1 << e))
            for e in free_edges(self.game, drawn)
        }

    def reply_value(self, drawn: int) -> int:
        """Value for the mover of a position with cells to capture (take all, or keep control)."""
        return self.capture_plan(drawn)[1]

    def capture_plan(self, drawn: int) -> tuple[Group | None, int]:
        """The group to hand back (None: take everything) and the resulting value for the mover."""
        groups = capture_groups(self.game, drawn)
        count, after = capture_run(self.game, drawn)
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
        self._budget -= 1
        if self._budget < 0:
            raise SearchBudgetExceeded

    # --- moves --------------------------------------------------------------------
    def choose(self, index: CellIndex, rng: Any) -> int:
        """The double-cross move in the indexed position."""
        drawn = index.drawn
        self._budget = self.search_nodes
        try:
            if index.opportunities:
                return self._capture_move(index, rng)
            if len(index.safe) > self.safe_search_moves:
                return rng.choice(sorted(index.safe))
            return rng.choice(best_keys(self.move_values(drawn, index.safe)))
        except SearchBudgetExceeded:
            if index.opportunities or index.safe:
                return greedy_move(index, rng)
            return rng.choice(cheapest_gifts(self.game, drawn))

    def _capture_move(self, index: CellIndex, rng: Any) -> int:
        kept, _ = self.capture_plan(index.drawn)
        if kept is None:
            return rng.choice(best_keys(index.capture_moves()))
        others = [g for g in capture_groups(self.game, index.drawn) if g.cells != kept.cells]
        if others:
            return others[0].edges[0]
        if len(kept.cells) > kept.keep:
            return kept.edges[0]
        return kept.double_deal()


def free_edges(game: DotsGame, drawn: int) -> list[int]:
    """The undrawn edges, in index order."""
    return [e for e in range(len(game.edges)) if not (drawn >> e) & 1]


def choose_double_cross(state: DotsState, ctx: BotContext) -> int:
    """The double-cross move for the player to move (greedy when more than two seats play)."""
    index = tracked_index(state.game, state.drawn, ctx.memory)
    if state.game.num_players != 2:
        return greedy_move(index, ctx.rng)
    player = ctx.memory.get("double_cross")
    if not isinstance(player, DoubleCross) or player.game is not state.game:
        player = DoubleCross(state.game)
        ctx.memory["double_cross"] = player
    return player.choose(index, ctx.rng)
