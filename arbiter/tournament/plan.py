"""What a tournament's plan is made of before there is a config: random openings and the
number of groups a format plays. The config checks its values with them (an opening that can
be found, a tournament that fits) and the schedule builds its games with them, so both import
this module and neither imports the other back.

Drawing a random opening plays the rules, in the arbiter's own process: rules that are not the
arbiter's own are played in the rules host (`random_opening`, tournament/rules_host.py), so that
rules that crash or hang there are a RulesFailed sentence (the config's error for opening 0,
void games for a later one: docs/config.md, openings), never the arbiter's end."""
from __future__ import annotations

import json
import math
import random
from typing import Any

from ..errors import UsageError
from ..games import CHANCE, Game, GameError, game_spec
from .rules_host import RULES_HOST, hosted, made_game

# Round robin plays every group of `seats` players while there are at most this many groups
# (e.g. 10 players in groups of 3: 120); beyond, a balanced design (`balanced_groups`).
ALL_GROUPS_MAX = 200


class OpeningError(UsageError):
    """No random opening of the configured length leaves the game unfinished."""


def make_opening(game: Game[Any], moves: int, seed: int, index: int) -> tuple[str, ...]:
    """The `index`-th random opening: `moves` random legal moves that do not end the game.

    Each opening has its own random stream, so opening k is the same whatever the count.
    """
    rng = random.Random(f"opening:{seed}:{index}")
    for _attempt in range(100):
        state = game.new_state()
        played: list[str] = []
        for _ in range(moves):
            if state.current_player == CHANCE:  # the referee's dice, drawn in the game, never in an opening
                raise OpeningError(f"a random opening of {game.describe()} reaches a chance node, whose outcome "
                                   "the referee draws in the game; give it no random opening moves")
            move = rng.choice(state.legal_moves())
            played.append(game.format_move(move))
            state.apply(move)
            if state.is_over():
                break
        if not state.is_over():
            return tuple(played)
    raise OpeningError(f"cannot find a {moves}-move opening that leaves {game.describe()} unfinished "
                       "(use fewer openings.random_moves)")


def random_opening(game: Game[Any], moves: int, seed: int, index: int) -> tuple[str, ...]:
    """`make_opening`, the same for the same seed wherever it is drawn: here for the arbiter's
    own games, in the rules host for the others (RulesFailed when the rules fail there)."""
    if not hosted(game.name):
        return make_opening(game, moves, seed, index)
    drawn = RULES_HOST.call(f"{__name__}:{hosted_opening.__name__}", game_spec(game),
                            json.dumps(game.json_params(), sort_keys=True), moves, seed, index,
                            game=game.name, doing=f"drawing random opening {index}")
    if isinstance(drawn, str):
        raise OpeningError(drawn)
    return tuple(drawn)


def hosted_opening(spec: str, params: str, moves: int, seed: int, index: int) -> tuple[str, ...] | str:
    """In the rules host: `make_opening` of the game `spec` names, or the OpeningError's words
    (the user's problem, answered as a value: an exception there is the rules' failure)."""
    try:
        return make_opening(made_game(spec, params), moves, seed, index)
    except OpeningError as exc:
        return str(exc)


def opening_problems(game: Game[Any], lines: list[tuple[str, ...]]) -> list[str | None]:
    """What is wrong with each opening of a file (a move the rules refuse, or an opening that
    ends the game), None for one that plays: here for the arbiter's own games, in the rules
    host for the others (RulesFailed when the rules fail there)."""
    if not hosted(game.name):
        return _opening_problems(game, lines)
    return RULES_HOST.call(f"{__name__}:{hosted_opening_problems.__name__}", game_spec(game),
                           json.dumps(game.json_params(), sort_keys=True), lines,
                           game=game.name, doing="playing the openings of the file")


def hosted_opening_problems(spec: str, params: str, lines: list[tuple[str, ...]]) -> list[str | None]:
    """In the rules host: `opening_problems` of the game `spec` names."""
    return _opening_problems(made_game(spec, params), lines)


def _opening_problems(game: Game[Any], lines: list[tuple[str, ...]]) -> list[str | None]:
    problems: list[str | None] = []
    for moves in lines:
        state = game.new_state()
        problem = None
        for move in moves:
            try:
                state.play(move)
            except GameError as exc:
                problem = str(exc)
                break
        else:
            if state.is_over():
                problem = "this opening ends the game"
        problems.append(problem)
    return problems


def group_count(fmt: str, players: int, seats: int, rounds: int) -> int:
    """How many groups a format plays (in Swiss: over all rounds), without building them."""
    if fmt == "round-robin":
        every = math.comb(players, seats)
        return every if seats == 2 or every <= ALL_GROUPS_MAX else math.ceil(
            players * (players - 1) / (seats * (seats - 1)))
    if fmt == "gauntlet":
        return 1 if players - 1 == seats - 1 else players - 1
    if fmt == "swiss":
        return players // seats * rounds
    return 0


__all__ = ["ALL_GROUPS_MAX", "OpeningError", "group_count", "hosted_opening", "hosted_opening_problems", "make_opening",
           "opening_problems", "random_opening"]
