"""Limit Nim: Nim where taking n stones sets that pile's limit to min(2n, stones left).

Piles are written `stones/limit` separated by commas (`10/9,10/9,10/9`). A move `p n`
takes n stones (1 <= n <= the pile's limit) from pile p (1-based). Players alternate;
whoever takes the last stone wins.
"""
from __future__ import annotations

import re

from .base import Game, MalformedMove, Param, State, parse_int

TYPE_CHECKING = False  # `typing` is for type checkers: bots import this module (see base.py)
if TYPE_CHECKING:
    from typing import Hashable

Pile = tuple[int, int]  # (stones, limit)
MAX_PILES = 64
MAX_STONES = 1000  # per pile; bots list every legal take, so keep that list small
# ASCII digits only, and few enough that int() is cheap (a bot may send anything).
_MOVE = re.compile(r"([0-9]{1,9}) ([0-9]{1,9})")


def parse_piles(text: str) -> tuple[Pile, ...]:
    """Read `10/9,10/9` (semicolons also accepted) into ((10, 9), (10, 9))."""
    piles = []
    for part in re.split(r"[,;]", text.strip().strip("()")):
        stones, sep, limit = part.strip().partition("/")
        if not sep:
            raise ValueError(f"pile {part.strip()!r} is not written stones/limit")
        piles.append((parse_int(stones.strip()), parse_int(limit.strip())))
    return tuple(piles)


def check_piles(piles: tuple[Pile, ...]) -> str | None:
    """None when the piles are a valid start, else what is wrong (a `Param.check`)."""
    if not 1 <= len(piles) <= MAX_PILES:
        return f"give between 1 and {MAX_PILES} piles"
    for number, pile in enumerate(piles, 1):
        # Typed piles (from Python) must be integer pairs too, like the text form.
        if len(pile) != 2 or not all(type(n) is int for n in pile):
            return f"pile {number} is {pile!r}; a pile is two integers, stones and limit"
        stones, limit = pile
        if not 0 <= stones <= MAX_STONES:
            return f"pile {number} has {stones} stones; a pile has 0 to {MAX_STONES}"
        if (stones == 0 and limit != 0) or (stones > 0 and not 1 <= limit <= stones):
            return (
                f"pile {number} is {stones}/{limit}; a pile's limit must be between 1 and its "
                "stones (0 for an empty pile)"
            )
    if sum(stones for stones, _ in piles) == 0:
        return "at least one pile must have stones"
    return None


def format_piles(piles: tuple[Pile, ...]) -> str:
    """The piles in the text form `parse_piles` reads: `10/9,10/9`."""
    return ",".join(f"{s}/{l}" for s, l in piles)


class LimitNim(Game[tuple[int, int]]):
    """Moves are (pile index 0-based, stones taken)."""

    name = "limit-nim"
    parameters = (
        Param(
            "piles",
            ((10, 9), (10, 9), (10, 9)),
            "piles written stones/limit separated by commas, like 10/9,10/9,10/9",
            parse=parse_piles,
            check=check_piles,
        ),
    )

    def _setup(self) -> None:
        # Piles given typed (a list of lists, say) become tuples, so positions are hashable.
        self.params["piles"] = tuple((stones, limit) for stones, limit in self.params["piles"])

    def format_param(self, name: str) -> str:
        return format_piles(self.params["piles"])

    def new_state(self) -> LimitNimState:
        return LimitNimState(self, self.params["piles"])

    def parse_move(self, text: str) -> tuple[int, int]:
        match = _MOVE.fullmatch(text)
        if not match:
            raise MalformedMove(text, "expected a pile number and a count separated by one space, like '1 2'")
        pile, count = int(match[1]), int(match[2])
        piles = len(self.params["piles"])
        if not 1 <= pile <= piles:
            raise MalformedMove(text, f"there is no pile {pile}; piles are 1 to {piles}")
        if count < 1:
            raise MalformedMove(text, "a move takes at least 1 stone")
        return (pile - 1, count)

    def format_move(self, move: tuple[int, int]) -> str:
        return f"{move[0] + 1} {move[1]}"


class LimitNimState(State[tuple[int, int]]):
    """A Limit Nim position: the piles as (stones, limit) pairs and the player to move."""

    def __init__(self, game: LimitNim, piles: tuple[Pile, ...]) -> None:
        super().__init__(game)
        self.piles = piles
        self._current = 0
        self._winner: int | None = None

    @property
    def current_player(self) -> int:
        return self._current

    @property
    def scores(self) -> list[int]:
        return [1 if seat == self._winner else 0 for seat in range(2)]

    def legal_moves(self) -> list[tuple[int, int]]:
        return [(p, n) for p, (_, limit) in enumerate(self.piles) for n in range(1, limit + 1)]

    def illegal_reason(self, move: tuple[int, int]) -> str | None:
        pile, count = move
        if not 0 <= pile < len(self.piles):
            return f"there is no pile {pile + 1}; piles are 1 to {len(self.piles)}"
        if count < 1:
            return "a move takes at least 1 stone"
        stones, limit = self.piles[pile]
        if stones == 0:
            return f"pile {pile + 1} is empty"
        if count > limit:
            return f"pile {pile + 1} has limit {limit} (and {stones} stones), so at most {limit} may be taken"
        return None

    def _apply(self, move: tuple[int, int]) -> None:
        pile, count = move
        stones = self.piles[pile][0] - count
        piles = list(self.piles)
        piles[pile] = (stones, min(2 * count, stones))
        self.piles = tuple(piles)
        if stones == 0 and not any(left for left, _ in piles):
            self._winner = self._current  # took the last stone
        else:
            self._current = 1 - self._current

    def is_over(self) -> bool:
        # The start always has stones, so the game is over exactly when someone took the last.
        return self._winner is not None

    def key(self) -> Hashable:
        return (self.piles, self._current)

    def clone(self) -> LimitNimState:
        copy = LimitNimState(self.game, self.piles)  # type: ignore[arg-type]
        copy.history = list(self.history)
        copy._current = self._current
        copy._winner = self._winner
        return copy

    def render(self) -> str:
        return "\n".join(
            f"pile {p + 1}: {'o' * stones:<{max(s for s, _ in self.game.params['piles'])}} {stones}/{limit}"
            for p, (stones, limit) in enumerate(self.piles)
        )


__all__ = ["LimitNim", "LimitNimState", "parse_piles", "format_piles"]
