"""Which games a tournament plays: pairings, seats, openings and stable game ids.

Every opening is played twice with the seats swapped. Round robin and gauntlet
schedules are fixed by the config; a Swiss round is fixed by the config plus the
results of the rounds before it, so a resumed run computes the same pairings.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Sequence

from ..errors import UsageError
from ..games import Game
from .config import TournamentConfig


class OpeningError(UsageError):
    """No random opening of the configured length leaves the game unfinished."""


@dataclass(frozen=True)
class ScheduledGame:
    """One game to play: its stable id, round, players in seat order and forced opening."""

    id: str
    round: int
    seats: tuple[str, str]
    opening: tuple[str, ...]


def make_opening(game: Game[Any], moves: int, seed: int, index: int) -> tuple[str, ...]:
    """The `index`-th random opening: `moves` random legal moves that do not end the game.

    Each opening has its own random stream, so opening k is the same whatever the count.
    """
    rng = random.Random(f"opening:{seed}:{index}")
    for _attempt in range(100):
        state = game.new_state()
        played: list[str] = []
        for _ in range(moves):
            move = rng.choice(state.legal_moves())
            played.append(game.format_move(move))
            state.apply(move)
            if state.is_over():
                break
        if not state.is_over():
            return tuple(played)
    raise OpeningError(f"cannot find a {moves}-move opening that leaves {game.describe()} unfinished "
                       "(use fewer openings.random_moves)")


def opening_for(config: TournamentConfig, game: Game[Any], index: int) -> tuple[str, ...]:
    """Opening number `index` (0-based): from the file (cycling), random, or none."""
    openings = config.openings
    if openings.lines:
        return openings.lines[index % len(openings.lines)]
    if openings.random_moves:
        return make_opening(game, openings.random_moves, openings.seed, index)
    return ()


def _pair_games(config: TournamentConfig, game: Game[Any], round_no: int, pairs: Sequence[tuple[str, str]],
                first_opening: int) -> list[ScheduledGame]:
    """Each pair plays games_per_pairing/2 openings, each twice with the seats swapped."""
    games: list[ScheduledGame] = []
    for k in range(config.games_per_pairing // 2):
        opening = opening_for(config, game, first_opening + k)
        for a, b in pairs:
            for seats in ((a, b), (b, a)):
                suffix = f"-o{k + 1}" if config.format == "swiss" else ""
                games.append(ScheduledGame(
                    id=f"{round_no if config.format == 'swiss' else k + 1:03d}{suffix}-{seats[0]}-{seats[1]}",
                    round=round_no if config.format == "swiss" else k + 1,
                    seats=seats, opening=opening,
                ))
    return games


def fixed_schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """The whole schedule of a round-robin or gauntlet tournament, in playing order.

    Round k holds every pairing's two games of opening k, so a stopped tournament has
    played every pairing about equally.
    """
    names = [p.name for p in config.players]
    if config.format == "round-robin":
        pairs = list(combinations(names, 2))
    elif config.format == "gauntlet":
        pairs = [(config.candidate, other) for other in names if other != config.candidate]  # type: ignore[misc]
    else:
        raise ValueError(f"{config.format} has no fixed schedule")
    return _pair_games(config, config.make_game(), 0, pairs, 0)


def swiss_round(config: TournamentConfig, round_no: int, points: dict[str, float],
                met: set[frozenset[str]], byes: set[str]) -> tuple[list[ScheduledGame], str | None]:
    """The games of Swiss round `round_no` (1-based) and the player with the bye, if any.

    Players are ranked by points (config order breaks ties); the top unpaired player meets
    the next one they have not met, backtracking so no pairing repeats while avoidable.
    """
    order = sorted((p.name for p in config.players), key=lambda n: -points.get(n, 0.0))
    bye = None
    if len(order) % 2:
        # The lowest-ranked player who has not had a bye sits out (the lowest if all have).
        bye = next((n for n in reversed(order) if n not in byes), order[-1])
        order.remove(bye)
    pairs = _pair_without_repeats(order, met) or _pair_without_repeats(order, set())
    assert pairs is not None
    per_round = config.games_per_pairing // 2
    return _pair_games(config, config.make_game(), round_no, pairs, (round_no - 1) * per_round), bye


def _pair_without_repeats(order: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    if not order:
        return []
    first, rest = order[0], order[1:]
    for i, partner in enumerate(rest):
        if frozenset((first, partner)) in met:
            continue
        tail = _pair_without_repeats(rest[:i] + rest[i + 1:], met)
        if tail is not None:
            return [(first, partner)] + tail
    return None


def schedule_identity(config: TournamentConfig) -> dict[str, Any]:
    """The config values that determine the schedule; resuming requires them unchanged."""
    return {
        "game": config.game_name,
        "params": {k: str(v) for k, v in config.params.items()},
        "format": config.format,
        "games_per_pairing": config.games_per_pairing,
        "rounds": config.rounds,
        "openings": {
            "random_moves": config.openings.random_moves,
            "seed": config.openings.seed,
            "lines": [list(line) for line in config.openings.lines],
        },
        "players": [p.name for p in config.players],
        "candidate": config.candidate,
        # An SPRT's hypotheses fix what its games are for; max_games may grow on resume.
        "sprt": None if config.sprt is None else {
            "elo0": config.sprt.elo0, "elo1": config.sprt.elo1, "alpha": config.sprt.alpha, "beta": config.sprt.beta,
        },
    }


def planned_games(config: TournamentConfig) -> int:
    """How many games the whole tournament will play."""
    n = len(config.players)
    if config.format == "round-robin":
        return n * (n - 1) // 2 * config.games_per_pairing
    if config.format == "gauntlet":
        return (n - 1) * config.games_per_pairing
    if config.sprt is not None:
        return config.sprt.max_games  # at most: the test stops as soon as it is decided
    assert config.rounds is not None
    return config.rounds * (n // 2) * config.games_per_pairing

