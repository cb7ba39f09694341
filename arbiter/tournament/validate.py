"""Reading a YAML file into checked values, collecting every error with its key path and line.

Errors read like `configs/x.yaml:12: players[2].time_ms: -5 is not allowed: must be a
positive integer`, and an unknown key gets a did-you-mean.
"""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

import yaml

from ..errors import UsageError

KeyPath = tuple[str | int, ...]
Check = Callable[[Any], Optional[str]]  # None if a value is allowed, else what is allowed


class ConfigError(UsageError):
    """One or more problems in a config file; the message lists them all."""


def format_path(path: KeyPath) -> str:
    """`("players", 2, "time_ms")` -> `players[2].time_ms`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(top level)"


def _line_map(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int]) -> None:
    """Record the 1-based line of every key path in a composed YAML node tree."""
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            lines[path + (key,)] = key_node.start_mark.line + 1
            _line_map(value_node, path + (key,), lines)
            lines[path + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _line_map(item, path + (index,), lines)


@dataclass
class Problems:
    """The errors found so far in one file, with the key-path -> line map to place them."""

    source: Path
    lines: dict[KeyPath, int]
    messages: list[str]
    # For a config built from command-line flags: a key path in the words the user typed
    # (`--games`), or None to name it by its key (every problem then reads like the flag's own).
    flags: Optional[Callable[[KeyPath], Optional[str]]] = None
    # What the file asks of this machine (tournament/probe.py), answered after it is read.
    asks: list[Any] = field(default_factory=list)

    def add(self, path: KeyPath, message: str) -> None:
        """Record one problem at a key path."""
        flag = self.flags(path) if self.flags is not None else None
        if flag is not None:
            self.messages.append(f"{flag}: {message}")
            return
        line = self._line_of(path)
        where = f"{self.source}:{line}" if line else str(self.source)
        self.messages.append(f"{where}: {format_path(path)}: {message}")

    def _line_of(self, path: KeyPath) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None

    def raise_if_any(self) -> None:
        """Raise one ConfigError listing every problem, if there are any."""
        if len(self.messages) == 1:  # one problem, one line
            raise ConfigError(self.messages[0])
        if self.messages:
            count = len(self.messages)
            head = f"{count} problem{'s' if count > 1 else ''} {'on the command line' if self.flags else f'in {self.source}'}:\n"
            raise ConfigError(head + "\n".join(f"  {m}" for m in self.messages))


def load_yaml(path: Path) -> tuple[Any, Problems]:
    """Parse a YAML file; a syntax error is a ConfigError naming the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text: byte {exc.object[exc.start]:#04x} at offset {exc.start} "
                          "cannot be decoded; save the file as UTF-8") from None
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise ConfigError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _line_map(node, (), lines)
    return data, Problems(path, lines, [])


class Mapping:
    """A YAML mapping being read: each `get` checks one key; `finish` flags unknown keys."""

    def __init__(self, problems: Problems, path: KeyPath, value: Any, allowed: Iterable[str]) -> None:
        self.problems = problems
        self.path = path
        self.allowed = tuple(allowed)
        self.ok = isinstance(value, dict)
        if value is not None and not self.ok:
            problems.add(path, f"{value!r} is not allowed: must be a mapping of {', '.join(self.allowed)}"
                               + (" (or `game`: each seat scores its game points)" if path == ("scoring",) else ""))
        self.data: dict[str, Any] = value if self.ok else {}
        for key in self.data:
            if key not in self.allowed:
                close = difflib.get_close_matches(str(key), self.allowed, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; keys here are: {', '.join(self.allowed)}"
                problems.add(path + (str(key),), f"unknown key {key!r}{hint}")

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def get(self, key: str, default: Any, check: Callable[[Any], str | None], *, required: bool = False) -> Any:
        """The value at `key` (or default); `check` returns None or what is allowed."""
        if key not in self.data or self.data[key] is None and not required:
            if required:
                self.problems.add(self.path + (key,), f"is required: {check(None) or 'give a value'}")
            return default
        value = self.data[key]
        allowed = check(value)
        if allowed is not None:
            self.problems.add(self.path + (key,), f"{value!r} is not allowed: {allowed}")
            return default
        return value


def integer(minimum: int, maximum: int | None = None, *, even: bool = False) -> Callable[[Any], str | None]:
    """A check for an integer in [minimum, maximum], optionally even."""

    def check(value: Any) -> str | None:
        what = f"an {'even ' if even else ''}integer >= {minimum}" + (f" and <= {maximum}" if maximum is not None else "")
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be {what}"
        if value < minimum or (maximum is not None and value > maximum) or (even and value % 2):
            return f"must be {what}"
        return None

    return check


def number(minimum: float | None = None) -> Callable[[Any], str | None]:
    """A check for a finite real number (int or float), optionally >= minimum."""

    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return "must be a finite number"
        if minimum is not None and value < minimum:
            return f"must be a number >= {minimum}"
        return None

    return check


def one_of(choices: Sequence[Any]) -> Callable[[Any], str | None]:
    """A check for one of a closed set of values."""

    def check(value: Any) -> str | None:
        if value in choices:
            return None
        close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"must be one of: {', '.join(str(c) for c in choices)}{hint}"

    return check


def text(value: Any) -> str | None:
    """A check for a non-empty string."""
    return None if isinstance(value, str) and value.strip() else "must be a non-empty string"


def boolean(value: Any) -> str | None:
    """A check for true/false."""
    return None if isinstance(value, bool) else "must be true or false"
