"""A Dask cluster over TLS, set up as docs/cluster.md says: the CA and the scheduler's, worker's
and arbiter's certificates made by the guide's own openssl lines (step 1), a `dask scheduler
--protocol tls` and a `dask worker tls://...` started with them (steps 2 and 3), and runs
through the config's `cluster:` keys (step 4). The games are those of a local run; a client
whose certificate the cluster's CA did not sign gets one line and no connection.

A module of its own, so its cluster is never up beside test_cluster.py's.
"""
from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest
from distributed import Client, Security

from arbiter.tournament.cluster import ClusterError, connect
from arbiter.tournament.config import load_config, with_cluster
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import run_tournament

from test_cluster import DASK, free_port, games_played_by_workers, recorded, task_keys
from tournament_helpers import ROOT, played, table, write_config

PYTHON = sys.executable
GUIDE = ROOT / "docs" / "cluster.md"
# A second CA, and an arbiter certificate it signed: what a stranger to the cluster could make.
STRANGER_STEPS = """
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -keyout other-ca.key -out other-ca.pem -subj "/CN=another CA"
openssl req -newkey rsa:2048 -nodes -keyout stranger.key -out stranger.csr -subj "/CN=arbiter"
openssl x509 -req -in stranger.csr -CA other-ca.pem -CAkey other-ca.key -CAcreateserial -days 1 -out stranger.pem
"""


def guide_step_1() -> str:
    """The shell lines of the guide's step 1 (the indented block under its heading)."""
    section = GUIDE.read_text().split("### 1. Make the TLS files", 1)[1]
    lines: list[str] = []
    for line in section.splitlines():
        if line.startswith("    "):
            lines.append(line[4:])
        elif lines and line.strip():  # the paragraph after the block
            break
    return "\n".join(lines)


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guide's cluster-tls folder, plus a stranger's CA and certificate."""
    folder = tmp_path_factory.mktemp("tls")
    for script, where in ((guide_step_1(), folder), (STRANGER_STEPS, folder / "cluster-tls")):
        made = subprocess.run(["bash", "-euc", script], cwd=where, capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
    return folder / "cluster-tls"


@pytest.fixture(scope="module")
def tls_cluster(tls_files: Path) -> Iterator[str]:
    """A TLS scheduler on loopback and one worker of one core, started as in the guide; yields
    the scheduler's address once the worker has joined."""
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    commands = [
        [DASK, "scheduler", "--protocol", "tls", "--host", "127.0.0.1", "--port", str(port),
         "--dashboard-address", ":0", "--tls-ca-file", "ca.pem", "--tls-cert", "scheduler.pem",
         "--tls-key", "scheduler.key"],
        [DASK, "worker", address, "--nthreads", "1", "--resources", "cores=1", "--dashboard-address", ":0",
         "--tls-ca-file", "ca.pem", "--tls-cert", "worker.pem", "--tls-key", "worker.key"],
    ]
    # Each in a process group of its own: the worker's nanny starts the worker process.
    started = [subprocess.Popen(command, cwd=tls_files, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True) for command in commands]
    try:
        with tls_client(tls_files, address) as client:
            client.wait_for_workers(1, timeout=60)
        yield address
    finally:
        for process in reversed(started):  # the worker first: it leaves the scheduler cleanly
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)


def tls_client(tls_files: Path, address: str) -> Client:
    """A Dask client of the test's own, with the arbiter's certificate."""
    security = Security(require_encryption=True, tls_ca_file=str(tls_files / "ca.pem"),
                        tls_client_cert=str(tls_files / "arbiter.pem"), tls_client_key=str(tls_files / "arbiter.key"))
    return Client(address, security=security, timeout=60, set_as_default=False)


def tls_config(folder: Path, tls_files: Path, address: str, files: str) -> Path:
    """Two seeded random bots at Limit Nim, 4 games, on the cluster named by `cluster:` with
    `files` (keys of the guide's step 4, relative to the config's folder)."""
    (folder / "cluster-tls").symlink_to(tls_files)
    bot = ROOT / "players" / "random_bot.py"
    return write_config(folder, f"""game: limit-nim
games_per_pairing: 4
openings: {{random_moves: 1, seed: 4}}
players:
  - {{name: a, command: python {bot} --seed 1}}
  - {{name: b, command: python {bot} --seed 2}}
cluster: {{address: {address}, {files}}}
""")


def test_the_guides_steps_make_a_ca_and_a_certificate_it_signed_for_each_role(tls_files: Path) -> None:
    for role in ("scheduler", "worker", "arbiter"):
        assert (tls_files / f"{role}.key").is_file()
        checked = subprocess.run(["openssl", "verify", "-CAfile", "ca.pem", f"{role}.pem"], cwd=tls_files,
                                 capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0 and checked.stdout.strip() == f"{role}.pem: OK", checked.stderr
    stranger = subprocess.run(["openssl", "verify", "-CAfile", "ca.pem", "stranger.pem"], cwd=tls_files,
                              capture_output=True, text=True, timeout=30)
    assert stranger.returncode != 0


def test_a_tournament_over_tls_from_the_configs_cluster_keys_plays_the_local_games(
        tmp_path: Path, tls_files: Path, tls_cluster: str) -> None:
    path = tls_config(tmp_path, tls_files, tls_cluster,
                      "ca_file: cluster-tls/ca.pem, cert: cluster-tls/arbiter.pem, key: cluster-tls/arbiter.key")
    config = load_config(path)
    assert config.cluster is not None and Path(config.cluster.ca_file).samefile(tls_files / "ca.pem")
    with tls_client(tls_files, tls_cluster) as client:
        before = task_keys(client)
        there = subprocess.run([PYTHON, "-m", "arbiter", "run", str(path)], capture_output=True, text=True,
                               timeout=120, cwd=tmp_path)
        assert there.returncode == 0, there.stderr
        assert f"cluster {tls_cluster}: 1 workers checked, 1 games at once" in there.stderr
        records = recorded(tmp_path / "results")
        workers = games_played_by_workers(client, before)
    assert len(records) == 4 and sorted(workers) == sorted(r.id for r in records)
    assert {worker.partition("://")[0] for worker in workers.values()} == {"tls"}
    here = run_tournament(replace(config, cluster=None, results_dir=tmp_path / "here"),
                          Progress(quiet=True, tty=False))
    assert played(records) == played(here.records)
    assert table(records, config) == table(here.records, config)


def test_arbiter_match_over_tls_takes_the_files_from_dasks_configuration(
        tmp_path: Path, tls_files: Path, tls_cluster: str) -> None:
    # `match` and `sprt` have no config file: the guide's way is Dask's own settings.
    bot = f"{PYTHON} {ROOT / 'players' / 'random_bot.py'}"
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(tls_files / "ca.pem"),
           "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": str(tls_files / "arbiter.pem"),
           "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": str(tls_files / "arbiter.key")}
    with tls_client(tls_files, tls_cluster) as client:
        before = task_keys(client)
        match = subprocess.run([PYTHON, "-m", "arbiter", "match", "limit-nim", bot, f"{bot} --seed 2", "--games", "2",
                                "--time-ms", "5000", "--results", str(tmp_path / "match"), "--cluster", tls_cluster],
                               capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
        assert match.returncode == 0, match.stderr
        workers = games_played_by_workers(client, before)
    assert f"cluster {tls_cluster}: 1 workers checked, 1 games at once" in match.stderr
    assert sorted(workers) == sorted(r.id for r in recorded(tmp_path / "match")) and len(workers) == 2


@pytest.mark.parametrize("files, says", [
    ("ca_file: cluster-tls/ca.pem",
     "{address} is a TLS scheduler, but cert is not given: set the config's cluster: {{address, ca_file, cert, key}}"),
    ("ca_file: cluster-tls/ca.pem, cert: cluster-tls/stranger.pem, key: cluster-tls/stranger.key",
     "the Dask scheduler at {address} and this machine do not trust each other's TLS certificates ("),
    ("ca_file: cluster-tls/other-ca.pem, cert: cluster-tls/stranger.pem, key: cluster-tls/stranger.key",
     "the Dask scheduler at {address} and this machine do not trust each other's TLS certificates ("),
    ("ca_file: cluster-tls/ca.pem, cert: cluster-tls/arbiter.pem, key: cluster-tls/worker.key",
     "the TLS files for {address} cannot be used ([X509: KEY_VALUES_MISMATCH] key values mismatch"),
])
def test_a_client_without_a_certificate_the_cas_signed_is_turned_away_with_one_line(
        tmp_path: Path, tls_files: Path, tls_cluster: str, files: str, says: str) -> None:
    path = tls_config(tmp_path, tls_files, tls_cluster, files)
    refused = subprocess.run([PYTHON, "-m", "arbiter", "run", str(path)], capture_output=True, text=True,
                             timeout=60, cwd=tmp_path)
    assert refused.returncode == 2
    lines = refused.stderr.splitlines()
    assert [line for line in lines if "error" in line or "Traceback" in line] == lines[-1:]
    assert lines[-1].startswith("arbiter run: error: " + says.format(address=tls_cluster))
    assert not (tmp_path / "results" / "games.jsonl").exists()


def test_the_scheduler_itself_closes_a_connection_that_shows_no_certificate(tls_files: Path, tls_cluster: str) -> None:
    # Below the arbiter: TLS that trusts the cluster's CA but shows no certificate of its own.
    context = ssl.create_default_context(cafile=str(tls_files / "ca.pem"))
    context.check_hostname = False  # the guide's certificates name roles, not hosts (Dask does the same)
    port = int(tls_cluster.rpartition(":")[2])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, context.wrap_socket(raw) as tls:
            first = tls.recv(1)  # an accepted connection is sent the scheduler's handshake at once
    except (ssl.SSLError, ConnectionResetError):  # the TLS alert: a certificate is required
        first = b""
    assert first == b""


def test_a_tls_scheduler_without_tls_files_is_refused_before_connecting(tmp_path: Path) -> None:
    path = write_config(tmp_path, f"""game: limit-nim
players:
  - {{name: a, command: python {ROOT / 'players' / 'random_bot.py'}}}
  - {{name: b, command: python {ROOT / 'players' / 'random_bot.py'}}}
""")
    config = with_cluster(load_config(path), "tls://127.0.0.1:9")
    with pytest.raises(ClusterError, match=r"^tls://127.0.0.1:9 is a TLS scheduler, but ca_file and cert are not "):
        with connect(config, lambda _: None):
            pytest.fail("connected")
