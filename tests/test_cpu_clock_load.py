"""Under `clock: cpu` a bot is judged by the CPU time it used: one that computes while other
programs hold the CPU (more games than cores, a loaded machine) is never cut off by the
wall-time cap that stops bots blocked without computing."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.games import find_game
from arbiter.records import Termination
from arbiter.referee import CPU_CLOCK_WALL_FACTOR, TimeControl, play_game
from arbiter.transport.sandbox import support
from referee_support import bot, honest, new_marker


@pytest.mark.parametrize("boxed", [False, True] if support().usable else [False])
def test_a_bot_starved_of_cpu_is_judged_by_its_cpu_time_not_cut_off_as_blocked(boxed: bool, tmp_path: Path) -> None:
    # Another program busy on the bot's CPU at a higher priority: the bot computes 10 ms of
    # CPU time over seconds of wall time, far past the wall cap, runnable all along.
    cpu = max(os.sched_getaffinity(0))
    hog = subprocess.Popen([sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"])
    try:
        budget = TimeControl(time_ms=100, clock="cpu")
        starved = bot("starved_bot.py", "starved", new_marker(), time=budget, STARVE_CPU=str(cpu), BURN_MS="10")
        if not boxed:
            starved = replace(starved, sandbox=None)
        record = play_game(find_game("limit-nim"), [starved, honest(new_marker())], time=TimeControl(time_ms=2000),
                           log_dir=tmp_path)
    finally:
        hog.kill()
        hog.wait()
    assert record.termination is Termination.NORMAL, record.detail
    slowest = max((m for m in record.moves if m.seat == 0 and not m.forced), key=lambda m: m.wall_ms)
    assert slowest.wall_ms > CPU_CLOCK_WALL_FACTOR * budget.time_ms  # where the wall cap alone cut it off
    assert record.time_used_ms[0] < budget.time_ms


def test_a_bot_blocked_without_computing_is_still_cut_off_by_the_wall_cap(tmp_path: Path) -> None:
    budget = TimeControl(time_ms=200, clock="cpu")
    sleeper = bot("sleep_bot.py", "sleeper", new_marker(), time=budget)
    record = play_game(find_game("limit-nim"), [sleeper, honest(new_marker())], time=TimeControl(time_ms=2000),
                       log_dir=tmp_path)
    assert (record.termination, record.offender) == (Termination.TIMEOUT, 0)
    assert "it was blocked, not computing" in record.detail
