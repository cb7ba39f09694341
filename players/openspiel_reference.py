#!/usr/bin/env python3
"""Reference bot for OpenSpiel's chess, backgammon and Chinese checkers: a short search with an
evaluation written for each (players/strategies/spiel_reference.py), a few to a hundred ms a
move. Chess: alpha-beta to --depth plies (default 2) on material, pawns' advance and, once far
ahead, the losing king driven to the edge. Backgammon: the best of the legal moves for the
dice it was dealt (the referee's `Chance` line), by race, points made, blots and hits.
Chinese checkers: the turn (with its jumps) that brings its pieces nearest the corner it
must fill. Seeded from the game's seed (or --seed): the same game, the same moves.

Any other OpenSpiel game it still plays, with players/openspiel_mcts.py's search (MCTS with
random rollouts, --simulations a move), and says so once on stderr.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

import time  # noqa: E402

from arbiter.bot import BotContext, bot_arguments, exit_now, run_bot  # noqa: E402
from players.strategies import spiel_reference  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from arbiter.games.openspiel import OpenSpielState

DEFAULT_DEPTH = 2
DEFAULT_SIMULATIONS = 100  # as players/openspiel_mcts.py's
MIN_SIMULATIONS = 2  # as players/openspiel_mcts.py's (its MCTS needs two to choose)
CLOCK_SHARE = 0.1  # of the time left, the most a chess move may take (judged by the last one)
PLY_FACTOR = 30  # about what one more ply of chess multiplies a search by


def reference_choice(depth: int, simulations: int) -> Callable[[OpenSpielState, BotContext], str]:
    """The choose function: the game's own search where it has one, else MCTS."""
    def choose(state: OpenSpielState, ctx: BotContext) -> str:
        from arbiter.games.openspiel import OpenSpielGame

        if not isinstance(ctx.game, OpenSpielGame):
            ctx.log(f"openspiel_reference: cannot play {ctx.game.name}; "
                    "this bot plays OpenSpiel's games (openspiel:NAME)")
            raise SystemExit(2)
        name = ctx.game.spiel_name  # type: ignore[attr-defined]
        spiel = state.spiel_state
        if name not in spiel_reference.SEARCHED:
            if not ctx.memory.get("said_fallback"):
                ctx.memory["said_fallback"] = True
                ctx.log(f"openspiel_reference: no evaluation for {name} (it has one for "
                        f"{', '.join(spiel_reference.SEARCHED)}); playing MCTS with random rollouts, "
                        f"{simulations} simulations a move")
            fallback = ctx.memory.get("fallback")
            if fallback is None:  # OpenSpiel's MCTS: 0.6 s to import, on the first fallback move's clock
                from players.openspiel_mcts import mcts_choice

                fallback = ctx.memory["fallback"] = mcts_choice(simulations)
            return fallback(state, ctx)
        started = time.monotonic()
        if name == "chess":
            plies = _affordable_depth(ctx, depth)
            action = spiel_reference.chess_choice(spiel, ctx.rng, plies)
            ctx.memory["last_search"] = (plies, time.monotonic() - started)
        elif name == "backgammon":
            action = spiel_reference.backgammon_choice(spiel, ctx.rng)
        else:
            tips = ctx.memory.get("tips")
            if tips is None:
                start = ctx.game.spiel_game.new_initial_state()  # type: ignore[attr-defined]
                tips = ctx.memory["tips"] = spiel_reference.target_tips(str(start), ctx.game.num_players)
            action = spiel_reference.chinese_checkers_choice(spiel, ctx.rng, tips)
        ctx.memory["thought_s"] = ctx.memory.get("thought_s", 0.0) + time.monotonic() - started
        return spiel.action_to_string(state.current_player, action)

    return choose


def _affordable_depth(ctx: BotContext, depth: int) -> int:
    """The chess depth this move: `depth`, less a ply for each PLY_FACTOR by which the last
    search, scaled to it, would pass CLOCK_SHARE of the time left; 1 at least."""
    last = ctx.memory.get("last_search")
    if ctx.time_ms is None or last is None:
        return depth
    share_s = CLOCK_SHARE * (ctx.time_ms / 1000 - ctx.memory["thought_s"])
    plies, took_s = last
    estimate_s = took_s * PLY_FACTOR ** (depth - plies)
    while depth > 1 and estimate_s > share_s:
        depth -= 1
        estimate_s /= PLY_FACTOR
    return depth


def main(argv: list[str] | None = None) -> int:
    """Run the bot."""
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, metavar="N",
                        help=f"chess: alpha-beta depth in plies (default {DEFAULT_DEPTH}; 1 takes the best "
                             "position after its own move)")
    parser.add_argument("--simulations", type=int, default=DEFAULT_SIMULATIONS, metavar="N",
                        help=f"games without an evaluation: MCTS simulations a move (default {DEFAULT_SIMULATIONS})")
    args = parser.parse_args(argv)
    if args.depth < 1:
        parser.error(f"argument --depth: must be 1 or more, got {args.depth}")
    if args.simulations < MIN_SIMULATIONS:
        parser.error(f"argument --simulations: must be {MIN_SIMULATIONS} or more, got {args.simulations}")
    return run_bot(reference_choice(args.depth, args.simulations), parser=parser, argv=argv)


if __name__ == "__main__":
    exit_now(main())
