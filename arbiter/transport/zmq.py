"""The line channel over ZeroMQ sockets (see `arbiter.transport` and docs/protocol.md, Sockets).

One ZeroMQ message is one protocol line (no line ending). Each seat has its **own** socket,
so one seat's peer can never speak for another:

- The arbiter's end is a ROUTER socket; the bot's a DEALER with `ZMQ_PROBE_ROUTER`, so that
  ZeroMQ sends an empty message (the *hello*) on every new connection. The first connection
  whose first message is the hello **owns** the seat.
- **A seat takes only its own bot's connection.** ZeroMQ takes every connection a listening
  socket gets (a descriptor each: a bot's helpers made libzmq abort the arbiter, `Too many
  open files`), and its `unbind` drops those taken too; so the arbiter makes the listening
  socket (`endpoints.Door`, which it can shut) and hands ZeroMQ a copy (ZMQ_USE_FD). A
  launched bot's seat does so only once a connection waits in the kernel's queue (until
  then a flood costs nothing), shutting the door behind it: a second connection, or a first
  line that is not the hello, is the bot's fault and closes its seat at once. A remote
  seat's door is shut while its bot is connected, or crowded (`Door.mind`); a connection
  that got in to a seat owned is sent one `Refused <why>` line, and logged (logger
  `arbiter.transport.zmq`, level WARNING).
- CURVE (authentication and encryption) is on whenever a key pair is given, and required
  for any endpoint that is not loopback (`socket_problems`). The arbiter is always the CURVE
  server; each seat admits one client public key, checked by a ZAP handler (`_ZapGate`, RFC
  27) before the handshake completes; refusals are logged with the peer's address and key.
- A vanished peer: a socket monitor reports the owner's connection closing (a message over
  `MAX_MESSAGE_BYTES` also drops it); for remote players, ZeroMQ heartbeats close a
  connection silent for `HEARTBEAT_TIMEOUT_MS`. Either way the channel reports `Closed`;
  reads never wait past their deadline, whatever ZeroMQ notices or not.

`launch_zmq_bot` binds a seat and starts its bot with `ARBITER_ENDPOINT` in its environment;
`lease_remote_seats` lends one game the seats of bots the arbiter did not start, whose
sockets live as long as the arbiter process, so that a bot serves game after game on one
connection (`check_in_remote_seats` waits for them first).
"""
from __future__ import annotations

import atexit
import logging
import math
import os
import tempfile
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

import zmq
from zmq.utils import z85
from zmq.utils.monitor import recv_monitor_message

from . import SHORTAGES, TIMEOUT, BadLine, Closed, ReadResult, SendResult, decode_line
from .endpoints import (CHECK_IN_QUIET_MS, HANDSHAKE_IVL_MS, Door, Endpoint, EndpointError, LeaseCancelled,
                        SocketSpec, check_socket, connectable, parse_endpoint, socket_problems)
from .keys import KeyPair, read_key_file, write_key_pair
from .priority import REALTIME_PRIORITY, realtime_allowed
from .process import BotProcess, LaunchError, StderrDrain
from .sandbox import SandboxSpec, remove_tree

log = logging.getLogger(__name__)

# Environment of a bot on a socket (set by the arbiter for launched bots; see docs/protocol.md).
ENV_ENDPOINT = "ARBITER_ENDPOINT"  # where to connect
ENV_KEYS = "ARBITER_KEYS"  # path of the bot's own key pair file (CURVE)
ENV_SERVER_KEY = "ARBITER_SERVER_KEY"  # the arbiter's public key, Z85 (CURVE)

DEFAULT_BIND = "tcp://127.0.0.1:*"  # a launched bot's seat: loopback, any free port
REFUSED = "Refused"  # the one line a refused connection is sent: `Refused <why>`
MAX_MESSAGE_BYTES = 64 * 1024  # a bigger message drops the connection (ZMQ_MAXMSGSIZE)
LINGER_MS = 1000  # after close, how long ZeroMQ keeps trying to deliver (the last `Quit`)
HEARTBEAT_IVL_MS = 1000  # remote players: a PING this often...
HEARTBEAT_TIMEOUT_MS = 3000  # ...and a connection silent this long is dropped
HEARTBEAT_TTL_MS = 10000  # the bot's side drops the arbiter after this long without a PING
REFUSAL_LOG_INTERVAL_S = 10.0  # a peer that keeps retrying is logged once per interval
IDLE_SERVICE_S = 0.1  # how often seats between games are looked after
CANCEL_CHECK_MS = 50  # a wait for a remote seat looks at its game's `cancel` this often
SERVICE_STEPS = 256  # messages and events taken in by one non-blocking look at a seat
MAX_REFUSED_REMEMBERED = 1024  # refused connections remembered per seat (told `Refused` once each)
_ZAP_ENDPOINT = "inproc://zeromq.zap.01"  # fixed by RFC 27
_SECOND_CONNECTION = "made a second connection to its seat {} (a bot makes one: docs/protocol.md, Sockets)"
_WATCHED_EVENTS = (
    zmq.EVENT_ACCEPTED | zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED
    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
)


@dataclass(frozen=True)
class SeatCurve:
    """CURVE for one seat: the arbiter's key pair (it is the CURVE server) and the one client key admitted."""

    arbiter: KeyPair
    client_public: str


# --- the shared ZeroMQ runtime: one context, one ZAP handler -------------------------

class _RefusalLog:
    """Logs refusals, at most once per peer per `REFUSAL_LOG_INTERVAL_S` (peers retry every 100 ms)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: dict[tuple[str, ...], tuple[float, int]] = {}

    def warn(self, key: tuple[str, ...], message: str) -> None:
        now = time.monotonic()
        with self._lock:
            last, suppressed = self._last.get(key, (-math.inf, 0))
            quiet = now - last < REFUSAL_LOG_INTERVAL_S
            self._last[key] = (last, suppressed + 1) if quiet else (now, 0)
        if not quiet:
            log.warning("%s%s", message, f" ({suppressed} more refusals of this peer since the last report)"
                        if suppressed else "")


class _ZapGate:
    """The ZAP handler (RFC 27) of the arbiter's context: admits one client key per seat domain."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]], refusals: _RefusalLog) -> None:
        self._context = context
        self._refusals = refusals
        self._lock = threading.Lock()
        self._domains: dict[str, tuple[bytes, str]] = {}  # domain -> (admitted key, seat label)
        self._stop_endpoint = f"inproc://arbiter-zap-stop-{uuid.uuid4().hex}"
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), name="arbiter-zap", daemon=True)
        self._thread.start()
        ready.wait()  # bound before any CURVE socket exists: without a handler ZeroMQ admits everyone

    def admit(self, domain: str, client_public: str, label: str) -> None:
        """From now on, connections to `domain` must present `client_public`."""
        with self._lock:
            self._domains[domain] = (client_public.encode("ascii"), label)

    def forget(self, domain: str) -> None:
        """The seat is closed; refuse everyone on its domain."""
        with self._lock:
            self._domains.pop(domain, None)

    def _verdict(self, domain: str, address: str, mechanism: bytes, credentials: list[bytes]) -> tuple[bool, str]:
        with self._lock:
            entry = self._domains.get(domain)
        if entry is None:
            return False, "unknown domain"
        admitted, label = entry
        if mechanism != b"CURVE" or len(credentials) != 1 or len(credentials[0]) != 32:
            self._refusals.warn((domain, address, "mechanism"),
                                f"{label}: refused a connection from {address}: it does not use CURVE")
            return False, "CURVE required"
        key = z85.encode(credentials[0])
        if key == admitted:
            return True, key.decode("ascii")
        self._refusals.warn((domain, address, key.decode("ascii")),
                            f"{label}: refused a connection from {address}: its public key "
                            f"{key.decode('ascii')} is not this player's key")
        return False, "unknown key"

    def _run(self, ready: threading.Event) -> None:
        handler = self._context.socket(zmq.REP)
        handler.linger = 0
        handler.bind(_ZAP_ENDPOINT)
        stop = self._context.socket(zmq.PAIR)
        stop.linger = 0
        stop.bind(self._stop_endpoint)
        ready.set()
        poller = zmq.Poller()
        poller.register(handler, zmq.POLLIN)
        poller.register(stop, zmq.POLLIN)
        try:
            while True:
                events = dict(poller.poll())
                if stop in events:
                    return
                request = handler.recv_multipart()
                if len(request) < 6:
                    handler.send_multipart([b"1.0", request[1] if len(request) > 1 else b"", b"500",
                                            b"malformed ZAP request", b"", b""])
                    continue
                version, request_id, domain, address, _identity, mechanism, *credentials = request
                try:
                    ok, text = self._verdict(domain.decode("utf-8", "replace"), address.decode("utf-8", "replace"),
                                             mechanism, credentials)
                except Exception:  # an arbiter bug: refuse (fail closed), say so, keep answering
                    log.exception("the ZAP handler failed on a request; refusing that connection")
                    ok, text = False, "internal error"
                user_id = text.encode("ascii") if ok else b""
                handler.send_multipart([b"1.0", request_id, b"200" if ok else b"400",
                                        b"OK" if ok else text.encode("ascii"), user_id, b""])
        finally:
            handler.close()
            stop.close()

    def stop(self) -> None:
        """End the handler thread (at exit)."""
        signal = self._context.socket(zmq.PAIR)
        signal.linger = 0
        signal.connect(self._stop_endpoint)
        signal.send(b"")
        self._thread.join(2.0)
        signal.close()


class _Runtime:
    """The arbiter process's ZeroMQ context, ZAP handler and remote seats; closed at exit. Between
    games a thread looks after the remote seats no game holds (refusals, doors, restarted bots)."""

    def __init__(self) -> None:
        self.context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        if realtime_allowed():
            # Its I/O thread moves a bot's message from the kernel into the socket's queue: a
            # late one would make a line that arrived in time look late (priority.py).
            self.context.set(zmq.THREAD_SCHED_POLICY, os.SCHED_FIFO)
            self.context.set(zmq.THREAD_PRIORITY, REALTIME_PRIORITY)
        self.refusals = _RefusalLog()
        self.gate = _ZapGate(self.context, self.refusals)
        self.remote_lock = threading.Lock()
        self.remote: dict[tuple[str, str], ZmqChannel] = {}
        self._stop_idle = threading.Event()
        self._idle_thread: threading.Thread | None = None

    def add_remote(self, key: tuple[str, str], seat: ZmqChannel) -> None:
        """Keep a new remote seat (the caller holds `remote_lock`)."""
        self.remote[key] = seat
        if self._idle_thread is None:
            self._idle_thread = threading.Thread(target=self._look_after_idle_seats, name="arbiter-remote-seats",
                                                 daemon=True)
            self._idle_thread.start()

    def _look_after_idle_seats(self) -> None:
        while not self._stop_idle.wait(IDLE_SERVICE_S):
            with self.remote_lock:
                seats = list(self.remote.values())
            for seat in seats:
                if seat._lease.acquire(blocking=False):
                    try:
                        seat._between_games()
                    finally:
                        seat._lease.release()

    def close_remote(self) -> None:
        """Close every remote seat's socket, each once no game holds it."""
        with self.remote_lock:
            seats, self.remote = list(self.remote.values()), {}
        for seat in seats:
            held = seat._lease.acquire(timeout=1.0)  # a game still on it is about to end, or stuck
            seat.shut()
            if held:
                seat._lease.release()

    def shut(self) -> None:
        self._stop_idle.set()
        if self._idle_thread is not None:
            self._idle_thread.join(2.0)
        self.close_remote()
        self.gate.stop()
        # Closes any socket left open too (term alone would wait for it forever), then lets
        # the last messages out for at most LINGER_MS.
        self.context.destroy(linger=LINGER_MS)


_RUNTIME: _Runtime | None = None
_RUNTIME_LOCK = threading.Lock()


def _runtime() -> _Runtime:
    global _RUNTIME
    with _RUNTIME_LOCK:
        if _RUNTIME is None:
            _RUNTIME = _Runtime()
            atexit.register(_RUNTIME.shut)
        return _RUNTIME


# --- the channel ---------------------------------------------------------------------

@dataclass
class _Peer:
    """A connection that said hello: its ZeroMQ routing id and TCP descriptor (from the monitor)."""

    routing_id: bytes
    fd: int
    address: str
    key: str  # its CURVE public key, or "" without CURVE
    seen_open: bool = False  # the monitor has reported this descriptor's connection
    gone: bool = False


class ZmqChannel:
    """One seat's protocol lines over its own ROUTER socket (see the module docstring).

    `label` names the seat in logs and refusals. Exactly one of `bind`/`connect`. With `curve`,
    a CURVE server admitting only `curve.client_public`; without, the endpoint must be loopback.
    `remote`: a bot the arbiter did not start (heartbeats, which a launched bot stopped between
    turns could not answer; a door shut while it is connected). `single`: a launched bot's seat,
    taking one connection. `private_dir` is removed at close. EndpointError or LaunchError when
    the socket cannot be set up."""

    def __init__(self, label: str, *, bind: str | None = None, connect: str | None = None,
                 curve: SeatCurve | None = None, remote: bool = False, single: bool = False,
                 private_dir: Path | None = None) -> None:
        if bool(bind) == bool(connect):
            raise EndpointError("give exactly one of bind and connect")
        side = "bind" if bind else "connect"
        endpoint = parse_endpoint(bind or connect or "", side=side)
        if curve is None and not endpoint.is_loopback:
            raise EndpointError(f"{endpoint.text} is not a loopback address: refusing to {side} it without CURVE keys")
        runtime = _runtime()
        self.label = label
        self.remote = remote
        self.single = single
        self.client_key = curve.client_public if curve is not None else None
        self._private_dir = private_dir  # a launched bot's socket or game keys
        self._finished: Closed | BadLine | None = None
        self._shut = False
        self._door: Door | None = None
        self._refusals = runtime.refusals
        self._gate = runtime.gate if curve is not None else None
        self._domain = f"arbiter-{uuid.uuid4().hex}" if curve is not None else ""
        socket = runtime.context.socket(zmq.ROUTER)
        socket.setsockopt(zmq.ROUTER_MANDATORY, 1)  # sending to a vanished peer fails instead of vanishing
        socket.setsockopt(zmq.LINGER, LINGER_MS)
        socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        if remote:  # and a stranger's silent connection is dropped soon (a launched bot may be stopped mid-handshake)
            for option, value in ((zmq.HEARTBEAT_IVL, HEARTBEAT_IVL_MS), (zmq.HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS),
                                  (zmq.HEARTBEAT_TTL, HEARTBEAT_TTL_MS), (zmq.HANDSHAKE_IVL, HANDSHAKE_IVL_MS)):
                socket.setsockopt(option, value)
        if curve is not None:
            assert self._gate is not None and curve.arbiter.secret is not None
            self._gate.admit(self._domain, curve.client_public, label)
            socket.curve_server = True
            socket.curve_publickey = curve.arbiter.public.encode("ascii")
            socket.curve_secretkey = curve.arbiter.secret.encode("ascii")
            socket.zap_domain = self._domain.encode("ascii")
        self._socket = socket
        self._monitor = socket.get_monitor_socket(_WATCHED_EVENTS)
        self._poll_items = [(socket, zmq.POLLIN), (self._monitor, zmq.POLLIN)]
        try:
            if bind:
                self._door = Door(endpoint)
                self.endpoint = self._door.text
                if single:  # ZeroMQ is handed the door once a connection waits at it (`_let_in`)
                    self._poll_items.append((self._door.fileno(), zmq.POLLIN))
                else:
                    self._let_in()
            else:
                socket.connect(endpoint.text)
                self.endpoint = endpoint.text
        except (zmq.ZMQError, OSError) as exc:
            self.shut()
            if exc.errno in SHORTAGES:  # the arbiter's, not the player's endpoint
                raise OSError(exc.errno, f"the arbiter could not {side} {endpoint.text} for {label}: "
                                         f"{exc.strerror}") from None
            raise LaunchError(f"{label}: cannot {side} {endpoint.text}: {exc.strerror}") from None
        self._open_fds: set[int] = set()
        self._fault: str | None = None  # what a launched bot did to its seat that ends its game
        self._owner: _Peer | None = None
        self._successor: _Peer | None = None  # a new hello after the owner was lost: owner of the next game
        self._inbox: deque[list[bytes]] = deque()  # the owner's messages not yet read
        self._pending: list[bytes] = []  # lines sent before anyone connected
        self._refused: set[bytes] = set()  # routing ids already told `Refused`
        self._lease = threading.Lock()  # remote seats: held by the game using the seat
        # When the owner's lines arrived, as the arbiter's looks bound it (as in pipe.py): the
        # last moment nothing of the owner's was waiting, and when the newest message was taken.
        self._empty_at = self._taken_at = time.monotonic()
        self._arrival = (self._empty_at, self._taken_at)

    # --- Channel -----------------------------------------------------------------
    def send_lines(self, lines: Sequence[str], deadline: float) -> SendResult:
        """Send each line as one message; queued until the bot connects, if it has not yet."""
        if isinstance(self._finished, Closed):
            return self._finished
        if self._owner is None:
            self._service()  # its hello may be waiting (a lost owner shows when sending to it fails)
        owner = self._owner
        if owner is None:
            self._pending.extend(line.encode() for line in lines)
            return None
        if owner.gone:
            return self._finish_closed()
        return self._deliver([line.encode() for line in lines], deadline)

    def read_line(self, deadline: float) -> ReadResult:
        """The owner's next line; TIMEOUT at `deadline`; `Closed` once its connection is gone."""
        while True:
            if self._finished is not None:
                return self._finished
            if self._inbox:
                self._arrival = (self._empty_at, self._taken_at)
                return self._decode(self._inbox.popleft())
            if self._owner is not None and self._owner.gone:
                self._service()  # a last message may have come in just before the connection closed
                if not self._inbox:
                    self._finish_closed()
                continue
            now = time.monotonic()
            remaining_ms = math.ceil((deadline - now) * 1000)
            if remaining_ms > 0:
                if not self._step(remaining_ms) and not self._inbox:
                    self._empty_at = max(self._empty_at, now + remaining_ms / 1000)  # it timed out
                continue
            self._service()  # what has already arrived (bounded: a flood cannot hold us past the deadline)
            if not self._inbox and not (self._owner is not None and self._owner.gone):
                self._empty_at = max(self._empty_at, now)
                return TIMEOUT

    def arrival(self) -> tuple[float, float]:
        """As `PipeChannel.arrival`: the owner's last line arrived after the first moment and by
        the second. ZeroMQ's own thread takes messages in before the arbiter sees them; it runs
        at the arbiter's priority (priority.py), so it is as punctual as the referee."""
        return self._arrival

    def input_pending(self) -> bool:
        """Whether lines are held for a bot that has not connected yet (once it has, ZeroMQ
        cannot say whether it has taken them; once the channel is finished, none ever will be)."""
        if self._owner is None:
            self._service()  # its hello may be waiting
        return bool(self._pending) and self._finished is None

    def close_input(self) -> None:
        """Nothing: a socket has no end of file to give; `Quit` is the bot's end."""

    # --- remote seats ------------------------------------------------------------
    def _begin_game(self) -> None:
        """Start a game on a remote seat: forget the last game, let a reconnected bot take over."""
        if self._shut:
            return
        self._finished = None  # a bad line or a lost connection ended only the last game
        self._pending.clear()
        self._service()
        if self._owner is not None and self._owner.gone:
            successor = self._successor
            self._owner = successor if successor is not None and not successor.gone else None
            self._successor = None
            if self._owner is not None:
                log.info("%s: %s now serves this seat (the previous connection was lost)",
                         self.label, self._owner.address)
        self._between_games("after its last game ended")

    def _between_games(self, when: str = "between games") -> None:
        """Take in connections and refusals while no game holds the seat; lines now are dropped."""
        if self._shut:
            return
        self._service()
        stale = 0
        while self._inbox:
            stale += len(self._inbox)
            self._inbox.clear()
            self._service()
        if stale:
            log.info("%s: dropped %d line(s) the bot sent %s", self.label, stale, when)

    def _wait_for_owner(self, deadline: float, cancel: threading.Event | None) -> bool:
        """Wait until a bot owns the seat; whether one does by `deadline`. LeaseCancelled once `cancel` is set."""
        while True:
            _check_cancel(cancel)
            self._service()
            if self._owner is not None and not self._owner.gone:
                return True
            remaining_ms = math.ceil((deadline - time.monotonic()) * 1000)
            if remaining_ms <= 0:
                return False
            self._step(min(remaining_ms, CANCEL_CHECK_MS))

    # --- inside ------------------------------------------------------------------
    def _service(self) -> None:
        """Take in monitor events and messages without blocking, until the owner has a line
        waiting; at most SERVICE_STEPS of them, so that strangers flooding the seat cannot
        keep the arbiter here."""
        for _ in range(SERVICE_STEPS):
            if self._inbox or not self._step(0):
                return

    def _step(self, timeout_ms: int) -> bool:
        """Wait up to `timeout_ms` for the socket, its monitor or its door; take in one message,
        the monitor's events, or the door's first connection. Whether anything was ready."""
        if self._socket.closed:
            return False
        ready = zmq.zmq_poll(self._poll_items, timeout_ms)
        for socket, _ in ready:
            if socket is self._monitor:
                self._watch()
            elif socket is self._socket:
                self._take()
            else:
                self._let_in()
        if self._fault is not None:
            self._finished = Closed(self._fault)
            self._close_socket()  # every connection of the crowd with it, at once
        elif self._door is not None and self.remote:
            crowd = self._door.mind(owned=self._owner is not None and not self._owner.gone)
            if crowd:
                self._refusals.warn((self._domain or self.label, "door"),
                                    f"{self.label}: {crowd} new connections within {HANDSHAKE_IVL_MS / 1000:g} s: "
                                    "taking none for now (a flood of strangers?)")
        return bool(ready)

    def _let_in(self) -> None:
        """Hand ZeroMQ the door (ZMQ_USE_FD: it accepts on a copy); a launched seat's once a
        connection waits at it, shutting it first (what the kernel's queue held still gets in)."""
        assert self._door is not None
        if self.single:
            self._door.shut()
            self._poll_items.pop()
        self._socket.setsockopt(zmq.USE_FD, self._door.copy())
        self._socket.bind(self.endpoint)

    def _take(self) -> None:
        """Route one incoming message: the owner's line, a hello that claims the seat, or a refusal."""
        socket = self._socket
        routing_id = socket.recv(zmq.NOBLOCK)
        owner = self._owner
        if owner is not None and routing_id == owner.routing_id:
            parts = [socket.recv(zmq.NOBLOCK)]
            while socket.getsockopt(zmq.RCVMORE):
                parts.append(socket.recv(zmq.NOBLOCK))
            self._inbox.append(parts)
            self._taken_at = time.monotonic()
            return
        body = [socket.recv(zmq.NOBLOCK, copy=False)]  # frames: a stranger's address and key are asked
        while body[-1].more:
            body.append(socket.recv(zmq.NOBLOCK, copy=False))
        hello = len(body) == 1 and not body[0].bytes
        peer = _Peer(routing_id, _frame_property(body[0], zmq.SRCFD, -1),
                     str(_frame_property(body[0], "Peer-Address", "?")),
                     str(_frame_property(body[0], "User-Id", "")))
        if hello and owner is None:
            self._watch()  # first take in the monitor's report of this connection
            peer.seen_open = peer.fd in self._open_fds
            self._owner = peer
            log.debug("%s: %s connected and owns the seat", self.label, peer.address)
            if self._pending:
                lines, self._pending = self._pending, []
                self._deliver(lines, time.monotonic() + 1.0)
            return
        if hello and owner is not None and owner.gone and self.remote:
            self._watch()
            peer.seen_open = peer.fd in self._open_fds
            self._successor = peer  # it serves from the next game on; this game is lost already
            return
        if routing_id in self._refused:
            return  # told once already
        if len(self._refused) >= MAX_REFUSED_REMEMBERED:
            self._refused.clear()
        self._refused.add(routing_id)
        why = ("the seat is in use by another connection" if hello
               else "its first message was a line, not the hello (an empty message)")
        if self.single:  # every connection to a launched bot's seat is its own
            self._fault = self._fault or (_SECOND_CONNECTION.format(self.endpoint) if hello else
                                          "sent a line on its seat's connection before the hello (an empty message)")
            return
        key_text = f" with key {peer.key}" if peer.key else ""
        self._refusals.warn((self._domain or self.label, peer.address, routing_id.hex()),
                            f"{self.label}: refused a connection from {peer.address}{key_text}: {why}")
        try:
            self._socket.send_multipart([routing_id, f"{REFUSED} {why}".encode()], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass  # it is gone already, or not reading: nothing more to tell it

    def _watch(self) -> None:
        """Apply the socket monitor's events: which connections are open, and whether the owner's closed."""
        while self._monitor.get(zmq.EVENTS) & zmq.POLLIN:
            event = recv_monitor_message(self._monitor, zmq.NOBLOCK)
            kind, value = event["event"], int(event["value"])
            peers = [p for p in (self._owner, self._successor) if p is not None and p.fd == value]
            if kind in (zmq.EVENT_ACCEPTED, zmq.EVENT_CONNECTED):
                self._open_fds.add(value)
                if self._door is not None and self._door.taken() > 1 and self.single:
                    self._fault = self._fault or _SECOND_CONNECTION.format(self.endpoint)
                for peer in peers:
                    peer.seen_open = True
            elif kind == zmq.EVENT_DISCONNECTED:
                self._open_fds.discard(value)
                for peer in peers:
                    if peer.seen_open:  # not a report about an earlier connection on the same descriptor
                        peer.gone = True
                if self._owner is not None and self._owner.gone and peers and peers[0] is self._owner:
                    log.info("%s: the connection from %s closed", self.label, self._owner.address)
            elif kind in (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL):
                # Which side notices a mismatch first varies: a protocol error here, or the peer hanging up.
                if kind == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:
                    detail = os.strerror(value)
                elif value in (zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH, zmq.PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC):
                    detail = "mechanism mismatch" if value == zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH else "bad keys"
                else:
                    detail = f"protocol error {value:#x}"
                hint = "; a peer without CURVE or with the wrong server key fails this way" if self._domain else ""
                self._refusals.warn((self._domain or self.label, "handshake"),
                                    f"{self.label}: refused a connection: its handshake failed ({detail}){hint}")

    def _deliver(self, messages: list[bytes], deadline: float) -> SendResult:
        """Send to the owner, waiting (not past `deadline`) while its queue is full."""
        owner = self._owner
        assert owner is not None
        for message in messages:
            while True:
                try:
                    self._socket.send_multipart([owner.routing_id, message], zmq.NOBLOCK)
                    break
                except zmq.Again:
                    remaining_ms = math.ceil((deadline - time.monotonic()) * 1000)
                    if remaining_ms <= 0 or not self._socket.poll(remaining_ms, zmq.POLLOUT):
                        return TIMEOUT
                except zmq.ZMQError as exc:
                    if exc.errno != zmq.EHOSTUNREACH:
                        raise
                    owner.gone = True
                    return self._finish_closed()
        return None

    def _decode(self, parts: list[bytes]) -> ReadResult:
        raw = parts[0].removesuffix(b"\n")  # tolerated: a line ending is not needed over a socket
        if len(parts) != 1:
            line = BadLine(f"a message of {len(parts)} parts (a line is one single-part message)", b"".join(parts)[:40])
        elif b"\n" in raw:
            line = BadLine("a message holding more than one line", raw[:40])
        else:
            line = decode_line(raw)
        if isinstance(line, BadLine):
            self._finished = line
        return line

    def _finish_closed(self) -> Closed:
        where = f" from {self._owner.address}" if self._owner is not None else ""
        self._finished = Closed(f"lost its connection{where} to {self.endpoint} (the bot closed it, exited, or "
                                "stopped answering heartbeats)")
        return self._finished

    def shut(self) -> None:
        """Close the socket for good (idempotent); the `Channel`'s `close` (a remote seat's games
        hand a `RemoteChannel` lease back instead)."""
        if self._shut:
            return
        self._shut = True
        try:
            self._close_socket()
        finally:
            if self._private_dir is not None:
                remove_tree(str(self._private_dir))  # OSError: the referee notes it, the game stands

    def _close_socket(self) -> None:
        if self._socket.closed:
            return
        if self._gate is not None:
            self._gate.forget(self._domain)
        self._socket.disable_monitor()
        self._monitor.close(0)
        self._socket.close()  # LINGER_MS: a `Quit` just sent still goes out
        if self._door is not None:
            self._door.close()
        if self._finished is None:
            self._finished = Closed("the arbiter closed the channel")

    close = shut


def _frame_property(frame: zmq.Frame, name: int | str, default: object) -> object:
    try:
        return frame.get(name)
    except zmq.ZMQError:
        return default


# --- launched bots -------------------------------------------------------------------

def launch_zmq_bot(command: Sequence[str], *, label: str, bind: str | None = None, cwd: str | None = None,
                   env: Mapping[str, str] | None = None, memory_mb: int | None = None,
                   log_path: Path | None = None,
                   sandbox: SandboxSpec | None = None) -> tuple[ZmqChannel, BotProcess]:
    """Bind a seat's socket, then start a bot that connects to it (`ARBITER_ENDPOINT`).

    A sandboxed bot (`sandbox`, decided with `sandbox.box_here`) has no network: its seat is a
    unix socket in a private folder only its box shows. On a non-loopback `bind`, CURVE is on
    with keys made for the game: the arbiter's public key in `ARBITER_SERVER_KEY`, the bot's
    pair in a private folder's file named by `ARBITER_KEYS`. The folder goes with the channel.
    Its stdin is closed, its stdout discarded (debug output belongs on stderr, which is logged).
    Raises LaunchError if the socket cannot be bound or the bot cannot be started.
    """
    bind, bot_env, curve, private_dir = bind or DEFAULT_BIND, dict(env or {}), None, None
    if sandbox is not None or not parse_endpoint(bind, side="bind").is_loopback:
        private_dir = Path(tempfile.mkdtemp(prefix="arbiter-seat-"))  # mode 0700
    try:
        if sandbox is not None:
            bind = f"ipc://{private_dir}/seat"
        elif private_dir is not None:
            arbiter_pair, bot_pair = KeyPair.generate(), KeyPair.generate()
            curve = SeatCurve(arbiter_pair, bot_pair.public)
            bot_env[ENV_KEYS] = str(write_key_pair(private_dir, "bot", bot_pair)[0])
            bot_env[ENV_SERVER_KEY] = arbiter_pair.public
        channel = ZmqChannel(label, bind=bind, curve=curve, single=True, private_dir=private_dir)
        if sandbox is not None:  # the box's user connects; its folder keeps others out
            os.chmod(f"{private_dir}/seat", 0o666)
    except BaseException:
        if private_dir is not None:
            remove_tree(str(private_dir))
        raise
    bot_env[ENV_ENDPOINT] = connectable(channel.endpoint)
    try:
        process, stdin_fd, stdout_fd = BotProcess.launch(command, cwd=cwd, env=bot_env, memory_mb=memory_mb,
                                                         log_path=log_path, sandbox=sandbox,
                                                         seat_dir=str(private_dir) if sandbox is not None else None)
    except BaseException:
        channel.shut()
        raise
    os.close(stdin_fd)
    StderrDrain(stdout_fd, None)  # discarded, by the stderr reader, until the bot's tree has exited
    return channel, process


# --- remote bots ---------------------------------------------------------------------

class RemoteChannel:
    """One game's lease on a remote seat: the seat's `Channel` until `close()` hands it back.
    `unavailable` (no bot in time, or no socket) makes every call answer `Closed` with that reason."""

    def __init__(self, seat: ZmqChannel | None, unavailable: Closed | None) -> None:
        self.seat = seat
        self._unavailable = unavailable
        self._closed = False

    def send_lines(self, lines: Sequence[str], deadline: float) -> SendResult:
        """As `ZmqChannel.send_lines`."""
        if self.seat is None or self._unavailable is not None or self._closed:
            return self._unavailable or Closed("the arbiter closed the channel")
        return self.seat.send_lines(lines, deadline)

    def read_line(self, deadline: float) -> ReadResult:
        """As `ZmqChannel.read_line`."""
        if self.seat is None or self._unavailable is not None or self._closed:
            return self._unavailable or Closed("the arbiter closed the channel")
        return self.seat.read_line(deadline)

    def arrival(self) -> tuple[float, float]:
        """As `ZmqChannel.arrival`."""
        if self.seat is None:
            now = time.monotonic()
            return now, now
        return self.seat.arrival()

    def input_pending(self) -> bool:
        """False: a remote bot has no start-up the arbiter can see."""
        return False

    def close_input(self) -> None:
        """Nothing: a remote bot stays connected for its next game."""

    def close(self) -> None:
        """Hand the seat back (idempotent); its socket and connection stay up for the next game."""
        if not self._closed:
            self._closed = True
            if self.seat is not None:
                self.seat._lease.release()


def lease_remote_seats(seats: Sequence[tuple[str, SocketSpec]], *,
                       cancel: threading.Event | None = None) -> list[RemoteChannel]:
    """The channels of remote seats for one game, given (label, spec) pairs; `close()` hands each back.

    A seat's socket is made on first use and kept as long as the arbiter process. A seat serves
    one game at a time: leases are taken in a fixed order (no deadlock). Then waits up to each
    spec's `connect_wait_ms`, counted once every lease is held, for bots not connected; a seat
    still without one, or whose socket cannot be set up, answers `Closed` saying why. Every
    wait looks at `cancel` every CANCEL_CHECK_MS, then raises LeaseCancelled, holding no lease.
    Raises EndpointError for settings `socket_problems` rejects.
    """
    for label, spec in seats:
        try:
            check_socket("remote", spec)
        except EndpointError as exc:
            raise EndpointError(f"{label}: {exc}") from None
    runtime = _runtime()
    found: list[ZmqChannel | Closed] = []
    with runtime.remote_lock:
        for label, spec in seats:
            try:
                found.append(_remote_seat(runtime, label, spec))
            except LaunchError as exc:
                found.append(Closed(f"could not be reached: {exc}"))
    sockets = [seat for seat in found if isinstance(seat, ZmqChannel)]
    if len(set(map(id, sockets))) != len(sockets):
        raise EndpointError("two seats of one game cannot share a remote endpoint")
    taken: list[ZmqChannel] = []
    try:
        for seat in sorted(sockets, key=lambda seat: seat.endpoint):
            _take_lease(seat, cancel)
            taken.append(seat)
            seat._begin_game()
        started = time.monotonic()
        leases = []
        for seat, (label, spec) in zip(found, seats):
            if isinstance(seat, Closed):
                leases.append(RemoteChannel(None, seat))
                continue
            unavailable = None
            if not seat._wait_for_owner(started + spec.connect_wait_ms / 1000, cancel):
                unavailable = Closed(f"never connected: {_no_bot(seat, spec, spec.connect_wait_ms)}")
            leases.append(RemoteChannel(seat, unavailable))
    except BaseException:
        for seat in taken:
            seat._lease.release()
        raise
    return leases


def _no_bot(seat: ZmqChannel, spec: SocketSpec, wait_ms: int) -> str:
    side = "connected to" if spec.bind else "answered at"
    return f"no bot {side} {seat.endpoint} within {wait_ms / 1000:g} s"


def check_in_remote_seats(seats: Sequence[tuple[str, SocketSpec]], *,
                          on_wait: Callable[[list[str]], None] | None = None,
                          cancel: threading.Event | None = None) -> dict[str, str]:
    """Open the remote seats and wait until a bot owns each; {label: why} for the seats no bot came to.

    Each is waited for up to its `connect_wait_ms`, at least CHECK_IN_QUIET_MS (a running bot
    needs a moment to connect to a seat just opened), after which `on_wait` is told the labels
    still waited for. The seats stay open for the games. EndpointError as `lease_remote_seats`;
    LeaseCancelled once `cancel` is set (looked at every CANCEL_CHECK_MS), holding no lease.
    """
    started = time.monotonic()
    leases = lease_remote_seats([(label, replace(spec, connect_wait_ms=0)) for label, spec in seats], cancel=cancel)
    absent: dict[str, str] = {}
    try:
        waiting = []
        for (label, spec), lease in zip(seats, leases):
            if lease.seat is None:  # its socket could not be set up
                assert lease._unavailable is not None
                absent[label] = lease._unavailable.why
            elif not lease.seat._wait_for_owner(started + CHECK_IN_QUIET_MS / 1000, cancel):
                waiting.append((label, spec, lease.seat))
        if waiting and on_wait is not None:
            on_wait([label for label, _, _ in waiting])
        for label, spec, seat in waiting:
            wait_ms = max(spec.connect_wait_ms, CHECK_IN_QUIET_MS)
            if not seat._wait_for_owner(started + wait_ms / 1000, cancel):
                absent[label] = _no_bot(seat, spec, wait_ms)
    finally:
        for lease in leases:
            lease.close()
    return absent


def _take_lease(seat: ZmqChannel, cancel: threading.Event | None) -> None:
    """Hold the seat's lease, waiting for the game that has it; LeaseCancelled once `cancel` is set."""
    if seat._lease.acquire(blocking=False):
        return
    log.debug("%s: waiting for the game that holds this seat", seat.label)
    while not seat._lease.acquire(timeout=CANCEL_CHECK_MS / 1000):
        _check_cancel(cancel)


def _check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise LeaseCancelled("the game was cancelled while it waited for a remote seat")


def _remote_seat(runtime: _Runtime, label: str, spec: SocketSpec) -> ZmqChannel:
    """The remote seat for `spec`, made on first use (the caller holds `runtime.remote_lock`)."""
    side, endpoint = ("bind", spec.bind) if spec.bind else ("connect", spec.connect)
    assert endpoint is not None
    curve = None
    if spec.public_key and spec.arbiter_keys:
        curve = SeatCurve(read_key_file(spec.arbiter_keys, need_secret=True), spec.public_key)
    key = (side, endpoint)
    channel = runtime.remote.get(key)
    if channel is not None:
        if channel.client_key != (curve.client_public if curve else None):
            raise EndpointError(f"{label}: {endpoint} is already the seat of a remote player with other keys")
        return channel
    channel = ZmqChannel(label, bind=spec.bind, connect=spec.connect, curve=curve, remote=True)
    runtime.add_remote(key, channel)
    return channel


def close_remote_seats() -> None:
    """Close every remote seat's socket (the end of a tournament; tests). Bots must reconnect after."""
    if _RUNTIME is not None:
        _RUNTIME.close_remote()


def end_runtime() -> None:
    """End this process's ZeroMQ runtime now: its seats, its ZAP handler, its context (each
    message still queued has LINGER_MS to leave). For a worker process, whose exit runs no
    `atexit` handler; a later socket starts a new runtime."""
    global _RUNTIME
    with _RUNTIME_LOCK:
        runtime, _RUNTIME = _RUNTIME, None
    if runtime is not None:
        atexit.unregister(runtime.shut)
        runtime.shut()


__all__ = [
    "DEFAULT_BIND", "ENV_ENDPOINT", "ENV_KEYS", "ENV_SERVER_KEY", "REFUSED", "Endpoint", "EndpointError",
    "LeaseCancelled", "RemoteChannel", "SeatCurve", "SocketSpec", "ZmqChannel", "check_in_remote_seats",
    "check_socket", "close_remote_seats", "connectable", "end_runtime", "launch_zmq_bot", "lease_remote_seats",
    "parse_endpoint", "socket_problems",
]
