"""The launch helper: a C program of a few lines (`spawn.c`) that does what a bot's launch must
do between fork and exec, so that no Python runs there. `spawn bot` starts an unboxed bot with
its parent-death signal, the child-subreaper flag and its memory cap, and `process.py` starts
it with vfork instead of copying the whole arbiter (threads, page tables) at every launch;
`spawn keeper` is a box's keeper, starting bubblewrap inside the box's control groups and
reaping the box (`sandbox.py`, Box; `keeper.py` without the helper); `spawn box` is a box's
first program under its filter, moving the bot's pipes to 0 and 1 and dropping every right,
in place of a `/bin/sh` shim and util-linux `setpriv` (docs/security.md, The programs of a
box; docs/performance.md, Throughput).

It is compiled once per machine with the system's C compiler into the user's cache
(`$XDG_CACHE_HOME/arbiter` or `~/.cache/arbiter`), named by a digest of its source, and
used only when it is a regular file of the arbiter's own user that nobody else may write.
Where there is no compiler, or the cache cannot be written (a user without a home), `helper()`
says None and a launch does the same from Python, and a box with the shell and `setpriv`, as
before: slower, never different.
"""
from __future__ import annotations

import hashlib
import os
import platform
import secrets
import shutil
import stat
import subprocess
import threading
from pathlib import Path

_SOURCE = Path(__file__).with_name("spawn.c")
_COMPILE_TIMEOUT_S = 60.0
_UNSET = object()
_HELPER: object = _UNSET
_LOCK = threading.Lock()


def helper() -> str | None:
    """The launch helper's path, built on first use in this process (None: launch without it)."""
    global _HELPER
    with _LOCK:
        if _HELPER is _UNSET:
            _HELPER = _build()
        return _HELPER  # type: ignore[return-value]


def _cache_folder() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "arbiter") if os.path.isabs(base) else None


def _build() -> str | None:
    try:
        source = _SOURCE.read_bytes()
    except OSError:
        return None
    folder = _cache_folder()
    if folder is None:
        return None
    digest = hashlib.sha256(source + platform.machine().encode()).hexdigest()[:16]
    path = folder / f"spawn-{digest}"
    if _trusted(path) and _works(str(path)):
        return str(path)
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    partial = folder / f".spawn-{digest}-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _owned(folder):
            return None
        subprocess.run([compiler, "-O2", "-o", str(partial), "-x", "c", "-"], input=source, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=_COMPILE_TIMEOUT_S)
        os.chmod(partial, 0o755)
        if not _works(str(partial)):
            return None
        os.replace(partial, path)  # several arbiters may build it at once: each renames a whole file
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        try:
            os.unlink(partial)
        except OSError:
            pass
    return str(path) if _trusted(path) else None


def _trusted(path: Path) -> bool:
    """Whether `path` is a regular file that, like its folder, is the arbiter's user's own and
    nobody else may write (a helper someone else could replace would run with our rights)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode) and _owned(path) and _owned(path.parent)
    except OSError:
        return False


def _owned(node: Path) -> bool:
    """Whether `node` (not followed) belongs to the arbiter's user and only it may write it."""
    try:
        info = os.lstat(node)
    except OSError:
        return False
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _works(path: str) -> bool:
    """Whether the helper runs here and starts a program (a cache shared by machines of
    another kind, a build that went wrong)."""
    report_r, report_w = os.pipe()
    try:
        done = subprocess.run([path, "bot", str(os.getpid()), "-", str(report_w), "true"], pass_fds=(report_w,),
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=_COMPILE_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        os.close(report_w)
        os.close(report_r)
    return done.returncode == 0


__all__ = ["helper"]
