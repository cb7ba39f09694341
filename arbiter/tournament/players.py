"""A tournament's players read into the referee's `PlayerSpec`s: each entry of `players:` (or
an entrant's folder, or a player given on the command line), its command, clock, box, socket
and build, checked key by key, and what each box shows and covers. config.py reads the rest
of the file and calls these; every key is a row of schema.py's PLAYER, TIME, SANDBOX and
SOCKET tables."""
from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from ..protocol import DIALECTS, find_dialect
from ..referee import PlayerSpec, TimeControl
from ..transport.keys import KeyFileError, read_key_file, read_public_key
from ..transport.sandbox import SandboxSpec, box_here
from ..transport.shown import ShownPaths, hidden_paths, shown_path_problems
from ..transport.endpoints import SocketSpec, socket_problems
from .build import BuildConfigError, BuildSpec, missing_compiler, plan_build
from .entries import entry_folders, read_entry
from .probe import FolderThere, PathThere, Startable, probe
from .schema import PLAYER, SANDBOX, SOCKET, TIME, player_name
from .validate import KeyPath, Mapping, Problems

COMMAND_LINE = Path("command line")  # the source of a config built from flags (`arbiter match`, `sprt`)


def box_for_run(player: PlayerSpec, mode: str, *, spread: bool) -> PlayerSpec:
    """The player's box, decided once for the run: none under `sandbox: off`; on this machine,
    none if it cannot make boxes (the run header says so loudly); on a cluster, the spec
    itself, for each worker to honour or refuse (`sandbox.box_here`)."""
    if mode == "off" or player.sandbox is None:
        return replace(player, sandbox=None)
    return player if spread else replace(player, sandbox=box_here(player.sandbox))


def with_covers(players: Sequence[PlayerSpec], hidden: tuple[str, ...]) -> tuple[PlayerSpec, ...]:
    """The players with what their boxes cover (`SandboxSpec.hide`): the `hidden` paths (the
    config, the results) and the other players' folders wherever a folder they show holds them
    (their home, their `cwd`, their `read` paths); a `write` folder holding a hidden path is
    not shown at all."""
    launched = [index for index, p in enumerate(players) if p.transport != "remote"]
    # By seat, not by name: two seats of `arbiter play` may share a name (`a/bot.py`, `b/bot.py`).
    covers = dict(zip(launched, hidden_paths(
        [ShownPaths(players[i].command, players[i].cwd, players[i].sandbox or SandboxSpec()) for i in launched],
        hidden=hidden)))
    def keep(path: str) -> bool:
        return not any(Path(h) == Path(path) or Path(path) in Path(h).parents for h in hidden)
    return tuple(p if p.sandbox is None else replace(p, sandbox=replace(
        p.sandbox, write=tuple(filter(keep, p.sandbox.write)), hide=covers[index])) for index, p in enumerate(players))


def check_shown_paths(problems: Problems, players: Sequence[PlayerSpec], at: Sequence[KeyPath],
                       hidden: tuple[str, ...], secrets: Sequence[str] = ()) -> None:
    """Every path a boxed player's box would show, resolved once before the first game: none
    may lead to the config, the results or another player's folders, nor show what no cover
    hides (the whole filesystem, the user's home folder, the arbiter's keys: docs/security.md)."""
    launched = [(index, p) for index, p in enumerate(players) if p.transport != "remote"]
    shown = [ShownPaths(p.command, p.cwd, p.sandbox or SandboxSpec()) for _, p in launched]
    for which, key, message in shown_path_problems(shown, hidden=hidden, secrets=secrets):
        index, player = launched[which]
        if player.sandbox is not None:
            problems.add((*at[index], *key.split(".")), message)


def _read_sandbox(problems: Problems, path: KeyPath, value: Any, folder: Path, cwd: Path | None) -> SandboxSpec | None:
    """A player's `sandbox:` (off, on, or {read, write} paths from the config's folder); None: off.
    An explicit `cwd` is shown to the bot read-only."""
    own = [str(cwd)] if cwd is not None else []
    if value is False or value == "off":
        return None
    if value is None or value is True or value == "on":
        return SandboxSpec(read=tuple(own))
    m = Mapping(problems, path, value, SANDBOX.names)
    if not m.ok:
        return SandboxSpec(read=tuple(own))
    found: dict[str, list[str]] = {}
    for key in ("read", "write"):
        paths = m.raw(key) or []
        if isinstance(paths, str):
            paths = [paths]
        if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
            problems.add(path + (key,), f"{paths!r} is not allowed: must be a path or a list of paths")
            paths = []
        found[key] = [str((folder / p).resolve()) for p in paths]
        for shown, resolved in zip(paths, found[key]):
            if key == "read":  # a folder no box may show (`/`) is refused once, with the shown paths
                problems.asks.append(PathThere(path + (key,), shown, resolved, file=False))
    return SandboxSpec(read=tuple(own + found["read"]), write=tuple(found["write"]),
                       write_mb=SANDBOX.read(m, "write_mb"), write_files=SANDBOX.read(m, "write_files"),
                       cpu_cores=float(SANDBOX.read(m, "cpu_cores")))


def read_time(problems: Problems, path: KeyPath, value: Any, base: TimeControl) -> TimeControl:
    """A time control from the `time:` section, each key defaulting to `base`'s (TimeControl())."""
    m = Mapping(problems, path, value, TIME.names)
    return _time_from(m, base)


def _time_from(m: Mapping, base: TimeControl) -> TimeControl:
    """The time keys of a mapping (the `time:` section or a player's entry), unset ones from `base`."""
    return TimeControl(**{key.name: TIME.read(m, key.name, default=getattr(base, key.name)) for key in TIME})


Builds = tuple[list[BuildSpec], dict[str, int]]  # the builds read so far, and `build_limits`


def read_players(problems: Problems, value: Any, folder: Path, time: TimeControl,
                  arbiter_keys: str | None = None, reuse: bool = False, builds: Builds | None = None,
                  entries: bool = False) -> list[PlayerSpec]:
    """The `players:` list (with `entries:`, it may be short or absent: the entrants join it)."""
    if entries and value is None:
        return []
    if not isinstance(value, list) or (len(value) < 2 and not entries):
        problems.add(("players",), "must be a list of at least two players, each {name, command}")
        return []
    players: list[PlayerSpec] = []
    named: list[tuple[KeyPath, str]] = []
    endpoints: dict[str, str] = {}  # a fixed socket endpoint -> the player that has it
    for index, entry in enumerate(value):
        player = read_player(problems, ("players", index), entry, folder, time, arbiter_keys=arbiter_keys,
                              reuse=reuse, builds=builds)
        if player is None:
            continue
        named.append((("players", index, "name"), player.name))
        endpoint = player.socket.bind or player.socket.connect if player.transport == "remote" else None
        if endpoint:
            key = "bind" if player.socket.bind else "connect"
            if endpoint in endpoints:
                problems.add(("players", index, key), f"{endpoint!r} is not allowed: player "
                                                     f"{endpoints[endpoint]!r} already uses that endpoint")
            endpoints.setdefault(endpoint, player.name)
        players.append(player)
    if not entries:  # else with the entrants' names
        check_name_clashes(problems, named)
    return players


def read_entrants(problems: Problems, value: str, folder: Path, time: TimeControl, reuse: bool,
                   builds: Builds) -> list[PlayerSpec]:
    """The entrants of the `entries:` folder (entries.py), each read as a player entry at
    `entries.NAME`, from its own folder, which its box shows (and no other entrant's)."""
    where = (folder / value).resolve()
    if not where.is_dir():
        problems.add(("entries",), f"{value!r} is not allowed: no such folder ({where})")
        return []
    entrants: list[PlayerSpec] = []
    for entry_folder in entry_folders(where):
        path: KeyPath = ("entries", entry_folder.name)
        bad_name = player_name(entry_folder.name)
        if bad_name is not None:
            problems.add(path, f"{entry_folder.name!r} is not allowed as an entrant's name (its folder's): {bad_name}")
            continue
        entry, found = read_entry(entry_folder)
        for key, message in found:
            problems.add(path + ((key,) if key else ()), message)
        if entry is None:
            continue
        player = read_player(problems, path, entry.data, entry.folder, time, default_name=entry.name, reuse=reuse,
                              builds=builds, sources=entry.folder)
        if player is not None:
            entrants.append(player)
    return entrants


def check_name_clashes(problems: Problems, named: list[tuple[KeyPath, str]]) -> None:
    """Player names must be unique, also ignoring case (log files on case-insensitive file
    systems), and no two pairings may share a game id (`a-b` vs `c` and `a` vs `b-c`)."""
    first_of: dict[str, str] = {}  # casefolded name -> the name as first given
    for path, name in named:
        earlier = first_of.get(name.casefold())
        if earlier is None:
            first_of[name.casefold()] = name
        elif earlier == name:
            problems.add(path, f"{name!r} is not allowed: player names must be unique")
        else:
            problems.add(path, f"{name!r} is not allowed: player {earlier!r} has the same name up to case "
                               "(their log files would collide on a case-insensitive file system)")
    names = list(first_of.values())
    pairing_of: dict[str, tuple[str, str]] = {}
    for first in names:
        for second in names:
            if first == second:
                continue
            game_id = f"{first}-{second}".casefold()
            other = pairing_of.setdefault(game_id, (first, second))
            if other != (first, second):
                path = next(p for p, n in reversed(named) if n in (first, second, *other))
                problems.add(path, f"game ids would clash: {first!r} against {second!r} and {other[0]!r} "
                                   f"against {other[1]!r} are both '{first}-{second}' in a game id; "
                                   "rename one of these players (e.g. without '-')")
                return


def read_player(problems: Problems, path: KeyPath, entry: Any, folder: Path, time: TimeControl,
                 default_name: str | None = None, arbiter_keys: str | None = None,
                 reuse: bool = False, builds: Builds | None = None, sources: Path | None = None) -> PlayerSpec | None:
    """One player entry {name, command, cwd, env, dialect, reuse, build, time keys, socket keys};
    None if it is unusable. `reuse` is the run's default for a launched player's own `reuse`;
    a `build` is added to `builds`. An entrant's `sources` (its folder) are where it runs and
    what its box shows."""
    m = Mapping(problems, path, entry, PLAYER.names)
    if not m.ok:
        if entry is None:
            problems.add(path, "is required: a player {name, command}")
        return None
    name = m.get("name", default_name, player_name, required=default_name is None)
    transport = PLAYER.read(m, "transport")
    socket = _read_socket(problems, path, m, folder, transport, arbiter_keys)
    if transport == "remote":  # the arbiter does not start it
        command = None
        for key in PLAYER:
            if key.launched and m.has(key.name):
                problems.add(path + (key.name,), "does not apply to transport: remote (the arbiter does not start "
                                                 "the bot; give bind: or connect:)")
    cwd_text = PLAYER.read(m, "cwd")
    cwd = (folder / cwd_text).resolve() if cwd_text else folder
    if cwd_text:
        problems.asks.append(FolderThere(path + ("cwd",), cwd_text, cwd))
    build_text = PLAYER.read(m, "build") if transport != "remote" else None
    if build_text is not None and builds is None:
        problems.add(path + ("build",), "applies to a tournament's players (arbiter run); build the bot first, "
                                        "and give the command that runs what it made")
        build_text = None
    build, runs = _read_build(problems, path, build_text, name, sources or (cwd if cwd_text else None),
                              builds[1] if builds else {}) if build_text is not None else (None, None)
    if transport != "remote":
        given = m.raw("command")
        command = _read_command(problems, path + ("command",), list(runs) if given is None and runs else given)
    env = m.raw("env") or {}
    if not isinstance(env, dict) or not all(isinstance(k, str) and k and "=" not in k for k in env):
        problems.add(path + ("env",), f"{env!r} is not allowed: must be a mapping of NAME: value")
        env = {}
    for key, value in env.items():
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            problems.add(path + ("env", key), f"{value!r} is not allowed: must be a string or a number "
                                              f"(YAML reads yes/no/null as other types: quote it, e.g. {key}: \"1\")")
    dialect = PLAYER.read(m, "dialect")
    # A remote bot serves game after game on its connection anyway: the run's `reuse` is for launched bots.
    own_reuse = PLAYER.read(m, "reuse")
    reuses = bool(reuse if own_reuse is None else own_reuse) and transport != "remote"
    if reuses and (transport != "pipe" or dialect not in DIALECTS or not find_dialect(dialect).plays_many_games):
        why = ("the codecup dialect has no Game line to begin a next game with" if transport == "pipe"
               else "only bots over pipes are kept between games")
        problems.add(path + ("reuse",) if own_reuse is not None else ("reuse",),
                     f"does not apply to player {name!r}: {why} (docs/protocol.md, Many games per process)")
    player_time = _time_from(m, time) if any(m.has(key) for key in TIME.names) else None
    if transport == "remote" and (player_time or time).clock != "wall":
        problems.add(path + ("transport",), "a remote bot can only be timed with clock: wall "
                                            "(the arbiter cannot see its CPU time)")
    if command and build_text is None:  # a built program is there once built
        problems.asks.append(Startable(path + ("command",), tuple(command), cwd))
    if not name or not (command or transport == "remote"):
        return None
    if build is not None and builds is not None and build_text is not None:
        builds[0].append(replace(build, player=name))
    sandbox = None if transport == "remote" else _read_sandbox(  # a remote bot is outside any box by nature
        problems, path + ("sandbox",), m.raw("sandbox"), folder, sources or (cwd if cwd_text else None))
    if transport == "zmq" and sandbox is not None and socket.bind:
        problems.add(path + ("bind",), "does not apply to a sandboxed bot: its seat is a private socket the "
                                       "arbiter makes (set sandbox: off for this player to choose the endpoint)")
    return PlayerSpec(
        name=name, command=tuple(command or ()), cwd=str(cwd),
        env={str(k): str(v) for k, v in env.items()}, dialect=dialect, time=player_time,
        transport=transport, socket=socket, sandbox=sandbox, reuse=reuses,
    )


def _read_build(problems: Problems, path: KeyPath, value: str, name: str | None, sources: Path | None,
                limits: dict[str, int]) -> tuple[BuildSpec | None, tuple[str, ...] | None]:
    """A player's `build` (build.py): its BuildSpec, and the command a preset runs (None for a
    build command, whose player gives its own `command`)."""
    if sources is None:
        problems.add(path + ("build",), "needs cwd: (the folder of the player's sources: the build runs in a copy of "
                                        "it, and the player runs from there)")
        return None, None
    try:
        command, runs, preset = plan_build(value, sources)
    except BuildConfigError as exc:
        problems.add(path + ("build",), str(exc))
        return None, None
    missing = missing_compiler(command, preset)
    if missing is not None:
        problems.add(path + ("build",), f"player {name!r} cannot be built here: {missing}")
        return None, None
    return BuildSpec(player=name or "", sources=str(sources), command=command, preset=preset, **limits), runs


def players_from_data(entries: Sequence[dict[str, Any]], time: TimeControl,
                      flags: Callable[[KeyPath], str | None], hidden: Sequence[str] = ()) -> list[PlayerSpec]:
    """Players given on the command line of a single game or check (`arbiter play`,
    `check`) as `players:` entries, read and refused exactly as a config's players are, before
    any game, each boxed as this machine can (`sandbox.box_here`; the caller says so when it
    cannot), with the `hidden` paths (the command's outputs) covered in their boxes as a run's
    results are; a ConfigError names each problem by `flags` (the flag that gave the key)."""
    problems = Problems(COMMAND_LINE, {}, [], flags)
    players = [player for index, entry in enumerate(entries)
               if (player := read_player(problems, ("players", index), entry, Path.cwd(), time))]
    hidden = tuple(str(Path(path).resolve()) for path in hidden)
    probe(problems)
    check_shown_paths(problems, players, [("players", index) for index in range(len(players))], hidden=hidden)
    problems.raise_if_any()
    return [replace(p, sandbox=box_here(p.sandbox)) for p in with_covers(players, hidden)]  # decided once, as box_for_run


def read_arbiter_keys(problems: Problems, value: str | None, folder: Path) -> str | None:
    """The arbiter's key pair file (top-level `arbiter_keys`), checked; its absolute path or None."""
    if value is None:
        return None
    path = (folder / value).resolve()
    try:
        read_key_file(path, need_secret=True)
    except KeyFileError as exc:
        problems.add(("arbiter_keys",), str(exc))
    return str(path)


def _read_socket(problems: Problems, path: KeyPath, m: Mapping, folder: Path, transport: str,
                 arbiter_keys: str | None) -> SocketSpec:
    """A player's socket keys, checked by the transport's own rules (`socket_problems`)."""
    public_key = SOCKET.read(m, "public_key")
    if public_key is not None:
        try:
            public_key = read_public_key(public_key, relative_to=folder)
        except KeyFileError as exc:
            problems.add(path + ("public_key",), str(exc))
            public_key = None
    spec = SocketSpec(
        bind=SOCKET.read(m, "bind"), connect=SOCKET.read(m, "connect"), public_key=public_key,
        arbiter_keys=arbiter_keys if transport == "remote" and public_key else None,
        connect_wait_ms=SOCKET.read(m, "connect_wait_ms"),
    )
    for key, message in socket_problems(transport, spec):
        if key == "arbiter_keys":
            if arbiter_keys is None:  # else its file's problem is reported once, at the top level
                problems.add(path + ("public_key",), message + " (set the top-level arbiter_keys:)")
            continue
        problems.add(path + (key,), message)
    return spec


def _read_command(problems: Problems, path: KeyPath, value: Any) -> list[str] | None:
    """A command as a shell-like string or a list of words; `python`/`python3` -> this interpreter."""
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as exc:
            problems.add(path, f"{value!r} is not allowed: cannot split it like a shell would ({exc})")
            return None
    elif isinstance(value, list) and value and all(isinstance(w, (str, int, float)) for w in value):
        words = [str(w) for w in value]
    else:
        problems.add(path, f"{value!r} is not allowed: must be a command string or a list of words")
        return None
    if not words:
        problems.add(path, "is empty: give the command that starts the bot")
        return None
    if words[0] in ("python", "python3"):
        # Bundled bots import the arbiter's bot kit: run them with the arbiter's own interpreter.
        words[0] = sys.executable
    return words


__all__ = ["COMMAND_LINE", "box_for_run", "check_name_clashes", "check_shown_paths", "players_from_data",
           "read_arbiter_keys", "read_entrants", "read_player", "read_players", "read_time", "with_covers"]
