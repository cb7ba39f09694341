"""The pipe channel and the process handle under the referee: lines, limits, deadlines, CPU."""
from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import termios
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from arbiter.transport import MAX_LINE_BYTES, TIMEOUT, BadLine, Closed
from arbiter.transport.pipe import PipeChannel, output_look
from arbiter.transport.priority import punctual
from arbiter.transport import process as process_module
from arbiter.transport import logs as logs_module
from arbiter.transport.process import BotProcess, end_all


@pytest.fixture
def pipes():
    """A channel reading `bot_out` and writing `bot_in`; the test plays the bot's side."""
    bot_in_r, bot_in_w = os.pipe()
    bot_out_r, bot_out_w = os.pipe()
    channel = PipeChannel(bot_in_w, bot_out_r)
    yield channel, bot_in_r, bot_out_w
    channel.close()
    for fd in (bot_in_r, bot_out_w):
        try:
            os.close(fd)
        except OSError:
            pass


def soon(seconds: float = 1.0) -> float:
    return time.monotonic() + seconds


def test_lines_are_split_wherever_the_writes_break(pipes) -> None:
    channel, _, bot_out = pipes
    os.write(bot_out, b"1 2\n3 ")
    assert channel.read_line(soon()) == "1 2"
    assert channel.read_line(time.monotonic()) is TIMEOUT  # half a line is not a line
    os.write(bot_out, b"4\r\n\n")
    assert channel.read_line(soon()) == "3 4\r"  # the referee strips surrounding whitespace
    assert channel.read_line(soon()) == ""  # and calls an empty line malformed


def test_a_look_with_a_past_deadline_finds_what_has_arrived_and_never_waits(pipes) -> None:
    channel, _, bot_out = pipes
    with punctual() as on_time:
        started = time.monotonic()
        assert channel.read_line(0.0) is TIMEOUT  # nothing written yet
        os.write(bot_out, b"1 2\n3 4\n")
        assert channel.read_line(0.0) == "1 2"  # waiting in the pipe
        assert channel.read_line(0.0) == "3 4"  # held by the channel
        assert channel.read_line(0.0) is TIMEOUT
        os.close(bot_out)
        assert isinstance(channel.read_line(0.0), Closed)
        looked = time.monotonic() - started
    if on_time:  # looks, never a wait: for a thread the machine runs when it wakes (priority.py)
        assert looked < 0.05


def test_one_look_at_every_seat_names_the_seats_that_wrote_out_of_turn(pipes) -> None:
    """The referee's check between turns: one look over every pipe names the channels that
    hold something, notes the quiet ones as seen empty, and names everyone when a channel
    already holds bytes or has finished (each is then read on its own, as before)."""
    first, _, first_out = pipes
    second_in_r, second_in_w = os.pipe()
    second_out_r, second_out_w = os.pipe()
    second = PipeChannel(second_in_w, second_out_r)
    try:
        look = output_look([first, second])
        before = time.monotonic()
        assert look() == []
        assert first._empty_at >= before and second._empty_at >= before
        os.write(second_out_w, b"1 1\n")
        assert look() == [1]
        assert second.read_line(0.0) == "1 1"
        assert look() == []
        os.write(first_out, b"2 2\n2 ")
        assert look() == [0]
        assert first.read_line(0.0) == "2 2"  # "2 " stays behind in the channel's buffer
        assert look() == [0, 1]
        assert first.read_line(0.0) is TIMEOUT and second.read_line(0.0) is TIMEOUT  # half a line is no line
        os.close(second_out_w)
        assert look() == [0, 1]  # the end of file is for `read_line` to say
        assert isinstance(second.read_line(0.0), Closed)
    finally:
        second.close()
        os.close(second_in_r)


def test_a_read_returns_at_its_deadline_not_before_and_barely_after(pipes) -> None:
    channel, _, _ = pipes
    with punctual() as on_time:
        started = time.monotonic()
        assert channel.read_line(started + 0.2) is TIMEOUT
        waited = time.monotonic() - started
    assert waited >= 0.2
    if on_time:  # "barely after" is the arbiter's to keep only where it may run when it wakes (priority.py)
        assert waited < 0.22


def test_a_line_over_4_kib_is_bad_and_a_10_mb_line_is_never_held_in_memory(pipes) -> None:
    channel, _, bot_out = pipes
    os.write(bot_out, b"x" * MAX_LINE_BYTES + b"\n")
    assert channel.read_line(soon()) == "x" * MAX_LINE_BYTES  # exactly 4 KiB is allowed

    ten_mb_line = b"y" * (10 << 20) + b"\n"  # allocated before memory is traced

    def flood() -> None:
        try:
            os.write(bot_out, ten_mb_line)
        except OSError:
            pass  # the channel stopped reading and closed the pipe

    writer = threading.Thread(target=flood)
    tracemalloc.start()
    writer.start()
    result = channel.read_line(soon(5))
    _, peak_bytes = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    channel.close()
    writer.join(5)
    assert isinstance(result, BadLine) and result.why == "a line longer than 4096 bytes"
    assert peak_bytes < 256 << 10
    assert channel.read_line(soon()) == result  # the channel is finished


def test_a_line_one_byte_over_4_kib_is_bad_though_it_comes_whole(pipes) -> None:
    channel, _, bot_out = pipes
    os.write(bot_out, b"x" * (MAX_LINE_BYTES + 1) + b"\n")  # one read, one line: the channel's quick way
    result = channel.read_line(soon())
    assert isinstance(result, BadLine) and result.why == "a line longer than 4096 bytes"


def test_invalid_utf8_is_a_bad_line(pipes) -> None:
    channel, _, bot_out = pipes
    os.write(bot_out, b"1 \xff\n")
    result = channel.read_line(soon())
    assert isinstance(result, BadLine) and result.why.startswith("not valid UTF-8")
    assert result.head == b"1 \xff"


def test_end_of_file_is_closed_even_after_half_a_line(pipes) -> None:
    channel, _, bot_out = pipes
    os.write(bot_out, b"1 2")
    os.close(bot_out)
    assert isinstance(channel.read_line(soon()), Closed)


def test_sending_to_a_bot_that_never_reads_times_out_at_the_deadline(pipes) -> None:
    channel, bot_in, _ = pipes
    with punctual() as on_time:
        started = time.monotonic()
        assert channel.send_lines(["1 2" * 1000] * 100, started + 0.2) is TIMEOUT  # 300 KB > a pipe's 64 KiB
        waited = time.monotonic() - started
    assert waited >= 0.2
    if on_time:  # as above
        assert waited < 0.25
    os.close(bot_in)
    assert isinstance(channel.send_lines(["Quit"], soon()), Closed)


BUSY = "import sys\nsys.stdout.write('ready\\n'); sys.stdout.flush()\nwhile True: pass\n"


def test_a_process_is_suspended_and_resumed_and_its_cpu_time_measured(tmp_path: Path) -> None:
    process, stdin_fd, stdout_fd = BotProcess.launch([sys.executable, "-c", BUSY], log_path=tmp_path / "busy.log")
    channel = PipeChannel(stdin_fd, stdout_fd)
    try:
        assert channel.read_line(soon(5)) == "ready"
        before_ms = process.cpu_ms()
        given_up = time.monotonic() + 60  # it spins: on a loaded machine its 50 ms take longer
        while process.cpu_ms() - before_ms <= 50 and time.monotonic() < given_up:
            time.sleep(0.01)
        assert process.cpu_ms() - before_ms > 50  # it was spinning, and its CPU time was measured
        process.suspend()
        _wait_for_state(process.pid, "T")  # SIGSTOP lands asynchronously
        stopped_ms = process.cpu_ms()
        time.sleep(0.1)
        assert process.cpu_ms() - stopped_ms < 1
        process.resume()
        assert _state(process.pid) in ("R", "S")
    finally:
        channel.close()
        process.suspend()  # a stopped process must still be killable
        end_all([process], grace_s=0, term_grace_s=0.1)
    assert process.exit_status() == -9 or process.exit_status() == -15
    assert not Path(f"/proc/{process.pid}").exists()


# Waits for a line, then runs a child that burns 150 ms of CPU and waits for it (from a
# second thread when THREAD is set), says `done` and waits again.
CHILD_RUNNER = """
import os, subprocess, sys, threading
BURN = "import time\\nend = time.process_time() + 0.15\\nwhile time.process_time() < end: pass\\n"
def run():
    subprocess.run([sys.executable, "-c", BURN], check=True)
sys.stdout.write("ready\\n"); sys.stdout.flush()
for line in sys.stdin:
    if os.environ.get("THREAD"):
        worker = threading.Thread(target=run); worker.start(); worker.join()
    else:
        run()
    sys.stdout.write("done\\n"); sys.stdout.flush()
"""


@pytest.mark.parametrize("from_thread", [False, True], ids=["main thread", "second thread"])
def test_a_child_started_and_reaped_between_two_readings_counts(tmp_path: Path, from_thread: bool,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # The readings before found the bot alone, and no periodic full reading comes to the rescue:
    # that a pid was handed out is what says the bot may have had a child.
    monkeypatch.setattr(process_module, "CPU_RECHECK_S", 3600.0)
    env = {"THREAD": "1"} if from_thread else {}
    process, stdin_fd, stdout_fd = BotProcess.launch([sys.executable, "-c", CHILD_RUNNER], env=env)
    channel = PipeChannel(stdin_fd, stdout_fd)
    try:
        assert channel.read_line(soon(5)) == "ready"
        readings = [process.cpu_ms() for _ in range(3)]
        assert readings == sorted(readings)
        assert channel.send_lines(["go"], soon()) is None
        assert channel.read_line(soon(10)) == "done"
        assert process.cpu_ms() - readings[-1] >= 140  # the child's 150 ms, in 10 ms ticks
    finally:
        channel.close()
        end_all([process], grace_s=1, term_grace_s=0.1)


def test_a_child_that_raced_a_reading_is_counted_at_the_next_full_reading(tmp_path: Path) -> None:
    # The race itself cannot be staged: the bot is made to look alone while its child runs.
    process, stdin_fd, stdout_fd = BotProcess.launch([sys.executable, "-c", CHILD_RUNNER])
    channel = PipeChannel(stdin_fd, stdout_fd)
    try:
        assert channel.read_line(soon(5)) == "ready"
        assert channel.send_lines(["go"], soon()) is None
        time.sleep(0.1)  # the child is burning CPU
        with_child_ms = process.cpu_ms()
        process._alone_since = os.pread(process._last_pid_fd, 32, 0)  # as if a raced reading found it alone
        process._alone_checked = time.monotonic()
        assert process.cpu_ms() < with_child_ms  # the bot's own time only, for now
        time.sleep(process_module.CPU_RECHECK_S)
        assert process.cpu_ms() >= with_child_ms  # the child is seen again
    finally:
        channel.close()
        end_all([process], grace_s=0, term_grace_s=0.1)


def _wait_for_state(pid: int, state: str) -> None:
    deadline = time.monotonic() + 2
    while _state(pid) != state:
        assert time.monotonic() < deadline, f"process {pid} never reached state {state}"
        time.sleep(0.001)


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0].decode()


@pytest.mark.parametrize("sandbox", [False, True])
def test_bots_launched_side_by_side_outlive_the_thread_that_asked(sandbox: bool) -> None:
    # An unboxed bot's parent-death signal and bubblewrap's --die-with-parent fire when the
    # thread that forked them ends: the launches must not run on threads that end with a game.
    from arbiter.transport.process import launch_side_by_side
    from arbiter.transport.sandbox import SandboxSpec, support
    if sandbox and not support().usable:
        pytest.fail(support().describe())
    spec = SandboxSpec() if sandbox else None
    launched: list = []
    asker = threading.Thread(target=lambda: launched.extend(launch_side_by_side(
        [lambda: BotProcess.launch(["cat"], sandbox=spec) for _ in range(3)])))
    asker.start()
    asker.join()
    assert len(launched) == 3 and not any(isinstance(outcome, BaseException) for outcome in launched), launched
    processes = [process for process, _, _ in launched]
    try:
        time.sleep(0.3)
        assert [process.exit_status() for process in processes] == [None] * 3
        assert len({process.pid for process in processes}) == 3
    finally:
        for _, stdin_fd, stdout_fd in launched:
            os.close(stdin_fd)
            os.close(stdout_fd)
        end_all(processes, grace_s=1.0, term_grace_s=0.2)


def test_a_launch_that_fails_side_by_side_is_handed_back_and_the_others_still_start() -> None:
    from arbiter.transport.process import LaunchError, launch_side_by_side
    outcomes = launch_side_by_side([lambda: BotProcess.launch(["cat"]),
                                    lambda: BotProcess.launch(["/no/such/bot"])])
    assert isinstance(outcomes[1], LaunchError) and "/no/such/bot" in str(outcomes[1])
    process, stdin_fd, stdout_fd = outcomes[0]
    assert process.exit_status() is None
    os.close(stdin_fd)
    os.close(stdout_fd)
    end_all([process], grace_s=1.0, term_grace_s=0.2)


def test_boxes_sharing_a_writable_folder_that_does_not_exist_yet_start_side_by_side(tmp_path: Path) -> None:
    # Two seats of perfect_dp share its cache folder (configs/boxes-3x3.yaml): the first box
    # to start makes it, and the second must not fail because it appeared meanwhile.
    from arbiter.transport.process import launch_side_by_side
    from arbiter.transport.sandbox import SandboxSpec, support
    if not support().usable:
        pytest.fail(support().describe())
    for attempt in range(5):
        shared = tmp_path / f"cache-{attempt}" / "perfect_dp"
        spec = SandboxSpec(write=(str(shared),))
        outcomes = launch_side_by_side([lambda: BotProcess.launch(["cat"], sandbox=spec) for _ in range(4)])
        failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        launched = [outcome for outcome in outcomes if not isinstance(outcome, BaseException)]
        for _, stdin_fd, stdout_fd in launched:
            os.close(stdin_fd)
            os.close(stdout_fd)
        end_all([process for process, _, _ in launched], grace_s=1.0, term_grace_s=0.2)
        assert failures == [] and shared.is_dir()


def test_a_forked_child_launches_side_by_side_on_threads_of_its_own() -> None:
    # The launcher threads are the parent's: a child forked after them (multiprocessing's
    # default on Linux) must start its own, not queue launches for threads it does not have.
    from arbiter.transport.process import launch_side_by_side
    # Launches slow enough for the parent to start a thread for each, idle afterwards.
    assert launch_side_by_side([lambda: time.sleep(0.1) or 1 for _ in range(3)]) == [1, 1, 1]
    pid = os.fork()
    if pid == 0:
        try:
            done = threading.Event()
            threading.Thread(target=lambda: (launch_side_by_side([lambda: 1, lambda: 2]), done.set()),
                             daemon=True).start()
            os._exit(0 if done.wait(10) else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


# --- the stderr drains ---------------------------------------------------------------

def _drain_over_pipe(log_path: Path | None, cap_bytes: int = logs_module.LOG_CAP_BYTES):
    """A drain reading a new pipe; the test holds the write end, as a bot's stderr."""
    read_fd, write_fd = os.pipe()
    return logs_module.StderrDrain(read_fd, log_path, cap_bytes), write_fd


def _reader_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "stderr-reader"]


def test_every_drain_is_read_by_one_thread_and_each_ends_at_its_own_end_of_file(tmp_path: Path) -> None:
    started, write_fd = _drain_over_pipe(None)  # the reader is started
    os.close(write_fd)
    assert started.wait_eof(5)
    threads_before = set(threading.enumerate())
    drains = [_drain_over_pipe(tmp_path / f"{n}.log") for n in range(20)]
    assert set(threading.enumerate()) <= threads_before and len(_reader_threads()) == 1  # no new thread
    for n, (drain, write_fd) in enumerate(drains):
        os.write(write_fd, f"bot {n} says hello\n".encode())
        if n % 2 == 0:
            os.close(write_fd)
    assert all(drain.wait_eof(5) for drain, _ in drains[::2])
    assert not any(drain.wait_eof(0) for drain, _ in drains[1::2])  # their writers are still there
    for drain, write_fd in drains[1::2]:
        os.close(write_fd)
    assert all(drain.wait_eof(5) for drain, _ in drains[1::2])
    for n, (drain, _) in enumerate(drains):
        assert (tmp_path / f"{n}.log").read_bytes() == f"bot {n} says hello\n".encode()
        assert drain.last_line() == f"bot {n} says hello" and drain.logged_bytes == len(drain.last_line()) + 1
    assert set(threading.enumerate()) <= threads_before


FLOOD = "import os\nchunk = b'x' * 65536\nwhile True:\n    os.write(2, chunk)\n"


def test_a_bot_flooding_its_stderr_never_holds_up_another_drain(tmp_path: Path) -> None:
    flooder = subprocess.Popen([sys.executable, "-c", FLOOD], stderr=subprocess.PIPE)
    assert flooder.stderr is not None
    flood = logs_module.StderrDrain(os.dup(flooder.stderr.fileno()), tmp_path / "flood.log", cap_bytes=10_000)
    flooder.stderr.close()
    try:
        # The flood is under way: past its cap, read and discarded.
        given_up = time.monotonic() + 10
        while flood.discarded_bytes < 1 << 20 and time.monotonic() < given_up:
            time.sleep(0.01)
        assert flood.discarded_bytes >= 1 << 20
        quiet, write_fd = _drain_over_pipe(tmp_path / "quiet.log")
        os.write(write_fd, b"last words\n")
        os.close(write_fd)
        assert quiet.wait_eof(10)  # while the flood goes on
        assert flooder.poll() is None and not flood.wait_eof(0)
        assert quiet.last_line() == "last words"
    finally:
        flooder.kill()
        flooder.wait()
    assert flood.wait_eof(10)
    log = (tmp_path / "flood.log").read_bytes()
    assert log.startswith(b"x" * 10_000 + b"\n[arbiter: log truncated at 10000 bytes; further output is discarded]\n")
    assert log.endswith(f"[arbiter: {flood.discarded_bytes} bytes discarded]\n".encode())
    assert flood.logged_bytes == 10_000 and flood.problem is None
    assert (tmp_path / "quiet.log").read_bytes() == b"last words\n"


def test_the_reader_takes_one_chunk_a_pass_from_each_ready_pipe(tmp_path: Path) -> None:
    # A backlog of 1 MiB and another pipe's end of file, ready together: the end of file is
    # seen after a few of the backlog's chunks, not after all of them. The reader is held in
    # the flooding drain's lock (it has read a first chunk) while both are queued.
    flood, flood_fd = _drain_over_pipe(None, cap_bytes=0)
    fcntl.fcntl(flood_fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    chunk_bytes = logs_module._READ_CHUNK_BYTES
    chunk = b"x" * chunk_bytes
    os.write(flood_fd, b"x")
    _wait_until_read(flood._fd)  # the drain is registered
    with flood._log_lock:
        os.write(flood_fd, chunk)
        _wait_until_read(flood._fd)  # and the reader waits for the lock
        for _ in range(15):
            os.write(flood_fd, chunk)
        quiet, quiet_fd = _drain_over_pipe(None)
        os.write(quiet_fd, b"last words\n")
        os.close(quiet_fd)
        flood_read_at_end: list[int] = []
        end = quiet._end
        quiet._end = lambda: (flood_read_at_end.append(flood.discarded_bytes), end())
    assert quiet.wait_eof(10) and quiet.last_line() == "last words"
    assert flood_read_at_end and flood_read_at_end[0] <= 6 * chunk_bytes  # of 16
    os.close(flood_fd)
    assert flood.wait_eof(10) and flood.discarded_bytes == 1 + 16 * chunk_bytes


def _wait_until_read(fd: int) -> None:
    """Wait until nothing is left in a pipe (FIONREAD: how many bytes wait in it)."""
    given_up = time.monotonic() + 10
    while struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]:
        assert time.monotonic() < given_up, "the reader never read the pipe"
        time.sleep(0.001)


def test_a_log_that_cannot_be_written_loses_the_log_not_the_pipe(tmp_path: Path) -> None:
    # /dev/full opens, and every write to it fails (ENOSPC); a missing folder fails to open.
    full, full_fd = _drain_over_pipe(Path("/dev/full"))
    missing, missing_fd = _drain_over_pipe(tmp_path / "no" / "such.log", cap_bytes=1000)
    for write_fd in (full_fd, missing_fd):
        for _ in range(4):  # four pipes' worth: it would block if nobody read it
            os.write(write_fd, b"e" * 65536)
        os.close(write_fd)
    assert full.wait_eof(10) and missing.wait_eof(10)
    assert full.problem == "its log /dev/full could not be written: No space left on device"
    assert missing.problem is not None and "no/such.log could not be written" in missing.problem
    assert full.logged_bytes + full.discarded_bytes == missing.logged_bytes + missing.discarded_bytes == 4 * 65536
    # An unforeseen error in one drain's step (the arbiter's own bug) costs that drain its log.
    broken, broken_fd = _drain_over_pipe(tmp_path / "broken.log")
    broken._keep = lambda chunk: 1 / 0
    os.write(broken_fd, b"e" * 4 * 65536)
    os.close(broken_fd)
    assert broken.wait_eof(10) and broken.problem is not None and "ZeroDivisionError" in broken.problem
    # The reader outlived all three: another drain is still read.
    after, write_fd = _drain_over_pipe(tmp_path / "after.log")
    os.write(write_fd, b"fine\n")
    os.close(write_fd)
    assert after.wait_eof(10) and (tmp_path / "after.log").read_bytes() == b"fine\n"


def test_finish_gives_up_on_a_pipe_an_escaped_process_holds_and_closes_it(tmp_path: Path) -> None:
    drain, write_fd = _drain_over_pipe(tmp_path / "held.log")
    os.write(write_fd, b"still here\n")
    _wait_until_read(drain._fd)
    drain.finish(0.05)  # the writer never goes away
    assert drain.wait_eof(10)  # ended by the stop, not by an end of file
    assert (tmp_path / "held.log").read_bytes() == b"still here\n"
    with pytest.raises(BrokenPipeError):  # the read end is closed: the writer is not left blocked
        os.write(write_fd, b"more\n")
    os.close(write_fd)


def test_a_forked_child_drains_on_a_reader_thread_of_its_own(tmp_path: Path) -> None:
    parent, write_fd = _drain_over_pipe(None)  # the parent's reader thread exists
    pid = os.fork()
    if pid == 0:
        try:
            drain, child_write_fd = _drain_over_pipe(tmp_path / "child.log")
            os.write(child_write_fd, b"from the child\n")
            os.close(child_write_fd)
            ok = drain.wait_eof(10) and (tmp_path / "child.log").read_bytes() == b"from the child\n"
            os._exit(0 if ok and len(_reader_threads()) == 1 else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    os.close(write_fd)
    assert parent.wait_eof(5)  # the parent's own reader goes on serving its drains
