"""Games with a remote seat in the remote worker (arbiter/tournament/workers.py): the arbiter's
own process never opens a ZeroMQ socket, and whatever one remote game's rules do to the
process playing it costs that game alone, recorded as void with its reason, while the remote
bot reconnects to the replacement and plays the rest of the tournament."""
from __future__ import annotations

import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arbiter.tournament.config import load_config
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import run_tournament
from referee_support import MARK, RANDOM_BOT, StderrRead, live_marked, new_marker
from test_workers import Watch, live_workers

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent

# What the void record says: the referee's own words for an exception out of the rules, or the
# remote worker's death.
REASONS = {
    "raise": r"RulesFailed: the rules failed on purpose",
    "segfault": r"^the worker playing this game was killed by SIGSEGV$",
    "hang": r"^the worker playing this game did not finish within \d+ s \(hung\) and was killed$",
    "descriptors": r"ran out of descriptors|Too many open files",
    "memory": r"ran out of memory|MemoryError",
}

# The arbiter, run as `python -` so that the test can ask its process afterwards whether it
# ever loaded ZeroMQ; the hung game's deadline is its clocks and 0.5 s.
ARBITER = """import json, sys
from arbiter.cli import main
from arbiter.tournament import workers
workers.HANG_MARGIN_S = 0.5
code = main(sys.argv[1:])
print(json.dumps({"code": code, "zmq": "zmq" in sys.modules, "seats": "arbiter.transport.zmq" in sys.modules}))
"""


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RemoteBot:
    """A remote bot serving games (as if on a student's laptop), with the failing games on its
    path; its $ARBITER_SEED keeps the rules' failure out of its own copy of them."""

    def __init__(self, port: int) -> None:
        self.marker = new_marker()
        self.process = subprocess.Popen(
            [sys.executable, str(RANDOM_BOT), "--connect", f"tcp://127.0.0.1:{port}", "--serve"],
            env={**os.environ, "PYTHONPATH": str(TESTS), "ARBITER_SEED": "1", MARK: self.marker},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def end(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        assert live_marked(self.marker) == []


def listener_held_here(port: int) -> bool:
    """Whether this process holds the socket listening on `port` (which someone must hold)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    assert inodes, f"nobody listens on port {port}"
    held = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            held.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass  # closed meanwhile (the listing's own descriptor)
    return bool(inodes & held)


class SeatWatch(Watch):
    """A Watch that, at each turn, notes whether this process holds the remote seat's socket."""

    def __init__(self, port: int) -> None:
        super().__init__()
        self.port = port
        self.held: list[bool] = []

    def game_started(self, scheduled, game, clocks):  # type: ignore[no-untyped-def]
        on_turn = super().game_started(scheduled, game, clocks)

        def noted(news) -> None:  # type: ignore[no-untyped-def]
            if not news.forced:  # a turn (the opening's news comes before the seat is open)
                self.held.append(listener_held_here(self.port))
            on_turn(news)
        return noted


@pytest.fixture
def remote_bot() -> Iterator[tuple[int, RemoteBot]]:
    port = free_port()
    bot = RemoteBot(port)
    yield port, bot
    bot.end()


def write_config(tmp_path: Path, failure: str, port: int, marker: str, *, games: int = 4) -> Path:
    config = tmp_path / "remote.yaml"
    config.write_text(
        f"name: remote\nresults: {tmp_path / 'results'}\ngame: failing_games:FailingNim\n"
        f"params: {{failure: {failure}, marker: '{tmp_path / 'failed-once'}'}}\n"
        f"games_per_pairing: {games}\nconcurrency: 2\nsandbox: off\n"
        "time: {time_ms: 1000, startup_ms: 1000}\n"
        "players:\n"
        f"  - {{name: house, command: python {RANDOM_BOT}, env: {{PYTHONPATH: '{TESTS}', {MARK}: {marker}}}}}\n"
        f"  - {{name: student, transport: remote, bind: 'tcp://127.0.0.1:{port}', connect_wait_ms: 5000}}\n")
    return config


def arbiter_env(marker: str) -> dict[str, str]:
    """The arbiter's environment: the failing games on its path, and the marker that its
    workers (and the bots they start) inherit, for the process scan."""
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, MARK: marker}


@pytest.mark.parametrize("failure", sorted(REASONS))
def test_a_remote_game_whose_rules_fail_costs_that_game_only_and_the_arbiter_never_opens_a_zmq_socket(
        tmp_path: Path, remote_bot: tuple[int, RemoteBot], failure: str) -> None:
    port, bot = remote_bot
    marker = new_marker()
    config = write_config(tmp_path, failure, port, marker)
    done = subprocess.run([sys.executable, "-", "run", str(config), "--quiet"], input=ARBITER, text=True,
                          capture_output=True, env=arbiter_env(marker), cwd=tmp_path, timeout=300)
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["code"] == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    # The check-in and every remote game were in the remote worker: ZeroMQ never loaded here.
    assert (facts["zmq"], facts["seats"]) == (False, False)
    records = [json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4 and (tmp_path / "failed-once").exists()
    void = [r for r in records if r["termination"] == "void"]
    assert len(void) == 1, [(r["termination"], r["detail"]) for r in records]
    assert re.search(REASONS[failure], void[0]["detail"]), void[0]["detail"]
    assert (void[0].get("winner"), void[0].get("offender"), void[0].get("points")) == (None, None, None)
    # The games after it: the remote bot reconnected to the replacement worker and played them.
    assert all(r["termination"] == "normal" for r in records if r is not void[0]), [r["detail"] for r in records]
    assert bot.process.poll() is None  # still serving
    assert live_marked(marker) == []  # the workers and every bot they started ended with the run


def test_ctrl_c_stops_a_run_whose_remote_game_hangs_and_ends_the_remote_worker(
        tmp_path: Path, remote_bot: tuple[int, RemoteBot]) -> None:
    port, bot = remote_bot
    marker = new_marker()
    config = write_config(tmp_path, "hang", port, marker, games=2)
    run = subprocess.Popen([sys.executable, "-m", "arbiter", "run", str(config)], cwd=tmp_path,
                           env=arbiter_env(marker), stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    with StderrRead(run) as read:
        deadline = time.monotonic() + 60
        while not (tmp_path / "failed-once").exists() and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.05)  # nothing to await from here: the rules make this file as they begin to hang
        assert (tmp_path / "failed-once").exists(), read.text
        run.send_signal(signal.SIGINT)
        assert run.wait(timeout=30) == 130
    err = read.text
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "stopped:" in err, err
    assert live_marked(marker) == []  # the remote worker (hung in the rules) and the house bot are gone
    assert bot.process.poll() is None  # the student's bot keeps serving


def test_a_watched_remote_games_moves_come_from_the_remote_worker_of_a_run_without_a_check_in(
        tmp_path: Path, remote_bot: tuple[int, RemoteBot]) -> None:
    # No check-in holds a remote worker for the run (as `arbiter match` plays): the pool starts
    # its own, which waits for the bot at the first game, and ends it with the pool.
    port, _ = remote_bot
    marker = new_marker()
    config = tmp_path / "watched.yaml"
    config.write_text(
        f"name: watched\nresults: {tmp_path / 'results'}\ngame: limit-nim\ngames_per_pairing: 2\nconcurrency: 2\n"
        "sandbox: off\nplayers:\n"
        f"  - {{name: house, command: python {RANDOM_BOT}, env: {{{MARK}: {marker}}}}}\n"
        f"  - {{name: student, transport: remote, bind: 'tcp://127.0.0.1:{port}', connect_wait_ms: 60000}}\n")
    watch = SeatWatch(port)
    records = run_tournament(load_config(config), Progress(io.StringIO(), tty=False), watch=watch).records
    assert [r.termination.value for r in records] == ["normal", "normal"], [r.detail for r in records]
    assert watch.held and not any(watch.held)  # the seat's socket was the remote worker's, never this process's
    for record in records:  # each move's seat and text, as the remote worker told them
        assert [move for news in watch.news[record.id] for move in news.moves] == [(m.seat, m.move) for m in record.moves]
    assert sorted(watch.left) == sorted(r.id for r in records)
    assert live_workers() == []  # the pool's remote worker ended with it
    assert live_marked(marker) == []


def test_ctrl_c_during_the_check_in_exits_130_and_ends_the_remote_worker_and_its_seats(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from arbiter.cli import main

    port = free_port()  # no bot ever connects: the check-in waits a minute for it
    config = tmp_path / "absent.yaml"
    config.write_text(
        f"name: absent\nresults: {tmp_path / 'results'}\ngame: limit-nim\nsandbox: off\nplayers:\n"
        f"  - {{name: house, command: python {RANDOM_BOT}}}\n"
        f"  - {{name: student, transport: remote, bind: 'tcp://127.0.0.1:{port}', connect_wait_ms: 60000}}\n")
    note = Progress.note

    def pressed(self: Progress, message: str) -> None:  # Ctrl-C as the check-in says whom it waits for
        note(self, message)
        if message.startswith("waiting up to 60 s"):
            raise KeyboardInterrupt

    monkeypatch.setattr(Progress, "note", pressed)
    assert main(["run", str(config)]) == 130
    assert capsys.readouterr().err.endswith("arbiter run: interrupted\n")
    assert live_workers() == []  # the remote worker ended
    with socket.socket() as seat:  # and its seat's socket with it
        seat.bind(("127.0.0.1", port))
