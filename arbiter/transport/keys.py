"""CURVE key pairs for ZeroMQ players: generate, write, and read them.

Keys are Z85 text (40 characters for 32 bytes), as ZeroMQ prints them. A key pair lives in
two files in ZeroMQ's certificate format (the one `zmq.auth` and czmq read and write):

- `NAME.key_secret`: the public and the secret key; readable by its owner only.
- `NAME.key`: the public key alone, to hand to the other side.

The arbiter's pair is listed in a tournament config (`arbiter_keys:`); each remote bot has
its own pair and gives only its public key to the organiser (docs/remote-bots.md).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path


Z85_KEY_CHARS = 40
# Z85's alphabet (ZeroMQ RFC 32): digits, letters and these symbols.
_Z85_KEY = re.compile(r"[0-9a-zA-Z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}")
SECRET_SUFFIX = ".key_secret"
PUBLIC_SUFFIX = ".key"


class KeyFileError(ValueError):
    """A key or key file that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class KeyPair:
    """A CURVE key pair as Z85 text; `secret` is None when only the public half is known."""

    public: str
    secret: str | None = None

    @classmethod
    def generate(cls) -> KeyPair:
        """A fresh random key pair."""
        import zmq  # loaded where keys are made or checked, not by every config that names a socket
        public, secret = zmq.curve_keypair()
        return cls(public.decode("ascii"), secret.decode("ascii"))


def is_z85_key(text: str) -> bool:
    """Whether `text` is a 32-byte key written in Z85."""
    return bool(_Z85_KEY.fullmatch(text))


def write_key_pair(folder: Path, name: str, pair: KeyPair, *, overwrite: bool = False) -> tuple[Path, Path]:
    """Write NAME.key_secret (mode 0600) and NAME.key into `folder`; returns (secret, public) paths.

    Refuses (KeyFileError) to replace existing files unless `overwrite`.
    """
    if pair.secret is None:
        raise KeyFileError("cannot write a key pair without its secret key")
    secret_path = folder / f"{name}{SECRET_SUFFIX}"
    public_path = folder / f"{name}{PUBLIC_SUFFIX}"
    if not overwrite:
        for path in (secret_path, public_path):
            if path.exists():
                raise KeyFileError(f"{path} already exists (keeping it; pass --force to replace it)")
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    common = f"#   ZeroMQ CURVE certificate for {name}, written by `arbiter keys` on {stamp}\n"
    public_text = (
        common + "#   The public half: give this file (or the key below) to the other side.\n"
        + f"metadata\ncurve\n    public-key = \"{pair.public}\"\n"
    )
    secret_text = (
        common + "#   THIS FILE HOLDS THE SECRET KEY: keep it private, never send it to anyone.\n"
        + f"metadata\ncurve\n    public-key = \"{pair.public}\"\n    secret-key = \"{pair.secret}\"\n"
    )
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    fd = os.open(secret_path, flags, 0o600)
    os.fchmod(fd, 0o600)  # also when the file was there before, with wider permissions
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(secret_text)
    public_path.write_text(public_text, encoding="ascii")
    return secret_path, public_path


def read_key_file(path: str | Path, *, need_secret: bool) -> KeyPair:
    """The key pair (or public key) in a certificate file; KeyFileError naming the file otherwise."""
    path = Path(path)
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "it is not a text key file"
        raise KeyFileError(f"cannot read key file {path}: {why}") from None
    keys: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.strip().partition("=")
        if sep and name.strip() in ("public-key", "secret-key"):
            keys[name.strip()] = value.strip().strip("'\"")
    public, secret = keys.get("public-key"), keys.get("secret-key")
    if public is None or not is_z85_key(public):
        raise KeyFileError(f"{path} is not a key file: no valid `public-key = \"...\"` line "
                        "(write one with `arbiter keys NAME`)")
    if secret is not None and not is_z85_key(secret):
        raise KeyFileError(f"{path}: its secret-key is not a 40-character Z85 key")
    if need_secret and secret is None:
        raise KeyFileError(f"{path} holds only a public key; give the {SECRET_SUFFIX} file, which holds both")
    import zmq  # loaded where keys are made or checked, not by every config that names a socket
    if secret is not None and zmq.curve_public(secret.encode("ascii")).decode("ascii") != public:
        raise KeyFileError(f"{path}: its public-key does not belong to its secret-key")
    return KeyPair(public, secret)


def read_public_key(text: str, *, relative_to: Path | None = None) -> str:
    """A public key given as Z85 text or as the path of a key file (`.key` or `.key_secret`)."""
    if is_z85_key(text):
        return text
    path = Path(text)
    if relative_to is not None and not path.is_absolute():
        path = relative_to / path
    if not path.exists():
        raise KeyFileError(f"{text!r} is neither a 40-character Z85 public key nor an existing key file")
    return read_key_file(path, need_secret=False).public


__all__ = ["KeyFileError", "KeyPair", "is_z85_key", "read_key_file", "read_public_key", "write_key_pair"]
