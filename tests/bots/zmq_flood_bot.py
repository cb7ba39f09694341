"""A ZeroMQ bot that floods its own seat with connections (issue 38: ~24,000 silent ones from
helper processes made libzmq abort the arbiter, `Too many open files`, exit 134).

HELPERS processes (default 6) each open up to PER_HELPER (default 200; a box allows a process
256 descriptors) silent connections to `$ARBITER_ENDPOINT` and hold them. FLOOD_WHEN:
- `start` (default): before the bot's own connection, which it makes once a helper finds the
  seat's queue full (EAGAIN), so that its own is never the seat's first connection;
- `move`: at its first move, after its own connection, then it plays on.
Each helper writes `FLOOD helper N: M connections (last error: ...)` on stderr when it stops.
"""
import errno
import os
import socket
import sys
import time

from misbehave import first_legal

from arbiter.bot import run_bot
from arbiter.transport.zmq_bot import ZmqBotChannel

ENDPOINT = os.environ["ARBITER_ENDPOINT"]
HELPERS = int(os.environ.get("HELPERS", "6"))
PER_HELPER = int(os.environ.get("PER_HELPER", "200"))
GIVE_UP_S = 3.0  # a helper stops trying after this long without a new connection


def connection(blocking: bool) -> socket.socket:
    """One silent connection to the seat; non-blocking, a TCP one may still be on its way."""
    if ENDPOINT.startswith("ipc://"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = ENDPOINT[len("ipc://"):]
    else:
        host, port = ENDPOINT[len("tcp://"):].rsplit(":", 1)
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        address = (host.strip("[]"), int(port))
    sock.setblocking(blocking)
    try:
        sock.connect(address)
    except BlockingIOError as exc:
        if exc.errno != errno.EINPROGRESS:  # EAGAIN: a unix socket's queue is full
            sock.close()
            raise
    return sock


def helper(number: int, full: int) -> None:
    """Open and hold connections; write a byte on `full` when the seat's queue is full, then
    wait in it for each next one (a helper asleep lets the bot's start-up end)."""
    held, last_error, told, since = [], "none", False, time.monotonic()
    while len(held) < PER_HELPER and time.monotonic() - since < GIVE_UP_S:
        if len(held) == 4 and not told and not ENDPOINT.startswith("ipc://"):
            time.sleep(0.05)  # TCP never says the queue is full: a few on their way will do
            os.write(full, b"x")
            told = True
        try:
            held.append(connection(blocking=told))  # once the queue is full, waits in it (asleep)
            since = time.monotonic()
        except BlockingIOError:  # the queue is full
            if not told:
                os.write(full, b"x")
                told = True
            time.sleep(0.001)
        except OSError as exc:
            last_error = errno.errorcode.get(exc.errno or 0, str(exc))
            if exc.errno in (errno.ENOENT, errno.ECONNREFUSED, errno.EMFILE):
                break
            time.sleep(0.001)
    print(f"FLOOD helper {number}: {len(held)} connections (last error: {last_error})", file=sys.stderr, flush=True)
    if not told:
        os.write(full, b"x")
    time.sleep(3600)  # holding them


def flood() -> None:
    """Start the helpers; return once one found the queue full (or gave up)."""
    full_r, full_w = os.pipe()
    for number in range(HELPERS):
        if os.fork() == 0:
            os.close(full_r)
            try:
                helper(number, full_w)
            finally:
                os._exit(0)
    os.close(full_w)
    os.read(full_r, 1)


if os.environ.get("FLOOD_WHEN", "start") == "start":
    flood()
channel = ZmqBotChannel.from_environment()
flooded = False


def choose(state, ctx):
    global flooded
    if not flooded and os.environ.get("FLOOD_WHEN") == "move":
        flooded = True
        flood()
    return first_legal(state)


try:
    sys.exit(run_bot(choose, channel=channel))
finally:
    channel.close()
