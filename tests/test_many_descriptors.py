"""An arbiter running many games at once holds many descriptors (each bot's pipes, pidfd, /proc
and control-group files; each box waiting for its bot): at concurrency 16 it passed 1024,
where `select` stops working and where many machines set the soft limit. Games are played
whatever the descriptors' numbers, and the arbiter raises its own limit."""
from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys

import pytest

from arbiter.games import find_game
from arbiter.referee import PlayerSpec, TimeControl, play_game
from arbiter.transport.process import OPEN_FILES_WANTED
from arbiter.transport.sandbox import SandboxSpec, support
from arbiter.transport.waits import SELECT_LIMIT
from referee_support import MARK, live_marked, new_marker

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NIM_BOT = os.path.join(ROOT, "players", "nim_greedy.py")


@pytest.fixture
def descriptors_past_select() -> None:
    """Every descriptor the test opens from here on is numbered past SELECT_LIMIT."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = SELECT_LIMIT + 400
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"this machine lets a process hold at most {hard} descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    fillers = []
    try:
        while True:
            fd = os.open(os.devnull, os.O_RDONLY)
            fillers.append(fd)
            if fd >= SELECT_LIMIT + 20:
                break
        yield
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.parametrize("boxed", [True, False], ids=["boxed", "unboxed"])
def test_a_game_is_played_when_the_arbiters_descriptors_pass_1024(descriptors_past_select, boxed: bool) -> None:
    if boxed:
        assert support().usable, support().describe()
    bot = PlayerSpec(name="greedy", command=(sys.executable, NIM_BOT), sandbox=SandboxSpec() if boxed else None)
    record = play_game(find_game("limit-nim", piles="7/2"), [bot, bot], time=TimeControl(time_ms=10000))
    assert record.termination.value == "normal", record.detail


def test_the_arbiter_raises_its_limit_on_open_descriptors_at_its_first_launch() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip(f"this machine lets a process hold at most {hard} descriptors")
    script = (
        "import os, resource\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
        "from arbiter.transport.process import BotProcess\n"
        "bot, stdin_fd, stdout_fd = BotProcess.launch(['/bin/true'])\n"
        "bot.wait_exit(10.0)\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    expected = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(OPEN_FILES_WANTED, hard)
    assert int(done.stdout.split()[-1]) == expected


def test_a_bot_is_not_blamed_when_the_arbiter_has_no_descriptors_left() -> None:
    """A launch that fails because the arbiter ran out of descriptors is the arbiter's fault
    (an OSError: in a tournament, said, no bot blamed, the game played again on resume), not
    the bot's crash: it used to be recorded as `could not be started: ... cannot be read (Too
    many open files)`, against whichever bot was launched then."""
    assert support().usable, support().describe()
    bot = PlayerSpec(name="greedy", command=(sys.executable, NIM_BOT), sandbox=SandboxSpec())
    game = find_game("limit-nim", piles="7/2")
    play_game(game, [bot, bot], time=TimeControl(time_ms=10000))  # the arbiter's first launches are behind it
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    fillers: list[int] = []
    outcome: object = None
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 64, hard))
        while True:  # every descriptor the limit allows, taken
            try:
                fillers.append(os.open(os.devnull, os.O_RDONLY))
            except OSError:
                break
        try:
            outcome = play_game(game, [bot, bot], time=TimeControl(time_ms=10000))
        except OSError as exc:
            outcome = exc
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert isinstance(outcome, OSError), f"a bot was blamed: {getattr(outcome, 'detail', outcome)}"
    assert outcome.errno == errno.EMFILE


@pytest.mark.parametrize("boxed", [True, False], ids=["boxed", "unboxed"])
def test_a_launch_that_fails_after_its_bot_started_leaves_no_bot_running(monkeypatch, boxed: bool) -> None:
    """A launch can fail after the bot's process has started (the arbiter out of descriptors
    when it takes the bot's pipes): the bot is ended then, not left running unowned for as
    long as the arbiter runs."""
    import time
    from arbiter.transport import process as process_module
    if boxed:
        assert support().usable, support().describe()

    def short_of_descriptors(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EMFILE, "Too many open files")

    marker = new_marker()
    spec = SandboxSpec() if boxed else None

    def launch() -> tuple[process_module.BotProcess, int, int]:
        return process_module.BotProcess.launch(["/bin/sleep", "60"], env={MARK: marker}, sandbox=spec)

    bot, stdin_fd, stdout_fd = launch()
    try:  # such a bot is seen running, when its launch succeeds
        deadline = time.monotonic() + 10
        while not live_marked(marker, boxes=False) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live_marked(marker, boxes=False)
    finally:
        os.close(stdin_fd)
        os.close(stdout_fd)
        bot.kill_tree()
        bot.close()
    monkeypatch.setattr(process_module, "StderrDrain", short_of_descriptors)  # the launch's first step after the start
    with pytest.raises(OSError):
        launch()
    time.sleep(1.0)  # long enough for a box left behind to have started its bot
    deadline = time.monotonic() + 10
    while live_marked(marker, boxes=False) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not live_marked(marker, boxes=False), "the bot of a failed launch is still running"
