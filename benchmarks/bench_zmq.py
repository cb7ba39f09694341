#!/usr/bin/env python3
"""Moves over ZeroMQ beside moves over pipes, and the arbiter's zmq cost beside bare pyzmq.

All in one run, interleaved, so a load spike hits every kind alike:
- Bare pyzmq ping-pong: this process (a ROUTER bound on loopback, as the arbiter's seat)
  and an echo process (a DEALER, as a bot) exchange one 3-byte message at a time with
  blocking `send_multipart`/`recv_multipart`: the physical floor of a move over zmq.
- Channel ping-pong: the same echo, but this side is the arbiter's `ZmqChannel`
  (`send_lines` with a deadline, then `read_line` with a deadline). The difference to the
  bare ping-pong is the channel's own cost per round trip. The same for `PipeChannel`
  against a pipe echo, for comparison.
- Refereed games: `play_game` on limit-nim with one pile of N stones and limit 1 between
  two bots that answer `1 1` at once, over pipes and over zmq (`transport: zmq`). Per
  move: the time between turns, the bot's share (its recorded `wall_ms`) and the arbiter's
  overhead (the difference, paired move by move), as in bench_referee.py.
- Dead peers: a remote seat (heartbeats on) waits for a line from an echo bot, which is
  then SIGKILLed (its connection closes) or SIGSTOPped (a frozen machine: connected and
  silent); how long until `read_line` reports `Closed`.
Medians throughout (the means carry other people's load on a shared machine).

Run: python benchmarks/bench_zmq.py [--moves 1000] [--repeats 5]
"""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_referee import ECHO, TAKER  # noqa: E402  (benchmarks/ is this script's folder)
from arbiter.games import find_game  # noqa: E402
from arbiter.referee import PlayerSpec, TimeControl, play_game  # noqa: E402
from arbiter.transport import Closed  # noqa: E402
from arbiter.transport.pipe import PipeChannel  # noqa: E402
from arbiter.transport.zmq import ZmqChannel  # noqa: E402

ZMQ_ECHO = r"""
import os, zmq
socket = zmq.Context().socket(zmq.DEALER)
socket.setsockopt(zmq.PROBE_ROUTER, 1)
socket.connect(os.environ["ARBITER_ENDPOINT"])
while True:
    message = socket.recv()
    if message == b"Quit":
        break
    socket.send(message)
socket.close(linger=1000)
"""
# The pipe bots are the referee benchmark's own (they pin themselves only when BENCH_CPU is set).
PIPE_ECHO, PIPE_TAKER = ECHO, TAKER
ZMQ_TAKER = r"""
import os, zmq
stones = int(os.environ["STONES"])
socket = zmq.Context().socket(zmq.DEALER)
socket.setsockopt(zmq.PROBE_ROUTER, 1)
socket.connect(os.environ["ARBITER_ENDPOINT"])
while True:
    line = socket.recv()
    if line == b"1 1":
        stones -= 1
    elif line == b"Quit":
        break
    elif line != b"Start":
        continue
    if stones > 0:
        socket.send(b"1 1")
        stones -= 1
socket.close(linger=1000)
"""
WARM_UP = 50


def bare_zmq_us(exchanges: int) -> list[float]:
    """Round trips of one message between a bare ROUTER here and a DEALER echo process."""
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    echo = subprocess.Popen([sys.executable, "-c", ZMQ_ECHO], env={**os.environ,
                            "ARBITER_ENDPOINT": f"tcp://127.0.0.1:{port}"})
    peer, hello = router.recv_multipart()
    assert hello == b""
    message = b"1 1"
    for _ in range(WARM_UP):
        router.send_multipart([peer, message])
        router.recv_multipart()
    trips = []
    for _ in range(exchanges):
        started = time.perf_counter()
        router.send_multipart([peer, message])
        router.recv_multipart()
        trips.append((time.perf_counter() - started) * 1e6)
    router.send_multipart([peer, b"Quit"])
    echo.wait()
    router.close(linger=0)
    context.term()
    return trips


def channel_us(transport: str, exchanges: int) -> list[float]:
    """Round trips of one line through the arbiter's channel (`send_lines`, `read_line`) and an echo."""
    if transport == "zmq":
        channel: ZmqChannel | PipeChannel = ZmqChannel("bench", bind="tcp://127.0.0.1:*")
        echo = subprocess.Popen([sys.executable, "-c", ZMQ_ECHO],
                                env={**os.environ, "ARBITER_ENDPOINT": channel.endpoint})
    else:
        echo = subprocess.Popen([sys.executable, "-c", PIPE_ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                bufsize=0)
        assert echo.stdin is not None and echo.stdout is not None
        channel = PipeChannel(os.dup(echo.stdin.fileno()), os.dup(echo.stdout.fileno()))
        echo.stdin.close()
        echo.stdout.close()
    line = ["1 1"]
    trips = []
    for n in range(WARM_UP + exchanges):
        started = time.perf_counter()
        assert channel.send_lines(line, time.monotonic() + 10) is None
        assert channel.read_line(time.monotonic() + 10) == "1 1"
        if n >= WARM_UP:
            trips.append((time.perf_counter() - started) * 1e6)
    channel.send_lines(["Quit"], time.monotonic() + 1)
    channel.close()
    echo.wait()
    return trips


def refereed_us(transport: str, moves: int) -> tuple[list[float], list[float]]:
    """Per move of one game of `moves` moves: (microseconds between turns, the bot's share)."""
    game = find_game("limit-nim", piles=f"{moves}/1")
    code = ZMQ_TAKER if transport == "zmq" else PIPE_TAKER
    taker = PlayerSpec(name="taker", command=(sys.executable, "-c", code), env={"STONES": str(moves)},
                       transport=transport)  # type: ignore[arg-type]
    stamps: list[float] = []
    record = play_game(game, [taker, taker], time=TimeControl(time_ms=600000),
                       on_turn=lambda state: stamps.append(time.perf_counter()))
    assert record.termination.value == "normal" and len(record.moves) == moves, record.detail
    between_us = [(b - a) * 1e6 for a, b in zip(stamps, stamps[1:])]  # from turn 2: start-up excluded
    bots_us = [m.wall_ms * 1000 for m in record.moves[1:]]
    return between_us, bots_us


def detection_ms(how: signal.Signals) -> float:
    """Milliseconds from signalling a connected bot (SIGKILL or SIGSTOP) to its seat reporting `Closed`."""
    channel = ZmqChannel("bench", bind="tcp://127.0.0.1:*", remote=True)
    echo = subprocess.Popen([sys.executable, "-c", ZMQ_ECHO], env={**os.environ, "ARBITER_ENDPOINT": channel.endpoint})
    channel.send_lines(["1 1"], time.monotonic() + 10)
    assert channel.read_line(time.monotonic() + 10) == "1 1"
    os.kill(echo.pid, how)
    signalled = time.monotonic()
    result = channel.read_line(signalled + 30)
    detected = time.monotonic()
    assert isinstance(result, Closed), result
    if how == signal.SIGSTOP:
        echo.kill()
    echo.wait()
    channel.shut()
    return (detected - signalled) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=1000,
                        help="moves per refereed game (and round trips per ping-pong)")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each; medians are reported")
    args = parser.parse_args()

    detections: dict[signal.Signals, list[float]] = {signal.SIGKILL: [], signal.SIGSTOP: []}
    bare: list[float] = []
    channels: dict[str, list[float]] = {"pipe": [], "zmq": []}
    games: dict[str, tuple[list[float], list[float]]] = {"pipe": ([], []), "zmq": ([], [])}
    for _ in range(args.repeats):
        bare += bare_zmq_us(args.moves)
        for transport in ("pipe", "zmq"):
            channels[transport] += channel_us(transport, args.moves)
            between, bots = refereed_us(transport, args.moves)
            games[transport][0].extend(between)
            games[transport][1].extend(bots)
    for _ in range(min(args.repeats, 3)):  # a frozen peer takes seconds each
        for how in detections:
            detections[how].append(detection_ms(how))

    floor_us = statistics.median(bare)
    print(f"bare pyzmq ping-pong (ROUTER here, DEALER echo process, tcp loopback): {floor_us:.1f} us per round "
          f"trip (median of {len(bare)}; mean {statistics.fmean(bare):.1f})")
    print()
    print("| round trip of one line, medians | µs | / bare pyzmq |")
    print("|---|---|---|")
    print(f"| bare pyzmq ping-pong | {floor_us:.1f} | 1x |")
    for transport in ("zmq", "pipe"):
        value = statistics.median(channels[transport])
        print(f"| arbiter's {'ZmqChannel' if transport == 'zmq' else 'PipeChannel'} | {value:.1f} "
              f"| {value / floor_us:.2f}x |")
    print()
    print("| refereed game, medians per move | per move (µs) | bot's share (µs) | arbiter overhead (µs) "
          "| per move / bare pyzmq |")
    print("|---|---|---|---|---|")
    for transport in ("pipe", "zmq"):
        between, bots = games[transport]
        per_move = statistics.median(between)
        share = statistics.median(bots)
        overhead = statistics.median(b - w for b, w in zip(between, bots))
        print(f"| transport: {transport} | {per_move:.1f} | {share:.1f} | {overhead:.1f} "
              f"| {per_move / floor_us:.2f}x |")
    print()
    for how, what in ((signal.SIGKILL, "killed (its connection closes)"), (signal.SIGSTOP, "frozen (SIGSTOP)")):
        times = detections[how]
        print(f"a remote bot {what}: reported Closed after {statistics.median(times):.1f} ms "
              f"(median of {len(times)}; max {max(times):.1f} ms)")


if __name__ == "__main__":
    main()
