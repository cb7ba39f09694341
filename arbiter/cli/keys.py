"""`arbiter keys NAME`: write a CURVE key pair for ZeroMQ players (docs/remote-bots.md)."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..errors import UsageError, show_path
from ..transport.keys import KeyFileError, KeyPair, write_key_pair


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `keys` subcommand."""
    parser = subparsers.add_parser(
        "keys", help="write a CURVE key pair file for playing over sockets",
        description="Write NAME.key_secret (the key pair: keep it private) and NAME.key (the public key: "
                    "give it to the other side) for ZeroMQ players. The organiser makes one for the "
                    "arbiter; each remote bot makes its own. See docs/remote-bots.md.",
    )
    parser.add_argument("name", metavar="NAME", help="the key pair's name: arbiter, or a player's name")
    parser.add_argument("--dir", type=Path, default=Path("."), metavar="DIR",
                        help="the folder to write the files in, created if missing (default: the current folder)")
    parser.add_argument("--force", action="store_true", help="replace existing key files")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Generate the pair, write both files, print the public key."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args.name):
        raise UsageError(f"{args.name!r} is not a key name: use letters, digits, '.', '_' and '-'")
    try:
        args.dir.mkdir(parents=True, exist_ok=True)  # `--dir keys` on a fresh setup just works
    except OSError as exc:
        raise UsageError(f"--dir {args.dir}: cannot create the folder ({exc.strerror})") from None
    pair = KeyPair.generate()
    try:
        secret_path, public_path = write_key_pair(args.dir, args.name, pair, overwrite=args.force)
    except KeyFileError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"--dir {show_path(args.dir)}: cannot write the key files ({exc.strerror})") from None
    print(f"wrote {secret_path} (the key pair: keep it private)")
    print(f"wrote {public_path} (the public key: give it to the other side)")
    # Z85 keys can start with YAML's special characters (!, &, *), so the config line is quoted.
    print(f"public key: {pair.public}")
    print(f"in a tournament config: public_key: \"{pair.public}\"")
    return 0
