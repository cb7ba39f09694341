"""Players given on the command line (`arbiter play`, `check`, `match`): a seat's command, its
name, and the `-p` game parameters, read the same way by every subcommand that takes them."""
from __future__ import annotations

import shlex
from pathlib import Path

from ..errors import UsageError
from ..referee import PlayerSpec
from ..transport.process import unstartable
from ..transport.sandbox import SandboxSpec

INTERPRETERS = {"python", "python3", "pypy", "pypy3", "node", "java", "ruby", "perl", "sh", "bash", "dotnet"}


def game_params(pairs: list[str]) -> dict[str, str]:
    """`-p KEY=VALUE` words as a mapping of game parameters (text, read by the game); UsageError
    naming a malformed one."""
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"-p {pair!r}: write a game parameter as KEY=VALUE, e.g. -p rows=5")
        params[key] = value
    return params


def command_player(seat: int, text: str, dialect: str, transport: str = "pipe",
                   sandbox: SandboxSpec | None = SandboxSpec(), env: dict[str, str] | None = None) -> PlayerSpec:
    """One seat's command line, split and checked that it can start (its program, and the
    script an interpreter is given)."""
    try:
        command = tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageError(f"seat {seat}'s command {text!r} cannot be split: {exc}") from None
    if not command:
        raise UsageError(f"seat {seat}'s command is empty")
    why = unstartable(command, None)  # what `arbiter run` refuses, refused here before any game
    if why is not None:
        raise UsageError(f"seat {seat}'s command: {why}")
    return PlayerSpec(name=player_name(command), command=command, dialect=dialect,  # type: ignore[arg-type]
                      transport=transport, sandbox=sandbox, env=env or {})  # type: ignore[arg-type]


def player_name(command: tuple[str, ...]) -> str:
    """A short name for a command: the script's or program's file name without extension."""
    words = list(command)
    if Path(words[0]).name.rstrip("0123456789.") in INTERPRETERS:
        scripts = [w for w in words[1:] if not w.startswith("-")]
        words = scripts or words
    return Path(words[0]).stem or words[0]
