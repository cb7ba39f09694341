"""The paths a box shows, worked out from a player's settings (docs/security.md).

Config-time rules, apart from the box itself (`sandbox.py`): what a player's command names
(`program_file`, `player_home`, `command_folders`), what its box shows and how a fault's hint
says so (`shown_folders`, `not_shown_hint`), which paths the config must refuse
(`shown_path_problems`) and which the box must cover (`hidden_paths`), and the bubblewrap
options that show and cover them (`_binds`, `_masks`, `_ancestors`).
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

# The system's runtime, read-only in every box (the /bin, /sbin and /lib* links of a merged
# /usr are recreated as links).
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # the `arbiter` package: the bot kit
PLAYERS_DIR = PACKAGE_DIR.parent / "players"  # the bundled players, beside it in a checkout


WRITE_MB = 256  # the default cap on what a player's write folders hold together...
WRITE_FILES = 10000  # ...and on how many files, folders and links are in them
CPU_CORES = 1.0  # the default CPU a box may use at once, in cores (cgroup CPU bandwidth)
MIN_CPU_CORES = 0.1  # the least: a quota of CPU_PERIOD_US / 10 (cgroups.py), the kernel's least is 1 ms


@dataclass(frozen=True)
class SandboxSpec:
    """What one player's box shows beyond the defaults: extra absolute paths, read-only or
    writable, and the cap on what the writable folders may hold."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    write_mb: int = WRITE_MB
    write_files: int = WRITE_FILES
    cpu_cores: float = CPU_CORES  # what its processes may use at once, start-up included
    # Paths never shown, though a folder the box shows read-only holds them (the config, the
    # results, another player's folder): each is covered by an empty one (`_masks`).
    hide: tuple[str, ...] = ()

    def write_cap_broken(self) -> str | None:
        """Why the write folders hold more than their cap, or None (read without following a
        link; the walk stops as soon as the cap is passed, so it costs at most the cap). Asked
        only where the kernel cannot hold the cap (`write_cap.available`)."""
        if not self.write:
            return None
        size, entries = 0, 0
        limit = self.write_mb << 20
        pending = list(self.write)
        while pending:
            try:
                with os.scandir(pending.pop()) as found:
                    for entry in found:
                        entries += 1
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            size += entry.stat(follow_symlinks=False).st_size
                        if size > limit or entries > self.write_files:
                            return (f"its write folders hold more than their cap of {self.write_mb} MiB in "
                                    f"{self.write_files} files (sandbox: write_mb, write_files)")
            except OSError:
                continue  # gone meanwhile, or unreadable: nothing of it counts
        return None


def _binds(read: Sequence[str], write: Sequence[str], hide: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(option, path) for every path to show, parents before children; a path already
    shown by a parent with the same access, or a system folder, is not bound again, and a
    read-only path that is itself hidden (or inside a hidden folder) is not bound at all."""
    hidden = [os.path.realpath(path) for path in hide]
    wanted: dict[str, str] = {}
    for option, paths in (("--ro-bind", read), ("--bind", write)):
        for path in paths:
            real = os.path.realpath(path)
            if real == "/" or not os.path.exists(real):
                continue
            if option == "--ro-bind" and any(_within(real, h) for h in hidden):
                continue
            wanted[real] = option  # writable wins over read-only for the same path
            if path != real and os.path.isabs(path) and not os.path.islink(os.path.dirname(path)):
                wanted.setdefault(os.path.abspath(path), option)  # the name the command uses, too
    binds: list[tuple[str, str]] = []
    for path in sorted(wanted, key=lambda p: (p.count("/"), p)):
        covered = any(_within(path, system) for system in SYSTEM_DIRS) and wanted[path] == "--ro-bind"
        covered = covered or any(_within(path, shown) and option == wanted[path] for option, shown in binds)
        if not covered:
            binds.append((wanted[path], path))
    return binds


def _masks(binds: Sequence[tuple[str, str]], hide: Sequence[str]) -> list[str]:
    """bubblewrap's options that cover every hidden path a read-only bind would show: an
    empty read-only tmpfs over a folder, /dev/null (which the box cannot open) over a file.
    A hidden path is covered where the box shows it (under the bind's own name, which may be a
    link's), found from its real path; one that holds another of the box's binds is not
    covered (the player was given that path itself: the config's check refuses what must
    not be given)."""
    options: list[str] = []
    locations = [path for _, path in binds]
    for hidden in dict.fromkeys(os.path.realpath(path) for path in hide):
        if not os.path.exists(hidden):
            continue
        for option, shown in binds:
            source = os.path.realpath(shown)
            if option != "--ro-bind" or hidden == source or not _within(hidden, source):
                continue
            target = os.path.join(shown, os.path.relpath(hidden, source))
            if any(_within(other, target) for other in locations):
                continue
            if os.path.isdir(hidden):
                options += ["--perms", "0555", "--size", "4096", "--tmpfs", target, "--remount-ro", target]
            else:
                options += ["--ro-bind", "/dev/null", target]
    return options


def _ancestors(path: str) -> list[str]:
    """The folders above `path`, from the top, that the box must make (`/a/b/c` -> `/a`, `/a/b`):
    not the system's (shown whole), nor the box's own `/tmp`, `/dev` and `/proc`; but folders
    under its `/tmp` are made (a bot under the arbiter's `/tmp/x`, a 0700 folder, must be reachable)."""
    parts = path.strip("/").split("/")[:-1]
    folders = ["/" + "/".join(parts[: k + 1]) for k in range(len(parts))]
    return [f for f in folders
            if f != "/tmp" and not any(_within(f, system) for system in ("/dev", "/proc", *SYSTEM_DIRS))]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _command_paths(command: Sequence[str], cwd: str, write: Sequence[str]) -> list[tuple[str, str]]:
    """(word as given, absolute path) of the paths a command names: its program (found on the
    arbiter's PATH as an unboxed launch would) and every existing path among its arguments. A
    path inside one of the `write` folders is left out: that folder shows it as it is at every
    moment, and what the bot made there (a link) is never followed."""
    found = []
    for index, word in enumerate(command):
        if index > 0 and (not word or word.startswith("-")):
            continue
        program = shutil.which(word) if index == 0 and "/" not in word else None
        path = os.path.abspath(os.path.join(cwd, program or word))
        if os.path.lexists(path) and not any(_within(path, folder) for folder in write):
            found.append((word, path))
    return found


def _named_paths(command: Sequence[str], cwd: str, write: Sequence[str] = (), as_root: bool = False) -> list[str]:
    """What the bot needs to start: its home (`player_home`), the paths its command names
    (`_command_paths`), an interpreter's installation among them (`env X=1 python bot.py`
    too), and the arbiter's bot kit and bundled players. A home the box's own user could
    not list (a private 0700 folder, when the arbiter is root) is not shown as a folder: its
    program is still shown as a file, the folders above it made reachable."""
    paths = [str(PACKAGE_DIR)]
    if (PLAYERS_DIR / "__init__.py").is_file():
        paths.append(str(PLAYERS_DIR))
    home = player_home(command, cwd, write)
    if home is not None and (not as_root or _others_may_list(home)):
        paths.append(home)
    for _, path in _command_paths(command, cwd, write):
        paths += [path, *_installations(path)]
    return paths


def program_file(command: Sequence[str], cwd: str, write: Sequence[str] = ()) -> str | None:
    """The first word of a command that is a file of the player's own (its program, or the
    script an interpreter is given), not the system's or an interpreter's installation, nor
    inside a `write` folder; None when no word is (`java -cp . Bot`)."""
    for _, path in _command_paths(command, cwd, write):
        if os.path.isfile(path) and not _system_path(path):
            return path
    return None


def _others_may_list(folder: str) -> bool:
    """Whether a user who neither owns a folder nor is in its group may list and enter it."""
    try:
        return os.stat(folder).st_mode & 0o005 == 0o005
    except OSError:
        return False


def player_home(command: Sequence[str], cwd: str, write: Sequence[str] = ()) -> str | None:
    """A player's home: the folder of its `program_file` (`python3 bots/x/main.py` -> `bots/x`),
    or None (`java -cp . Bot`, whose home is then its `cwd`, when given). Every box shows it
    read-only, and `tournament/programs.py` hashes it."""
    program = program_file(command, cwd, write)
    return os.path.dirname(program) if program is not None else None


def command_folders(command: Sequence[str], cwd: str, write: Sequence[str] = ()) -> list[str]:
    """The player's own folders its command shows: its home (`player_home`) and the folders
    its words name (`java -cp jbot Bot`), not the system's nor inside a `write` folder."""
    home = player_home(command, cwd, write)
    named = [path for _, path in _command_paths(command, cwd, write)
             if os.path.isdir(path) and not os.path.islink(path) and not _system_path(path)]
    return list(dict.fromkeys([*([home] if home else []), *named]))


def shown_folders(command: Sequence[str], cwd: str | None, spec: SandboxSpec) -> list[str]:
    """The player's own paths its box shows, for people (a fault's hint): its home, then its
    `read` paths (its `cwd`, when given, first among them) and its `write` folders."""
    workdir = os.path.abspath(cwd or os.getcwd())
    home = player_home(command, workdir, spec.write)
    return list(dict.fromkeys([*([home] if home else []), *spec.read, *spec.write]))


# What a program writes when it cannot open a file (Python, Perl, Java, C's perror and the shells).
MISSING_FILE_PATTERNS = ("No such file or directory", "Can't locate", "ClassNotFoundException",
                         "ModuleNotFoundError", "cannot open")


# The path a missing-file message names: Python's `...: 'data.txt'`, env's `env: 'python2': ...`.
_MISSING_PATH = re.compile(r"(?:No such file or directory: |can't open file |env: )['\"\u2018]([^'\"\u2019]+)['\"\u2019]")


def not_shown_hint(stderr_lines: Sequence[str], command: Sequence[str], cwd: str | None,
                   spec: SandboxSpec) -> str | None:
    """For a boxed bot that crashed: when its last words say a file was missing, why: an
    interpreter this machine does not have; a relative path opened from its working folder
    (where the arbiter runs, or its `cwd`) while the file is in its own folder; else that the
    box shows only its own paths (`shown_folders`), and where to show more. None otherwise."""
    if not any(pattern in line for line in stderr_lines for pattern in MISSING_FILE_PATTERNS):
        return None
    workdir = os.path.abspath(cwd or os.getcwd())
    named = [match.group(1) for line in stderr_lines for match in _MISSING_PATH.finditer(line)]
    for missing in named:
        if any("env: " in line and missing in line for line in stderr_lines):  # an interpreter, by name
            found = shutil.which(missing)
            if found is None:
                return (f"{missing} is not installed on this machine (its first line or command asks for it): "
                        "install it, or ask for an interpreter this machine has")
            return (f"{missing} is {found} here, outside the system's folders, which are all the PATH a box "
                    f"has: give the interpreter's path in the command (its box then shows it), or use one of "
                    "the system's")
        if not os.path.isabs(missing):
            home = player_home(command, workdir, spec.write)
            if home and home != workdir and os.path.exists(os.path.join(home, missing)):
                return (f"{missing!r} was opened from the bot's working folder, {workdir} (where the arbiter runs, "
                        f"or its cwd), and is in its own folder {home}: open it by a path from the program's own "
                        f"folder (in Python, os.path.dirname(__file__)), or give the player cwd: {home} "
                        "(dir= on the command line)")
    shown = ", ".join(shown_folders(command, cwd, spec)) or "none of its own files"
    return f"No such file; the box shows only: {shown}; see sandbox: read (docs/security.md)"


def _home_of_user() -> str | None:
    """The user's own home folder ($HOME: keys, passwords, mail), which no box may show whole."""
    home = os.path.expanduser("~")
    return os.path.realpath(home) if home not in ("", "~", "/") else None


@dataclass(frozen=True)
class ShownPaths:
    """What one player's box would show from its own settings, for `shown_path_problems`
    and `hidden_paths`."""

    command: tuple[str, ...]
    cwd: str | None
    spec: SandboxSpec

    def named(self) -> list[tuple[str, str, str]]:
        """(key, word as given, absolute path) of every path the box shows for this player
        (its home, its program, the existing paths among its arguments, cwd, read, write), but
        not those inside its write folders (shown by the folder, never resolved)."""
        workdir = os.path.abspath(self.cwd or os.getcwd())
        home = player_home(self.command, workdir, self.spec.write)
        found = [("command", f"{home} (the folder of its program)", home)] if home else []
        found += [("command", word, path) for word, path in _command_paths(self.command, workdir, self.spec.write)]
        if self.cwd is not None:
            found.append(("cwd", self.cwd, workdir))
        found += [("sandbox.read", path, path) for path in self.spec.read if self.cwd is None or path != workdir]
        found += [("sandbox.write", path, path) for path in self.spec.write]
        return found

    def own_folders(self) -> list[str]:
        """The folders that are this player's own, as its settings name them (no link followed):
        its home, each named path's folder (a file's parent), its cwd, and its read and write
        paths; never the arbiter's bot kit or bundled players, which every box shows."""
        folders = []
        for key, _, path in self.named():
            if _system_path(path) or any(_within(path, str(kit)) for kit in (PACKAGE_DIR, PLAYERS_DIR)):
                continue
            named_folder = os.path.isdir(path) and not os.path.islink(path)
            folders.append(path if key != "command" or named_folder else os.path.dirname(path))
        return folders


def shown_path_problems(players: Sequence[ShownPaths], *, hidden: Sequence[str],
                        secrets: Sequence[str] = ()) -> list[tuple[int, str, str]]:
    """(player index, key, sentence) for every path a box would show that leads, itself or
    through a link, into one of the `hidden` paths (the config file, the results folder) or
    into another player's own folders: checked once, before the first game, so that a link a
    bot plants in a folder it may write (`cache/book.txt -> ../bob/`) is refused, not shown.
    A hidden path *inside* a shown folder is covered in the box (`hidden_paths`); what no
    cover makes safe is refused too: a folder that is the whole filesystem, or that holds the
    user's home folder or one of the arbiter's `secrets` (its key files)."""
    user_home = _home_of_user()
    # A folder that is itself refused (the whole filesystem, one holding the user's home or a
    # key) is said once, of its player; it is no one's own folder for the others' checks.
    owns = [[folder for folder in map(os.path.realpath, player.own_folders())
             if folder != "/" and not (user_home and _within(user_home, folder))
             and not any(_within(os.path.realpath(s), folder) for s in secrets)]
            for player in players]
    problems = []
    for index, player in enumerate(players):
        mine = owns[index]
        for key, word, path in player.named():
            target = os.path.realpath(path)
            how = f"{word} is a link to {target}" if target != os.path.abspath(path) else f"{word} shows {target}"
            hides = [h for h in hidden if _within(target, h)]
            others = [folder for other, folders in enumerate(owns) if other != index for folder in folders
                      if _within(target, folder) and not any(_within(target, m) for m in mine)]
            # A `cwd` is shown when it is among the read paths too (one the config gives).
            shown = key != "cwd" or path in player.spec.read
            shown_folder = shown and os.path.isdir(target)
            held = [s for s in secrets if _within(os.path.realpath(s), target)]
            if target == "/" and shown:
                problems.append((index, key, f"{how}, the whole filesystem, which no box may show: "
                                             "give the bot a folder of its own"))
            elif user_home and shown_folder and _within(user_home, target):
                problems.append((index, key, f"{how}, which holds your home folder {user_home} (your keys and "
                                             "passwords): give the bot a folder of its own"))
            elif held and shown_folder:
                problems.append((index, key, f"{how}, which holds the arbiter's secret key {held[0]}: "
                                             "keep the key outside every bot's folder"))
            elif hides:
                problems.append((index, key, f"{how}, which holds {hides[0]}; a shown path must not lead "
                                             "to the config or the results"))
            elif others and target != os.path.abspath(path):
                problems.append((index, key, f"{how}, in another player's folder ({others[0]}); a shown path "
                                             "must not lead outside the player's own folders"))
    return problems


def hidden_paths(players: Sequence[ShownPaths], *, hidden: Sequence[str]) -> list[tuple[str, ...]]:
    """For each player, what its box must cover inside the folders it shows (`SandboxSpec.hide`):
    the `hidden` paths (the config, the results) and every other player's own folders, but
    not one that is, or holds, a folder of its own (two bots in one folder share it, read-only)."""
    owns = [[os.path.realpath(folder) for folder in player.own_folders()] for player in players]
    covers = []
    for index, mine in enumerate(owns):
        others = [folder for other, folders in enumerate(owns) if other != index for folder in folders
                  if not any(_within(m, folder) for m in mine)]
        covers.append(tuple(dict.fromkeys([*(os.path.realpath(h) for h in hidden), *others])))
    return covers


def _system_path(path: str) -> bool:
    """Whether a path is part of the system's runtime, or an interpreter's installation."""
    return any(_within(path, folder) for folder in SYSTEM_DIRS) or bool(_installations(path)) \
        or _within(path, sys.base_prefix) or _within(path, sys.prefix)


def _resolved(command: Sequence[str], cwd: str) -> list[str]:
    """The command with its program as an absolute path, found on the arbiter's PATH as an
    unsandboxed launch would (the box's PATH holds only the system's folders)."""
    program = command[0]
    if "/" not in program:
        program = shutil.which(program) or program
    return [os.path.join(cwd, program), *command[1:]]


def _installations(program: str) -> list[str]:
    """For a program in `X/bin/` with an `X/lib` beside it (an interpreter's installation, a
    virtual environment), X; for the path as given and for where its links lead."""
    found = []
    for path in dict.fromkeys((os.path.abspath(program), os.path.realpath(program))):
        bin_dir = os.path.dirname(path)
        prefix = os.path.dirname(bin_dir)
        if os.path.basename(bin_dir) == "bin" and prefix != "/" and os.path.isdir(os.path.join(prefix, "lib")):
            found.append(prefix)
    if os.path.realpath(program) == os.path.realpath(sys.executable):
        found += [sys.prefix, sys.base_prefix]  # a venv and the Python it was made from
    return found
