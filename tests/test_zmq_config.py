"""Tournament configs with players over sockets: read into PlayerSpecs, and every mistake
refused with its key path before a game starts."""
from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.tournament.config import ConfigError, load_config
from arbiter.transport.keys import KeyPair, write_key_pair
from arbiter.transport.zmq import SocketSpec
from tournament_helpers import ROOT, write_config

RANDOM = f"python {ROOT / 'players' / 'random_bot.py'}"


def test_socket_players_are_read_with_their_endpoints_and_keys(tmp_path: Path) -> None:
    write_key_pair(tmp_path, "arbiter", KeyPair.generate())
    alice = KeyPair.generate()
    write_key_pair(tmp_path, "alice", alice)
    bob = KeyPair.generate()
    config = load_config(write_config(tmp_path, f"""game: limit-nim
arbiter_keys: arbiter.key_secret
players:
  - {{name: house, command: {RANDOM}}}
  - {{name: local, command: {RANDOM}, transport: zmq, bind: "tcp://0.0.0.0:*", sandbox: off}}
  - {{name: alice, transport: remote, bind: "tcp://0.0.0.0:5601", public_key: alice.key}}
  - {{name: bob, transport: remote, connect: "tcp://10.1.2.3:7000", public_key: "{bob.public}",
     connect_wait_ms: 500}}
"""))
    house, local, alice_spec, bob_spec = config.players
    assert (house.transport, house.socket) == ("pipe", SocketSpec())
    assert (local.transport, local.socket) == ("zmq", SocketSpec(bind="tcp://0.0.0.0:*"))
    keys_file = str(tmp_path / "arbiter.key_secret")
    assert (alice_spec.transport, alice_spec.command, alice_spec.socket) == (
        "remote", (), SocketSpec(bind="tcp://0.0.0.0:5601", public_key=alice.public, arbiter_keys=keys_file))
    assert bob_spec.socket == SocketSpec(connect="tcp://10.1.2.3:7000", public_key=bob.public,
                                         arbiter_keys=keys_file, connect_wait_ms=500)
    assert alice_spec.command_text() == "remote tcp://0.0.0.0:5601 (the bot connects)"


@pytest.mark.parametrize("entry, message", [
    ('{name: a, transport: remote, bind: "tcp://0.0.0.0:5601"}',
     "players[1].bind: tcp://0.0.0.0:5601 is not a loopback address, so it needs CURVE keys"),
    ('{name: a, transport: remote, bind: "tcp://0.0.0.0:5601", public_key: "%s"}' % KeyPair.generate().public,
     "players[1].public_key: CURVE needs both the arbiter's key pair and the bot's public key: arbiter_keys "
     "(the arbiter's key pair file) is missing (set the top-level arbiter_keys:)"),
    ('{name: a, transport: remote, bind: "tcp://127.0.0.1:5601", command: ./bot}',
     "players[1].command: does not apply to transport: remote"),
    ('{name: a, transport: remote, bind: "tcp://127.0.0.1:5601", clock: cpu}',
     "players[1].transport: a remote bot can only be timed with clock: wall"),
    ('{name: a, transport: remote, connect: "tcp://127.0.0.1:*"}',
     "players[1].connect: 'tcp://127.0.0.1:*': a port to connect to must be a number, not *"),
    ('{name: a, transport: remote, bind: "tcp://127.0.0.1:5601", public_key: nosuch.key}',
     "players[1].public_key: 'nosuch.key' is neither a 40-character Z85 public key nor an existing key file"),
    (f'{{name: a, command: {RANDOM}, transport: zmq, public_key: "{KeyPair.generate().public}"}}',
     "players[1].public_key: does not apply to transport: zmq"),
    (f'{{name: a, command: {RANDOM}, bind: "tcp://127.0.0.1:5601"}}',
     "players[1].bind: only applies to transport: zmq or remote"),
    (f'{{name: a, command: {RANDOM}, transport: socket}}',
     "players[1].transport: 'socket' is not allowed: must be one of: pipe, zmq, remote"),
])
def test_a_socket_mistake_is_refused_with_its_key_path(entry: str, message: str, tmp_path: Path) -> None:
    path = write_config(tmp_path, f"game: limit-nim\nplayers:\n  - {{name: house, command: {RANDOM}}}\n  - {entry}\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert message in str(error.value)


def test_an_unreadable_arbiter_key_file_is_reported_once_at_the_top(tmp_path: Path) -> None:
    write_key_pair(tmp_path, "arbiter", KeyPair.generate())
    players = "".join(f'  - {{name: p{n}, transport: remote, bind: "tcp://0.0.0.0:56{n:02d}", '
                      f'public_key: "{KeyPair.generate().public}"}}\n' for n in range(2))
    path = write_config(tmp_path, f"game: limit-nim\narbiter_keys: arbiter.key\nplayers:\n{players}")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).count("arbiter.key holds only a public key") == 1
    assert "arbiter_keys:" in str(error.value)


def test_two_remote_players_on_one_endpoint_are_refused(tmp_path: Path) -> None:
    path = write_config(tmp_path, f"""game: limit-nim
players:
  - {{name: a, transport: remote, bind: "tcp://127.0.0.1:5601"}}
  - {{name: b, command: {RANDOM}}}
  - {{name: c, transport: remote, bind: "tcp://127.0.0.1:5601"}}
""")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert ("players[2].bind: 'tcp://127.0.0.1:5601' is not allowed: player 'a' already uses that endpoint"
            in str(error.value))
