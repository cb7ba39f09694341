"""What a config asks of this machine, checked after its schema is read.

The readers in config.py only read: where a value needs the machine to be judged (does this
command start from that folder, does this path exist, can the sandbox make boxes here, is this
host this machine), they leave an ask in `Problems.asks`, and `probe` answers them all in one
pass, each problem at the key that asked, with the reading's own problems.
"""
from __future__ import annotations

import ipaddress
import os
import socket as sockets
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, Union

from ..transport.process import unstartable
from ..transport.sandbox import support
from .validate import KeyPath, Problems


@dataclass(frozen=True)
class Startable:
    """A launched player's command must start from its folder (when that folder exists)."""

    at: KeyPath
    command: tuple[str, ...]
    cwd: Path


@dataclass(frozen=True)
class FolderThere:
    """A player's `cwd` must be a folder."""

    at: KeyPath
    given: str
    path: Path


@dataclass(frozen=True)
class PathThere:
    """A path the config names must exist: a file (`file`: a cluster's TLS file), or anything
    (a box's `read` path)."""

    at: KeyPath
    given: str
    path: str
    file: bool


@dataclass(frozen=True)
class Sandboxing:
    """`sandbox: required`: this machine must make boxes."""

    at: KeyPath


@dataclass(frozen=True)
class ThisMachine:
    """A plain `tcp://` scheduler address must name this machine."""

    at: KeyPath
    address: str
    host: str


Ask = Union[Startable, FolderThere, PathThere, Sandboxing, ThisMachine]


def probe(problems: Problems, asks: Sequence[Ask] | None = None) -> None:
    """Answer the asks (by default those the reading left in `problems`), adding a problem at
    each key the machine refuses."""
    for ask in problems.asks if asks is None else asks:
        message = _answer(ask)
        if message is not None:
            problems.add(ask.at, message)
    if asks is None:
        problems.asks.clear()


def _answer(ask: Ask) -> str | None:
    if isinstance(ask, Startable):
        why = unstartable(ask.command, ask.cwd) if ask.cwd.is_dir() else None  # else FolderThere says so
        return f"cannot be started: {why}" if why else None
    if isinstance(ask, FolderThere):
        return None if ask.path.is_dir() else f"{ask.given!r} is not allowed: no such folder ({ask.path})"
    if isinstance(ask, PathThere):
        if ask.file:
            return None if os.path.isfile(ask.path) else f"{ask.given!r} is not allowed: no such file ({ask.path})"
        return None if os.path.exists(ask.path) else (f"{ask.given!r} is not allowed: no such file or folder "
                                                      f"({ask.path})")
    if isinstance(ask, Sandboxing):
        offered = support()
        return None if offered.usable else f"is required, but this machine cannot sandbox bots: {offered.describe()}"
    return None if loopback(ask.host) else f"{ask.address!r} is not allowed: {not_this_machine(ask.host)}"


def not_this_machine(host: str) -> str:
    """Why a plain tcp:// scheduler address on another machine is refused."""
    return (f"{host} is not this machine, and a plain tcp:// connection is readable and forgeable "
            "on the network: start the scheduler with TLS and give tls://HOST:PORT (docs/cluster.md)")


def loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback address (an unknown name is not)."""
    try:
        found = {info[4][0] for info in sockets.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False
    return bool(found) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found)


__all__ = ["Ask", "FolderThere", "PathThere", "Sandboxing", "Startable", "ThisMachine", "loopback",
           "not_this_machine", "probe"]
