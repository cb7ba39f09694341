"""Shared by the referee tests: bot commands, a unique marker per game, the process table."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path

from arbiter.games import find_game
from arbiter.records import GameRecord, Termination
from arbiter.referee import PlayerSpec, TimeControl, play_game
from arbiter.transport.sandbox import SandboxSpec, support

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
RANDOM_BOT = ROOT / "players" / "random_bot.py"
MARK = "ARBITER_TEST_MARK"


class StderrRead:
    """An `arbiter` run whose stderr is read as it comes (`text`: all of it so far), for a test
    that stops it; as a context, it kills a run the test left running and waits for the rest."""

    def __init__(self, run: subprocess.Popen[str]) -> None:
        self.run = run
        self.lines: list[str] = []
        self._reader = threading.Thread(target=lambda: self.lines.extend(run.stderr or ()), daemon=True)
        self._reader.start()

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def __enter__(self) -> StderrRead:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.run.poll() is None:
            self.run.kill()
            self.run.wait()
        self._reader.join(5)


def new_marker() -> str:
    """A value no other process on the machine carries in its environment."""
    return uuid.uuid4().hex


def bot(script: str | Path, name: str, marker: str, *args: str, time: TimeControl | None = None,
        **env: str) -> PlayerSpec:
    """A seat running a Python script from tests/bots (or a path), marked for the process scan."""
    path = script if isinstance(script, Path) else BOTS / script
    # Sandboxed (the default), a bot sees the files its command names: the test bots also
    # import their shared helper, `misbehave.py`, from their folder.
    return PlayerSpec(name=name, command=(sys.executable, str(path), *args),
                      env={MARK: marker, **env}, time=time, sandbox=SandboxSpec(read=(str(BOTS),)))


def honest(marker: str, seed: int = 1) -> PlayerSpec:
    """The random bot, seeded."""
    return bot(RANDOM_BOT, "random", marker, "--seed", str(seed))


def live_marked(marker: str, *, boxes: bool = True) -> list[int]:
    """Pids of live processes (zombies excluded) whose environment carries the marker; with
    `boxes=False`, not a sandbox's own processes, bubblewrap's and its keeper (only the bots' own)."""
    needle = f"{MARK}={marker}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                line = stat.read()
            if not boxes and (b"(bwrap)" in line or _is_keeper(int(name))):
                continue
            state = line.rsplit(b")", 1)[1].split()[0]
            with open(f"/proc/{name}/environ", "rb") as environ:
                env = environ.read()
        except OSError:
            continue
        if state != b"Z" and needle in env.split(b"\0"):
            found.append(int(name))
    return found


def _is_keeper(pid: int) -> bool:
    """Whether the process is a box's keeper (`spawn keeper ...`, or `python -I -S keeper.py ...`)."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:4]
    except OSError:
        return False
    return words[1:2] == [b"keeper"] or any(word.endswith(b"/transport/keeper.py") for word in words)


def process_state(pid: int) -> str:
    """A process's state letter as /proc shows it, but "T" (stopped) for a process whose box is
    frozen by the freezer control group (which /proc shows asleep). Raises OSError when gone."""
    state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0].decode()
    if state in ("S", "D", "R") and _frozen(pid):
        return "T"
    return state


def _frozen(pid: int) -> bool:
    """Whether the process is in a frozen control group (cgroup v2's cgroup.freeze, or v1's freezer)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers == "" and path != "/":
            for mount in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup"):  # beside v1, or alone
                events = Path(mount + path, "cgroup.events")
                if events.exists() and "frozen 1" in events.read_text():
                    return True
        if "freezer" in controllers.split(",") and path != "/":
            state = Path("/sys/fs/cgroup/freezer" + path, "freezer.state")
            if state.exists() and state.read_text().startswith("FROZEN"):
                return True
    return False


@dataclass(frozen=True)
class Fault:
    """A misbehaving bot of tests/bots and how the referee must end its game."""

    script: str
    termination: Termination
    detail: str  # a fragment of the record's detail sentence
    time: TimeControl | None = None  # the misbehaving seat's own time control
    env: dict[str, str] = field(default_factory=dict)


# The faults every transport must adjudicate the same way (the bots speak through the kit).
SHARED_FAULTS = [
    Fault("crash_bot.py", Termination.CRASH, "exited with status 3 before the game ended (last line on stderr: "
                                             "'crash_bot: giving up now')"),
    Fault("segfault_bot.py", Termination.CRASH, "was killed by SIGSEGV"),
    Fault("loop_bot.py", Termination.TIMEOUT, "ran out of time: it had 1000 ms", TimeControl(time_ms=1000)),
    Fault("sleep_bot.py", Termination.TIMEOUT, "ran out of time: it had 1000 ms", TimeControl(time_ms=1000)),
    Fault("sleep_bot.py", Termination.TIMEOUT, "per-move cap of 300 ms",
          TimeControl(time_ms=10000, move_ms=300), {"SLEEP_S": "2"}),
    Fault("illegal_bot.py", Termination.ILLEGAL, "played '1 99', which is illegal: pile 1 has limit"),
    # In a box with a memory control group the kernel kills it; otherwise an rlimit makes malloc fail.
    Fault("memory_bot.py", Termination.CRASH,
          "reached its memory limit of 200 MiB" if support().memory else "MemoryError",
          TimeControl(time_ms=5000, memory_mb=200)),
]


def play_fault(fault: Fault, number: int, time_control: TimeControl, log_dir: Path, *,
               transport: str = "pipe") -> tuple[GameRecord, int, float, str]:
    """Play limit-nim with `fault`'s bot in seat `number % 2` (so both seats take a turn at
    misbehaving) against an honest bot; returns the record, the offender, the seconds the
    game took once every bot had started (start-up is off the clock: docs/protocol.md,
    Start-up) and the marker to look for leftover processes with."""
    offender = number % 2
    marker = new_marker()
    culprit = replace(bot(fault.script, fault.script[:-3], marker, time=fault.time, **fault.env), transport=transport)
    other = replace(honest(marker), transport=transport)
    seats = [culprit, other] if offender == 0 else [other, culprit]
    started = time.monotonic()
    record = play_game(find_game("limit-nim"), seats, time=time_control, log_dir=log_dir)
    startup_s = max((ms or 0.0 for ms in record.startup_ms), default=0.0) / 1000
    return record, offender, time.monotonic() - started - startup_s, marker
