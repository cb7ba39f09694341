"""Tries to connect out over TCP to $TARGET_PORT on the machine's loopback, to send UDP there,
and listens on all interfaces (port $LISTEN_PORT) for anyone to connect."""
import os
import socket

from hostile import hostile_bot, report


def network():
    port = int(os.environ["TARGET_PORT"])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            report("network", True, f"connected to 127.0.0.1:{port}")
    except OSError as exc:
        report("network", False, f"tcp 127.0.0.1:{port}: {exc}")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"leak", ("127.0.0.1", port))
        report("network", False, "udp sent (nobody outside the box can receive it)")
    except OSError as exc:
        report("network", False, f"udp: {exc}")
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", int(os.environ["LISTEN_PORT"])))
    listener.listen()
    network.listener = listener  # kept open for the rest of the game
    report("network", False, f"listening on 0.0.0.0:{os.environ['LISTEN_PORT']} (the test tries to reach it)")


hostile_bot(network)
