#!/usr/bin/env python3
"""Perfect-play bot for the dots games, by dynamic programming over sets of drawn edges.

Plays exactly from the first move when the whole board can be solved within its clock
(the 4-row triangle board and 3 x 3 boxes under the default 30 s), with the solved table
cached on disk ($ARBITER_CACHE, else ~/.cache/arbiter); on bigger boards it plays
double-cross until the rest can be solved, then exactly. It logs every move on stderr:
`value V margin M move TEXT`, or `heuristic move TEXT (...)`.

Solver mode: `perfect_dp.py --triangle-war` reads Triangle War games from stdin (the number
of games, then per game the number of moves and one `i j` line per move, A first) and
prints `Game k: A wins.` or `Game k: B wins.` for the winner under perfect play from there.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout

from arbiter.bot import BotContext, bot_arguments, exit_now, read_kit_options, run_bot  # noqa: E402
from arbiter.games.dots import DotsGame, DotsState  # noqa: E402
from players.strategies import require_game  # noqa: E402
from players.strategies.perfect import MAX_EXACT_EDGES, make_perfect_chooser, triangle_war  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the bot, or the Triangle War solver with --triangle-war."""
    words = sys.argv[1:] if argv is None else argv
    if read_kit_options(words) is not None:  # none of our own options: no parser to build (bot start-up)
        return run_bot(perfect_choice(MAX_EXACT_EDGES), argv=words)
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--triangle-war", action="store_true",
                        help="solve Triangle War games read from stdin instead of playing")
    parser.add_argument("--exact-edges", type=int, default=MAX_EXACT_EDGES, metavar="N",
                        help=f"never solve more than N free edges at once (default {MAX_EXACT_EDGES})")
    args = parser.parse_args(argv)
    if args.exact_edges < 0:
        parser.error(f"argument --exact-edges: must be 0 or more, got {args.exact_edges}")
    if args.triangle_war:
        try:
            for line in triangle_war(sys.stdin):
                print(line)
        except ValueError as exc:
            print(f"perfect_dp --triangle-war: {exc}", file=sys.stderr)
            return 2
        return 0
    return run_bot(perfect_choice(args.exact_edges), parser=parser, argv=argv)


def perfect_choice(max_exact_edges: int):
    """The bot's choose function: exact play, solving at most `max_exact_edges` at once."""
    perfect = make_perfect_chooser(max_exact_edges)

    def choose(state: DotsState, ctx: BotContext) -> int:
        require_game(ctx, DotsGame, "perfect_dp")
        return perfect(state, ctx)

    return choose


if __name__ == "__main__":
    exit_now(main())
