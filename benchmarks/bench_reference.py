#!/usr/bin/env python3
"""Strength and speed of players/openspiel_reference.py against the random bot, in OpenSpiel's
chess, backgammon and 3-player Chinese checkers.

Each game plays `--games` games in-process: the reference's and the random bot's `choose`
functions (the ones their programs run) on our adapter's states, the reference in each seat
in turn, the random bots in the others, chance drawn by the referee's own dice
(`arbiter.chance.ChanceDice`) from the game's seed. No processes and no referee: the same
moves for the same `--seed`. Per game: the reference's wins, draws and losses (a win: its
return strictly the highest), the mean plies, and the reference's CPU milliseconds a move.

Speed is also given as a ratio to a baseline measured in the same run, on the same
positions: OpenSpiel's MCTS with random rollouts at 20 simulations (players/openspiel_mcts.py's
search, the reference these games had before), choosing on the first `--positions` positions
the reference chose on. CPU time (`time.process_time`), so that other processes on a loaded
machine count less than in wall time.

    python benchmarks/bench_reference.py                 # 20 games each, a few minutes
    python benchmarks/bench_reference.py --games 4 --game chess
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from arbiter.bot import BotContext  # noqa: E402
from arbiter.chance import ChanceDice  # noqa: E402
from arbiter.games import CHANCE, find_game  # noqa: E402
from players.openspiel_mcts import mcts_choice  # noqa: E402
from players.openspiel_reference import DEFAULT_DEPTH, reference_choice  # noqa: E402
from players.random_bot import choose as choose_random  # noqa: E402

GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "chess": ("openspiel:chess", {}),
    "backgammon": ("openspiel:backgammon", {}),
    "chinese_checkers": ("openspiel:chinese_checkers", {"players": 3, "max_moves": 1000}),
}
BASELINE_SIMULATIONS = 20


class QuietContext(BotContext):
    """A bot context that keeps the bot's stderr lines instead of printing them."""

    def log(self, message: str) -> None:
        pass


def play(name: str, params: dict[str, Any], reference_seat: int, seed: int, depth: int,
         positions: list[Any]) -> tuple[str, int, list[float]]:
    """One game: 'win', 'draw' or 'loss' for the reference, its plies, and the reference's CPU
    seconds per move; the positions it chose on are added to `positions`."""
    game = find_game(name, **params)
    state = game.new_state()
    dice = ChanceDice(seed)
    reference = reference_choice(depth, 100)
    contexts = [QuietContext(game=game, seat=seat, rng=random.Random(seed * 10 + seat))
                for seat in range(game.num_players)]
    thought: list[float] = []
    while not state.is_over():
        seat = state.current_player
        if seat == CHANCE:
            state.play(dice.draw(state))
        elif seat == reference_seat:
            positions.append(state.clone())
            started = time.process_time()
            move = reference(state, contexts[seat])
            thought.append(time.process_time() - started)
            state.play(move)
        else:
            state.play(choose_random(state, contexts[seat]))
    returns = state.spiel_state.returns()
    best = max(returns)
    mine = returns[reference_seat]
    outcome = "win" if mine == best and returns.count(best) == 1 else "draw" if mine == best else "loss"
    return outcome, len([m for m in state.spiel_state.history()]), thought


def baseline_s(name: str, params: dict[str, Any], positions: list[Any], seed: int) -> list[float]:
    """MCTS at BASELINE_SIMULATIONS simulations: CPU seconds to choose on each position."""
    game = find_game(name, **params)
    choose = mcts_choice(BASELINE_SIMULATIONS)
    spent = []
    for position in positions:
        ctx = QuietContext(game=game, seat=position.current_player, rng=random.Random(seed))
        started = time.process_time()
        choose(position, ctx)
        spent.append(time.process_time() - started)
    return spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per game (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the dice and the bots (default 1)")
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="only these (repeatable)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="the reference's chess depth")
    parser.add_argument("--positions", type=int, default=20, help="positions timed against the baseline")
    args = parser.parse_args(argv)
    print("| game | games | reference won | drawn | lost | plies a game (mean) | reference CPU ms a move "
          f"(median, max) | MCTS {BASELINE_SIMULATIONS} sim. CPU ms a move (median) | ratio |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for short in args.game or list(GAMES):
        name, params = GAMES[short]
        players = find_game(name, **params).num_players
        outcomes: list[str] = []
        plies: list[int] = []
        thought: list[float] = []
        positions: list[Any] = []
        for number in range(args.games):
            outcome, length, spent = play(name, params, number % players, args.seed * 1000 + number, args.depth,
                                          positions)
            outcomes.append(outcome)
            plies.append(length)
            thought += spent
        baseline = baseline_s(name, params, positions[:args.positions], args.seed)
        mine = statistics.median(thought[:len(baseline)])
        theirs = statistics.median(baseline)
        label = f"{name} {' '.join(f'{k}={v}' for k, v in params.items())}".strip()
        print(f"| {label} | {args.games} | {outcomes.count('win')} | {outcomes.count('draw')} | "
              f"{outcomes.count('loss')} | {statistics.mean(plies):.0f} | {1000 * statistics.median(thought):.1f}, "
              f"{1000 * max(thought):.0f} | {1000 * theirs:.1f} | {mine / theirs:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
