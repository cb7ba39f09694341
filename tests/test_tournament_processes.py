"""Tournaments with real bot processes: kill -9 and Ctrl-C leave no bot behind, and resume exactly."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tournament_helpers import ROOT, write_config

SLOW_BOT = ROOT / "tests" / "bots" / "slow_random_bot.py"


def config_body(marker: str, slow_ms: int) -> str:
    players = "\n".join(
        f"  - {{name: {name}, command: python {SLOW_BOT} --seed {seed}, "
        f"env: {{ARBITER_TEST_MARK: {marker}, SLOW_MS: '{slow_ms}'}}}}"
        for name, seed in (("a", 1), ("b", 2), ("c", 3))
    )
    return (f"game: limit-nim\ngames_per_pairing: 4\nconcurrency: 2\n"
            f"openings: {{random_moves: 1, seed: 4}}\nplayers:\n{players}\n")


def processes_marked(marker: str) -> list[int]:
    """Pids of live processes whose environment carries the marker (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"ARBITER_TEST_MARK={marker}".encode() not in (entry / "environ").read_bytes():
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found


def ignored_signals(pid: int) -> set[int]:
    """The signals a live process ignores (its SigIgn mask); empty for one gone meanwhile."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return set()
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)
    return {signum for signum in range(1, 65) if mask >> (signum - 1) & 1}


def wait_for(predicate, timeout_s: float) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def arbiter(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "arbiter", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def results(folder: Path) -> list[tuple]:
    lines = (folder / "results" / "games.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    return sorted((r["id"], tuple(r["scores"]), r["winner"], r["termination"]) for r in records)


def recorded(folder: Path) -> int:
    path = folder / "results" / "games.jsonl"
    return path.read_text().count("\n") if path.exists() else 0


def test_kill_9_mid_tournament_leaves_no_bot_and_resumes_exactly(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    whole_dir, killed_dir = tmp_path / "whole", tmp_path / "killed"
    whole_dir.mkdir()
    killed_dir.mkdir()
    whole = arbiter("run", str(write_config(whole_dir, config_body(marker, 2))), "--quiet")
    assert whole.wait(timeout=120) == 0, whole.stderr.read()

    path = write_config(killed_dir, config_body(marker, 40))
    run = arbiter("run", str(path))
    assert wait_for(lambda: recorded(killed_dir) >= 3, 60)
    assert wait_for(lambda: len(processes_marked(marker)) >= 2, 10)  # games are running
    run.kill()  # kill -9: no chance to clean up
    run.wait()
    assert wait_for(lambda: not processes_marked(marker), 5), "bot processes outlived the arbiter"

    resumed = arbiter("run", str(path), "--quiet")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert "resuming:" in err
    assert results(killed_dir) == results(whole_dir)  # nothing lost, nothing counted twice
    assert "a " in out and "Crosstable" in out


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    path = write_config(tmp_path, config_body(marker, 40))
    run = arbiter("run", str(path))
    assert wait_for(lambda: recorded(tmp_path) >= 2, 60)
    assert wait_for(lambda: len(processes_marked(marker)) >= 2, 10)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=20)
    assert run.returncode == 130, err
    assert "To resume, run the same command again" in err
    # Killed bots may take a moment to be reaped by the system after the arbiter exits.
    assert wait_for(lambda: not processes_marked(marker), 2), f"bots outlived Ctrl-C: {processes_marked(marker)}"
    before = recorded(tmp_path)
    assert all(json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines())
    assert before < 12


@pytest.mark.parametrize("signum, whole_group", [(signal.SIGTERM, False), (signal.SIGTERM, True), (signal.SIGHUP, False)],
                         ids=["sigterm", "sigterm-to-the-process-group", "sighup"])
def test_sigterm_and_sighup_stop_a_run_as_ctrl_c_does(tmp_path: Path, signum: int, whole_group: bool) -> None:
    # `kill`, `timeout` and a service manager stop the arbiter with SIGTERM (systemd sends it to
    # every process of the service: its workers and zygote too); a closed terminal with SIGHUP.
    marker = uuid.uuid4().hex
    path = write_config(tmp_path, config_body(marker, 40))
    # (born with SIGHUP at its default, whatever this test's runner ignores: nohup's is kept)
    run = arbiter("run", str(path), start_new_session=True,
                  preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
    assert wait_for(lambda: recorded(tmp_path) >= 2, 60)
    assert wait_for(lambda: len(processes_marked(marker)) >= 2, 10)
    # The bots are born with these signals at their default, whatever the arbiter's processes do with them.
    for pid in processes_marked(marker):
        assert ignored_signals(pid) & {signal.SIGINT, signal.SIGTERM, signal.SIGHUP} == set(), pid
    if whole_group:
        os.killpg(run.pid, signum)
    else:
        run.send_signal(signum)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "To resume, run the same command again" in err and "Traceback" not in err
    assert wait_for(lambda: not processes_marked(marker), 5), f"bots outlived the stop: {processes_marked(marker)}"
    lines = (tmp_path / "results" / "games.jsonl").read_text().splitlines()
    # The games running were abandoned, not recorded as void (their workers were not killed).
    assert [json.loads(line)["termination"] for line in lines if json.loads(line)["termination"] == "void"] == []
    resumed = arbiter("run", str(path), "--quiet")
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert recorded(tmp_path) == 12
