"""Tries to open for writing the files named in $TARGETS (games.jsonl, standings, the arbiter's
source) without changing them, and to write a file beside each."""
import os

from hostile import hostile_bot, report


def tamper_results():
    for path in filter(None, os.environ.get("TARGETS", "").split(":")):
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
            report("tamper_results", True, f"opened {path} for writing")
        except OSError as exc:
            report("tamper_results", False, f"{path}: {exc.strerror}")


hostile_bot(tamper_results)
