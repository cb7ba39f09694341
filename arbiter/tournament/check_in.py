"""The check-in before a tournament: every remote player with games left must have its bot
connected, or the tournament does not start (rather than record each of its games as a crash).
The seats are opened, and kept for the run, by the run's remote worker (workers.py), never
in the arbiter's own process."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from ..errors import UsageError
from ..referee import PlayerSpec
from ..transport.endpoints import CHECK_IN_QUIET_MS, EndpointError
from .config import TournamentConfig
from .schedule import each_fixed_game, planned_games
from .store import ResultsFolder
from .tally import IdSet
from .workers import remote_worker_for_run


@contextmanager
def check_in_remote_players(config: TournamentConfig, note: Callable[[str], None], *,
                            fresh: bool = False) -> Iterator[None]:
    """For the run inside it: a remote worker that holds the remote seats, once the bot of every
    remote player with games left is connected, each waited for up to its `connect_wait_ms`;
    UsageError naming those that never connected. `note` is told who is waited for."""
    if not any(p.transport == "remote" for p in config.players):
        yield
        return
    recorded = IdSet()  # 8 bytes a recorded game, read a record at a time
    for record in () if fresh else ResultsFolder(config.results_dir).store().records(audit=False):
        if record.id is not None:
            recorded.add(record.id)
    players = {f"remote player {p.name}": p for p in remote_players_due(config, recorded)}
    if not players:
        yield
        return
    waited: list[str] = []

    def waiting(labels: list[str]) -> None:
        waited.extend(labels)
        wait_ms = max(max(players[label].socket.connect_wait_ms, CHECK_IN_QUIET_MS) for label in labels)
        who = ", ".join(f"{players[label].name} ({_endpoint(players[label])})" for label in labels)
        note(f"waiting up to {wait_ms / 1000:g} s for remote players to connect: {who}")

    with remote_worker_for_run() as worker:
        try:
            absent = worker.check_in([(label, p.socket) for label, p in players.items()], on_wait=waiting)
        except EndpointError as exc:
            raise UsageError(f"remote players: {exc}") from None
        if absent:
            why = "; ".join(f"{players[label].name}: {reason}" for label, reason in absent.items())
            raise UsageError(f"the tournament was not started: {len(absent)} remote player"
                             f"{'s' if len(absent) > 1 else ''} never connected ({why}). Start their bots "
                             "(docs/remote-bots.md, step 4) or raise their connect_wait_ms, and run the command again")
        if waited:
            note("every remote player is connected")
        yield


def remote_players_due(config: TournamentConfig, recorded_ids: IdSet) -> list[PlayerSpec]:
    """The remote players with games still to play: in a fixed schedule, those in a game without a
    record; in a Swiss or SPRT run, which depends on results, all of them unless every game is recorded."""
    remote = [p for p in config.players if p.transport == "remote"]
    if config.format in ("round-robin", "gauntlet"):
        due = {name for game in each_fixed_game(config, recorded=recorded_ids.holds_each) for name in game.seats}
        return [p for p in remote if p.name in due]
    return remote if len(recorded_ids) < planned_games(config) else []


def _endpoint(player: PlayerSpec) -> str:
    return player.socket.bind or player.socket.connect or ""
