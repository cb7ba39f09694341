"""Which program a player is: a digest of its files, so that a results folder never holds two
bots under one name (docs/records.md, `players[*].digest`; the resume rule: resume.py).

A player's digest is a SHA-256 over its program file (the first word of its command that is
a file of its own) and the files of its own folders: its home (the program's folder) and the
folders its command names (`java -cp jbot Bot`), or else, when it has neither, the folder it
runs in (its `cwd`: `java -cp . Bot`). Not the other folders its box may show (the current
folder of `arbiter match`, a shared opening book): a bot is another program when its own
files change, not when a neighbour's do. What it must not see is not hashed either: the
config, the results folder and the other players' folders (`hidden_paths`), its write
folders (they change as it plays), and entries whose names start with `.`, or are
`__pycache__` or `results` (version control, an interpreter's caches, and where the
arbiter's own commands write by default: `arbiter check` run in the bot's folder between
two runs of a match must not make its bot another program).

Bounded, because a home may be large (a network's weights, a whole checkout): at most
`MAX_FILES` entries are hashed, nearest the folder's top first (breadth first, in name
order), and of their contents at most `MAX_CONTENT_BYTES` in all; a file that does not fit
what is left counts by its name, size and modification time (a network's weights rewritten
in place changes its time). An entry past the `MAX_FILES`th goes unseen. Worked out once
per arbiter process per player (a run is one process), not once per game:
benchmarks/bench_digest.py measures it (docs/performance.md, Program digests).
"""
from __future__ import annotations

import hashlib
import os
from collections import deque
from typing import Mapping, Sequence

from ..referee import PlayerSpec
from ..transport.sandbox import SandboxSpec
from ..transport.shown import ShownPaths, command_folders, hidden_paths, program_file

MAX_FILES = 2000  # entries hashed per player, beyond its program file
MAX_CONTENT_BYTES = 16 << 20  # bytes of content hashed per player; past it, names, sizes and times
# An interpreter's caches, and where the arbiter's commands write by default (`results/match`,
# `results/check`...: a folder that changes whenever the author runs one, not the bot).
_SKIPPED_NAMES = ("__pycache__", "results")
_CHUNK_BYTES = 1 << 20


def player_digests(players: Sequence[PlayerSpec], hidden: Sequence[str],
                   built: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """Each launched player's digest by name (None for a remote bot: the arbiter has none of
    its files), with the `hidden` paths (the config, the results folder) and each other's
    folders left out. A player `built` from source (its build's digest by name: build.py)
    runs from its build's folder in the results folder, which is hashed, and the build's
    digest (its sources and build command) is part of its own."""
    built = built or {}
    launched = [p for p in players if p.transport != "remote"]
    shown = [ShownPaths(p.command, p.cwd, p.sandbox or SandboxSpec()) for p in launched]
    covers = dict(zip((p.name for p in launched), hidden_paths(shown, hidden=hidden)))
    digests: dict[str, str | None] = {}
    for p in players:
        if p.transport == "remote":
            digests[p.name] = None
            continue
        skip = covers[p.name]
        if p.name in built:  # its folder is in the results folder: not skipped
            skip = tuple(path for path in skip if not _within(os.path.realpath(p.cwd or ""), path))
        digest = program_digest(p.command, p.cwd, p.sandbox, skip)
        digests[p.name] = digest if p.name not in built else \
            hashlib.sha256(f"{digest}\0build\0{built[p.name]}".encode()).hexdigest()
    return digests


def program_digest(command: tuple[str, ...], cwd: str | None, sandbox: SandboxSpec | None,
                   skip: tuple[str, ...] = ()) -> str:
    """The SHA-256 (hex) of a player's program and its own folders' files (the module's
    docstring), leaving out the `skip` paths."""
    workdir = os.path.abspath(cwd or os.getcwd())
    write = sandbox.write if sandbox is not None else ()
    folders = command_folders(command, workdir, write) or [workdir]
    left_out = [os.path.realpath(path) for path in (*skip, *write)]
    digest = hashlib.sha256()
    budget = [MAX_CONTENT_BYTES]
    program = program_file(command, workdir, write)
    if program is not None:
        _add_file(digest, b"program", program, budget)
    for folder in dict.fromkeys(folders):
        _add_folder(digest, folder, left_out, budget)
    return digest.hexdigest()


def _add_folder(digest: "hashlib._Hash", folder: str, left_out: Sequence[str], budget: list[int]) -> None:
    """Hash a folder's entries, breadth first in name order, up to MAX_FILES of them."""
    top = os.path.realpath(folder)
    digest.update(b"folder\0" + top.encode(errors="surrogateescape") + b"\0")
    if not os.path.isdir(top):
        if os.path.isfile(top):
            _add_file(digest, b"file", top, budget)
        return
    pending = deque([top])
    counted = 0
    while pending:
        current = pending.popleft()
        try:
            entries = sorted(os.scandir(current), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _SKIPPED_NAMES:
                continue
            if any(_within(entry.path, path) for path in left_out):
                continue
            counted += 1
            if counted > MAX_FILES:
                return
            name = os.path.relpath(entry.path, top).encode(errors="surrogateescape")
            if entry.is_symlink():
                digest.update(b"link\0" + name + b"\0" + os.readlink(entry.path).encode(errors="surrogateescape"))
            elif entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)  # counted by the files in it: an empty folder is nothing
            elif entry.is_file(follow_symlinks=False):
                _add_file(digest, name, entry.path, budget)


def _add_file(digest: "hashlib._Hash", name: bytes, path: str, budget: list[int]) -> None:
    """Hash a file's name and content, or its name, size and time when it does not fit the budget."""
    try:
        stat = os.stat(path)
        digest.update(b"file\0" + name + b"\0" + str(stat.st_size).encode() + b"\0")
        if stat.st_size > budget[0]:
            digest.update(b"modified\0" + str(stat.st_mtime_ns).encode())
            return
        budget[0] -= stat.st_size
        with open(path, "rb") as file:
            while chunk := file.read(_CHUNK_BYTES):
                digest.update(chunk)
    except OSError as exc:
        digest.update(b"unreadable\0" + name + b"\0" + str(exc.errno).encode())


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


__all__ = ["MAX_CONTENT_BYTES", "MAX_FILES", "player_digests", "program_digest"]
