"""The sandbox options shared by the commands that launch bots (docs/security.md)."""
from __future__ import annotations

import argparse
import os
import sys

from ..transport.sandbox import SandboxSpec, box_here, support


def add_sandbox_options(parser: argparse.ArgumentParser, *, paths: bool = True) -> None:
    """`--no-sandbox`, and (for commands that name bots on the command line) extra paths."""
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run the bots unsandboxed, as the arbiter's own user (trusted bots only)")
    if paths:
        parser.add_argument("--sandbox-read", action="append", default=[], metavar="PATH",
                            help="a file or folder every bot may read (e.g. the folder of a bot made of "
                                 "several files); repeatable")
        parser.add_argument("--sandbox-write", action="append", default=[], metavar="PATH",
                            help="a folder every bot may write (e.g. a cache); repeatable")


def sandbox_from_args(args: argparse.Namespace, command: str) -> SandboxSpec | None:
    """The bots' box as the command line asks, decided once for the command
    (`sandbox.box_here`): None with --no-sandbox, and None, said loudly on stderr, on a
    machine that cannot make boxes."""
    if args.no_sandbox:
        return None
    asked = SandboxSpec(read=tuple(os.path.abspath(p) for p in getattr(args, "sandbox_read", [])),
                        write=tuple(os.path.abspath(p) for p in getattr(args, "sandbox_write", [])))
    boxed = box_here(asked)
    if boxed is None:
        print(f"arbiter {command}: WARNING: {support().describe()}", file=sys.stderr)
    return boxed
