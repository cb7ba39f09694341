"""Limit Nim strategies: greedy, and perfect play (a winning play whenever one exists).

A winning play is one that leads to a position from which there is no winning play (with
no stones left there is none, so taking the last stone is one). Searching that definition
over whole positions, memoized, blows up with the number of piles (four piles of 30 stones
are already out of reach), so `NimSolver` searches one pile at a time and combines the
piles with the Sprague-Grundy theorem; tests check it against the plain memoized search.
"""
from __future__ import annotations

from arbiter.bot import BotContext
from arbiter.games.limit_nim import LimitNimState, Pile

TYPE_CHECKING = False  # `typing` is for type checkers: it would cost every bot start (arbiter/games/base.py)
if TYPE_CHECKING:
    from typing import Any

Move = tuple[int, int]  # (pile index, 0-based; stones taken)


def after(piles: tuple[Pile, ...], move: Move) -> tuple[Pile, ...]:
    """The piles after a move (a take of n sets the pile's limit to min(2n, stones left))."""
    pile, count = move
    stones = piles[pile][0] - count
    changed = list(piles)
    changed[pile] = (stones, min(2 * count, stones))
    return tuple(changed)


def takes_everything(piles: tuple[Pile, ...]) -> bool:
    """Whether the player to move can take all the stones left at once."""
    live = [p for p in piles if p[0] > 0]
    return len(live) == 1 and live[0][1] == live[0][0]


def greedy_moves(piles: tuple[Pile, ...]) -> list[Move]:
    """The largest takes that do not let the opponent take everything (the largest of all if none)."""
    moves = sorted(((p, n) for p, (_, limit) in enumerate(piles) for n in range(1, limit + 1)),
                   key=lambda move: -move[1])
    sound = [m for m in moves if not takes_everything(after(piles, m))]
    pool = sound or moves
    largest = pool[0][1]
    return [m for m in pool if m[1] == largest]


def choose_nim_greedy(state: LimitNimState, ctx: BotContext) -> Move:
    """The greedy Limit Nim move."""
    return ctx.rng.choice(greedy_moves(state.piles))


class NimSolver:
    """Winning plays by the Sprague-Grundy theorem, with per-pile values memoized.

    The piles are independent games, so a position has no winning play exactly when the
    XOR of its piles' Grundy numbers is 0, and a winning play is a move that makes it 0.
    A pile's Grundy number is the smallest number that is not the Grundy number of a pile
    it can move to (0 for an empty pile); they are memoized in a table grown on demand,
    row by row in the number of stones, and kept across moves and games.
    """

    def __init__(self, max_stones: int = 2000) -> None:
        self.max_stones = max_stones  # past this, the O(stones^2) table is too slow to grow
        self._grundy: list[list[int]] = [[0]]  # _grundy[stones][limit]

    def grundy(self, pile: Pile) -> int:
        """The Grundy number of one pile."""
        stones, limit = pile
        self._grow(stones)
        return self._grundy[stones][limit]

    def can_solve(self, piles: tuple[Pile, ...]) -> bool:
        """Whether every pile is within the solver's size limit."""
        return all(stones <= self.max_stones for stones, _ in piles)

    def winning_play(self, piles: tuple[Pile, ...]) -> Move | None:
        """A winning play (the largest take among them), or None when there is none."""
        total = 0
        for pile in piles:
            total ^= self.grundy(pile)
        if total == 0:
            return None
        for count in range(max(limit for _, limit in piles), 0, -1):
            for index, pile in enumerate(piles):
                if count <= pile[1] and self.grundy(after(piles, (index, count))[index]) == total ^ self.grundy(pile):
                    return index, count
        raise AssertionError("a nonzero Grundy sum always has a move to zero")

    def _grow(self, stones: int) -> None:
        table = self._grundy
        for size in range(len(table), stones + 1):
            row = [0] * (size + 1)
            reachable: set[int] = set()
            smallest_missing = 0
            for limit in range(1, size + 1):  # allowing one more stone adds one more move
                left = size - limit
                reachable.add(table[left][min(2 * limit, left)])
                while smallest_missing in reachable:
                    smallest_missing += 1
                row[limit] = smallest_missing
            table.append(row)


def make_nim_perfect_chooser(solver: NimSolver | None = None):
    """A bot-kit chooser making a winning play whenever one exists (greedy when none does)."""
    solver = solver or NimSolver()

    def choose(state: LimitNimState, ctx: BotContext) -> Any:
        if not solver.can_solve(state.piles):
            ctx.log(f"nim_perfect: a pile has more than {solver.max_stones} stones; playing greedy")
            return choose_nim_greedy(state, ctx)
        move = solver.winning_play(state.piles)
        if move is None:
            ctx.log("nim_perfect: no winning play here; playing greedy and hoping for a mistake")
            return choose_nim_greedy(state, ctx)
        return move

    return choose
