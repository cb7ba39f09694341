"""`arbiter keys NAME`: a CURVE key pair file and its public half, as docs/remote-bots.md shows."""
from __future__ import annotations

import stat
from pathlib import Path

import pytest

from arbiter.cli import main


def test_keys_creates_the_folder_and_writes_a_private_pair_and_a_public_key(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "keys"  # does not exist yet: the doc's first step
    assert main(["keys", "arbiter", "--dir", str(folder)]) == 0
    secret, public = folder / "arbiter.key_secret", folder / "arbiter.key"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert "public_key: \"" in capsys.readouterr().out
    assert public.exists()
    assert main(["keys", "arbiter", "--dir", str(folder)]) == 2  # never overwritten without --force
    assert main(["keys", "arbiter", "--dir", str(folder), "--force"]) == 0


def test_a_bad_key_name_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["keys", "../evil", "--dir", str(tmp_path)]) == 2
    assert "is not a key name" in capsys.readouterr().err
