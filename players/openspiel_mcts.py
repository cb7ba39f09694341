#!/usr/bin/env python3
"""Reference bot for OpenSpiel's games (`openspiel:NAME`): OpenSpiel's own MCTS, with random
rollouts and a fixed number of simulations a move (--simulations, default 100), so that its
strength does not depend on the machine's speed or load. Seeded from the game's seed (or
--seed): the same game, the same moves.

It searches OpenSpiel's state itself (`state.spiel_state`), so chance nodes in the search are
sampled by MCTS, not drawn from the game's seed: it does not look at the dice to come.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, bot_arguments, exit_now, run_bot  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from arbiter.games.openspiel import OpenSpielState

DEFAULT_SIMULATIONS = 100
UCT_C = 2.0  # OpenSpiel's example's exploration constant


def mcts_choice(simulations: int) -> Callable[[OpenSpielState, BotContext], str]:
    """The choose function: MCTS's best action, as the game writes it."""

    def choose(state: OpenSpielState, ctx: BotContext) -> str:
        from arbiter.games.openspiel import OpenSpielGame

        if not isinstance(ctx.game, OpenSpielGame):
            ctx.log(f"openspiel_mcts: cannot play {ctx.game.name}; this bot plays OpenSpiel's games (openspiel:NAME)")
            raise SystemExit(2)
        searcher = ctx.memory.get("mcts")
        if searcher is None:
            searcher = ctx.memory["mcts"] = _searcher(ctx, simulations)
        action = searcher.step(state.spiel_state)
        return state.spiel_state.action_to_string(state.current_player, action)

    return choose


def _searcher(ctx: BotContext, simulations: int) -> Any:
    """OpenSpiel's MCTS bot for this game, seeded from the bot's random generator."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    rng = np.random.RandomState(ctx.rng.getrandbits(32))
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return mcts.MCTSBot(ctx.game.spiel_game, UCT_C, simulations, evaluator, random_state=rng)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    """Run the bot."""
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=DEFAULT_SIMULATIONS, metavar="N",
                        help=f"MCTS simulations a move (default {DEFAULT_SIMULATIONS})")
    args = parser.parse_args(argv)
    if args.simulations < 1:
        parser.error(f"argument --simulations: must be 1 or more, got {args.simulations}")
    return run_bot(mcts_choice(args.simulations), parser=parser, argv=argv)


if __name__ == "__main__":
    exit_now(main())
