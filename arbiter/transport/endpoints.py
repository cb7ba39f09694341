"""Where a player's ZeroMQ socket is, and whether the settings are usable: endpoints, the
`SocketSpec` of a config's player, the rules it must follow (`socket_problems`), and the
listening socket of a seat the arbiter binds (`Door`), which it can shut to new connections.

Kept apart from `zmq.py` (the channel itself), which loads ZeroMQ (with asyncio and ssl, about
13 MB and 35 ms of a process's start here): a config, a referee or a command that only reads
these settings does not load it; a game with a `zmq` or `remote` seat does."""
from __future__ import annotations

import ctypes
import ipaddress
import os
import re
import socket
import stat
import struct
import time
from collections import deque
from dataclasses import dataclass

from .keys import KeyFileError, is_z85_key, read_key_file

DEFAULT_CONNECT_WAIT_MS = 10000  # how long a game waits for a remote bot that is not connected
CHECK_IN_QUIET_MS = 1000  # at a check-in, a running bot connects well within this: later ones are waited for
DOOR_BACKLOG = 1  # connections the kernel holds for a seat before the arbiter takes them
HANDSHAKE_IVL_MS = 3000  # remote seats: a connection that has not finished its handshake by then is dropped
DOOR_CROWD = 16  # remote seats: connections taken within HANDSHAKE_IVL_MS past which the door shuts
_SO_ATTACH_FILTER, _SO_DETACH_FILTER = 26, 27  # <asm-generic/socket.h>
_DROP_ALL = struct.pack("HBBI", 0x06, 0, 0, 0)  # classic BPF `ret #0`: keep no byte of any packet


class EndpointError(ValueError):
    """An endpoint or key set-up the arbiter refuses; the message says what to change."""


class LeaseCancelled(Exception):
    """A game's wait for its remote seats was cancelled; it holds none of them."""


# --- endpoints -----------------------------------------------------------------------

@dataclass(frozen=True)
class Endpoint:
    """A `tcp://HOST:PORT` endpoint (PORT `*`, bind only, means any free port), or an
    `ipc:///PATH` unix socket (host and port empty)."""

    text: str
    host: str
    port: str

    @property
    def is_loopback(self) -> bool:
        """Only this machine can reach it: `localhost`, 127.0.0.0/8, ::1 (names are not
        resolved), or a unix socket."""
        if self.text.startswith("ipc://") or self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host.strip("[]")).is_loopback
        except ValueError:
            return False  # `*`, an interface name, or a host name: assume it is reachable


_ENDPOINT = re.compile(r"tcp://(\[[0-9a-fA-F:.]+\]|[^:/\[\]\s]+):(\*|\d{1,5})")
_IPC_ENDPOINT = re.compile(r"ipc:///[^\s\x00]{1,90}")  # a unix socket path fits in 108 bytes


def parse_endpoint(text: str, *, side: str) -> Endpoint:
    """Check a `tcp://HOST:PORT` or `ipc:///PATH` endpoint for `side` "bind" or "connect";
    EndpointError if unusable."""
    if _IPC_ENDPOINT.fullmatch(text):
        return Endpoint(text, "", "")
    match = _ENDPOINT.fullmatch(text)
    if match is None:
        raise EndpointError(f"{text!r} is not a ZeroMQ endpoint: write tcp://HOST:PORT, "
                            "e.g. tcp://127.0.0.1:5555, or ipc:///PATH for a unix socket")
    host, port = match.groups()
    if port == "*" and side == "connect":
        raise EndpointError(f"{text!r}: a port to connect to must be a number, not *")
    if port != "*" and not 0 < int(port) < 65536:
        raise EndpointError(f"{text!r}: the port must be between 1 and 65535")
    if host == "*" and side == "connect":
        raise EndpointError(f"{text!r}: cannot connect to *; name the host")
    return Endpoint(text, host, port)


class Door:
    """The listening socket of a seat the arbiter binds, made here rather than by ZeroMQ (which
    is handed a copy, ZMQ_USE_FD) so that the arbiter can close it to new connections while
    those already taken stay up, which ZeroMQ cannot (its `unbind` drops them too): `shut()`
    removes a unix socket's path, or gives a TCP socket a filter that drops every packet (a
    new connection's SYN goes unanswered). Until ZeroMQ takes it, connections wait in the
    kernel's queue (DOOR_BACKLOG), costing no descriptor. OSError if it cannot be bound."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.path = endpoint.text[len("ipc://"):] if endpoint.text.startswith("ipc://") else None
        host = endpoint.host.strip("[]")
        family = socket.AF_UNIX if self.path is not None else socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            if self.path is not None:
                if os.path.exists(self.path) and stat.S_ISSOCK(os.lstat(self.path).st_mode):
                    os.unlink(self.path)  # left by an arbiter that was killed (as ZeroMQ's own bind does)
                self._socket.bind(self.path)
            else:
                self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                self._socket.bind(("" if host == "*" else host, 0 if endpoint.port == "*" else int(endpoint.port)))
            self._socket.listen(DOOR_BACKLOG)
        except BaseException:
            self._socket.close()
            raise
        self.text = endpoint.text if self.path else f"tcp://{endpoint.host}:{self._socket.getsockname()[1]}"
        self.is_shut = False
        self._taken: deque[float] = deque()  # when connections were taken, within HANDSHAKE_IVL_MS

    def fileno(self) -> int:
        """The listening descriptor (readable once a connection waits in the queue)."""
        return self._socket.fileno()

    def copy(self) -> int:
        """A copy of the listening descriptor, for ZeroMQ to take (it closes it with its socket)."""
        return os.dup(self._socket.fileno())

    def shut(self) -> None:
        """No new connection reaches the seat from now on; those taken stay up."""
        if self.path is not None:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
        else:
            program = ctypes.create_string_buffer(_DROP_ALL)
            fprog = struct.pack("HP", 1, ctypes.addressof(program))  # struct sock_fprog: length, then where
            self._socket.setsockopt(socket.SOL_SOCKET, _SO_ATTACH_FILTER, fprog)
        self.is_shut = True

    def taken(self) -> int:
        """ZeroMQ has taken a connection at this door: how many it has taken (a remote seat's: lately)."""
        self._taken.append(time.monotonic())
        return len(self._taken)

    def mind(self, *, owned: bool) -> int:
        """A remote seat's TCP door: shut while its bot is connected (no one else has business there)
        and while DOOR_CROWD connections were taken within HANDSHAKE_IVL_MS (a stranger without
        the key is gone by then), open otherwise. The crowd's size when it shuts for one, else 0.
        (A unix socket's removed path does not come back: such a door is left open.)"""
        horizon = time.monotonic() - HANDSHAKE_IVL_MS / 1000
        while self._taken and self._taken[0] < horizon:
            self._taken.popleft()
        crowd = len(self._taken) if len(self._taken) >= DOOR_CROWD else 0
        if self.path is not None or bool(owned or crowd) == self.is_shut:
            return 0
        if owned or crowd:
            self.shut()
            return 0 if owned else crowd
        self._socket.setsockopt(socket.SOL_SOCKET, _SO_DETACH_FILTER, 0)
        self.is_shut = False
        return 0

    def close(self) -> None:
        """Close the arbiter's copy and remove a unix socket's path (ZeroMQ closes its own copy)."""
        if self.path is not None and not self.is_shut:
            self.shut()
        self._socket.close()


def connectable(bound: str) -> str:
    """The endpoint a local bot connects to for a socket bound at `bound` (wildcards -> loopback)."""
    return re.sub(r"^tcp://(0\.0\.0\.0|\*|\[::\]|\[\*\])(?=:)",
                  lambda m: "tcp://[::1]" if "[" in m.group(1) else "tcp://127.0.0.1", bound)


# --- what the configuration says about a player's socket ----------------------------

@dataclass(frozen=True)
class SocketSpec:
    """Where a `zmq` or `remote` player's socket is, and its CURVE keys.

    `bind`: the arbiter binds this endpoint (the bot connects). `connect`: the bot has
    bound this endpoint and the arbiter connects (remote players only). `public_key`: the
    bot's CURVE public key, Z85 (remote only; launched bots get keys made for the game).
    `arbiter_keys`: the arbiter's key pair file (remote with CURVE).
    """

    bind: str | None = None
    connect: str | None = None
    public_key: str | None = None
    arbiter_keys: str | None = None
    connect_wait_ms: int = DEFAULT_CONNECT_WAIT_MS

    def describe(self) -> str:
        """Where the seat's socket is, for a record: `remote tcp://... (the bot connects)`."""
        if self.connect:
            return f"remote {self.connect} (the arbiter connects)"
        return f"remote {self.bind} (the bot connects)"


def socket_problems(transport: str, spec: SocketSpec) -> list[tuple[str, str]]:
    """What is wrong with a player's socket settings, as (key, message) pairs; empty if usable.

    The one place these rules live: config validation, the referee and the channel all
    ask it. Non-loopback endpoints need CURVE keys; remote players need exactly one of
    `bind`/`connect` with a fixed port.
    """
    problems: list[tuple[str, str]] = []
    if transport == "pipe":
        for key in ("bind", "connect", "public_key"):
            if getattr(spec, key):
                problems.append((key, "only applies to transport: zmq or remote"))
        return problems
    if transport == "zmq":
        for key, why in (("connect", "a launched bot always connects to the arbiter; use bind: to choose "
                                     "the arbiter's endpoint"),
                         ("public_key", "launched bots are given keys made for each game; public_key is "
                                        "for remote players")):
            if getattr(spec, key):
                problems.append((key, f"does not apply to transport: zmq ({why})"))
        if spec.bind:
            try:
                parse_endpoint(spec.bind, side="bind")
            except EndpointError as exc:
                problems.append(("bind", str(exc)))
        return problems
    if transport != "remote":
        return [("transport", f"{transport!r} is not a transport: use pipe, zmq or remote")]
    if bool(spec.bind) == bool(spec.connect):
        problems.append(("bind", "a remote player needs exactly one of bind: (the arbiter binds, the bot "
                                 "connects) or connect: (the bot binds, the arbiter connects)"))
        return problems
    key = "bind" if spec.bind else "connect"
    try:
        endpoint = parse_endpoint(spec.bind or spec.connect or "", side=key)
    except EndpointError as exc:
        return [(key, str(exc))]
    if endpoint.port == "*":
        problems.append((key, f"{endpoint.text!r}: a remote bot must know the port: give a number, not *"))
    if spec.public_key and not is_z85_key(spec.public_key):
        problems.append(("public_key", f"{spec.public_key!r} is not a CURVE public key (40 characters of Z85, "
                                       "as printed by `arbiter keys NAME`)"))
    if spec.arbiter_keys:
        try:
            read_key_file(spec.arbiter_keys, need_secret=True)
        except KeyFileError as exc:
            problems.append(("arbiter_keys", str(exc)))
    if bool(spec.public_key) != bool(spec.arbiter_keys):
        missing = "arbiter_keys (the arbiter's key pair file)" if spec.public_key else "public_key (the bot's)"
        problems.append(("public_key" if not spec.public_key else "arbiter_keys",
                         f"CURVE needs both the arbiter's key pair and the bot's public key: {missing} is missing"))
    elif not spec.public_key and not endpoint.is_loopback:
        problems.append((key, f"{endpoint.text} is not a loopback address, so it needs CURVE keys: set "
                              "arbiter_keys: (the arbiter's key pair file, from `arbiter keys arbiter`) and "
                              "public_key: (the bot's, from `arbiter keys NAME`); see docs/remote-bots.md"))
    return problems


def check_socket(transport: str, spec: SocketSpec) -> None:
    """Raise EndpointError with every problem `socket_problems` finds."""
    problems = socket_problems(transport, spec)
    if problems:
        raise EndpointError("; ".join(f"{key}: {message}" for key, message in problems))
