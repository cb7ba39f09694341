"""Running a tournament: games in parallel, each record on disk before it is counted, resumable.

The results folder (arbiter/tournament/store.py) holds the records (the source of truth),
the bots' logs, a copy of the config and the tournament's description (what fixes the
schedule). Running again plays only the games without a record.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Protocol

import yaml

from ..chance import bot_seed
from ..errors import UsageError
from ..games import Game
from ..records import GameRecord, PlayerRef, Termination, game_places
from ..referee import GameAborted, TimeControl, play_game
from ..transport.sandbox import support
from .audit import RecordAudit
from .config import COMMAND_LINE, TournamentConfig
from .preflight import admit
from .pool import MACHINERY_FAILURES, GamePool, GameSetup, StandInPool, play_setup
from .programs import player_digests
from .progress import Progress
from .resume import (play_conditions, refuse_changed_conditions, refuse_changed_programs, refuse_changed_schedule,
                     sandboxed_players, schedule_identity, start_over_advice)
from .schedule import ScheduledGame, each_fixed_game, final_games, planned_games, swiss_round
from .stages import finalists
from .tally import Tally
from .store import GameStore, ResultsFolder, TournamentDescription, game_log_prefix, hold_results_folder
from .turn_news import TurnNews, TurnReporter
from .workers import WorkerPool

if TYPE_CHECKING:
    from .cluster import Cluster


class Interrupted(Exception):
    """The run was stopped (Ctrl-C); finished games are on disk, running ones abandoned."""


@dataclass
class RunOutcome:
    """What a run did: the aggregates of the records on disk now, and how many games this run played."""

    tally: Tally
    played_now: int
    planned: int
    results_dir: Path

    @property
    def records(self) -> list[GameRecord]:
        """Every record on disk now, read from the folder into one list (a small folder's
        reader's convenience: the tally is what stays bounded)."""
        return ResultsFolder(self.results_dir).store().load()


def prepare_results(config: TournamentConfig, *, fresh: bool, backup: bool = True,
                    note: Callable[[str], None] | None = None) -> GameStore:
    """Set up the held results folder (with `fresh`, emptied of a previous run's files, which
    are kept in a dated backup folder unless `backup` is false; `note` is told which); refuse a
    resume whose schedule or play conditions changed (arbiter/tournament/resume.py)."""
    folder = ResultsFolder(config.results_dir)
    identity = schedule_identity(config)
    clear_results(config, fresh=fresh, backup=backup, note=note)
    store = folder.store(players=[p.name for p in config.players], scoring=asdict(config.scoring),
                         keep_results=config.format == "swiss")  # a Swiss round is paired from each game's result
    store.seeds = folder.run_seeds(config.seed)  # the folder's secret: drawn now, or kept from the first run
    # Each record's dice its own; a replay the rules cannot finish is said, never a refusal (audit.py).
    store.audit = audit = RecordAudit(config.scoring, store.seeds, note)
    recorded = store.read(repair=True)  # every record checked: the checkpoint's by their digest, the rest replayed
    audit.said_in_all()
    games = recorded.records
    before = folder.read_description()
    advice = start_over_advice(config, games)
    if before is not None:
        refuse_changed_schedule(folder.path, before.schedule, identity, games, advice)
    conditions = play_conditions(config)
    refuse_changed_conditions(folder.path, before and before.conditions, conditions, games, advice)
    store.digests = run_digests(config)
    refuse_changed_programs(folder.path, recorded.digests, store.digests, advice)
    folder.write_description(TournamentDescription(
        name=config.name, schedule=identity, scoring=asdict(config.scoring), time=asdict(config.time),
        planned=planned_games(config), conditions=conditions, sandbox=sandbox_report(config),
    ))
    folder.write_config_copy(f"# copy of {config.source}\n" + yaml.safe_dump(config.raw, sort_keys=False))
    return store


def clear_results(config: TournamentConfig, *, fresh: bool, backup: bool = True,
                  note: Callable[[str], None] | None = None) -> None:
    """Make the results folder's `logs/`; with `fresh`, first move an earlier run's files to a
    dated backup (or delete them, without `backup`), and tell `note`. The builds stay: they
    are kept by the digest of their sources (tournament/build.py)."""
    folder = ResultsFolder(config.results_dir)
    kept = folder.prepare(fresh=fresh, backup=backup)
    if note is not None and kept is not None:
        note(f"--fresh: the earlier games and files of {folder.path} were moved to {kept}")
    elif note is not None and fresh and not backup:
        note(f"--fresh --no-backup: the earlier games and files of {folder.path} (if any) were deleted")


def run_digests(config: TournamentConfig) -> dict[str, str | None]:
    """Each player's program digest for this run (worked out once, by `prepare_results`)."""
    return player_digests(config.players, hidden=(str(config.source), str(config.results_dir)),
                          built={spec.player: spec.digest for spec in config.builds if spec.digest})


def sandbox_report(config: TournamentConfig) -> dict[str, Any]:
    """What boxed the bots of this run (docs/security.md): the mode, each launched player's
    state, and what this machine enforces."""
    offered = support()
    return {
        "mode": config.sandbox,
        "sandboxed": sandboxed_players(config),
        "machine": offered.describe(),
        "enforced": offered.enforced(),
    }


def sandbox_line(config: TournamentConfig) -> str | None:
    """The run header's sandbox line, loud when a launched bot is not boxed; None when no bot
    is launched (remote players only)."""
    report = sandbox_report(config)
    loose = [name for name, boxed in report["sandboxed"].items() if not boxed]
    if not report["sandboxed"]:
        return None
    if not loose:
        return f"sandbox: {report['machine']}"
    machine_cannot = config.sandbox != "off" and not support().usable  # the boxes were dropped (box_here)
    why = report["machine"] if machine_cannot else "sandbox: off in the config or on the command line"
    return (f"WARNING: {', '.join(loose)} NOT sandboxed ({why}); such a bot can read, change or kill "
            "anything the arbiter can")


SEED_VARIABLE = "ARBITER_SEED"  # docs/protocol.md: the game's seed, for bots that play at random


def game_seed(seed: int | None, game_id: str) -> int:
    """The seed of one game's bots: from the config's seed (0 when unset) and the game id, stable
    across runs, resumes, machines and concurrency, and never a function of the game's dice
    (`chance.bot_seed`)."""
    return bot_seed(seed, game_id)


def tournament_record(config: TournamentConfig, scheduled: ScheduledGame, record: GameRecord,
                      digests: Mapping[str, str | None] | None = None) -> GameRecord:
    """The referee's record plus the tournament's fields: id, round, opening, names, places,
    points, and each seat's program digest (`digests` by name: tournament/programs.py). A
    void game has no places and no points: it counts for no one (docs/records.md)."""
    players = record.players
    if digests:
        players = [replace(ref, digest=digests.get(name)) for ref, name in zip(record.players, scheduled.seats)]
    places = None if record.termination.is_void else game_places(record.scores, record.winner, record.offender)
    points = None if places is None else config.scoring.points(places, record.scores)
    return replace(record, players=players, id=scheduled.id, round=scheduled.round, opening=list(scheduled.opening),
                   names=list(scheduled.seats), places=places, points=points,
                   seed=game_seed(config.seed, scheduled.id))


class _Pending:
    """The games still to start, in schedule order; a game that cannot start yet is passed
    over and kept, and goes first once it can."""

    def __init__(self, games: Iterator[ScheduledGame]) -> None:
        self.games = games
        self.deferred: list[ScheduledGame] = []

    def next_ready(self, can_start: Callable[[ScheduledGame], bool]) -> ScheduledGame | None:
        """The first game that `can_start`, taken out; None when there is none (yet)."""
        for index, scheduled in enumerate(self.deferred):
            if can_start(scheduled):
                return self.deferred.pop(index)
        for scheduled in self.games:
            if can_start(scheduled):
                return scheduled
            self.deferred.append(scheduled)
        return None


class GameWatch(Protocol):
    """Sees each game of a run while it is played (the live page, arbiter/reports/live.py).

    `game_started` runs before the game is sent to its worker and returns an `on_turn`
    callback, called with a `TurnNews` (plain data, made by the worker's `TurnReporter`
    where the game is played: the watch never needs the rules) once as the game starts
    and after each turn; it must only take note (one pool thread a game waits on it).
    `game_left` runs once the game has ended, however it ended. Games on a cluster are not
    seen (their referee runs on a remote worker); their records are.
    """

    def game_started(self, scheduled: ScheduledGame, game: Game[Any],
                     clocks: list[TimeControl]) -> Callable[[TurnNews], None]: ...

    def game_left(self, game_id: str) -> None: ...


class TournamentRunner:
    """Plays the pending games of one tournament with `config.concurrency` games at once."""

    def __init__(self, config: TournamentConfig, store: GameStore, progress: Progress,
                 play: Callable[..., GameRecord] = play_game, cluster: Cluster | None = None) -> None:
        self.config = config
        self.store = store
        self.progress = progress
        self.play = play
        self.cluster = cluster  # None: games in worker processes here
        self.cancel = threading.Event()
        if store.tally is None:  # not read by prepare_results (a test's store)
            store.read(repair=True)
        assert store.tally is not None
        self.tally: Tally = store.tally  # the records' aggregates, kept current by the store's appends
        self.digests = store.digests  # prepare_results's
        self.done_ids = store.ids
        self.game: Game[Any] = config.make_game()
        self.played_now = 0
        self.arbiter_faults = 0  # games the machinery failed this run (not recorded)
        self._byes: dict[int, set[str]] = {}  # Swiss round -> who sat out, recomputed on resume
        self.watch: GameWatch | None = None
        self.last_record: GameRecord | None = None  # the latest recorded by this run
        # Each remote player's endpoint by its name (`_remote_seats`, for every game `_fill` looks at).
        self._endpoint_of = {p.name: p.socket.bind or p.socket.connect or ""
                             for p in config.players if p.transport == "remote"}

    def run(self) -> RunOutcome:
        """Play every game that has no record yet; raises Interrupted on Ctrl-C."""
        planned = planned_games(self.config)
        self.progress.start(planned, self.tally)
        if self.config.format == "swiss":
            assert self.config.rounds is not None
            swiss: list[str] = []
            for round_no in range(1, self.config.rounds + 1):
                games = self._swiss_games(round_no)
                swiss += [game.id for game in games]
                self._play_batch(games)
            if self.config.final is not None:
                self._play_final(swiss)
        else:
            self._play(each_fixed_game(self.config, recorded=self.done_ids.holds_each))
        self.progress.finish(self.tally)
        return RunOutcome(self.tally, self.played_now, planned, self.config.results_dir)

    def _swiss_games(self, round_no: int) -> list[ScheduledGame]:
        """Round `round_no`'s games, paired from the records of the rounds before it."""
        points: dict[str, float] = {}
        met: set[frozenset[str]] = set()
        byes: set[str] = set()
        for record in self.tally.results:
            if record.round is None or record.round >= round_no or record.termination.is_void:
                continue  # a void game is no meeting: its players may be paired again
            for name, gained in zip(record.seat_names(), record.points or ()):
                points[name] = points.get(name, 0.0) + gained
            met.add(frozenset(record.seat_names()))
        for earlier in range(1, round_no):
            byes.update(self._byes.get(earlier, ()))
        games, sitting_out = swiss_round(self.config, round_no, points, met, byes)
        self._byes.setdefault(round_no, set()).update(sitting_out)
        return games

    def _play_final(self, swiss: list[str]) -> None:
        """The final (config.final): the top of the Swiss ranking play their round robin, once
        every Swiss game has its record (a game the machinery failed is played again by a
        resume first, so that the finalists never change under a final already begun)."""
        assert self.config.final is not None and self.config.rounds is not None
        missing = [game_id for game_id in swiss if game_id not in self.done_ids]
        if missing:
            self.progress.note(f"the final waits: {len(missing)} Swiss games have no record yet ({missing[0]}, ...); "
                               "run the same command again to play them, then the final")
            return
        chosen = finalists(self.tally.results, [p.name for p in self.config.players], self.config.rounds,
                           self.config.final.top)
        self.progress.note(f"final: {', '.join(chosen)} (the top {len(chosen)} of the Swiss ranking) play a round "
                           f"robin of {self.config.final.games_per_pairing} games a group")
        self._play_batch(final_games(self.config, chosen))

    def _play_batch(self, games: list[ScheduledGame]) -> None:
        """Play a Swiss round's or the final's games that have no record yet."""
        done = self.done_ids.holds_each([g.id for g in games])
        self._play(g for g, recorded in zip(games, done) if not recorded)

    def _play(self, queue: Iterator[ScheduledGame]) -> None:
        """Play games from `queue`, `concurrency` at once, until it is empty or `_decided()`."""
        running: dict[Future[GameRecord], ScheduledGame] = {}
        pending = _Pending(queue)
        pool = self._open_pool()
        try:
            self._fill(pool, pending, running)
            while running:
                finished, _ = wait(running, timeout=0.5, return_when=FIRST_COMPLETED)
                self.progress.tick()
                ended = [(running.pop(future), future) for future in finished]
                if ended and not self.RECORDS_DECIDE:  # the next games start while these are written
                    self._fill(pool, pending, running)
                for scheduled, future in ended:
                    self._finished(scheduled, future)
                if self._decided():
                    self._end_running(pool, running)
                    return
                self._fill(pool, pending, running)
        except KeyboardInterrupt:
            pool.stop()
            for future in running:
                future.cancel()
            wait(running)
            raise Interrupted() from None
        except BaseException:
            pool.stop()
            wait(running)
            raise
        finally:
            pool.close()

    def _open_pool(self) -> GamePool:
        """The cluster's pool when there is one, else `concurrency` worker processes here (a
        test's stand-in `play`: threads here)."""
        if self.cluster is not None:
            return self.cluster.pool(self.config, self.game_setup)
        if self.play is not play_game:
            return StandInPool(self.config.concurrency, self._play_one, self.cancel)
        return WorkerPool(self.config.concurrency, self.game, dict(self.config.params), self.game_setup,
                          ResultsFolder(self.config.results_dir).logs, watch=self.watch, note=self.progress.note)

    def _finished(self, scheduled: ScheduledGame, future: Future[GameRecord]) -> None:
        """A game's future completed: record it (an arbiter bug in it re-raises here). A
        failure of the machinery around the game (a box that cannot be made, a folder that
        cannot be removed) costs that game only: said on the terminal and noted in the
        results folder, it has no record and blames no bot, and a resume plays it again."""
        try:
            record = future.result()
        except MACHINERY_FAILURES as exc:
            problem = f"{type(exc).__name__}: {exc}"
            self.progress.note(f"arbiter fault in game {scheduled.id} ({' vs '.join(scheduled.seats)}): {problem}; "
                               "no bot is blamed and the game has no record: a resume plays it again")
            ResultsFolder(self.config.results_dir).note_arbiter_fault(scheduled.id, scheduled.seats, problem)
            self.arbiter_faults += 1
            return
        self._record(scheduled, record)

    # Whether the records decide if another game starts at all (an SPRT's verdict): then a
    # finished game is recorded before the next starts; otherwise the next starts first, and
    # the record (its fsync, about 1 ms) is written while the bots start.
    RECORDS_DECIDE = False

    def _decided(self) -> bool:
        """Whether to stop before the queue is empty (a tournament never does)."""
        return False

    def _end_running(self, pool: GamePool, running: dict[Future[GameRecord], ScheduledGame]) -> None:
        """Stop early: end the games still running; record those that finish anyway."""
        pool.stop()
        wait(running)
        for future, scheduled in running.items():
            if not future.cancelled() and not isinstance(future.exception(), GameAborted):
                self._finished(scheduled, future)
        running.clear()

    def _fill(self, pool: GamePool, pending: _Pending, running: dict[Future[GameRecord], ScheduledGame]) -> None:
        """Start games until the pool's slots are full. A remote bot plays one game at a time, so a
        game whose remote player is in a running game waits in `pending` instead of in a slot."""
        busy = {seat for scheduled in running.values() for seat in self._remote_seats(scheduled)}
        while len(running) < pool.slots:
            scheduled = pending.next_ready(lambda game: busy.isdisjoint(self._remote_seats(game)))
            if scheduled is None:
                return
            if scheduled.void is not None:  # not played: recorded void (schedule.opening_for)
                running[_done(self._void_record(scheduled))] = scheduled
                continue
            busy |= self._remote_seats(scheduled)
            running[pool.submit(scheduled)] = scheduled

    def _remote_seats(self, scheduled: ScheduledGame) -> set[str]:
        """The endpoints of the game's remote players (each serves one game at a time)."""
        endpoint_of = self._endpoint_of
        return {endpoint_of[name] for name in scheduled.seats if name in endpoint_of}

    def game_setup(self, scheduled: ScheduledGame) -> GameSetup:
        """How `scheduled` is played: its players (with the game's seed), clock, opening, log names and dice."""
        config = self.config
        seed = {SEED_VARIABLE: str(game_seed(config.seed, scheduled.id))}
        return GameSetup(
            players=tuple(replace(config.player(name), env={**config.player(name).env, **seed})
                          for name in scheduled.seats),
            time=config.time, opening=tuple(scheduled.opening), log_prefix=game_log_prefix(scheduled.id),
            chance_seed=self.store.seeds.chance(scheduled.id),  # keyed by the folder's secret, unless seed: is set
        )

    def _play_one(self, scheduled: ScheduledGame) -> GameRecord:
        """A stand-in game (StandInPool), seen by the watch as a worker's game is."""
        setup = self.game_setup(scheduled)
        on_turn = None
        if self.watch is not None:
            clocks = [player.clock(setup.time) for player in setup.players]
            noted = self.watch.game_started(scheduled, self.game, clocks)
            on_turn = TurnReporter(lambda *news: noted(TurnNews(*news)), self.game, setup.opening)
        try:
            return play_setup(self.game, setup, ResultsFolder(self.config.results_dir).logs, cancel=self.cancel,
                              on_turn=on_turn, play=self.play)
        finally:
            if self.watch is not None:
                self.watch.game_left(scheduled.id)

    def _void_record(self, scheduled: ScheduledGame) -> GameRecord:
        """The record of a game that cannot be played (`scheduled.void` says why): no moves,
        no winner, no offender, counted for no one."""
        setup = self.game_setup(scheduled)
        seats = len(setup.players)
        return GameRecord(
            game=self.game.name, params=self.game.json_params(),
            players=[PlayerRef(p.name, p.command_text()) for p in setup.players], moves=[], scores=[0] * seats,
            winner=None, termination=Termination.VOID, offender=None, detail=scheduled.void,
            started_at=datetime.now(timezone.utc).isoformat(timespec="milliseconds"), duration_s=0.0,
            logs=[None] * seats, time_controls=[asdict(p.clock(setup.time)) for p in setup.players],
            chance_seed=setup.chance_seed)

    def _record(self, scheduled: ScheduledGame, record: GameRecord) -> None:
        stored = tournament_record(self.config, scheduled, record, self.digests)
        self.store.append(stored)  # durable before it is counted; the store's tally and ids count it
        self.last_record = stored
        self.played_now += 1
        self.progress.game_done(stored, self.tally)


def _done(record: GameRecord) -> Future[GameRecord]:
    """A future that already holds `record`."""
    future: Future[GameRecord] = Future()
    future.set_result(record)
    return future


def stopped_note(results_dir: Path, again: str) -> str:
    """What to tell the user after Ctrl-C: what is safe on disk and how to resume."""
    folder = ResultsFolder(results_dir)
    return (f"stopped: {folder.count_records()} games are recorded in {folder.games}; running games were "
            f"abandoned and every bot ended. To resume, run the same command again: {again}")


def run_held(config: TournamentConfig, progress: Progress, runner_class: type[TournamentRunner], *,
             fresh: bool = False, backup: bool = True, watch: GameWatch | None = None) -> Any:
    """Hold the results folder, prepare it (`fresh`, `backup`: `prepare_results`) and run
    `runner_class` over it (a tournament or an SPRT), its games seen by `watch` if given;
    returns what its `run` returns."""
    with hold_results_folder(config.results_dir, "--results" if config.source == COMMAND_LINE else "`results:`"):
        clear_results(config, fresh=fresh, backup=backup, note=progress.note)  # before the builds and checks write
        config = admit(config, progress.note)  # builds, and check: true: an entrant that fails is kept out
        store = prepare_results(config, fresh=False, note=progress.note)
        if config.cluster is None:
            runner = runner_class(config, store, progress)
            runner.watch = watch
            started = time.monotonic()
            try:
                outcome = runner.run()
            finally:
                store.checkpoint()  # however the run ends: the next reads only what comes after
        else:
            with _cluster_module().connect(config, progress.note) as cluster:  # every worker checked before the first game
                runner = runner_class(config, store, progress, cluster=cluster)
                runner.watch = watch
                started = time.monotonic()
                try:
                    outcome = runner.run()
                finally:
                    store.checkpoint()
    if outcome.played_now:
        progress.note(f"{outcome.played_now} games played in {time.monotonic() - started:.1f} s")
    return outcome


def _cluster_module() -> Any:
    """arbiter.tournament.cluster, imported only by runs on a cluster (Dask takes a second to
    import, and is an optional dependency); UsageError saying how to install it."""
    try:
        from . import cluster
    except ModuleNotFoundError as exc:
        if exc.name not in ("distributed", "dask"):
            raise
        raise UsageError("playing on a cluster needs Dask's distributed package: "
                         "pip install 'arbiter[cluster]' (docs/cluster.md)") from None
    return cluster


def run_tournament(config: TournamentConfig, progress: Progress, *, fresh: bool = False, backup: bool = True,
                   watch: GameWatch | None = None) -> RunOutcome:
    """Hold the results folder, prepare it and play every game without a record."""
    return run_held(config, progress, TournamentRunner, fresh=fresh, backup=backup, watch=watch)


__all__ = ["GameAborted", "GamePool", "GameWatch", "GameSetup", "Interrupted", "RunOutcome", "TournamentRunner",
           "prepare_results", "run_tournament"]
