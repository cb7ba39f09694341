"""Games on a Dask cluster: one game is one task, and the record comes back to the runner.

The arbiter connects to a Dask scheduler (`cluster:` in the config, or `--cluster`),
checks every worker before the first game, and then hands the runner a `ClusterPool`
instead of its threads. Each worker plays a game with the same referee and sandbox as a
local run (`pool.play_setup`, as a local worker process plays its games: workers.py) and
returns the referee's record with the game's stderr logs; the runner writes both, so the
records keep one writer and resume, the lock, standings and reports are
those of a local run. A worker lost mid-game costs nothing but time: Dask runs its task
again on another worker, and only a finished task's record is ever written.

Workers are started with a `cores` resource of at most the cores they may use, and every
game asks for one, so games never share a core. docs/cluster.md is the guide.
"""
from __future__ import annotations

import functools
import hashlib
import os
import socket
import ssl
import sys
import tempfile
import threading
import uuid
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator

import distributed
from distributed.client import FutureCancelledError
from distributed.comm.core import FatalCommClosedError
from distributed.scheduler import KilledWorker

from ..errors import UsageError
from ..games import find_game, game_spec
from ..records import GameRecord, arbiter_version
from ..referee import GameAborted, PlayerSpec
from ..transport.sandbox import support
from ..transport.process import unstartable
from .config import ClusterSpec, TournamentConfig
from .pool import GameSetup, play_setup
from .schedule import ScheduledGame
from .store import ResultsFolder

RESOURCE = "cores"  # each worker's `--resources cores=N`; a game takes one
CONNECT_TIMEOUT_S = 10  # to reach the scheduler
WORKERS_WAIT_S = 10  # for a first worker, when the scheduler has none yet
QUEUED_PER_CORE = 2  # games submitted per core: one running, one waiting on the worker
STOP_POLL_S = 2.0  # a worker's long poll of the run's stop event (set: answered at once)


class ClusterError(UsageError):
    """The cluster cannot play the run (unreachable, a worker refused, a game lost again and
    again); the recorded games are kept and the same command resumes."""


@dataclass(frozen=True)
class GameTask:
    """One game as shipped to a worker: what `play_game` needs, and what the worker checks."""

    game_name: str  # games.game_spec: a registry's name, or a user's module:Class
    params: dict[str, Any]
    setup: GameSetup
    arbiter_python: str  # the arbiter's interpreter; a `python` command means the worker's own
    stop_event: str  # the run's Dask Event: set, every game of the run ends
    version: str  # the arbiter's version; a worker with another refuses the game
    digest: str  # the arbiter's source_digest(); a worker with another refuses the game
    boxed: bool  # some player is sandboxed: a worker that cannot box refuses the game


@dataclass(frozen=True)
class PlayedGame:
    """What a worker sends back: the referee's record and the game's stderr logs by file name."""

    record: GameRecord
    logs: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True)
class WorkerReport:
    """What a worker says about itself before the first game."""

    version: str
    digest: str  # its arbiter's source_digest()
    host: str
    cores: int  # the CPUs this worker process may run on
    can_box: bool
    box: str  # the sandbox's one-line description on that machine
    problems: tuple[str, ...]  # per player: a command that cannot start, a missing folder


@dataclass
class Cluster:
    """A connected and checked Dask cluster: `slots` games at once (the sum of its workers' cores)."""

    client: distributed.Client
    address: str
    slots: int

    def pool(self, config: TournamentConfig, setup: Callable[[ScheduledGame], GameSetup]) -> ClusterPool:
        """A pool that plays `config`'s games on this cluster."""
        return ClusterPool(self, config, setup)


class ClusterPool:
    """The runner's pool on a cluster (pool.GamePool): a task per game, a local future per
    task, and the logs written into the results folder before the record is handed over."""

    def __init__(self, cluster: Cluster, config: TournamentConfig,
                 setup: Callable[[ScheduledGame], GameSetup]) -> None:
        # A game queued behind each running one: a worker starts it the moment a core is free,
        # instead of after a round trip to the arbiter (a Dask round trip costs ~10 ms here).
        # The `cores` resource still keeps the games running at once to the cores.
        self.slots = QUEUED_PER_CORE * cluster.slots
        self._client = cluster.client
        self._config = config
        self._setup = setup
        self._game_spec = game_spec(config.make_game())
        self._run = uuid.uuid4().hex[:12]  # task keys of two runs never meet
        self._stop_name = f"arbiter-stop-{self._run}"
        self._address = cluster.address
        self._lock = threading.Lock()  # `_tasks` loses its entries in Dask's callback thread
        self._tasks: dict[Future[GameRecord], distributed.Future] = {}
        self._stopped = False

    def submit(self, scheduled: ScheduledGame) -> Future[GameRecord]:
        """Submit the game as a task needing one core; the returned future is this process's."""
        task = GameTask(
            game_name=self._game_spec, params=dict(self._config.params), setup=self._setup(scheduled),
            arbiter_python=sys.executable, stop_event=self._stop_name, version=arbiter_version(),
            digest=source_digest(), boxed=any(p.sandbox is not None for p in self._config.players),
        )
        remote = self._client.submit(play_on_worker, task, key=f"arbiter-{self._run}-{scheduled.id}",
                                     resources={RESOURCE: 1}, pure=False)
        local: Future[GameRecord] = Future()
        local.set_running_or_notify_cancel()
        with self._lock:
            self._tasks[local] = remote
        remote.add_done_callback(lambda done: self._arrived(scheduled, done, local))
        return local

    def _arrived(self, scheduled: ScheduledGame, done: distributed.Future, local: Future[GameRecord]) -> None:
        """A task ended (in Dask's callback thread): the logs on disk, then the local future set."""
        with self._lock:
            self._tasks.pop(local, None)
        try:
            played: PlayedGame | None = None
            cancelled = done.cancelled()
            if not cancelled:
                try:
                    played = done.result()
                except FutureCancelledError:  # cancelled between the look and the result
                    cancelled = True
            if cancelled and not self._stopped:  # not by us: the scheduler is gone
                raise ClusterError(
                    f"the connection to the Dask scheduler at {self._address} was lost, and game "
                    f"{scheduled.id} with it. The recorded games are kept: "
                    "restart the scheduler and its workers, then run the same command to resume")
            if cancelled or played is None:
                raise GameAborted(f"game {scheduled.id} was cancelled on the cluster")
            local.set_result(self._keep_logs(played))
        except WorkerRefused as exc:
            local.set_exception(ClusterError(f"a worker that joined after the check refused a game: {exc}; the "
                                             "recorded games are kept: fix or stop it, then run the same command"))
        except KilledWorker as exc:
            local.set_exception(ClusterError(
                f"game {scheduled.id} was lost with its worker again and again ({exc}); the cluster gave it "
                "up. The recorded games are kept: check the workers, then run the same command to resume"))
        except BaseException as exc:  # GameAborted, ClusterError, an arbiter bug on the worker, a log not written
            local.set_exception(exc)

    def _keep_logs(self, played: PlayedGame) -> GameRecord:
        """Write the game's logs into the results folder; the record names them there."""
        folder = ResultsFolder(self._config.results_dir).logs
        paths: dict[str, str] = {}
        for name, content in played.logs:
            path = folder / Path(name).name  # a plain file name, whatever the worker said
            path.write_bytes(content)
            paths[name] = str(path)
        return replace(played.record, logs=[paths.get(Path(log).name) if log else None
                                            for log in played.record.logs])

    def stop(self) -> None:
        """Ask every game of the run to end (running ones end their bots) and cancel the tasks."""
        if self._client.status != "running":  # the scheduler is gone: its tasks went with it
            return
        if not self._stopped:
            self._stopped = True
            # An Event that is set stays in the scheduler for good (Dask forgets only cleared
            # ones): one small entry per stopped run, the price of stopping games at once.
            distributed.Event(self._stop_name, client=self._client).set()
        with self._lock:
            tasks = list(self._tasks.values())
        self._client.cancel(tasks)

    def close(self) -> None:
        """Forget the run's tasks (the runner has waited for every future) and wake the
        workers' watchers of the run, which then end at once instead of at their next poll."""
        self._tasks.clear()
        if not self._stopped and self._client.status == "running":  # set and cleared: Dask then forgets it
            event = distributed.Event(self._stop_name, client=self._client)
            event.set()
            event.clear()


@contextmanager
def connect(config: TournamentConfig, note: Callable[[str], None]) -> Iterator[Cluster]:
    """Connect to the config's scheduler and check every worker before the first game;
    ClusterError naming each worker and its problem, or the scheduler, when it cannot be used."""
    spec = config.cluster
    assert spec is not None
    security = tls_security(spec) if spec.address.startswith("tls://") else None
    try:
        client = distributed.Client(spec.address, security=security, timeout=CONNECT_TIMEOUT_S,
                                    set_as_default=False)
    except (OSError, ValueError, TypeError) as exc:
        if _tls_refused(exc):
            reason = str(exc).rpartition(">: ")[2]  # less Dask's `in <TLS (closed) local=... remote=...>`
            raise ClusterError(f"the Dask scheduler at {spec.address} and this machine do not trust each other's "
                               f"TLS certificates ({reason}): cert must be signed by the cluster's CA, and ca_file "
                               "be that CA's certificate, the one that signed the scheduler's (docs/cluster.md)"
                               ) from None
        raise ClusterError(f"cannot reach the Dask scheduler at {spec.address}: {exc}. Is it running, and are "
                           "its TLS files the ones given (docs/cluster.md)?") from None
    try:
        workers, slots = check_workers(client, config, spec.address)
        note(f"cluster {spec.address}: {workers} workers checked, {slots} games at once")
        yield Cluster(client, spec.address, slots)
    finally:
        client.close()


def _tls_refused(exc: BaseException | None) -> bool:
    """Whether a connection failed in its TLS handshake: Dask raises FatalCommClosedError for a
    certificate it cannot verify, and a closed comm caused by an SSLError when the other end
    hangs up on ours (which end notices first is a race)."""
    while exc is not None:
        if isinstance(exc, (FatalCommClosedError, ssl.SSLError)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def tls_security(spec: ClusterSpec) -> distributed.Security:
    """Dask's TLS settings for a tls:// scheduler: the config's files, and Dask's own configuration
    (distributed.comm.tls.*) for those not given; ClusterError when the CA or the certificate is
    missing, or a file cannot be used, before any connection is tried."""
    files = {"tls_ca_file": spec.ca_file, "tls_client_cert": spec.cert, "tls_client_key": spec.key}
    security = distributed.Security(require_encryption=True, **{k: v for k, v in files.items() if v})
    # The key may be in the certificate's file, so only the CA and the certificate must be named.
    missing = [key for key, given in (("ca_file", security.tls_ca_file), ("cert", security.tls_client_cert))
               if not given]
    if missing:
        raise ClusterError(f"{spec.address} is a TLS scheduler, but {' and '.join(missing)} "
                           f"{'is' if len(missing) == 1 else 'are'} not given: set the config's cluster: "
                           "{address, ca_file, cert, key} (or Dask's distributed.comm.tls settings); "
                           "docs/cluster.md says how to make them")
    try:
        security.get_connection_args("client")  # reads the files
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc  # an SSLError's text less its error number
        raise ClusterError(f"the TLS files for {spec.address} cannot be used ({reason}): "
                           "ca_file must be the cluster's CA certificate, cert this machine's certificate and key "
                           "its private key (or in cert's file), all PEM (docs/cluster.md)") from None
    return security


def check_workers(client: distributed.Client, config: TournamentConfig, address: str) -> tuple[int, int]:
    """Check every worker: the arbiter's version and source, every player's command and folders, the
    sandbox the config asks for, and a `cores` resource within the machine's cores. Returns
    how many workers were checked and the games they play at once; ClusterError listing
    every problem otherwise."""
    try:
        client.wait_for_workers(1, timeout=WORKERS_WAIT_S)
    except (TimeoutError, OSError):
        raise ClusterError(f"the Dask scheduler at {address} has no workers: start one on each machine with "
                           f"`dask worker {address} --nthreads N --resources {RESOURCE}=N` (docs/cluster.md)") from None
    workers = client.scheduler_info(n_workers=-1)["workers"]
    launched = tuple(p for p in config.players if p.transport != "remote")
    boxed = any(p.sandbox is not None for p in launched)
    reports = client.run(worker_report, launched, sys.executable, on_error="return")
    problems: list[str] = []
    per_host: dict[str, list[tuple[str, float, int]]] = {}
    slots = 0
    for worker, info in sorted(workers.items()):
        report = reports.get(worker)
        cores = float(info.get("resources", {}).get(RESOURCE, 0))
        if not isinstance(report, WorkerReport):
            problems.append(f"worker {worker}: cannot run the arbiter's check "
                            f"({type(report).__name__}: {report}); is arbiter {arbiter_version()} installed there?")
            continue
        found = worker_problems(report, boxed=boxed, cores=cores)
        per_host.setdefault(report.host, []).append((worker, cores, report.cores))
        problems.extend(f"worker {worker}: {problem}" for problem in found)
        slots += int(cores)
    for host, members in sorted(per_host.items()):
        offered = sum(cores for _, cores, _ in members)
        available = max(machine for _, _, machine in members)
        if offered > available:
            names = ", ".join(worker for worker, _, _ in members)
            problems.append(f"worker{'s' if len(members) > 1 else ''} {names} on {host} offer{'' if len(members) > 1 else 's'} "
                            f"{offered:g} {RESOURCE} but the machine has {available}: games would share cores "
                            "and be timed unfairly; lower --resources")
    if problems:
        head = "the tournament was not started: " if len(problems) == 1 else \
            f"the tournament was not started, {len(problems)} problems with the cluster's workers:\n  "
        raise ClusterError(head + "\n  ".join(problems))
    return len(workers), slots


def worker_problems(report: WorkerReport, *, boxed: bool, cores: float) -> list[str]:
    """Why one worker cannot play the run, from its report and its `cores` resource: its
    players' problems, another arbiter (version or source), no sandbox when one is needed,
    no cores. The machine's cores over all its workers are checked by `check_workers`."""
    found = list(report.problems)
    digest = getattr(report, "digest", "none")  # an arbiter from before the digest sends none
    if report.version != arbiter_version():
        found.append(f"runs arbiter {report.version}, not {arbiter_version()} as here; install the same version")
    elif digest != source_digest():
        found.append(f"{different_arbiter(digest, source_digest())}; install the same code there (the same commit)")
    if boxed and not report.can_box:
        found.append(f"cannot sandbox bots ({report.box}); make it able to (docs/security.md), or set "
                     "sandbox: off for trusted bots")
    if cores < 1:
        found.append(f"has no `{RESOURCE}` resource, so no game would ever run there: restart it with "
                     f"--resources {RESOURCE}=N, N at most its cores ({report.cores})")
    return found


def worker_report(players: tuple[PlayerSpec, ...], arbiter_python: str) -> WorkerReport:
    """Run on a worker (by `check_workers`): this machine's view of the run's players."""
    problems = [problem for player in players for problem in player_problems(player, arbiter_python)]
    box = support()
    return WorkerReport(version=arbiter_version(), digest=source_digest(), host=socket.gethostname(),
                        cores=len(os.sched_getaffinity(0)), can_box=box.usable, box=box.describe(),
                        problems=tuple(problems))


@functools.cache
def source_digest(package: Path = Path(__file__).resolve().parent.parent) -> str:
    """A SHA-256 of the arbiter package's own source (by default the one running), once per
    process: every .py file under `package` and the launch helper's C source
    (`transport/spawn.c`), in the order of their paths relative to it, each path and content
    hashed. Two installs of one version number with other code differ here."""
    files = sorted((path.relative_to(package).as_posix(), path) for pattern in ("*.py", "*.c")
                   for path in package.rglob(pattern))
    digest = hashlib.sha256()
    for relative, path in files:
        digest.update(relative.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def different_arbiter(there: str, here: str) -> str:
    """`runs a different arbiter (source digest X, here Y)`: a worker's digest and the arbiter's,
    cut to 12 digits as git shows commits."""
    return f"runs a different arbiter (source digest {there[:12]}, here {here[:12]})"


def player_problems(player: PlayerSpec, arbiter_python: str) -> list[str]:
    """Why this machine cannot start a launched player as the config states: its folder, its
    command, its sandbox read paths (empty when it can)."""
    cwd = Path(player.cwd or ".")
    if not cwd.is_dir():
        return [f"player {player.name}: its folder {cwd} does not exist here"]
    problems = []
    why = unstartable(_local_command(player.command, arbiter_python), cwd)
    if why:
        problems.append(f"player {player.name}: cannot be started here: {why}")
    for path in player.sandbox.read if player.sandbox else ():
        if not os.path.exists(path):
            problems.append(f"player {player.name}: sandbox read path {path} does not exist here")
    return problems


def refusal(task: GameTask, worker: str) -> str | None:
    """Why this worker must not play `task` (one that joined after the run's check may lack
    what the check made sure of), or None. A game refused is played elsewhere or stops the
    run; a bot this machine cannot start is never recorded as that bot's crash."""
    if task.version != arbiter_version():
        return f"worker {worker} runs arbiter {arbiter_version()}, not {task.version}"
    if task.digest != source_digest():
        return f"worker {worker} {different_arbiter(source_digest(), task.digest)}"
    if task.boxed and not support().usable:
        return f"worker {worker} cannot sandbox bots: {support().describe()}"
    problems = [problem for player in task.setup.players if player.transport != "remote"
                for problem in player_problems(player, task.arbiter_python)]
    return f"worker {worker}: " + "; ".join(problems) if problems else None


def _local_command(command: tuple[str, ...], arbiter_python: str) -> tuple[str, ...]:
    """The command as this machine runs it: the config's `python` (the arbiter's interpreter)
    becomes this worker's interpreter, the one that has the arbiter installed."""
    if command and command[0] == arbiter_python:
        return (sys.executable, *command[1:])
    return command


def play_on_worker(task: GameTask) -> PlayedGame:
    """Run on a worker: play one game and return its record and logs. Raises GameAborted
    when the run is stopped, and WorkerRefused when this worker cannot play it as asked
    (one that joined after the check)."""
    refused = refusal(task, distributed.get_worker().address)
    if refused:
        raise WorkerRefused(refused)
    stop = _stop_flags.hold(task.stop_event)
    try:
        if stop.is_set():
            raise GameAborted("the run was stopped before this game started")
        setup = task.setup
        players = [replace(p, command=_local_command(p.command, task.arbiter_python)) for p in setup.players]
        with tempfile.TemporaryDirectory(prefix="arbiter-game-") as folder:
            record = play_setup(find_game(task.game_name, **task.params), replace(setup, players=tuple(players)),
                                Path(folder), cancel=stop)
            logs = tuple((Path(log).name, Path(log).read_bytes()) for log in record.logs
                         if log and os.path.exists(log))
    finally:
        _stop_flags.release(task.stop_event)
    return PlayedGame(record, logs)


class WorkerRefused(Exception):
    """A worker cannot play a game as the run requires (it joined after the check)."""


class _StopFlags:
    """Per worker process: one thread per run with games here, waiting on the run's Dask Event
    and setting the flag those games' referees watch. The thread ends with the run's last game
    here, so a finished run leaves nothing behind on the worker or the scheduler."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flags: dict[str, tuple[threading.Event, int]] = {}

    def hold(self, name: str) -> threading.Event:
        """The run's flag, watched while at least one game holds it."""
        with self._lock:
            flag, games = self._flags.get(name, (None, 0))
            if flag is None:
                flag = threading.Event()
                event = distributed.Event(name, client=distributed.get_client())
                threading.Thread(target=self._watch, args=(name, event, flag), daemon=True,
                                 name=f"arbiter-stop-{name}").start()
            self._flags[name] = (flag, games + 1)
            return flag

    def release(self, name: str) -> None:
        """A game of the run ended."""
        with self._lock:
            if name in self._flags:  # else its watcher has seen the stop and gone
                flag, games = self._flags[name]
                self._flags[name] = (flag, games - 1)

    def _watch(self, name: str, event: distributed.Event, flag: threading.Event) -> None:
        try:
            while not event.wait(timeout=STOP_POLL_S):
                with self._lock:
                    if self._flags[name][1] == 0:
                        del self._flags[name]
                        return
        except Exception:  # the scheduler is gone: nobody is left to take the game's record
            pass
        flag.set()
        with self._lock:
            self._flags.pop(name, None)


_stop_flags = _StopFlags()


__all__ = ["Cluster", "ClusterError", "ClusterPool", "GameTask", "PlayedGame", "RESOURCE", "WorkerReport",
           "check_workers", "connect", "play_on_worker", "source_digest", "worker_problems",
           "worker_report"]
