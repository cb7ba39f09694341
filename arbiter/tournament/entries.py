"""Entries as folders (docs/config.md, `entries`): each subfolder of a config's `entries:`
folder is one entrant, named after it, whose command and build come from its `entry.yaml`
or from what the folder holds. Read here into player entries, which the config reads as it
reads `players:`; their admission before the first game is `preflight.admit`'s.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .build import PRESETS
from .validate import ConfigError, load_yaml

ENTRY_FILE = "entry.yaml"
# What an entry's file may say: how its program is built and started. Its clock, its box
# and how it is reached are the tournament's, the same for every entrant (the config's).
ENTRY_KEYS = ("command", "build", "dialect", "env", "reuse")
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # the names make looks for, in its order
_MAKE_TARGET = re.compile(r"^([^\s:=#.$][^\s:=#$]*)\s*::?(?!=)(.*)$")


@dataclass(frozen=True)
class Entry:
    """One entrant's folder read: its name and its player entry (what `players:` would hold
    for it, without the name)."""

    name: str
    folder: Path
    data: dict[str, Any]


def entry_folders(entries: Path) -> list[Path]:
    """The entrants' folders: the subfolders of `entries`, by name, hidden ones left out."""
    return sorted((path for path in entries.iterdir() if path.is_dir() and not path.name.startswith(".")),
                  key=lambda path: path.name)


def read_entry(folder: Path) -> tuple[Entry | None, list[tuple[str, str]]]:
    """One entrant's folder: its entry, or None, and the problems found as (key, sentence)."""
    data: dict[str, Any] = {}
    given = folder / ENTRY_FILE
    if given.is_file():
        try:
            loaded, _ = load_yaml(given)
        except ConfigError as exc:
            return None, [("", str(exc))]
        if loaded is not None and not isinstance(loaded, dict):
            return None, [("", f"{given} must be a mapping of {', '.join(ENTRY_KEYS)}")]
        data = dict(loaded or {})
        refused = [key for key in data if key not in ENTRY_KEYS]
        if refused:
            return None, [(str(key), f"is not allowed in {given}: an entry's file says how its program is built "
                                     f"and started ({', '.join(ENTRY_KEYS)}); its name is its folder's, and its "
                                     "clock and box are the tournament's (the config's)") for key in refused]
    if "command" in data:  # with its build, or none: it runs as it is
        return Entry(folder.name, folder, data), []
    found = _by_contents(folder, data.get("build"))
    if isinstance(found, str):
        return None, [("command", found)]
    return Entry(folder.name, folder, {**found, **data}), []


def _by_contents(folder: Path, build_value: Any) -> dict[str, Any] | str:
    """The command and build a folder's contents give, by the first rule that fits it
    (docs/config.md, `entries`); or why none does."""
    if build_value is not None and not isinstance(build_value, str):
        return {}  # the player's reader says what a build must be
    cargo = folder / "Cargo.toml"
    makefile = next((folder / name for name in MAKEFILES if (folder / name).is_file()), None)
    if build_value is None and cargo.is_file():
        package = _cargo_package(cargo)
        if package is None:
            return f"{cargo} names no [package] name: give command: in {ENTRY_FILE}"
        return {"build": "cargo build --release --offline", "command": f"./target/release/{package}"}
    if build_value in PRESETS:
        return {}  # the preset gives the command
    if makefile is not None and build_value in (None, "make"):
        target = _make_target(makefile)
        if target is None:
            return f"{makefile}'s first target names no program: give command: in {ENTRY_FILE}"
        return {"build": "make", "command": f"./{target}"}
    if build_value is not None:
        return f"build: {build_value} is a command: give the command that starts what it builds (command:)"
    sources = sorted(path.name for path in folder.iterdir() if path.is_file() and not path.name.startswith(".")
                     and any(path.name.endswith(p.extensions) for p in PRESETS.values()))
    if len(sources) == 1:
        preset = next(p for p in PRESETS.values() if sources[0].endswith(p.extensions))
        return {"build": preset.name}
    what = f"{len(sources)} source files ({', '.join(sources)})" if sources else "no source file, Makefile or Cargo.toml"
    return (f"{folder} holds {what}: give its command (and build) in {folder / ENTRY_FILE}, "
            "or leave one source file (docs/config.md, Entries)")


def _cargo_package(cargo: Path) -> str | None:
    """The package's name in a Cargo.toml (the binary cargo builds), or None."""
    try:
        name = tomllib.loads(cargo.read_text(encoding="utf-8")).get("package", {}).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return name if isinstance(name, str) and name and "/" not in name else None


def _make_target(makefile: Path) -> str | None:
    """The program a Makefile's default goal makes: its first target (not a special `.X`
    one), or that target's one prerequisite when it is `all`; None when there is none."""
    try:
        lines = makefile.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("\t"):
            continue
        match = _MAKE_TARGET.match(line)
        if match is None:
            continue
        targets = match.group(1).split()
        target = targets[0]
        if target == "all":
            needs = match.group(2).split(";")[0].split()
            return needs[0] if len(needs) == 1 and "$" not in needs[0] else None
        return target
    return None


__all__ = ["ENTRY_FILE", "ENTRY_KEYS", "Entry", "entry_folders", "read_entry"]
