"""A seat takes exactly its own bot's connection (issue 38): a launched bot that floods its seat
with connections is faulted, or reaches nothing, and the tournament around it completes with the
arbiter alive; strangers flooding a remote player's port do not make other games fail.

Each `arbiter run` here is a process of its own whose descriptor limit is lowered to
ARBITER_FILES, well under the flood (1,200 connections), so that a seat taking every connection
would run the arbiter out of descriptors (libzmq aborted it: exit 134)."""
from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arbiter.transport.keys import KeyPair, write_key_pair
from arbiter.transport.sandbox import support
from referee_support import BOTS, MARK, RANDOM_BOT, live_marked, new_marker

ARBITER_FILES = 256  # RLIMIT_NOFILE of the arbiter under test: a game of two zmq bots needs far fewer
FLOOD = {"HELPERS": "6", "PER_HELPER": "200"}  # 1,200 connections


def run_arbiter(config: Path, marker: str, timeout_s: float = 240) -> tuple[subprocess.CompletedProcess[str], int]:
    """`arbiter run CONFIG` with ARBITER_FILES descriptors; its result and the most it held open at once."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (ARBITER_FILES, ARBITER_FILES))

    process = subprocess.Popen([sys.executable, "-m", "arbiter", "run", str(config)], env={**os.environ, MARK: marker},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    peak, done = [0], threading.Event()

    def watch() -> None:  # how many descriptors it holds, looked at every few milliseconds
        while not done.wait(0.005):
            try:
                peak[0] = max(peak[0], len(os.listdir(f"/proc/{process.pid}/fd")))
            except OSError:
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        out, err = process.communicate(timeout=timeout_s)
    finally:
        done.set()
        watcher.join()
        if process.poll() is None:
            process.kill()
            process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), peak[0]


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results" / "games.jsonl").read_text().splitlines()]


def player(name: str, script: Path, *, transport: str, env: dict[str, str] | None = None) -> str:
    keys = {"name": name, "command": f"python {script}", "transport": transport, "env": env or {}}
    return f"  - {json.dumps(keys)}\n"


BOXED = pytest.param(True, id="boxed", marks=pytest.mark.skipif(not support().usable, reason="no sandbox here"))


@pytest.mark.parametrize("boxed", [BOXED, pytest.param(False, id="unboxed")])
@pytest.mark.parametrize("when", ["start", "move"])
def test_a_bot_flooding_its_own_seat_is_faulted_or_reaches_nothing_and_the_tournament_completes(
        boxed: bool, when: str, tmp_path: Path) -> None:
    """`start`: its helpers' connections wait at the seat before its own: it is faulted for a
    second connection when one was at the door with the first, or else on time at start-up, its
    seat held by a silent connection of its own that never says hello. `move`: its seat took its
    one connection and takes no more: the flood reaches nothing and it plays on. Either way every
    game is recorded, none blamed on its opponent, and the arbiter stays within its descriptors."""
    marker = new_marker()
    config = tmp_path / "flood.yaml"
    config.write_text(f"name: flood\nresults: results\ngame: limit-nim\ngames_per_pairing: 2\nconcurrency: 1\n"
                      f"sandbox: {'on' if boxed else 'off'}\ntime: {{time_ms: 20000}}\nplayers:\n"
                      + player("flooder", BOTS / "zmq_flood_bot.py", transport="zmq",
                               env={**FLOOD, "FLOOD_WHEN": when})
                      + player("random", RANDOM_BOT, transport="zmq"))
    result, peak = run_arbiter(config, marker)
    assert result.returncode == 0, result.stderr[-3000:]
    games = records(tmp_path)
    assert len(games) == 2, result.stdout[-2000:]
    for game in games:
        flooder = [p["name"] for p in game["players"]].index("flooder")
        if when == "start":  # a second connection at the door, or only a silent one: its seat never heard it
            assert game["offender"] == flooder, game["detail"]
            why = {"crash": "made a second connection to its seat", "timeout": "did not finish starting"}
            assert why.get(game["termination"], "?") in game["detail"], game["detail"]
        else:
            assert game["termination"] == "normal", game["detail"]
    assert peak < ARBITER_FILES - 32, peak  # nowhere near its limit: the flood cost it nothing
    assert live_marked(marker) == []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Stranger(threading.Thread):
    """Opens silent TCP connections to a port and holds them, `most` at a time, until stopped."""

    def __init__(self, port: int, most: int) -> None:
        super().__init__(daemon=True)
        self.port, self.most, self.stop = port, most, threading.Event()
        self.held: list[socket.socket] = []

    def run(self) -> None:
        while not self.stop.is_set():
            if len(self.held) >= self.most:  # the oldest go, so that the flood keeps knocking
                self.held.pop(0).close()
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.connect(("127.0.0.1", self.port))
            except BlockingIOError:
                pass
            self.held.append(sock)
            self.stop.wait(0.001)
        for sock in self.held:
            sock.close()


def test_a_stranger_flooding_a_remote_player_s_port_does_not_make_other_games_fail(tmp_path: Path) -> None:
    """~1,500 silent connections without a key to a remote player's port, once its bot is in:
    each is dropped within the seat's handshake interval and the seat takes only so many at
    once, so the arbiter keeps the descriptors its other games need (it used to hold each for
    libzmq's 30 s, and 34 local games became arbiter faults in 15 s)."""
    marker, port = new_marker(), free_port()
    arbiter_keys, _ = write_key_pair(tmp_path, "arbiter", KeyPair.generate())
    guest_pair = KeyPair.generate()
    guest_keys, _ = write_key_pair(tmp_path, "guest", guest_pair)
    endpoint = f"tcp://127.0.0.1:{port}"
    config = tmp_path / "remote.yaml"
    remote = {"name": "guest", "transport": "remote", "bind": endpoint, "public_key": guest_pair.public}
    config.write_text("name: remote\nresults: results\ngame: limit-nim\ngames_per_pairing: 4\nconcurrency: 2\n"
                      f"arbiter_keys: {arbiter_keys}\ntime: {{time_ms: 20000}}\nplayers:\n"
                      + f"  - {json.dumps(remote)}\n"
                      + "".join(player(name, RANDOM_BOT, transport="pipe") for name in ("a", "b", "c")))
    guest = subprocess.Popen([sys.executable, str(RANDOM_BOT), "--connect", endpoint, "--serve", "--keys",
                              str(guest_keys), "--server-key", str(arbiter_keys)],
                             env={**os.environ, MARK: marker}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    stranger = Stranger(port, most=1500)
    games = tmp_path / "results" / "games.jsonl"

    def flood_once_the_guest_played() -> None:  # after the check-in, which a flooded seat could miss
        while not (games.exists() and games.stat().st_size) and not stranger.stop.is_set():
            stranger.stop.wait(0.01)
        stranger.start()

    starter = threading.Thread(target=flood_once_the_guest_played, daemon=True)
    starter.start()
    try:
        result, peak = run_arbiter(config, marker)
    finally:
        stranger.stop.set()
        starter.join()
        if stranger.is_alive():
            stranger.join()
        guest.kill()
        guest.wait()
    assert result.returncode == 0, result.stderr[-3000:]
    played = records(tmp_path)
    assert len(played) == 24, (result.stdout[-3000:], [(g["termination"], g["detail"][:120]) for g in played])
    for game in played:
        names = [p["name"] for p in game["players"]]
        if "guest" not in names:
            assert game["termination"] == "normal", game["detail"]
        else:  # its own seat was knocked at: whatever happened there is no one else's fault
            assert game["termination"] == "normal" or game["offender"] == names.index("guest"), game["detail"]
    assert peak < ARBITER_FILES - 32, peak
    assert live_marked(marker) == []
