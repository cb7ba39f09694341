"""The bot's end of a ZeroMQ seat: a DEALER socket that says hello on every connection.

Used by the bot kit (`arbiter.bot`) when a bot is given `--connect ENDPOINT`, `--bind
ENDPOINT` or `$ARBITER_ENDPOINT`; any other bot can do the same in its own language (see
docs/protocol.md, Sockets): a DEALER socket with `ZMQ_PROBE_ROUTER` set, one message per
line, CURVE client keys when the endpoint is not loopback.
"""
from __future__ import annotations

import os
import sys
from collections import deque
from typing import Iterator, Mapping

import zmq

from ..protocol import QUIT
from .keys import KeyFileError, KeyPair, read_key_file, read_public_key
from .zmq import ENV_ENDPOINT, ENV_KEYS, ENV_SERVER_KEY, REFUSED, EndpointError, parse_endpoint

BOT_LINGER_MS = 2000  # at exit, how long the last move may take to leave


class ZmqBotChannel:
    """Protocol lines over one DEALER socket (the kit's `LineChannel`).

    `lines()` yields the arbiter's lines for as long as the bot runs: a socket has no end
    of file, so a `--serve` bot waits for its next game. A `Refused` line (another
    connection owns the seat, or the key was wrong) ends the bot with that message.
    """

    def __init__(self, endpoint: str, *, bind: bool = False, keys: KeyPair | None = None,
                 server_key: str | None = None) -> None:
        side = "bind" if bind else "connect"
        where = parse_endpoint(endpoint, side=side)
        if (keys is None) != (server_key is None):
            raise EndpointError("CURVE needs both this bot's key pair (--keys) and the arbiter's public key "
                                "(--server-key); give both or neither")
        if keys is None and not where.is_loopback:
            raise EndpointError(f"{endpoint} is not a loopback address: refusing to {side} it without CURVE keys "
                                "(give --keys FILE and --server-key KEY; see docs/remote-bots.md)")
        self._context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        socket = self._context.socket(zmq.DEALER)
        socket.setsockopt(zmq.PROBE_ROUTER, 1)  # the hello: an empty message on every new connection
        socket.setsockopt(zmq.IMMEDIATE, 1)  # never queue a move for a connection that is not there
        socket.setsockopt(zmq.LINGER, BOT_LINGER_MS)
        if keys is not None and server_key is not None:
            assert keys.secret is not None
            socket.curve_serverkey = server_key.encode("ascii")
            socket.curve_publickey = keys.public.encode("ascii")
            socket.curve_secretkey = keys.secret.encode("ascii")
        if bind:
            socket.bind(endpoint)
        else:
            socket.connect(endpoint)
        self._socket = socket
        self._early: deque[str] = deque()  # lines read while checking for a `Quit` before a send

    @classmethod
    def from_environment(cls, endpoint: str | None = None, *, bind: bool = False, keys_file: str | None = None,
                         server_key: str | None = None,
                         environ: Mapping[str, str] = os.environ) -> ZmqBotChannel:
        """A channel from command-line values, falling back on ARBITER_ENDPOINT, ARBITER_KEYS and
        ARBITER_SERVER_KEY; exits with a clear message when they cannot be used."""
        endpoint = endpoint or environ.get(ENV_ENDPOINT)
        keys_file = keys_file or environ.get(ENV_KEYS) or None
        server_key = server_key or environ.get(ENV_SERVER_KEY) or None
        if not endpoint:
            raise SystemExit(f"bot: no endpoint: give --connect/--bind ENDPOINT or set {ENV_ENDPOINT}")
        try:
            keys = read_key_file(keys_file, need_secret=True) if keys_file else None
            server = read_public_key(server_key) if server_key else None
            return cls(endpoint, bind=bind, keys=keys, server_key=server)
        except (EndpointError, KeyFileError) as exc:
            raise SystemExit(f"bot: {exc}") from None
        except zmq.ZMQError as exc:
            raise SystemExit(f"bot: cannot {'bind' if bind else 'connect'} {endpoint}: {exc.strerror}") from None

    def lines(self) -> Iterator[str]:
        """The arbiter's lines, one per message, without line endings."""
        while True:
            if self._early:
                line = self._early.popleft()
            else:
                line = self._receive()
            if line.startswith(REFUSED + " ") or line == REFUSED:
                raise SystemExit(f"bot: the arbiter refused this connection: {line[len(REFUSED):].strip()}")
            yield line

    def send(self, line: str) -> None:
        """Send one line, unless the arbiter has already ended the game (a `Quit` is waiting).

        A move that can no longer count is dropped, so that a bot that was too slow does
        not answer into its next game. Without a connection the line is dropped too: the
        arbiter has adjudicated the game already.
        """
        while self._socket.poll(0):
            self._early.append(self._receive())
        if QUIT in self._early:
            return
        try:
            self._socket.send(line.encode(), zmq.NOBLOCK)
        except zmq.Again:
            print(f"bot: not connected to the arbiter; dropped {line!r}", file=sys.stderr, flush=True)

    def _receive(self) -> str:
        raw = self._socket.recv()
        return raw.decode("utf-8", "replace").rstrip("\r\n")

    def close(self) -> None:
        """Close the socket, giving the last line up to BOT_LINGER_MS to leave."""
        self._socket.close()
        self._context.term()
