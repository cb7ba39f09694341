"""The greedy dots strategy: take what is there, give nothing while you can, then give least.

1. Complete a cell whenever possible, the edge completing the most cells first.
2. Otherwise play a safe move (one that hands the opponent no cell).
3. When no safe move is left, give away as few cells as possible: for each free edge,
   count the cells the opponent could then capture in a row, and pick the smallest.
Random among equals. The position is read from a `CellIndex` kept in the bot's memory,
so steps 1 and 2 cost O(1) per move to maintain.
"""
from __future__ import annotations

from arbiter.bot import BotContext
from arbiter.games.dots import DotsState

from .cell_index import CellIndex, capture_run, tracked_index

TYPE_CHECKING = False  # `typing` is for type checkers: it would cost every bot start (arbiter/games/base.py)
if TYPE_CHECKING:
    from typing import Any


def choose_greedy(state: DotsState, ctx: BotContext) -> int:
    """The greedy move for the player to move."""
    index = tracked_index(state.game, state.drawn, ctx.memory)
    return greedy_move(index, ctx.rng)


def greedy_move(index: CellIndex, rng: Any) -> int:
    """Capture the most, else a random safe move, else the edge that gives the fewest cells."""
    captures = index.capture_moves()
    if captures:
        return rng.choice(best_keys(captures))
    if index.safe:
        return rng.choice(sorted(index.safe))
    return rng.choice(cheapest_gifts(index.game, index.drawn))


def cheapest_gifts(game: Any, drawn: int) -> list[int]:
    """The free edges after which the opponent can capture the fewest cells."""
    cost: dict[int, int] = {}
    least: int | None = None
    for edge in range(len(game.edges)):
        if not (drawn >> edge) & 1:
            # A run longer than the least so far is cut short there: on a big board, walking
            # every long chain from every one of its edges made this quadratic.
            gift = capture_run(game, drawn | (1 << edge), game.edge_cells[edge], stop_above=least)[0]
            cost[edge] = gift
            if least is None or gift < least:
                least = gift
    return [edge for edge, gift in cost.items() if gift == least]


def best_keys(scores: dict[int, int]) -> list[int]:
    """The keys with the highest score, in ascending order (for reproducible random picks)."""
    best = max(scores.values())
    return sorted(key for key, score in scores.items() if score == best)
