"""Players given on the command line, one parser and one vocabulary for `arbiter play`,
`check`, `match` and `sprt` (docs/cli.md).

A player is either a command (the shorthand: `"python bot.py"`) or, as fastchess and
cutechess users write it, a list of KEY=VALUE words after `--engine`:

    --engine name=mybot cmd="java -cp . Bot" dir=bots/java tc=10s move=500ms read=book.bin

The words become a config's `players:` entry (the same keys, read and refused by the same
code as a YAML file's), and a problem with one of them is told in the words the user typed
(`--engine #2 tc=: ...`), never in config keys.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..errors import UsageError
from ..games import Game, find_game
from ..protocol import find_dialect
from ..referee import PlayerSpec, TimeControl
from ..tournament.players import players_from_data
from ..tournament.game_probe import parameter_problem
from ..tournament.schema import MAX_NAME_BYTES, player_name
from ..tournament.validate import KeyPath

INTERPRETERS = {"python", "python3", "pypy", "pypy3", "node", "java", "ruby", "perl", "sh", "bash", "dotnet",
                "php", "lua", "Rscript", "julia", "deno", "bun", "mono", "racket", "guile", "ocaml"}
# An interpreter's options that take the next word as their value (`java -cp . Bot`): that
# word is not the program, and neither is the option.
OPTIONS_WITH_VALUE = {"-cp", "-classpath", "--class-path", "-p", "--module-path", "-X", "-W", "-I", "-e"}
ENGINE_KEYS = ("name", "cmd", "dir", "dialect", "tc", "move", "read", "write", "reuse")  # and env.NAME
# A config player key -> the --engine word that gives it.
ENGINE_WORD = {"name": "name", "command": "cmd", "cwd": "dir", "dialect": "dialect", "time_ms": "tc",
               "move_ms": "move", "sandbox": "read", "env": "env", "reuse": "reuse"}
DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m)")
UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000}


@dataclass(frozen=True)
class PlayerArg:
    """One player as the command line gave it; `flag` says how, for messages (`CMD_A`,
    `--engine #2`, `--candidate`), and `engine` whether it was KEY=VALUE words."""

    flag: str
    command: str
    engine: bool = False
    name: str | None = None
    cwd: str | None = None
    dialect: str | None = None
    time_ms: int | None = None
    move_ms: int | None = None
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    reuse: bool | None = None  # `reuse=true|false`: this player's own `reuse` (docs/protocol.md)

    def words(self) -> tuple[str, ...]:
        """The command split like a shell would; UsageError naming the flag if it cannot be."""
        where = f"{self.flag} cmd=" if self.engine else self.flag
        try:
            words = tuple(shlex.split(self.command))
        except ValueError as exc:
            raise UsageError(f"{where}: {self.command!r} cannot be split like a shell would ({exc})") from None
        if not words:
            raise UsageError(f"{where}: the command is empty")
        return words

    def default_name(self) -> str:
        """`name=`, or a name made from the command (command_name)."""
        return self.name if self.name is not None else command_name(self.words())

    def entry(self, name: str, *, cwd: str | None = None, sandbox: bool = True, read: Sequence[str] = (),
              write: Sequence[str] = (), env: Mapping[str, str] | None = None,
              transport: str | None = None) -> dict[str, Any]:
        """This player as a config's `players:` entry. `cwd` is the folder it runs from when
        `dir=` is not given; `read`, `write` and `env` are added for every player (the
        command's `--sandbox-read`, `--sandbox-write`, `--env`). Paths are made absolute here:
        they are relative to where the user stands, whatever folder the config's copy is in."""
        entry: dict[str, Any] = {"name": name, "command": self.command}
        if self.cwd is not None:
            entry["cwd"] = os.path.abspath(self.cwd)
        elif cwd is not None:
            entry["cwd"] = cwd
        for key, value in (("dialect", self.dialect), ("time_ms", self.time_ms), ("move_ms", self.move_ms),
                           ("transport", transport), ("reuse", self.reuse)):
            if value is not None:
                entry[key] = value
        merged_env = {**(env or {}), **dict(self.env)}
        if merged_env:
            entry["env"] = merged_env
        if not sandbox:
            entry["sandbox"] = "off"
        elif self.read or self.write or read or write:
            entry["sandbox"] = {"read": [os.path.abspath(p) for p in (*read, *self.read)],
                                "write": [os.path.abspath(p) for p in (*write, *self.write)]}
        return entry


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """`--engine KEY=VALUE ...`, repeatable: a player given as fastchess users write one."""
    parser.add_argument(
        "--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
        help="a player as KEY=VALUE words (repeatable; seats follow the positional commands, in order): "
             "cmd=CMD (required), name=NAME, dir=FOLDER (it runs there, and sees it read-only), "
             "dialect=arbiter|codecup, tc=DURATION (its budget for the game, e.g. 30s or 1500ms), "
             "move=DURATION (a cap per move), read=PATH and write=PATH (shown in its box; repeatable), "
             "env.NAME=VALUE, reuse=true|false (game after game in one process). See docs/cli.md")


def add_series_options(parser: argparse.ArgumentParser, *, openings: str | None) -> None:
    """The options a series of games from the command line takes (`arbiter match` and `arbiter
    sprt` alike): openings, dice, clocks, concurrency, `--check`, `--cluster` and `--reuse`;
    `openings` is the default of --openings (None: none)."""
    default = "none" if openings is None else "%(default)s"
    parser.add_argument("--openings", default=openings, metavar="random:K|FILE",
                        help="K random opening moves per pair of games, or a file with one opening per line, "
                             f"moves separated by ';' (default: {default})")
    parser.add_argument("--openings-seed", type=int, default=1, metavar="SEED",
                        help="seed of the random openings (default %(default)s)")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="seed of the dice in games of chance: they become reproducible, and known to whoever "
                             "knows N (default: a secret kept in the results folder, which no bot sees)")
    parser.add_argument("--time-ms", type=ms_flag("--time-ms"), default=None, metavar="N",
                        help=f"each bot's budget per game (default {TimeControl.time_ms})")
    parser.add_argument("--move-ms", type=ms_flag("--move-ms"), default=None, metavar="N", help="a cap per move (default none)")
    parser.add_argument("--startup-ms", type=ms_flag("--startup-ms"), default=None, metavar="N",
                        help="how long each bot may take to start, off the clock, before it first waits "
                             f"for its input (default {TimeControl.startup_ms})")
    parser.add_argument("--concurrency", type=int, default=None, metavar="K",
                        help="games at once (default: CPU cores; half of them under the wall clock)")
    parser.add_argument("--check", action="store_true",
                        help="run `arbiter check` on both bots before the first game and refuse to start if "
                             "one fails (the config key check: true)")
    parser.add_argument("--cluster", default=None, metavar="tls://HOST:PORT",
                        help="play the games on this Dask scheduler's workers (tcp:// on this machine only; "
                             "see docs/cluster.md)")
    parser.add_argument("--reuse", action="store_true",
                        help="let each bot play game after game in one process, its start-up paid once "
                             "(config key reuse: true; docs/protocol.md, Many games per process)")


def parse_engine(words: Sequence[str], flag: str) -> PlayerArg:
    """The KEY=VALUE words of one `--engine` (or `--candidate`, `--baseline`) as a player;
    a single word without a known KEY= is the shorthand: a command."""
    if len(words) == 1 and not _keyed(words[0]):
        return PlayerArg(flag=flag, command=words[0])
    found: dict[str, Any] = {"read": [], "write": [], "env": []}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not _keyed(word):
            hint = (" (give positional commands before the first --engine, or as cmd=...)" if not sep else
                    f"; keys are: {', '.join(ENGINE_KEYS)}, env.NAME")
            raise UsageError(f"{flag}: {word!r} is not KEY=VALUE with a known KEY{hint}")
        if key.startswith("env."):
            if not key[4:]:
                raise UsageError(f"{flag}: {word!r}: write env.NAME=VALUE")
            found["env"].append((key[4:], value))
        elif key in ("read", "write"):
            if not value:
                raise UsageError(f"{flag} {key}=: give a path")
            found[key].append(value)
        elif key in found:
            raise UsageError(f"{flag}: {key}= is given twice")
        elif key in ("tc", "move"):
            found[key] = duration_ms(value, f"{flag} {key}=")
        elif key == "reuse":
            if value not in ("true", "false"):
                raise UsageError(f"{flag} reuse={value}: write reuse=true or reuse=false")
            found[key] = value == "true"
        else:
            found[key] = value
    if not found.get("cmd"):
        raise UsageError(f"{flag}: give the bot's command as cmd=CMD (e.g. cmd=\"python bot.py\")")
    return PlayerArg(flag=flag, command=found["cmd"], engine=True, name=found.get("name"), cwd=found.get("dir"),
                     dialect=found.get("dialect"), time_ms=found.get("tc"), move_ms=found.get("move"),
                     read=tuple(found["read"]), write=tuple(found["write"]), env=tuple(found["env"]),
                     reuse=found.get("reuse"))


def _keyed(word: str) -> bool:
    key = word.partition("=")[0]
    return "=" in word and (key in ENGINE_KEYS or key.startswith("env."))


def duration_ms(text: str, where: str) -> int:
    """`30s`, `1.5s`, `1500ms`, `2m` in whole milliseconds (at least 1); UsageError naming `where`.
    The unit is required (`tc=30`: thirty what?); a `--*-ms` flag's name gives it (`ms_flag`)."""
    match = DURATION.fullmatch(text.strip())
    if match is None:
        raise UsageError(f"{where}: {text!r} is not a duration: give a number and a unit, e.g. 30s, 1.5s or "
                         "1500ms (the whole game's budget; there is no increment or moves-per-period)")
    ms = round(float(match.group(1)) * UNIT_MS[match.group(2)])
    if ms < 1:
        raise UsageError(f"{where}: {text!r} is not allowed: must be at least 1ms")
    return ms


def ms_flag(flag: str) -> Callable[[str], int]:
    """The argparse type of a `--*-ms` flag: a number of milliseconds as the flag's name says
    (checked as the config's key is), or a duration with its own unit (`10s`, `1500ms`)."""
    def milliseconds(text: str) -> int:
        if re.fullmatch(r"-?\d+", text.strip()):  # a count of milliseconds, its sign checked with the others
            return int(text)
        try:
            return duration_ms(text, flag)
        except UsageError as exc:  # argparse names the flag and exits with its usage status
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{flag}: ")) from None
    return milliseconds


def command_line_players(commands: Sequence[str], engines: Sequence[Sequence[str]],
                         label: Callable[[int], str]) -> list[PlayerArg]:
    """The players in seat order: the positional commands (`label(i)` names the i-th), then
    each `--engine`."""
    players = [PlayerArg(flag=label(index), command=text) for index, text in enumerate(commands)]
    players += [parse_engine(words, f"--engine #{number}") for number, words in enumerate(engines, 1)]
    return players


def command_name(command: Sequence[str]) -> str:
    """A player name made from a command: the program's file name without its extension or,
    for an interpreter, the script's, module's, jar's or class's (`java -cp . Bot` -> Bot,
    `python -m mybot.main` -> mybot). Never `.` or anything a player name may not be."""
    words = list(command)
    program = Path(words[0]).name
    if program.rstrip("0123456789.") in INTERPRETERS:
        rest, index = words[1:], 0
        while index < len(rest):
            word = rest[index]
            if word in ("-m", "-jar") and index + 1 < len(rest):
                return _plain_name(rest[index + 1].partition(".")[0] if word == "-m" else Path(rest[index + 1]).stem)
            if word in OPTIONS_WITH_VALUE:
                index += 2
                continue
            if not word.startswith("-"):
                if program.startswith("java") and "/" not in word and not word.endswith(".java"):
                    word = word.rpartition(".")[2]  # a class: com.example.Bot -> Bot
                return _plain_name(Path(word).stem) or _plain_name(program)
            index += 1
    return _plain_name(Path(words[0]).stem) or "bot"


def _plain_name(text: str) -> str:
    """`text` made a valid player name (schema.player_name): printable, no slash, no leading
    dot or space, at most MAX_NAME_BYTES bytes; '' if nothing is left."""
    text = "".join(char for char in text if char.isprintable() and char not in "/\\").strip().lstrip(".").strip()
    text = text.encode("utf-8")[:MAX_NAME_BYTES].decode("utf-8", "ignore").strip()
    return text if player_name(text) is None else ""


def game_params(pairs: list[str]) -> dict[str, str]:
    """`-p KEY=VALUE` words as a mapping of game parameters (text, read by the game); UsageError
    naming a malformed one."""
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-p {pair!r}: write a game parameter as KEY=VALUE, e.g. -p rows=5")
        params[key.strip()] = value.strip()
    return params


def openings_entry(text: str | None, seed: int) -> dict[str, Any] | None:
    """`--openings random:K|FILE` as a config's `openings:` (None: no openings). A bare
    number K, once `sprt`'s way to say random:K, still means it when no file has that name
    (with a note on stderr)."""
    if text is None:
        return None
    kind, sep, count = text.partition(":")
    if sep and kind == "random":
        if not count.isdigit():
            raise UsageError(f"--openings {text}: write random:K with K a number of moves, e.g. random:2")
        return {"random_moves": int(count), "seed": seed}
    if text.isdigit() and not os.path.exists(text):
        print(f"arbiter: note: --openings {text} is read as random:{text} ({text} random opening moves); "
              f"write --openings random:{text}", file=sys.stderr)
        return {"random_moves": int(text), "seed": seed}
    return {"file": str(Path(text).resolve())}


def command_line_game(name: str, params: dict[str, str]) -> Game[Any]:
    """The game `-p` describes, checked by the rules (GameParamError) and, for native rules,
    played once in a child process (tournament/game_probe.py): a crash there is a UsageError
    naming the `-p` to blame. The probe comes first: a board too big grows whoever makes the game."""
    crash = parameter_problem(name, params)
    if crash is not None:
        key, message = crash
        raise UsageError(f"-p {key}={params[key]}: {message}" if key is not None else message)
    return find_game(name, **params)


def flag_namer(top: Mapping[KeyPath, str], players: Mapping[KeyPath, PlayerArg]) -> Callable[[KeyPath], str | None]:
    """How a config problem's key path is said on the command line: the longest prefix found
    in `top` (`("games_per_pairing",)` -> `--games`) or in `players` (a player's entry ->
    `--engine #2 tc=`, or the positional's name); None for a key no flag gives."""
    def name(path: KeyPath) -> str | None:
        for length in range(len(path), 0, -1):
            prefix = path[:length]
            if prefix in top:
                return top[prefix]
            if prefix in players:
                player, rest = players[prefix], path[length:]
                if not rest:
                    return player.flag
                word = ENGINE_WORD.get(str(rest[0]))
                if rest[0] == "sandbox" and len(rest) > 1 and rest[1] == "write":
                    word = "write"
                if word is None:
                    return f"{player.flag} ({'.'.join(map(str, rest))})"
                if player.engine or word == "cmd":
                    return f"{player.flag} {word}=" if player.engine else player.flag
                return f"{player.flag} (its {word})"
        return None
    return name


def seat_players(players: Sequence[PlayerArg], *, sandbox: bool, read: Sequence[str] = (),
                 write: Sequence[str] = (), env: Mapping[str, str] | None = None, transport: str = "pipe",
                 dialects: Sequence[str], time: TimeControl, hidden: Sequence[Path] = ()) -> list[PlayerSpec]:
    """The players of one game or check (`arbiter play`, `check`) as the referee's specs,
    read and refused exactly as a config's players are, before any game; errors name the flag.
    Each runs from the current folder (or its `dir=`), as under `arbiter match` and `sprt`; its
    box shows its own folders (its home, the folders its command names, a `dir=`) but never the
    current folder for being current (it may hold other entrants, a config, results), with the
    command's outputs (`hidden`) covered wherever a shown folder holds them."""
    for path in read:  # the command's own --sandbox-read, named by its flag (a player's read= by its own)
        if not os.path.exists(path):
            raise UsageError(f"--sandbox-read {path}: no such file or folder")
    entries = []
    for seat, player in enumerate(players):
        entry = player.entry(player.default_name(), sandbox=sandbox, read=read, write=write,
                             env=env, transport=None if transport == "pipe" else transport)
        entry.setdefault("dialect", dialects[seat])
        allowed = find_dialect(entry["dialect"]).seats  # as a config's players are refused (tournament/config.py)
        if allowed is not None and allowed != len(players):
            raise UsageError(f"{player.flag}: dialect {entry['dialect']} plays games of {allowed} seats, and this "
                             f"game has {len(players)} (docs/protocol.md)")
        entries.append(entry)
    namer = flag_namer({}, {("players", seat): player for seat, player in enumerate(players)})
    return players_from_data(entries, time, namer, hidden=[str(path) for path in hidden])


TIME_FLAGS: dict[KeyPath, str] = {("time", "time_ms"): "--time-ms", ("time", "move_ms"): "--move-ms",
                                  ("time", "startup_ms"): "--startup-ms", ("time", "clock"): "--clock"}
TOURNAMENT_FLAGS: dict[KeyPath, str] = {
    ("game",): "GAME", ("params",): "-p", ("openings",): "--openings", ("openings", "seed"): "--openings-seed",
    ("results",): "--results", ("concurrency",): "--concurrency", ("cluster",): "--cluster", ("check",): "--check",
    ("sandbox",): "--no-sandbox", ("reuse",): "--reuse", ("seed",): "--seed", **TIME_FLAGS,
}


__all__ = ["PlayerArg", "TIME_FLAGS", "TOURNAMENT_FLAGS", "add_engine_option", "command_line_players", "command_name",
           "duration_ms", "flag_namer", "ms_flag", "game_params", "openings_entry", "parse_engine", "seat_players"]
