"""The live server ends cleanly whatever its visitors hold open: a browser keeps idle and
half-sent connections, an event stream and a kept-alive page; when the run ends (or Ctrl-C),
nothing of asyncio's or aiohttp's reaches the terminal ("Task was destroyed but it is
pending!", seen after a `--serve` run watched in a browser) and no task is left behind."""
from __future__ import annotations

import asyncio
import gc
import logging
import socket
import time
from pathlib import Path

import pytest

from arbiter.reports.live import LiveServer
from report_samples import write_sample_tournament


def _connect(port: int, data: bytes) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(data)
    return connection


def _read_until(connection: socket.socket, marker: bytes) -> None:
    seen, deadline = b"", time.monotonic() + 30
    connection.settimeout(30)
    while marker not in seen and time.monotonic() < deadline:
        chunk = connection.recv(65536)
        if not chunk:
            break
        seen += chunk
    assert marker in seen, seen[:200]


@pytest.mark.parametrize("ended", [True, False], ids=["run-ended", "interrupted"])
def test_the_server_stops_with_a_browsers_connections_open_and_leaves_no_task(tmp_path: Path, caplog, ended):
    folder = write_sample_tournament(tmp_path / "club", players=("ann", "bob"), games_per_pairing=2, timeouts=0, seed=1)
    server = LiveServer(folder)
    port = int(server.start().rsplit(":", 1)[1].strip("/"))
    held = [
        _connect(port, b""),  # a browser's preconnected socket: nothing sent yet
        _connect(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"),  # a request half sent
    ]
    stream = _connect(port, b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    _read_until(stream, b"event: snapshot")
    page = _connect(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
    _read_until(page, b"</html>")
    loop = server.loop
    assert loop is not None
    caplog.set_level(logging.DEBUG, logger="asyncio")
    caplog.set_level(logging.DEBUG, logger="aiohttp")
    try:
        server.stop(ended=ended)
        assert server.thread is not None and not server.thread.is_alive()
        assert loop.is_closed()
        left = [task for task in asyncio.all_tasks(loop) if not task.done()]
        assert left == [], f"tasks left pending at the server's end: {left}"
        gc.collect()  # a pending task says so when it is collected
    finally:
        for connection in (*held, stream, page):
            connection.close()
    said = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert said == [], said
