"""Tournaments on a real Dask cluster started here: a scheduler and two worker processes of one
core each. The cluster plays the same games as a local run (`arbiter run`, `match` and `sprt`),
a worker killed mid-game costs no game, Ctrl-C cancels the cluster's games, and workers are
checked before the first game (a worker with other arbiter code is refused by name).
TLS is tested apart, in test_cluster_tls.py.

Kept lean: one cluster for the module, small boards, a few games each.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import pytest
from distributed import Client, LocalCluster

from arbiter.records import GameRecord, arbiter_version
from arbiter.referee import PlayerSpec, TimeControl
from arbiter.tournament.cluster import (ClusterError, GameTask, WorkerReport, connect, refusal, source_digest,
                                        worker_problems, worker_report)
from arbiter.tournament.config import ConfigError, load_config, with_cluster
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import GameSetup, Interrupted, run_tournament
from arbiter.tournament.sprt import SprtProgress, run_sprt
from arbiter.tournament.store import ResultsFolder

from test_tournament_processes import processes_marked, wait_for
from tournament_helpers import ROOT, played, table, write_config

PYTHON = sys.executable
DASK = Path(PYTHON).with_name("dask")
SLOW_BOT = ROOT / "tests" / "bots" / "slow_random_bot.py"
RANDOM_BOT = f"{PYTHON} {ROOT / 'players' / 'random_bot.py'}"


def start_cluster(workers: int, cores: int) -> LocalCluster:
    """A scheduler on loopback and `workers` worker processes (with nannies, which restart a
    killed one), each offering `cores` cores."""
    return LocalCluster(n_workers=workers, threads_per_worker=cores, processes=True, resources={"cores": cores},
                        host="127.0.0.1", dashboard_address=":0")


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with start_cluster(2, 1) as started:
        yield started


@pytest.fixture
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster.scheduler_address, set_as_default=False) as connected:
        connected.wait_for_workers(2, timeout=60)  # a worker killed by an earlier test is back
        yield connected


def quiet() -> Progress:
    return Progress(quiet=True, tty=False)


def slow_config(folder: Path, marker: str, slow_ms: int, games: int) -> Path:
    """Two seeded slow random bots at Limit Nim: games long enough to be caught mid-play."""
    players = "\n".join(f"  - {{name: {name}, command: python {SLOW_BOT} --seed {seed}, "
                        f"env: {{ARBITER_TEST_MARK: {marker}, SLOW_MS: '{slow_ms}'}}}}"
                        for name, seed in (("a", 1), ("b", 2)))
    return write_config(folder, f"game: limit-nim\ngames_per_pairing: {games}\n"
                                f"openings: {{random_moves: 1, seed: 4}}\nplayers:\n{players}\n")


def recorded(results: Path) -> list[GameRecord]:
    return ResultsFolder(results).store().load()


def task_keys(client: Client) -> set[str]:
    """The keys of the tasks in the scheduler's task stream (which records from its first use on)."""
    return {entry["key"] for entry in client.get_task_stream()}


def games_played_by_workers(client: Client, before: set[str]) -> dict[str, str]:
    """Game id -> the worker that finished it, for each game task in the task stream since
    `before` (task_keys then); a game's key is arbiter-RUN-GAMEID."""
    return {entry["key"].split("-", 2)[2]: entry["worker"] for entry in client.get_task_stream()
            if entry["key"].startswith("arbiter-") and entry["key"] not in before and entry["status"] == "OK"}


def test_the_demo_cut_down_plays_the_same_games_on_the_cluster_as_here(tmp_path: Path, cluster: LocalCluster, client: Client) -> None:
    config = replace(load_config(ROOT / "configs" / "demo.yaml"), games_per_pairing=2)
    # Searches bounded by node counts alone (docs/bots.md, BOT_NODES_ONLY): the same moves here and
    # there however busy the machine is (bounded by the clock, a loaded machine's bots search less).
    config = replace(config, players=tuple(replace(p, env={**p.env, "BOT_NODES_ONLY": "1"}) for p in config.players))
    here = run_tournament(replace(config, results_dir=tmp_path / "here"), quiet())
    there = run_tournament(with_cluster(replace(config, results_dir=tmp_path / "there"), cluster.scheduler_address),
                           quiet())
    assert len(there.records) == there.planned == 12
    assert played(there.records) == played(here.records)
    assert table(there.records, config) == table(here.records, config)
    for record in there.records:  # the logs came back into the results folder
        assert all(Path(log).parent == tmp_path / "there" / "logs" and Path(log).is_file() for log in record.logs)


def test_a_worker_killed_mid_game_costs_no_game_and_records_none_twice(tmp_path: Path, cluster: LocalCluster, client: Client) -> None:
    marker = uuid.uuid4().hex
    config = with_cluster(load_config(slow_config(tmp_path, marker, slow_ms=150, games=4)), cluster.scheduler_address)
    killed: list[str] = []

    def kill_a_worker_mid_game() -> None:
        assert wait_for(lambda: len(processes_marked(marker)) >= 2, 60)  # a game's bots are up
        busy = [worker for worker, keys in client.processing().items() if keys]
        pids = client.run(os.getpid, workers=busy[:1])
        killed.extend(f"{worker} ({keys})" for worker, keys in client.processing(workers=busy[:1]).items())
        for pid in pids.values():
            os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_a_worker_mid_game)
    killer.start()
    outcome = run_tournament(config, quiet())
    killer.join()
    assert killed, "no worker was playing a game"
    ids = [r.id for r in outcome.records]
    lines = (config.results_dir / "games.jsonl").read_text().splitlines()
    assert len(lines) == len(ids) == len(set(ids)) == outcome.planned == 4
    assert [(r.id, r.termination, r.detail) for r in outcome.records if r.termination != "normal"] == []
    assert wait_for(lambda: processes_marked(marker) == [], 10)  # the killed worker's bots did not linger


def test_a_game_cancelled_by_the_runs_stop_after_it_was_looked_at_is_aborted_not_a_failure() -> None:
    """When an SPRT decides, the pool cancels the games still running. Dask may say a task was
    not cancelled and then raise its cancellation from `result()` (the cancel landing between
    the two): that game was aborted by the stop like the others, never an arbiter failure that
    ends the run; the same race without a stop of ours is the scheduler lost."""
    from concurrent.futures import Future

    from distributed.client import FutureCancelledError

    from arbiter.referee import GameAborted
    from arbiter.tournament.cluster import ClusterPool
    from arbiter.tournament.schedule import ScheduledGame

    class CancelledLate:
        def cancelled(self) -> bool:
            return False

        def result(self) -> None:
            raise FutureCancelledError("arbiter-x-001", reason="stopped")

    for stopped, expected in ((True, GameAborted), (False, ClusterError)):
        pool = ClusterPool.__new__(ClusterPool)
        pool._lock, pool._tasks, pool._stopped, pool._address = threading.Lock(), {}, stopped, "tcp://scheduler:8786"
        local: Future[GameRecord] = Future()
        pool._arrived(ScheduledGame(id="001-a-b", round=1, seats=("a", "b"), opening=()), CancelledLate(), local)
        assert isinstance(local.exception(), expected)


def test_an_sprt_over_the_cluster_reaches_the_local_verdict_from_the_same_games(
        tmp_path: Path, cluster: LocalCluster, client: Client) -> None:
    path = write_config(tmp_path, f"""game: limit-nim
format: sprt
time: {{time_ms: 10000}}
candidate: {{name: perfect, command: python {ROOT / 'players' / 'nim_perfect.py'}}}
baseline: {{name: random, command: python {ROOT / 'players' / 'random_bot.py'}}}
sprt: {{elo0: 0, elo1: 150, max_games: 40}}
""")
    config = load_config(path, concurrency=2)
    here = run_sprt(replace(config, results_dir=tmp_path / "here"), SprtProgress(quiet=True, tty=False))
    there = run_sprt(with_cluster(replace(config, results_dir=tmp_path / "there"), cluster.scheduler_address),
                     SprtProgress(quiet=True, tty=False))
    assert here.test.verdict == there.test.verdict == "H1"
    assert (there.test.pentanomial, there.test.games_counted) == (here.test.pentanomial, here.test.games_counted)
    assert there.test.state.llr == pytest.approx(here.test.state.llr)


class InterruptAfter(Progress):
    """Progress that presses Ctrl-C when the first game is recorded."""

    def game_done(self, record: dict[str, Any], records: Any) -> None:
        super().game_done(record, records)
        raise KeyboardInterrupt


def test_ctrl_c_cancels_the_clusters_games_and_the_same_run_resumes(tmp_path: Path, cluster: LocalCluster, client: Client) -> None:
    marker = uuid.uuid4().hex
    config = with_cluster(load_config(slow_config(tmp_path, marker, slow_ms=30, games=8)), cluster.scheduler_address)
    with pytest.raises(Interrupted):
        run_tournament(config, InterruptAfter(quiet=True, tty=False))
    assert len((config.results_dir / "games.jsonl").read_text().splitlines()) == 1
    assert wait_for(lambda: not any(client.processing().values()), 10)  # nothing left queued or running
    assert wait_for(lambda: processes_marked(marker) == [], 10)  # the running game's bots were ended
    outcome = run_tournament(config, quiet())
    assert outcome.played_now == 7 and len(outcome.records) == 8


def test_a_worker_that_cannot_start_a_players_command_is_named_with_the_problem(tmp_path: Path) -> None:
    config = load_config(slow_config(tmp_path, "m", slow_ms=1, games=2))
    moved = replace(config.players[1], command=(PYTHON, str(tmp_path / "not-installed-here.py")))
    report = worker_report((config.players[0], moved), PYTHON)
    assert report.problems == (f"player b: cannot be started here: script {tmp_path / 'not-installed-here.py'} "
                               f"does not exist (looked in {tmp_path})",)
    assert report.version and report.cores >= 1


def test_workers_offering_more_cores_than_their_machine_has_are_refused_by_name(tmp_path: Path) -> None:
    config = load_config(slow_config(tmp_path, "m", slow_ms=1, games=2))
    cores = len(os.sched_getaffinity(0))
    with start_cluster(1, cores + 1) as greedy:
        with pytest.raises(ClusterError) as refused:
            with connect(with_cluster(config, greedy.scheduler_address), lambda _: None):
                pytest.fail("the run started")
    worker = next(iter(greedy.workers.values())).worker_address if greedy.workers else "worker"
    message = str(refused.value)
    assert message.startswith("the tournament was not started: worker") and worker in message
    assert f"offers {cores + 1} cores but the machine has {cores}" in message


@pytest.mark.parametrize("address, allowed", [
    ("tcp://127.0.0.1:8786", True), ("tcp://localhost:8786", True), ("tls://10.0.0.7:8786", True),
    ("tcp://10.0.0.7:8786", False), ("tcp://192.0.2.1:8786", False), ("10.0.0.7:8786", False),
    ("http://127.0.0.1:8786", False), ("tcp://127.0.0.1", False),
])
def test_off_this_machine_only_a_tls_scheduler_is_accepted(tmp_path: Path, address: str, allowed: bool) -> None:
    path = slow_config(tmp_path, "m", slow_ms=1, games=2)
    path.write_text(path.read_text() + f"cluster: {address}\n")
    if allowed:
        assert load_config(path).cluster.address == address
        return
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert f"cluster: {address!r} is not allowed: " in str(refused.value)
    if address.startswith("tcp://") and address.count(":") == 2:
        assert "not this machine" in str(refused.value) and "tls://" in str(refused.value)


def test_arbiter_run_with_cluster_on_the_command_line(tmp_path: Path, cluster: LocalCluster) -> None:
    path = slow_config(tmp_path, "m", slow_ms=1, games=2)
    run = subprocess.run([PYTHON, "-m", "arbiter", "run", str(path), "--cluster", cluster.scheduler_address],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"cluster {cluster.scheduler_address}: 2 workers checked, 2 games at once" in run.stderr + run.stdout
    assert len((tmp_path / "results" / "games.jsonl").read_text().splitlines()) == 2
    refused = subprocess.run([PYTHON, "-m", "arbiter", "run", str(path), "--cluster", "tcp://192.0.2.1:8786"],
                             capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "--cluster tcp://192.0.2.1:8786 is not allowed" in refused.stderr


def arbiter_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, "-m", "arbiter", *args], capture_output=True, text=True, timeout=180, cwd=cwd)


def test_arbiter_match_with_cluster_plays_every_game_on_the_workers_with_the_local_outcome(
        tmp_path: Path, cluster: LocalCluster, client: Client) -> None:
    match = ["match", "limit-nim", RANDOM_BOT, f"{RANDOM_BOT} --seed 2", "--games", "6", "--openings", "random:1",
             "--time-ms", "5000"]
    before = task_keys(client)
    there = arbiter_cli(*match, "--results", str(tmp_path / "there"), "--cluster", cluster.scheduler_address,
                        cwd=tmp_path)
    assert there.returncode == 0, there.stderr
    assert f"cluster {cluster.scheduler_address}: 2 workers checked, 2 games at once" in there.stderr
    records = recorded(tmp_path / "there")
    workers = games_played_by_workers(client, before)
    assert sorted(workers) == sorted(r.id for r in records) and len(records) == 6
    assert set(workers.values()) <= set(client.scheduler_info()["workers"])
    here = arbiter_cli(*match, "--results", str(tmp_path / "here"), cwd=tmp_path)
    assert here.returncode == 0, here.stderr
    assert played(records) == played(recorded(tmp_path / "here"))
    score = [line for line in there.stdout.splitlines() if line.startswith("random_bot-a vs random_bot-b: +")]
    assert len(score) == 1 and score[0] in here.stdout.splitlines()


def test_arbiter_sprt_with_cluster_plays_its_games_on_the_workers_and_reaches_the_local_verdict(
        tmp_path: Path, cluster: LocalCluster, client: Client) -> None:
    sprt = ["sprt", "--game", "limit-nim", "--candidate", f"{PYTHON} {ROOT / 'players' / 'nim_perfect.py'}",
            "--baseline", RANDOM_BOT, "--elo0", "0", "--elo1", "150", "--max-games", "40", "--openings", "1",
            "--time-ms", "10000", "--quiet"]
    before = task_keys(client)
    there = arbiter_cli(*sprt, "--results", str(tmp_path / "there"), "--cluster", cluster.scheduler_address,
                        cwd=tmp_path)
    assert there.returncode == 0, there.stderr  # H1 accepted
    assert f"cluster {cluster.scheduler_address}: 2 workers checked, 2 games at once" in there.stderr
    records = recorded(tmp_path / "there")
    assert {r.id for r in records} <= set(games_played_by_workers(client, before))
    here = arbiter_cli(*sprt, "--results", str(tmp_path / "here"), cwd=tmp_path)
    assert here.returncode == 0, here.stderr
    verdict = there.stdout.splitlines()[-1]
    assert verdict.startswith("Verdict: H1 accepted after ") and verdict == here.stdout.splitlines()[-1]
    counted = [line for line in there.stdout.splitlines() if line.startswith(("  counted: ", "  pairs scoring"))]
    assert len(counted) == 2 and all(line in here.stdout.splitlines() for line in counted)


@pytest.mark.parametrize("command", ["match", "sprt"])
@pytest.mark.parametrize("address, says", [
    ("tcp://192.0.2.1:8786", "--cluster: 'tcp://192.0.2.1:8786' is not allowed: 192.0.2.1 is not "
                             "this machine, and a plain tcp:// connection is readable and forgeable"),
    ("localhost:8786", "--cluster: 'localhost:8786' is not allowed: give the Dask scheduler as "
                       "tls://HOST:PORT"),
    ("tcp://127.0.0.1:9", "cannot reach the Dask scheduler at tcp://127.0.0.1:9: Timed out trying to connect"),
])
def test_match_and_sprt_with_a_bad_cluster_address_say_so_in_one_line_and_exit_2(
        tmp_path: Path, command: str, address: str, says: str) -> None:
    bots = (["limit-nim", RANDOM_BOT, f"{RANDOM_BOT} --seed 2", "--games", "2"] if command == "match"
            else ["--game", "limit-nim", "--candidate", RANDOM_BOT, "--baseline", f"{RANDOM_BOT} --seed 2"])
    refused = arbiter_cli(command, *bots, "--results", str(tmp_path / "out"), "--cluster", address,
                          cwd=tmp_path)
    assert refused.returncode == 2
    errors = [line for line in refused.stderr.splitlines() if "error" in line.lower() or "Traceback" in line]
    assert errors == [refused.stderr.splitlines()[-1]]
    assert errors[0].startswith(f"arbiter {command}: error: {says}")
    assert not (tmp_path / "out" / "games.jsonl").exists()


def free_port() -> int:
    """A loopback port free now, for a scheduler."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LoseSchedulerAfterFirstGame(Progress):
    """Progress that kills the scheduler's process when the first game is recorded."""

    def __init__(self, scheduler: subprocess.Popen) -> None:
        super().__init__(quiet=True, tty=False)
        self.scheduler = scheduler

    def game_done(self, record: dict[str, Any], records: Any) -> None:
        super().game_done(record, records)
        if self.scheduler.poll() is None:
            self.scheduler.kill()


def test_a_lost_scheduler_stops_the_run_with_one_line_and_keeps_its_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arbiter.tournament.cluster.CONNECT_TIMEOUT_S", 2)  # also how long a reconnect is tried
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quietly = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--dashboard-address", ":0"], **quietly)
    worker = subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--resources", "cores=1",
                               "--dashboard-address", ":0", "--no-nanny"], **quietly)
    try:
        with Client(address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(1, timeout=60)
        config = with_cluster(load_config(slow_config(tmp_path, "m", slow_ms=30, games=6)), address)
        started = time.monotonic()
        with pytest.raises(ClusterError) as lost:
            run_tournament(config, LoseSchedulerAfterFirstGame(scheduler))
        assert time.monotonic() - started < 60
        assert str(lost.value).startswith(f"the connection to the Dask scheduler at {address} was lost, and game ")
        assert "\n" not in str(lost.value)
        assert 1 <= len((config.results_dir / "games.jsonl").read_text().splitlines()) < 6
    finally:
        for process in (worker, scheduler):
            process.kill()
            process.wait(30)


def a_game_task(players: tuple[PlayerSpec, ...], *, version: str | None = None,
                digest: str | None = None) -> GameTask:
    setup = GameSetup(players=players, time=TimeControl(), opening=(), log_prefix="001-a-b", chance_seed=1)
    return GameTask(game_name="limit-nim", params={}, setup=setup, arbiter_python=PYTHON, stop_event="run",
                    version=version or arbiter_version(), digest=digest or source_digest(), boxed=False)


def test_a_worker_draws_the_games_dice_from_the_seed_the_run_gave_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dice of a game played on a worker are the run's (its GameSetup's chance_seed, from the
    config's seed and the game id), so a record replays the same whichever machine played it."""
    pytest.importorskip("pyspiel")
    from arbiter.chance import ChanceDice
    from arbiter.games import CHANCE, find_game
    from arbiter.tournament import cluster

    class NoStop:  # the run's stop flag, without a scheduler to wait on
        def hold(self, name: str) -> threading.Event:
            return threading.Event()

        def release(self, name: str) -> None:
            pass

    monkeypatch.setattr(cluster, "_stop_flags", NoStop())
    monkeypatch.setattr(cluster.distributed, "get_worker", lambda: type("Worker", (), {"address": "tcp://w1"})())
    bot = PlayerSpec("random", (PYTHON, str(ROOT / "players" / "random_bot.py"), "--seed", "1"), sandbox=None)
    setup = GameSetup(players=(bot, replace(bot, name="other")), time=TimeControl(), opening=(),
                      log_prefix="001-random-other", chance_seed=77)
    task = GameTask(game_name="openspiel:pig", params={"winscore": 10}, setup=setup, arbiter_python=PYTHON,
                    stop_event="run", version=arbiter_version(), digest=source_digest(), boxed=False)
    record = cluster.play_on_worker(task).record
    assert record.termination.value == "normal" and record.chance_seed == 77
    state, dice = find_game("openspiel:pig", winscore=10).new_state(), ChanceDice(77)
    for move in record.moves:
        if move.seat == CHANCE:
            assert move.move == dice.draw(state)
        state.play(move.move)


def test_a_worker_refuses_a_game_whose_bot_it_cannot_start_instead_of_recording_a_crash(tmp_path: Path) -> None:
    # A worker that joined after the run's check is checked again by each game it is given:
    # a bot missing there stops the game before any bot starts, naming the worker and the player.
    bot = str(ROOT / "players" / "random_bot.py")
    here = PlayerSpec("here", (PYTHON, bot), sandbox=None)
    missing = PlayerSpec("gone", (PYTHON, str(tmp_path / "not-installed.py")), sandbox=None)
    assert refusal(a_game_task((here, here)), "tcp://w1") is None
    refused = refusal(a_game_task((here, missing)), "tcp://w1")
    assert refused is not None and refused.startswith("worker tcp://w1: player gone: cannot be started here: ")
    assert "not-installed.py does not exist" in refused
    other = refusal(a_game_task((here, here), version="0.0.1"), "tcp://w1")
    assert other == f"worker tcp://w1 runs arbiter {arbiter_version()}, not 0.0.1"
    rebuilt = refusal(a_game_task((here, here), digest="0123456789abcdef" * 4), "tcp://w1")
    assert rebuilt == (f"worker tcp://w1 runs a different arbiter (source digest {source_digest()[:12]}, "
                       "here 0123456789ab)")


@pytest.mark.parametrize("change, same", [
    ("nothing", True), ("a text file added", True), ("a compiled file added", True),
    ("a comment added to a module", False), ("a module renamed", False), ("an empty module added", False),
    ("the launch helper's source changed", False),
])
def test_the_source_digest_follows_every_python_file_of_the_package_and_nothing_else(
        tmp_path: Path, change: str, same: bool) -> None:
    # Against a copy of the same moment: this tree may be edited while the tests run.
    base = tmp_path / "base" / "arbiter"
    shutil.copytree(ROOT / "arbiter", base, ignore=shutil.ignore_patterns("__pycache__"))
    copy = tmp_path / "arbiter"
    shutil.copytree(base, copy)
    module = copy / "games" / "limit_nim.py"
    {"nothing": lambda: None,
     "a text file added": lambda: (copy / "notes.txt").write_text("not source"),
     "a compiled file added": lambda: module.with_suffix(".cpython-311.pyc").write_bytes(b"compiled"),
     "a comment added to a module": lambda: module.write_text(module.read_text() + "#\n"),
     "a module renamed": lambda: module.rename(module.with_name("limit_nim2.py")),
     "an empty module added": lambda: (copy / "extra.py").write_text(""),
     "the launch helper's source changed": lambda: (copy / "transport" / "spawn.c").write_text("int main(){}\n"),
     }[change]()
    assert (source_digest(copy) == source_digest(base)) is same


def test_a_worker_report_with_another_source_digest_is_refused_and_the_same_passes() -> None:
    report = WorkerReport(version=arbiter_version(), digest=source_digest(), host="h", cores=1, can_box=True,
                          box="bubblewrap", problems=())
    assert worker_problems(report, boxed=True, cores=1) == []
    other = replace(report, digest="fedcba9876543210" * 4)
    assert worker_problems(other, boxed=True, cores=1) == [
        f"runs a different arbiter (source digest fedcba987654, here {source_digest()[:12]}); install the same "
        "code there (the same commit)"]
    assert worker_problems(replace(other, version="0.0.1"), boxed=True, cores=1) == [
        f"runs arbiter 0.0.1, not {arbiter_version()} as here; install the same version"]


def test_a_worker_with_the_same_version_but_other_code_is_refused_by_name(
        tmp_path: Path, cluster: LocalCluster, client: Client) -> None:
    # A copy of this arbiter with one comment more, first on the path of a third worker.
    build = tmp_path / "other-build"
    shutil.copytree(ROOT / "arbiter", build / "arbiter", ignore=shutil.ignore_patterns("__pycache__"))
    with (build / "arbiter" / "__init__.py").open("a") as init:
        init.write("# the same version, other code\n")
    ours = set(client.scheduler_info()["workers"])
    stranger = subprocess.Popen([DASK, "worker", cluster.scheduler_address, "--no-nanny", "--nthreads", "1",
                                 "--dashboard-address", ":0"], env={**os.environ, "PYTHONPATH": str(build)},
                                cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client.wait_for_workers(3, timeout=60)
        (address,) = set(client.scheduler_info()["workers"]) - ours
        theirs = client.run(source_digest, workers=[address])[address]
        assert theirs != source_digest()
        assert client.run(arbiter_version, workers=[address])[address] == arbiter_version()
        config = with_cluster(load_config(slow_config(tmp_path, "m", slow_ms=1, games=2)), cluster.scheduler_address)
        with pytest.raises(ClusterError) as refused:
            with connect(config, lambda _: None):
                pytest.fail("the run started")
        lines = str(refused.value).splitlines()
        assert (f"  worker {address}: runs a different arbiter (source digest {theirs[:12]}, here "
                f"{source_digest()[:12]}); install the same code there (the same commit)") in lines
        assert [line for line in lines if "different arbiter" in line and address not in line] == []  # ours pass
    finally:
        stranger.terminate()
        stranger.wait(30)
    assert wait_for(lambda: set(client.scheduler_info()["workers"]) == ours, 30)
