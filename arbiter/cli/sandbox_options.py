"""The sandbox options shared by the commands that launch bots (docs/security.md)."""
from __future__ import annotations

import argparse
import sys

from ..transport.sandbox import support


def add_sandbox_options(parser: argparse.ArgumentParser, *, paths: bool = True) -> None:
    """`--no-sandbox`, and (for commands that name bots on the command line) extra paths."""
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run the bots unsandboxed, as the arbiter's own user (trusted bots only)")
    if paths:
        parser.add_argument("--sandbox-read", action="append", default=[], metavar="PATH",
                            help="a file or folder every bot may read beyond its own (its program's folder "
                                 "is shown anyway, read-only; the current folder is not); repeatable")
        parser.add_argument("--sandbox-write", action="append", default=[], metavar="PATH",
                            help="a folder every bot may write (e.g. a cache); repeatable")


def warn_if_unsandboxed(sandboxed: bool, command: str) -> None:
    """Say loudly on stderr when bots that should be boxed cannot be (this machine): their
    specs then carry no box (`sandbox.box_here`, applied where the players are read)."""
    if sandboxed and not support().usable:
        print(f"arbiter {command}: WARNING: {support().describe()}", file=sys.stderr)
