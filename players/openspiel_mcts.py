#!/usr/bin/env python3
"""Reference bot for OpenSpiel's games (`openspiel:NAME`): OpenSpiel's own MCTS, with random
rollouts and a fixed number of simulations a move (--simulations, default 100), so that its
strength does not depend on the machine's speed or load. Seeded from the game's seed (or
--seed): the same game, the same moves. Only a clock too short for them cuts the
simulations: a move then takes at most a tenth of the time left (and half of move_ms), at
the speed of its previous search.

It searches OpenSpiel's state itself (`state.spiel_state`): chance nodes in the search are
sampled by MCTS; the dice of the game are the referee's, told by `Chance` lines.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

import time  # noqa: E402

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402  (0.6 s, at start-up: off the clock)

from arbiter.bot import BotContext, bot_arguments, exit_now, run_bot  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from arbiter.games.openspiel import OpenSpielState

DEFAULT_SIMULATIONS = 100
UCT_C = 2.0  # OpenSpiel's example's exploration constant
CLOCK_SHARE = 0.1  # of the time left, the most one move may take
MOVE_MS_SHARE = 0.5  # of move_ms, the most one move may take
# OpenSpiel's MCTS expands the root on its second simulation: with one, it has no child to choose.
MIN_SIMULATIONS = 2


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
            ctx.memory["thought_s"] = 0.0
        searcher.max_simulations = _affordable(ctx, simulations)
        started = time.monotonic()
        action = searcher.step(state.spiel_state)
        took_s = time.monotonic() - started
        ctx.memory["thought_s"] += took_s
        ctx.memory["per_second"] = searcher.max_simulations / max(took_s, 1e-6)
        return state.spiel_state.action_to_string(state.current_player, action)

    return choose


def _affordable(ctx: BotContext, simulations: int) -> int:
    """The simulations this move: all of them, unless the clock's share for a move (from the
    time left and move_ms) fits fewer at the previous search's speed; MIN_SIMULATIONS at least."""
    share_s = float("inf")
    if ctx.time_ms is not None:
        share_s = CLOCK_SHARE * (ctx.time_ms / 1000 - ctx.memory["thought_s"])
    if ctx.move_ms is not None:
        share_s = min(share_s, MOVE_MS_SHARE * ctx.move_ms / 1000)
    per_second = ctx.memory.get("per_second")
    if per_second is None:  # the first search: a tenth of them under a short clock, to learn the speed
        return simulations if share_s >= 1.0 else max(MIN_SIMULATIONS, simulations // 10)
    return max(MIN_SIMULATIONS, min(simulations, int(per_second * share_s)))


def _searcher(ctx: BotContext, simulations: int) -> Any:
    """OpenSpiel's MCTS bot for this game, seeded from the bot's random generator."""
    rng = np.random.RandomState(ctx.rng.getrandbits(32))
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return mcts.MCTSBot(ctx.game.spiel_game, UCT_C, simulations, evaluator, random_state=rng)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    """Run the bot."""
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=DEFAULT_SIMULATIONS, metavar="N",
                        help=f"MCTS simulations a move (default {DEFAULT_SIMULATIONS})")
    args = parser.parse_args(argv)
    if args.simulations < MIN_SIMULATIONS:
        parser.error(f"argument --simulations: must be {MIN_SIMULATIONS} or more, got {args.simulations}")
    return run_bot(mcts_choice(args.simulations), parser=parser, argv=argv)


if __name__ == "__main__":
    exit_now(main())
