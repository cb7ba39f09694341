"""The ZeroMQ channel on its own: endpoints, the hello that claims a seat, refusals, CURVE,
dead peers. The peers here are plain pyzmq sockets in the test process (each its own
context), so every case takes milliseconds."""
from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import zmq

from arbiter.transport import TIMEOUT, BadLine, Closed
from arbiter.transport.keys import KeyPair, read_key_file, write_key_pair
from arbiter.transport.priority import punctual
from arbiter.transport.zmq import (
    REFUSED, EndpointError, SeatCurve, SocketSpec, ZmqChannel, connectable, parse_endpoint, socket_problems,
)
from arbiter.transport import zmq as zmq_transport
from arbiter.transport.zmq_bot import ZmqBotChannel

LOGGER = "arbiter.transport.zmq"


@pytest.fixture
def peers() -> Iterator[zmq.Context]:
    """A context for the bots' sockets, destroyed after the test."""
    context = zmq.Context()
    yield context
    context.destroy(linger=0)


@pytest.fixture
def seats() -> Iterator[list[ZmqChannel]]:
    """Channels made by a test, shut after it."""
    made: list[ZmqChannel] = []
    yield made
    for channel in made:
        channel.shut()


def seat(seats: list[ZmqChannel], curve: SeatCurve | None = None, label: str = "seat 0 (test)") -> ZmqChannel:
    channel = ZmqChannel(label, bind="tcp://127.0.0.1:*", curve=curve)
    seats.append(channel)
    return channel


def bot_socket(context: zmq.Context, endpoint: str, *, hello: bool = True, keys: KeyPair | None = None,
               server_key: str | None = None) -> zmq.Socket:
    socket = context.socket(zmq.DEALER)
    socket.linger = 0
    if hello:
        socket.setsockopt(zmq.PROBE_ROUTER, 1)
    if keys is not None:
        assert keys.secret is not None and server_key is not None
        socket.curve_serverkey = server_key.encode()
        socket.curve_publickey = keys.public.encode()
        socket.curve_secretkey = keys.secret.encode()
    socket.connect(endpoint)
    return socket


def soon(seconds: float = 2.0) -> float:
    return time.monotonic() + seconds


def receive(socket: zmq.Socket, timeout_ms: int = 2000) -> bytes:
    assert socket.poll(timeout_ms), "nothing arrived"
    return socket.recv()


def serve_until(channel: ZmqChannel, done: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Keep the channel reading (which is when it takes in hellos and refuses strangers)
    until `done()`; no line may arrive meanwhile."""
    end = soon(timeout_s)
    while not done():
        assert channel.read_line(soon(0.02)) is TIMEOUT
        assert time.monotonic() < end, "timed out"


def start(channel: ZmqChannel, bot: zmq.Socket) -> None:
    """Send `Start`; the channel takes the bot's hello while it reads, then the bot gets it."""
    assert channel.send_lines(["Start"], soon()) is None
    serve_until(channel, lambda: bool(bot.poll(0)))
    assert bot.recv() == b"Start"


# --- endpoints and settings ----------------------------------------------------------

@pytest.mark.parametrize("text, loopback", [
    ("tcp://127.0.0.1:5555", True), ("tcp://localhost:5555", True), ("tcp://127.1.2.3:*", True),
    ("tcp://[::1]:5555", True), ("tcp://0.0.0.0:5555", False), ("tcp://*:5555", False),
    ("tcp://192.168.1.10:5555", False), ("tcp://example.org:5555", False), ("tcp://eth0:5555", False),
])
def test_only_loopback_addresses_count_as_loopback(text: str, loopback: bool) -> None:
    assert parse_endpoint(text, side="bind").is_loopback is loopback


@pytest.mark.parametrize("text, side, message", [
    ("ipc://relative/x", "bind", "or ipc:///PATH for a unix socket"),
    ("tcp://127.0.0.1", "bind", "write tcp://HOST:PORT"),
    ("tcp://127.0.0.1:*", "connect", "must be a number, not *"),
    ("tcp://127.0.0.1:70000", "bind", "between 1 and 65535"),
    ("tcp://*:5555", "connect", "cannot connect to *"),
])
def test_a_bad_endpoint_is_refused_saying_what_to_write(text: str, side: str, message: str) -> None:
    with pytest.raises(EndpointError, match=message.replace("*", r"\*")):
        parse_endpoint(text, side=side)


def test_a_wildcard_bind_is_reached_through_loopback() -> None:
    assert connectable("tcp://0.0.0.0:4242") == "tcp://127.0.0.1:4242"
    assert connectable("tcp://[::]:4242") == "tcp://[::1]:4242"
    assert connectable("tcp://127.0.0.1:4242") == "tcp://127.0.0.1:4242"


def test_a_non_loopback_remote_endpoint_without_keys_is_refused_with_a_clear_error() -> None:
    problems = socket_problems("remote", SocketSpec(bind="tcp://0.0.0.0:5555"))
    assert problems == [("bind", "tcp://0.0.0.0:5555 is not a loopback address, so it needs CURVE keys: set "
                                 "arbiter_keys: (the arbiter's key pair file, from `arbiter keys arbiter`) and "
                                 "public_key: (the bot's, from `arbiter keys NAME`); see docs/remote-bots.md")]
    with pytest.raises(EndpointError, match="tcp://0.0.0.0:5555 is not a loopback address: refusing to bind"):
        ZmqChannel("seat 0 (x)", bind="tcp://0.0.0.0:5555")
    with pytest.raises(EndpointError, match="not a loopback address: refusing to connect it without CURVE"):
        ZmqBotChannel("tcp://192.0.2.1:5555")


@pytest.mark.parametrize("transport, spec, key, fragment", [
    ("remote", SocketSpec(), "bind", "exactly one of bind"),
    ("remote", SocketSpec(bind="tcp://127.0.0.1:1", connect="tcp://127.0.0.1:2"), "bind", "exactly one of bind"),
    ("remote", SocketSpec(bind="tcp://127.0.0.1:*"), "bind", "must know the port"),
    ("remote", SocketSpec(bind="tcp://127.0.0.1:5555", public_key="x" * 40), "arbiter_keys", "is missing"),
    ("remote", SocketSpec(bind="tcp://127.0.0.1:5555", public_key="not a key", arbiter_keys="/nonexistent"),
     "public_key", "is not a CURVE public key"),
    ("remote", SocketSpec(bind="tcp://127.0.0.1:5555", public_key="x" * 40, arbiter_keys="/nonexistent"),
     "arbiter_keys", "cannot read key file /nonexistent"),
    ("zmq", SocketSpec(connect="tcp://127.0.0.1:5555"), "connect", "does not apply to transport: zmq"),
    ("zmq", SocketSpec(bind="udp://x"), "bind", "not a ZeroMQ endpoint"),
    ("pipe", SocketSpec(bind="tcp://127.0.0.1:5555"), "bind", "only applies to transport: zmq or remote"),
])
def test_socket_settings_problems_name_the_key(transport: str, spec: SocketSpec, key: str, fragment: str) -> None:
    problems = socket_problems(transport, spec)
    assert any(k == key and fragment in message for k, message in problems), problems


def test_zmq_transport_on_a_non_loopback_address_needs_no_configured_keys() -> None:
    assert socket_problems("zmq", SocketSpec(bind="tcp://0.0.0.0:*")) == []  # keys are made per game


def test_key_files_round_trip_and_keep_the_secret_private(tmp_path: Path) -> None:
    pair = KeyPair.generate()
    secret_path, public_path = write_key_pair(tmp_path, "alice", pair)
    assert secret_path.stat().st_mode & 0o777 == 0o600
    assert read_key_file(secret_path, need_secret=True) == pair
    assert read_key_file(public_path, need_secret=False) == KeyPair(pair.public)
    assert pair.secret not in public_path.read_text()
    with pytest.raises(ValueError, match="holds only a public key"):
        read_key_file(public_path, need_secret=True)
    with pytest.raises(ValueError, match="already exists"):
        write_key_pair(tmp_path, "alice", KeyPair.generate())


# --- lines ---------------------------------------------------------------------------

def test_lines_sent_before_the_bot_connects_wait_for_its_hello(seats: list[ZmqChannel], peers: zmq.Context) -> None:
    channel = seat(seats)
    assert channel.send_lines(["Game limit-nim", "Start"], soon()) is None
    bot = bot_socket(peers, channel.endpoint)
    serve_until(channel, lambda: bool(bot.poll(0)))  # the hello is not a line
    assert [receive(bot), receive(bot)] == [b"Game limit-nim", b"Start"]
    bot.send(b"1 1")
    assert channel.read_line(soon()) == "1 1"


def test_a_read_with_a_past_deadline_only_looks_at_what_arrived(seats: list[ZmqChannel], peers: zmq.Context) -> None:
    channel = seat(seats)
    bot = bot_socket(peers, channel.endpoint)
    start(channel, bot)
    with punctual() as on_time:
        started = time.monotonic()
        assert channel.read_line(0.0) is TIMEOUT
        looked = time.monotonic() - started
    if on_time:  # a look, not a wait (for a thread the machine runs when it wakes, priority.py)
        assert looked < 0.05
    bot.send(b"2 3")
    end = soon()
    while (result := channel.read_line(0.0)) is TIMEOUT and time.monotonic() < end:
        time.sleep(0.005)  # nothing to await: the point is a read that never waits
    assert result == "2 3"


@pytest.mark.parametrize("message, why", [
    ([b"1 \xff"], "not valid UTF-8"),
    ([b"1" * 5000], "a line longer than 4096 bytes"),
    ([b"1 1\n2 2"], "more than one line"),
    ([b"1", b"1"], "a message of 2 parts"),
])
def test_a_message_that_is_not_one_line_is_a_bad_line(message: list[bytes], why: str,
                                                       seats: list[ZmqChannel], peers: zmq.Context) -> None:
    channel = seat(seats)
    bot = bot_socket(peers, channel.endpoint)
    start(channel, bot)
    bot.send_multipart(message)
    result = channel.read_line(soon())
    assert isinstance(result, BadLine) and why in result.why
    assert channel.read_line(soon()) is result  # the channel is finished


def test_a_trailing_line_ending_is_tolerated(seats: list[ZmqChannel], peers: zmq.Context) -> None:
    channel = seat(seats)
    bot = bot_socket(peers, channel.endpoint)
    start(channel, bot)
    bot.send(b"4 5\n")
    assert channel.read_line(soon()) == "4 5"


# --- who may speak for the seat ------------------------------------------------------

def test_a_second_connection_is_refused_logged_and_cannot_speak(seats: list[ZmqChannel], peers: zmq.Context,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    channel = seat(seats, label="seat 1 (owner)")
    owner = bot_socket(peers, channel.endpoint)
    start(channel, owner)
    intruder = bot_socket(peers, channel.endpoint)
    with caplog.at_level(logging.WARNING, LOGGER):
        intruder.send(b"9 9")
        serve_until(channel, lambda: bool(intruder.poll(0)))  # its move never reaches the game
    assert intruder.recv() == f"{REFUSED} the seat is in use by another connection".encode()
    assert "seat 1 (owner): refused a connection from 127.0.0.1: the seat is in use by another connection" \
        in caplog.text
    owner.send(b"1 2")
    assert channel.read_line(soon()) == "1 2"
    channel.send_lines(["3 4"], soon())
    assert receive(owner) == b"3 4"
    assert not intruder.poll(100)  # nothing meant for the owner goes to the intruder


def test_a_connection_that_speaks_before_its_hello_is_refused(seats: list[ZmqChannel], peers: zmq.Context,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    channel = seat(seats)
    rude = bot_socket(peers, channel.endpoint, hello=False)
    with caplog.at_level(logging.WARNING, LOGGER):
        rude.send(b"1 1")
        serve_until(channel, lambda: bool(rude.poll(0)))
    assert rude.recv().startswith(REFUSED.encode() + b" its first message was a line")
    assert "refused a connection" in caplog.text


def test_a_launched_bot_s_seat_takes_one_connection_and_a_second_closes_it(seats: list[ZmqChannel],
                                                                             peers: zmq.Context) -> None:
    """Until the arbiter looks, connections wait in the kernel's queue; it then lets in what
    waits and shuts the door behind: a second connection is the bot's fault, a third cannot come."""
    channel = ZmqChannel("seat 0 (test)", bind="tcp://127.0.0.1:*", single=True)
    seats.append(channel)
    assert channel.send_lines(["Start"], soon()) is None
    owner = bot_socket(peers, channel.endpoint)
    start(channel, owner)
    port = int(channel.endpoint.rsplit(":", 1)[1])
    late = socket.socket()
    late.settimeout(0.2)
    with pytest.raises(OSError):  # the shut door drops its SYN: it costs the arbiter nothing
        late.connect(("127.0.0.1", port))
    late.close()
    owner.send(b"1 1")
    assert channel.read_line(soon()) == "1 1"


def test_a_second_connection_waiting_with_the_first_closes_a_launched_bot_s_seat(seats: list[ZmqChannel],
                                                                                  tmp_path: Path) -> None:
    channel = ZmqChannel("seat 0 (test)", bind=f"ipc://{tmp_path}/seat", single=True)
    seats.append(channel)
    helpers = [socket.socket(socket.AF_UNIX) for _ in range(2)]
    for helper in helpers:  # silent, both waiting in the kernel's queue before the arbiter looks
        helper.connect(str(tmp_path / "seat"))
    result = channel.read_line(soon())
    assert isinstance(result, Closed) and "made a second connection to its seat" in result.why, result
    assert not (tmp_path / "seat").exists()  # the door is shut: nothing more can even try
    for helper in helpers:
        helper.close()


def test_the_owner_disconnecting_closes_the_channel_at_once(seats: list[ZmqChannel], peers: zmq.Context) -> None:
    channel = seat(seats)
    bot = bot_socket(peers, channel.endpoint)
    start(channel, bot)
    bot.send(b"1 1")
    bot.close(linger=1000)
    assert channel.read_line(soon()) == "1 1"  # what it sent before it left still counts
    with punctual() as on_time:
        started = time.monotonic()
        result = channel.read_line(soon(10))
        waited = time.monotonic() - started
    assert isinstance(result, Closed) and "lost its connection from 127.0.0.1" in result.why
    if on_time:  # at once, not at the read's 10 s deadline
        assert waited < 1.0
    assert isinstance(channel.send_lines(["Quit"], soon()), Closed)


# --- CURVE ---------------------------------------------------------------------------

def curve_seat(seats: list[ZmqChannel], bot_keys: KeyPair, label: str) -> tuple[ZmqChannel, KeyPair]:
    arbiter = KeyPair.generate()
    return seat(seats, SeatCurve(arbiter, bot_keys.public), label), arbiter


def test_curve_admits_the_seat_s_own_key(seats: list[ZmqChannel], peers: zmq.Context) -> None:
    bot_keys = KeyPair.generate()
    channel, arbiter = curve_seat(seats, bot_keys, "seat 0 (alice)")
    bot = bot_socket(peers, channel.endpoint, keys=bot_keys, server_key=arbiter.public)
    start(channel, bot)
    bot.send(b"1 1")
    assert channel.read_line(soon()) == "1 1"


def test_another_seat_s_key_is_refused_and_logged_before_it_can_send(
        seats: list[ZmqChannel], peers: zmq.Context, caplog: pytest.LogCaptureFixture) -> None:
    alice, bob = KeyPair.generate(), KeyPair.generate()
    alice_seat, arbiter = curve_seat(seats, alice, "seat 0 (alice)")
    with caplog.at_level(logging.WARNING, LOGGER):
        impostor = bot_socket(peers, alice_seat.endpoint, keys=bob, server_key=arbiter.public)
        impostor.send(b"1 1")
        serve_until(alice_seat, lambda: "refused" in caplog.text)
    assert f"seat 0 (alice): refused a connection from 127.0.0.1: its public key {bob.public} is not " \
           "this player's key" in caplog.text
    assert alice_seat.send_lines(["Start"], soon()) is None  # queued: nobody owns the seat
    assert not impostor.poll(200)


@pytest.mark.parametrize("how", ["no CURVE", "wrong server key"])
def test_a_client_without_the_right_curve_set_up_is_refused_and_logged(
        how: str, seats: list[ZmqChannel], peers: zmq.Context, caplog: pytest.LogCaptureFixture) -> None:
    alice = KeyPair.generate()
    channel, arbiter = curve_seat(seats, alice, "seat 0 (alice)")
    with caplog.at_level(logging.WARNING, LOGGER):
        if how == "no CURVE":
            stranger = bot_socket(peers, channel.endpoint)
        else:
            stranger = bot_socket(peers, channel.endpoint, keys=alice, server_key=KeyPair.generate().public)
        stranger.send(b"1 1")
        serve_until(channel, lambda: "refused" in caplog.text)
    assert "seat 0 (alice): refused a connection: its handshake failed (" in caplog.text
    assert "a peer without CURVE or with the wrong server key fails this way" in caplog.text


def test_a_peer_that_keeps_retrying_is_logged_once_per_interval(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zmq_transport, "REFUSAL_LOG_INTERVAL_S", 0.1)
    refusals = zmq_transport._RefusalLog()
    with caplog.at_level(logging.WARNING, LOGGER):
        for _ in range(10):
            refusals.warn(("seat", "10.0.0.9", "KEY"), "refused 10.0.0.9")
        refusals.warn(("seat", "10.0.0.8", "KEY"), "refused 10.0.0.8")  # another peer: its own report
        time.sleep(0.15)
        refusals.warn(("seat", "10.0.0.9", "KEY"), "refused 10.0.0.9")
    assert [r.getMessage() for r in caplog.records] == [
        "refused 10.0.0.9", "refused 10.0.0.8",
        "refused 10.0.0.9 (9 more refusals of this peer since the last report)",
    ]


def test_a_flooding_stranger_cannot_hold_a_read_past_its_deadline(seats: list[ZmqChannel],
                                                                  peers: zmq.Context) -> None:
    channel = seat(seats)
    owner = bot_socket(peers, channel.endpoint)
    start(channel, owner)
    stop = threading.Event()
    sent = []

    def flood() -> None:  # its own socket, in its own thread, as fast as it goes
        flooder = bot_socket(peers, channel.endpoint, hello=False)
        while not stop.is_set():
            if flooder.poll(1, zmq.POLLOUT):
                flooder.send(b"9 9", zmq.NOBLOCK)
                sent.append(1)
        flooder.close()

    flooder_thread = threading.Thread(target=flood)
    flooder_thread.start()
    try:
        while len(sent) < 2000:
            channel.read_line(soon(0.01))
        with punctual() as on_time:
            started = time.monotonic()
            assert channel.read_line(started + 0.1) is TIMEOUT
            assert channel.read_line(0.0) is TIMEOUT
            waited = time.monotonic() - started
        if on_time:  # the flood, served at the arbiter's priority, still cannot hold it past its deadline
            assert waited < 0.3
        owner.send(b"1 1")
        assert channel.read_line(soon()) == "1 1"
    finally:
        stop.set()
        flooder_thread.join()
