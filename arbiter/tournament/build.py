"""Players built from source (docs/config.md, `build`): a language preset or a command, run
once per digest of the sources in a box without network, within a time and a memory limit.

A build runs in a fresh folder of the results folder (`builds/.NAME-DIGEST.building`), into
which the box itself first copies the player's sources (so that everything in it belongs to
the box's user), and then runs the build command there. The box shows the sources read-only
and that folder writable, nothing of the other players; its stdout and stderr go to
`build.log`. The folder is then renamed `builds/NAME-DIGEST/`, with `build.json` saying how
the build went: a later run with the same sources and build command finds it and builds
nothing (a failed build is kept too: the same sources fail the same way). The player then
runs from that folder, which its box shows whole (`config.with_builds`).

The box is the sandbox's own (`BotProcess.launch` with a `SandboxSpec`, as for a bot), so
the build has what a bot has: no network, the box's memory and process caps, the system's
compilers read-only, and nothing when the run has `sandbox: off` or the machine cannot box
(the run's header says so, as for its bots).
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from ..transport.process import BotProcess, LaunchError
from ..transport.sandbox import BOX_PATH, SandboxError, SandboxSpec, box_here, remove_tree

BUILD_TIME_MS = 300_000  # CodeCup: "Your program has to finish compiling in 5 minutes"
BUILD_MEMORY_MB = 2048
BUILD_WRITE_MB = 1024  # what a build may leave in its folder (a cargo target folder is large)
BUILD_WRITE_FILES = 20_000
MAX_SOURCE_BYTES = 64 << 20  # hashed by content; past it, a file counts by name, size and time
BUILD_FILE = "build.json"
LOG_FILE = "build.log"
_SKIPPED = ("__pycache__",)  # an interpreter's cache: not a source


@dataclass(frozen=True)
class Preset:
    """A language's build, as CodeCup compiles an entry (docs/config.md, Presets): the build
    command and the command that runs what it made. `{source}` is the entry's one source file
    and `{stem}` its name without the extension; `compiler` must be on PATH, and Debian's
    `package` installs it."""

    name: str
    language: str
    extensions: tuple[str, ...]
    build: tuple[str, ...]
    run: tuple[str, ...]
    compiler: str
    package: str


# CodeCup's compilers and flags (https://archive.codecup.nl/2023/52/rules_tech.html, and for
# Pascal https://www.codecup.nl/rules_tech.php), without -march=native (a cluster's worker may
# be another processor); Rust and Go are listed there without flags: these are the plain
# optimised builds. docs/config.md has the table.
PRESETS: dict[str, Preset] = {preset.name: preset for preset in (
    Preset("c", "C", (".c",), ("gcc", "-Wall", "-pipe", "-O2", "-g", "--std=c99", "-o", "bot", "{source}", "-lm"),
           ("./bot",), "gcc", "gcc"),
    Preset("c++", "C++", (".cpp", ".cc", ".cxx"),
           ("g++", "-Wall", "-pipe", "-O2", "-g", "--std=c++17", "-o", "bot", "{source}", "-lm"),
           ("./bot",), "g++", "g++"),
    Preset("rust", "Rust", (".rs",), ("rustc", "-O", "-o", "bot", "{source}"), ("./bot",), "rustc", "rustc"),
    Preset("java", "Java", (".java",), ("javac", "-encoding", "UTF-8", "{source}"), ("java", "-cp", ".", "{stem}"),
           "javac", "default-jdk"),
    Preset("go", "Go", (".go",), ("go", "build", "-o", "bot", "{source}"), ("./bot",), "go", "golang-go"),
    Preset("pascal", "Pascal", (".pas",), ("fpc", "-Sog", "-O2", "-viwn", "-obot", "{source}"), ("./bot",),
           "fpc", "fp-compiler"),
    # Checked for syntax only (compiled to bytecode and thrown away), then run as it is.
    Preset("python", "Python", (".py",), (sys.executable, "-m", "py_compile", "{source}"), ("python3", "{source}"),
           "python3", "python3"),
)}
# Debian's package for a build command's program, where the name differs.
PACKAGES = {"cargo": "cargo", "make": "make", **{p.compiler: p.package for p in PRESETS.values()}}


class BuildConfigError(ValueError):
    """A player's `build` cannot be used as given (the message says why)."""


@dataclass(frozen=True)
class BuildSpec:
    """How one player is built: the build command (words) run in a copy of `sources`, within
    `time_ms` and `memory_mb`; `preset` names the preset it came from, if any."""

    player: str
    sources: str
    command: tuple[str, ...]
    preset: str | None = None
    time_ms: int = BUILD_TIME_MS
    memory_mb: int = BUILD_MEMORY_MB
    digest: str | None = None  # of what was built, once built (`build_digest`)


def plan_build(value: str, sources: Path) -> tuple[tuple[str, ...], tuple[str, ...] | None, str | None]:
    """A `build:` value (a preset's name, or a command) read against the sources' folder: the
    build command, the command that runs what a preset builds (None for a command), and the
    preset's name; BuildConfigError when it cannot be used."""
    preset = PRESETS.get(value)
    if preset is None:
        try:
            words = tuple(shlex.split(value))
        except ValueError as exc:
            raise BuildConfigError(f"{value!r} is not allowed: cannot split it like a shell would ({exc})") from None
        if not words:
            raise BuildConfigError(f"is empty: give a preset ({', '.join(PRESETS)}) or a command (make)")
        return words, None, None
    found = sorted(name for name in _source_names(sources) if name.endswith(preset.extensions))
    if len(found) != 1:
        what = f"{len(found)} ({', '.join(found)})" if found else "none"
        raise BuildConfigError(f"{value!r} builds one {preset.language} source file ({'/'.join(preset.extensions)}), "
                               f"and {sources} holds {what}: give build: as a command (make) and a command:")
    source = found[0]
    stem = Path(source).stem
    fill = {"{source}": source, "{stem}": stem}
    return (tuple(fill.get(word, word) for word in preset.build), tuple(fill.get(word, word) for word in preset.run),
            preset.name)


def missing_compiler(command: Sequence[str], preset: str | None) -> str | None:
    """Why a build cannot run on this machine (its program is not on PATH), naming the
    package that installs it; None when it can."""
    program = command[0]
    if os.path.isabs(program) or shutil.which(program) is not None:
        return None
    package = PACKAGES.get(program)
    what = f"the {PRESETS[preset].language} preset needs {program!r}" if preset else f"{program!r} is not installed"
    install = f"install it (Debian: apt install {package})" if package else "install it, or give another command"
    return f"{what}, which is not on this machine's PATH: {install}"


def outside_the_box(command: Sequence[str]) -> str | None:
    """Why a build's program, found on this machine's PATH, is not found in a box, whose PATH
    holds only the system's folders (a compiler in ~/.cargo/bin); None when it is found there
    (or is given by its path, which the box shows)."""
    program = command[0]
    if "/" in program or shutil.which(program) is None or shutil.which(program, path=BOX_PATH) is not None:
        return None
    package = PACKAGES.get(program)
    install = f"install Debian's {package}" if package else "install it in the system's folders"
    return (f"{program!r} is {shutil.which(program)}, outside the system's folders ({BOX_PATH}), which is all a "
            f"build's box finds: {install}, or build this trusted player unboxed (sandbox: off)")


def _source_names(folder: Path) -> list[str]:
    """The names of the files at the top of a folder, hidden ones and caches left out."""
    try:
        return [entry.name for entry in os.scandir(folder)
                if entry.is_file() and not entry.name.startswith(".") and entry.name not in _SKIPPED]
    except OSError:
        return []


def build_digest(spec: BuildSpec) -> str:
    """The SHA-256 (hex) of what a build makes its program from: the build command and every
    file of the sources (by relative name; hidden files and caches left out), so that another
    folder holding the same files builds nothing again."""
    digest = hashlib.sha256()
    digest.update(json.dumps(list(spec.command)).encode() + b"\0")
    budget = MAX_SOURCE_BYTES
    top = Path(spec.sources)
    for folder, subfolders, files in os.walk(top):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith(".") and name not in _SKIPPED)
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = Path(folder) / name
            relative = str(path.relative_to(top)).encode(errors="surrogateescape")
            if path.is_symlink():
                digest.update(b"link\0" + relative + b"\0" + os.readlink(path).encode(errors="surrogateescape") + b"\0")
                continue
            try:
                stat = path.stat()
                digest.update(b"file\0" + relative + b"\0" + str(stat.st_size).encode() + b"\0")
                if stat.st_size > budget:
                    digest.update(str(stat.st_mtime_ns).encode())
                    continue
                budget -= stat.st_size
                digest.update(path.read_bytes())
            except OSError as exc:
                digest.update(b"unreadable\0" + str(exc.errno).encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Built:
    """How one player's build went: its folder (`builds/NAME-DIGEST/`, where the player runs
    from), its log, and why it failed (None: it built); `cached` when an earlier run built it."""

    player: str
    digest: str
    folder: Path
    ok: bool
    reason: str | None
    seconds: float
    cached: bool = False

    @property
    def log(self) -> Path:
        """The build's output (stdout and stderr)."""
        return self.folder / LOG_FILE


def build_folder(builds: Path, spec: BuildSpec) -> Path:
    """Where a player's build of these sources is kept."""
    return builds / f"{spec.player}-{build_digest(spec)[:16]}"


def build(spec: BuildSpec, builds: Path, run_command: Sequence[str] = (), *, boxed: bool = True,
          starting: Callable[[], None] | None = None) -> Built:
    """Build one player (the module's docstring), or find its build from an earlier run.
    `run_command` is what the player will run: a program of its own it names (`./bot`) must
    exist once the build is done. `boxed` false: the run has `sandbox: off`. `starting` is
    called when a build starts (not when an earlier one is found)."""
    digest = build_digest(spec)
    folder = builds / f"{spec.player}-{digest[:16]}"
    earlier = _read_built(folder, spec.player, digest)
    if earlier is not None:
        return earlier
    if starting is not None:
        starting()
    scratch = builds / f".{folder.name}.building"
    log = builds / f".{folder.name}.log"
    remove_tree(str(scratch))
    scratch.mkdir(parents=True)
    started = time.monotonic()
    reason = _run(spec, scratch, log, boxed=boxed)
    if reason is None:
        reason = _made(spec, scratch, run_command)
    seconds = time.monotonic() - started
    remove_tree(str(folder))  # an earlier arbiter stopped between the rename and build.json
    os.replace(scratch, folder)
    os.replace(log, folder / LOG_FILE)
    built = Built(spec.player, digest, folder, reason is None, reason, round(seconds, 3))
    (folder / BUILD_FILE).write_text(json.dumps({
        "player": spec.player, "digest": digest, "command": list(spec.command), "preset": spec.preset,
        "sources": spec.sources, "ok": built.ok, "reason": reason, "seconds": built.seconds,
        "boxed": boxed, "time_ms": spec.time_ms, "memory_mb": spec.memory_mb,
    }, indent=2) + "\n")
    return built


def _read_built(folder: Path, player: str, digest: str) -> Built | None:
    """An earlier run's build of the same sources, from its build.json; None if there is none."""
    try:
        kept: dict[str, Any] = json.loads((folder / BUILD_FILE).read_text())
    except (OSError, ValueError):
        return None
    if kept.get("digest") != digest:
        return None
    return Built(player, digest, folder, bool(kept.get("ok")), kept.get("reason"), float(kept.get("seconds", 0)),
                 cached=True)


def _run(spec: BuildSpec, scratch: Path, log: Path, *, boxed: bool) -> str | None:
    """Copy the sources into `scratch` and run the build there, in a box showing the sources
    read-only and `scratch` writable; why it failed, or None."""
    # The box's own shell copies the sources in (so the box's user owns the copies), then
    # becomes the build command with its stdout joined to the log.
    shell = ("/bin/sh", "-c", 'cp -R "$0"/. . && exec "$@" >&2', spec.sources, *spec.command)
    box = SandboxSpec(read=(spec.sources,), write=(str(scratch),), write_mb=BUILD_WRITE_MB,
                      write_files=BUILD_WRITE_FILES)
    try:
        process, stdin_fd, stdout_fd = BotProcess.launch(shell, cwd=str(scratch), memory_mb=spec.memory_mb,
                                                         log_path=log, sandbox=box_here(box) if boxed else None)
    except (LaunchError, SandboxError, OSError) as exc:
        log.write_text(f"[arbiter: the build could not start: {exc}]\n")
        return f"the build could not start: {exc}"
    os.close(stdin_fd)
    try:
        status = process.wait_exit(spec.time_ms / 1000)
        if status is None:
            process.kill_tree()
            return f"the build took longer than its {spec.time_ms / 1000:g} s (build_limits: time_ms)"
        if status != 0:
            return f"{shlex.join(spec.command)} {process.describe_exit(status)}"
        return box.write_cap_broken()
    finally:
        os.close(stdout_fd)
        process.close()


def _made(spec: BuildSpec, scratch: Path, run_command: Sequence[str]) -> str | None:
    """Why the build did not make the program the player runs (`./bot`), or None."""
    if run_command and "/" in run_command[0] and not os.path.isabs(run_command[0]):
        program = scratch / run_command[0]
        if not program.is_file():
            return f"{shlex.join(spec.command)} made no {run_command[0]} (the command the player runs)"
    return None


__all__ = ["BUILD_MEMORY_MB", "BUILD_TIME_MS", "BuildConfigError", "BuildSpec", "Built", "PRESETS", "Preset",
           "build", "build_digest", "build_folder", "missing_compiler", "outside_the_box", "plan_build"]
