"""Misbehaves over its ZeroMQ socket on move MISBEHAVE_AT (default 2), as ZMQ_FAULT says.

The socket-only faults, which a bot on pipes cannot commit or commits differently:
- `garbage`: sends a line that is not a move;
- `bad_utf8`: sends bytes that are not UTF-8;
- `two_moves`: sends its move and then another one;
- `two_parts`: sends its move as a two-part message;
- `disconnect`: closes its socket and keeps running.
"""
import os
import sys
import time

from misbehave import first_legal

from arbiter.bot import run_bot
from arbiter.transport.zmq_bot import ZmqBotChannel

channel = ZmqBotChannel.from_environment()
socket = channel._socket  # the raw socket: these bots break the rules the channel keeps
fault = os.environ["ZMQ_FAULT"]
at_move = int(os.environ.get("MISBEHAVE_AT", "2"))
moves = 0


def wait_for_quit():
    for line in channel.lines():
        if line == "Quit":
            sys.exit(0)


def choose(state, ctx):
    global moves
    moves += 1
    if moves != at_move:
        return first_legal(state)
    if fault == "garbage":
        socket.send(b"hello, referee")
    elif fault == "bad_utf8":
        socket.send(b"1 \xff\xfe")
    elif fault == "two_moves":
        socket.send(first_legal(state).encode())
        socket.send(b"1 1")
    elif fault == "two_parts":
        socket.send_multipart([b"1", b"1"])
    elif fault == "disconnect":
        socket.close(linger=0)
        time.sleep(100000)
    wait_for_quit()


try:
    sys.exit(run_bot(choose, channel=channel))
finally:
    channel.close()
