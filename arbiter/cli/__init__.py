"""The `arbiter` command: one module per subcommand, one error boundary."""
from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import UsageError
from ..games import GameError

# Each module has `register(subparsers)`, which adds its parser and sets `func(args) -> int`.
SUBCOMMANDS = ("play", "run", "report", "sprt", "keys")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(prog="arbiter", description="Bot-versus-bot tournament arbiter.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand; user errors become a message and exit status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (UsageError, GameError) as exc:
        print(f"arbiter {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"arbiter {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
