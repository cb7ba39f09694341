"""Games under load: under `clock: cpu` a bot is judged by the CPU time it used, and one that
computes while other programs hold the CPU (more games than cores, a loaded machine) is never
cut off by the wall-time cap that stops bots blocked without computing; and a boxed bot
starts whatever the arbiter's other threads do with their files meanwhile."""
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
    # Another program busy on the bot's CPU at a higher priority: the bot computes 40 ms of
    # CPU time over seconds of wall time, far past the wall cap, runnable all along. The busy
    # program has a session (so a scheduling group) of its own: in the test's session, its
    # group's weight on that CPU would be shared with whatever else that session runs (other
    # tests, CPU burners beside the suite). The bot's share of its CPU was 1.4% on a quiet
    # machine and up to 2.9% beside four burners; past the cap means under 10% (40 ms in 400).
    # A box is a scheduling group of its own (its CPU cap's control group), whose weight its
    # bot's nice does not lower: against a box, the busy program's session raises its own
    # priority where it may (nice -15: 29,154 against the box's 1,024, a 3.4% share).
    cpu = max(os.sched_getaffinity(0))
    raise_priority = "open('/proc/self/autogroup', 'w').write('-15')" if boxed else "pass"
    hog = subprocess.Popen([sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{cpu}}})\n"
                            f"try:\n    {raise_priority}\nexcept OSError:\n    pass\nwhile True: pass"],
                           start_new_session=True)
    try:
        budget = TimeControl(time_ms=100, clock="cpu")
        starved = bot("starved_bot.py", "starved", new_marker(), time=budget, STARVE_CPU=str(cpu), BURN_MS="40")
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


# Run in an arbiter process of its own: descriptors 3 and 4 of the test process belong to
# whatever has them (a box started ahead holds its control group's files open), and closing or
# overwriting them there would break that, not test this.
_DESCRIPTORS_3_AND_4 = """
import os, sys, time
from arbiter.transport.pipe import launch_pipe_bot
from arbiter.transport.process import end_all
from arbiter.transport.sandbox import SandboxSpec
for fd in (3, 4):
    try:
        os.close(fd)
    except OSError:
        pass
if sys.argv[1] == "open":
    assert [os.open(os.devnull, os.O_RDWR), os.open(os.devnull, os.O_RDWR)] == [3, 4]
channel, process = launch_pipe_bot(("/bin/cat",), sandbox=SandboxSpec())
assert channel.send_lines(["ping"], time.monotonic() + 10) is None
print(channel.read_line(time.monotonic() + 10))
channel.close()
end_all([process], grace_s=1.0, term_grace_s=0.3)
"""


@pytest.mark.skipif(not support().usable, reason="no sandbox on this machine: boxed launches are not made")
@pytest.mark.parametrize("held", ["closed", "open"])
def test_a_boxed_bot_starts_whatever_descriptors_3_and_4_hold_in_the_arbiter(held: str) -> None:
    # The box's keeper puts the bot's pipes on 3 and 4 itself: the arbiter's own 3 and 4,
    # closed (as when another game's thread has just closed a file there) or open, play no part.
    done = subprocess.run([sys.executable, "-c", _DESCRIPTORS_3_AND_4, held], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert (done.returncode, done.stdout) == (0, "ping\n"), done.stderr
