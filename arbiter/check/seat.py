"""The arbiter's own seat in `arbiter check`: a bot on the kit that plays scripted or legal moves.

    python -m arbiter.check.seat [--script "M1;M2;..."] [--no-gifts] [--seed N]

It plays the scripted moves first, one each time it has the turn, then legal moves. In a
dots game it takes a cell whenever it can and otherwise draws a safe edge (one that leaves
no cell missing a single side). With `--no-gifts`, when every edge would hand the next seat
a cell, it leaves the game instead (exits, which ends the game as its fault): so in the
full-game scenarios the checked bot never gets a cell to complete, and its extra move is
checked by its own scenario alone.
"""
from __future__ import annotations

import sys
from typing import Any

from ..bot import BotContext, bot_arguments, run_bot
from ..games import State
from ..games.dots import DotsGame, DotsState

STOPPED_STATUS = 0  # the exit status of a seat that left the game on purpose


def dots_choice(state: DotsState, rng: Any) -> int | None:
    """A cell-completing edge, else a safe edge, else None (every edge gives a cell away)."""
    game: DotsGame = state.game
    drawn = state.drawn
    free = state.legal_moves()
    taking = [edge for edge in free if game.completed_by(drawn, edge)]
    if taking:
        return rng.choice(taking)
    safe = [edge for edge in free if not gives_cell(game, drawn, edge)]
    return rng.choice(safe) if safe else None


def gives_cell(game: DotsGame, drawn: int, edge: int) -> bool:
    """Whether drawing `edge` leaves one of its cells missing a single side."""
    with_edge = drawn | (1 << edge)
    return any((mask & ~with_edge).bit_count() == 1 for _, mask in game._edge_cell_masks[edge])


def main(argv: list[str] | None = None) -> int:
    """Run the seat until `Quit`, or until it leaves the game (`--no-gifts`)."""
    parser = bot_arguments("the arbiter's seat in `arbiter check`")
    parser.add_argument("--script", default="", help="moves to play first, separated by ';'")
    parser.add_argument("--no-gifts", action="store_true",
                        help="leave the game rather than hand the next seat a cell (dots games)")
    args = parser.parse_args(argv)
    script = [move.strip() for move in args.script.split(";") if move.strip()]

    def choose(state: State[Any], ctx: BotContext) -> Any:
        if script:
            return script.pop(0)
        if isinstance(state, DotsState):
            edge = dots_choice(state, ctx.rng)
            if edge is not None:
                return edge
            if args.no_gifts:
                ctx.log("check seat: every edge gives a cell away; leaving the game here")
                sys.exit(STOPPED_STATUS)
        return ctx.rng.choice(state.legal_moves())

    return run_bot(choose, description="the arbiter's seat in `arbiter check`", parser=parser, argv=argv)


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["dots_choice", "gives_cell", "main"]
