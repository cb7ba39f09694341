"""Shared helpers for tournament tests: configs on disk, an in-process stand-in for the referee, and
what decides a run's games and standings, to compare two runs of one tournament."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Sequence

from arbiter.games import Game
from arbiter.reports.standings import compute_standings
from arbiter.records import GameRecord, MoveRecord, PlayerRef, Termination
from arbiter.referee import PlayerSpec
from arbiter.tournament.progress import Progress

ROOT = Path(__file__).resolve().parent.parent


class StopAfter(Progress):
    """A progress reporter that presses Ctrl-C after `limit` games are recorded."""

    def __init__(self, limit: int) -> None:
        super().__init__(quiet=True, tty=False)
        self.limit = limit

    def game_done(self, record, records) -> None:  # type: ignore[override]
        super().game_done(record, records)
        if self.done >= self.limit:
            raise KeyboardInterrupt


def write_config(folder: Path, body: str, *, name: str = "t") -> Path:
    """A config file in `folder` whose results go to `folder/results`."""
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\nresults: results\n{body}")
    return path


def game_won_by(game: Game[Any], opening: Sequence[str], winner: int, seed: int) -> tuple[list[MoveRecord], list[int]]:
    """A real game from `opening` that seat `winner` wins (random playouts until one does): the
    moves and scores of a record that the rules replay to that result (tournament.audit)."""
    rng = random.Random(seed)
    for _ in range(1000):
        state = game.new_state()
        moves = []
        for text in opening:
            moves.append(MoveRecord(state.current_player, text, 0.0, 0.0, forced=True))
            state.play(text)
        while not state.is_over():
            move = rng.choice(state.legal_moves())
            moves.append(MoveRecord(state.current_player, game.format_move(move), 1.0, 1.0))
            state.apply(move)
        if state.winner() == winner:
            return moves, list(state.scores)
    raise AssertionError(f"no random game from {list(opening)} was won by seat {winner}")


def fake_play(game: Game[Any], players: Sequence[PlayerSpec], *, opening: Sequence[str] = (),
              **_: Any) -> GameRecord:
    """Plays random moves in-process, seeded by the seats and the opening: deterministic and fast."""
    state = game.new_state()
    moves = []
    for text in opening:
        moves.append(MoveRecord(state.current_player, text, 0.0, 0.0, forced=True))
        state.play(text)
    rng = random.Random(repr(([p.name for p in players], list(opening))))
    while not state.is_over():
        move = rng.choice(state.legal_moves())
        moves.append(MoveRecord(state.current_player, game.format_move(move), 1.0, 1.0))
        state.apply(move)
    return GameRecord(
        game=game.name, params=dict(game.params), players=[PlayerRef(p.name, " ".join(p.command)) for p in players],
        moves=moves, scores=list(state.scores), winner=state.winner(), termination=Termination.NORMAL,
        offender=None, detail="the game was played to the end", started_at="2026-01-01T00:00:00Z",
        duration_s=0.01, logs=[None, None],
    )


def played(records: list[GameRecord]) -> list[tuple[Any, ...]]:
    """What decides each game, in game-id order: who sat where, the opening, every move, the
    result and the seed (not how long anything took)."""
    return [(r.id, r.names, r.opening, [(m.seat, m.move, m.forced) for m in r.moves],
             r.scores, r.winner, r.termination, r.offender, r.points, r.seed)
            for r in sorted(records, key=lambda r: r.id or "")]


def table(records: list[GameRecord], config: Any) -> list[tuple[Any, ...]]:
    """The standings as printed, less the move times (which no two runs share)."""
    standings = compute_standings(records, players=[p.name for p in config.players])
    return [(row.rank, row.name, row.games, row.wins, row.draws, row.losses, row.points, row.faults)
            for row in standings.players]
