"""Where a command's output goes: the results folder's flags, and output paths checked
before any game is played, so that no game is played into a file that cannot be written."""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from ..errors import UsageError, show_path


def check_output_file(flag: str, path: Path) -> None:
    """UsageError naming `flag` unless `path` can be written as a file (tried: a file that
    did not exist is created, written a byte, and removed again)."""
    shown = f"{flag} {show_path(path)}"
    try:
        if path.is_dir():
            raise UsageError(f"{shown} is a folder: give a file name")
        parent = path.parent
        if not parent.exists():
            raise UsageError(f"{shown}: the folder {show_path(parent)} does not exist")
        if not parent.is_dir():
            raise UsageError(f"{shown}: {show_path(parent)} is a file, not a folder")
        existed = path.exists()
        try:
            with open(path, "ab") as handle:
                if not existed:
                    handle.write(b"\n")  # a byte, so that a full disk shows now and not after the game
                    handle.flush()
                    os.fsync(handle.fileno())
        finally:
            if not existed:
                path.unlink(missing_ok=True)
    except OSError as exc:
        raise UsageError(f"{shown}: cannot write it ({exc.strerror})") from None


def check_output_folder(flag: str, path: Path) -> None:
    """Create `path` if missing; UsageError naming `flag` unless a file can be written in it."""
    shown = f"{flag} {show_path(path)}"
    try:
        if path.exists() and not path.is_dir():
            raise UsageError(f"{shown} is a file, not a folder")
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path) as probe:
            probe.write(b"\n")
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        raise UsageError(f"{shown}: cannot write in this folder ({exc.strerror})") from None


def add_results_options(parser: argparse.ArgumentParser, default: str | None) -> None:
    """`--fresh` and `--no-backup` (and, unless the config names the folder, `--results DIR`
    with its `default`, relative to the current folder; docs/cli.md, Where results go)."""
    if default is not None:
        parser.add_argument("--results", default=default, metavar="DIR",
                            help="the results folder, relative to the current folder (default %(default)s); "
                                 "the same command again resumes it")
    parser.add_argument("--fresh", action="store_true",
                        help="start over: the folder's earlier games and files are moved to a dated backup "
                             "folder beside it (DIR.YYYY-MM-DDTHH-MM-SS)")
    parser.add_argument("--no-backup", dest="backup", action="store_false",
                        help="with --fresh, delete the earlier games instead of keeping a backup")


def check_results_flags(args: argparse.Namespace) -> None:
    """UsageError for `--no-backup` without `--fresh` (it would do nothing, silently)."""
    if not args.backup and not args.fresh:
        raise UsageError("--no-backup only applies with --fresh (it deletes the earlier games instead of "
                         "keeping them in a backup folder)")
