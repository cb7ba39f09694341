"""Games whose rules fail on purpose, for the tests of void games (docs/records.md).

`broken_nim(where, at)` is Limit Nim (the bots play it as `limit-nim`: its Game line is the
real game's) whose rules raise in `where` once `at` moves have been applied: `apply`,
`parse` (reading a move's text), `is_over`, `scores` or `legal` (the legal moves, asked
when a move is refused). `NIM_LINES` script a game of it for `ScriptedChannel`s.
"""
from __future__ import annotations

from typing import Any

from arbiter.games.limit_nim import LimitNim, LimitNimState


class RulesBroke(RuntimeError):
    """What the broken rules raise: not one of the rules library's documented errors."""


def broken_nim(where: str, at: int = 0, *, exc: type[BaseException] = RulesBroke, **params: Any) -> LimitNim:
    """Limit Nim (by default piles=3/1: three moves of `1 1`) that raises `exc` in `where`
    from the `at`-th move on (0: from the start)."""

    class BrokenState(LimitNimState):
        def _fail(self, part: str) -> None:
            if part == where and len(self.history) >= at:
                raise exc(f"{part} broke after {len(self.history)} moves (a deliberate fault of a test game)")

        def _apply(self, move: Any) -> None:
            self._fail("apply")
            super()._apply(move)

        def is_over(self) -> bool:
            self._fail("is_over")
            return super().is_over()

        @property
        def scores(self) -> list[int]:
            self._fail("scores")
            return super().scores

        def legal_moves(self) -> list[Any]:
            self._fail("legal")
            return super().legal_moves()

    class BrokenNim(LimitNim):
        def new_state(self) -> LimitNimState:
            plain = super().new_state()
            state = BrokenState(self, plain.piles)
            return state

        def parse_move(self, text: str) -> Any:
            if where == "parse":
                raise exc(f"the parser broke on {text!r}")
            return super().parse_move(text)

    return BrokenNim(**{"piles": "3/1", **params})


__all__ = ["RulesBroke", "broken_nim"]
