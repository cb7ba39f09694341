"""The results folder: `games.jsonl`, append-only and fsynced, tolerant of a torn last line."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import UsageError


class GameStore:
    """One JSON object per finished game, one per line, in the order games finished."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self, *, repair: bool = False) -> list[dict[str, Any]]:
        """Every complete record. A torn last line (a crash mid-write) is ignored, and with
        `repair` cut off the file so the next append starts on a clean line."""
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        records: list[dict[str, Any]] = []
        offset = 0
        for number, line in enumerate(data.splitlines(keepends=True), 1):
            complete = line.endswith(b"\n")
            if complete and not line.strip():
                offset += len(line)
                continue
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                record = None
                if complete and offset + len(line) < len(data):
                    raise UsageError(
                        f"{self.path}:{number}: this line is not a valid game record, and it is not "
                        "the last line, so it was not a torn write; fix or remove it"
                    ) from None
            if record is None or not complete:
                if line.strip() and repair:
                    with open(self.path, "r+b") as handle:
                        handle.truncate(offset)
                        os.fsync(handle.fileno())
                break
            records.append(record)
            offset += len(line)
        return records

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a line and make it durable before returning."""
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
