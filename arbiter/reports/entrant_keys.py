"""Each entrant's own link to the live page: its key opens the logs of that entrant's seats and no
other seat's (docs/live.md, Each entrant's own logs).

A key is an HMAC of the entrant's name under a secret kept in the results folder
(`ResultsFolder.entrant_secret`, 32 random bytes, mode 0600, made on first use and kept across
resumes and servers, so a link handed out once keeps working). Bots never see it: the results
folder is covered in every box. Whoever holds a link sees what its entrant may see; the
organiser's `--serve-logs` still shows every log.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from urllib.parse import quote

from ..tournament.store import ResultsFolder

SECRET_BYTES = 32
KEY_HEX = 32  # 128 bits of the HMAC: a key cannot be guessed


def _secret(folder: Path, *, make: bool) -> bytes | None:
    """The folder's secret, made (0600, written whole) when `make` and there is none yet."""
    path = ResultsFolder(folder).entrant_secret
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (FileNotFoundError, ValueError):
        if not make:
            return None
    folder.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_bytes(SECRET_BYTES)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as out:
        out.write(secret.hex() + "\n")
    return secret


def entrant_key(folder: Path, name: str, *, make: bool = True) -> str | None:
    """The key of `name`'s link (None when the folder has no secret and `make` is false)."""
    secret = _secret(folder, make=make)
    if secret is None:
        return None
    return hmac.new(secret, name.encode("utf-8"), hashlib.sha256).hexdigest()[:KEY_HEX]


def key_holder(folder: Path, name: str, key: str) -> bool:
    """Whether `key` is `name`'s key (compared in constant time; never with no secret)."""
    expected = entrant_key(folder, name, make=False)
    return expected is not None and hmac.compare_digest(expected, key)


def entrant_link(url: str, folder: Path, name: str) -> str:
    """`name`'s link to the live page at `url`."""
    return f"{url}?entrant={quote(name)}&key={entrant_key(folder, name)}"


__all__ = ["entrant_key", "entrant_link", "key_holder"]
