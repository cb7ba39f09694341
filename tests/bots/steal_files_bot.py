"""Tries to read the files named in $TARGETS (other entrants' code, the config, the results)
and the arbiter's command line and environment through /proc."""
import os

from hostile import hostile_bot, own_tree, report


def steal_files():
    for path in filter(None, os.environ.get("TARGETS", "").split(":")):
        try:
            with open(path, "rb") as file:
                report("steal_files", True, f"read {len(file.read())} bytes of {path}")
        except OSError as exc:
            report("steal_files", False, f"{path}: {exc.strerror}")
    parent = os.getppid()
    for what in ("cmdline", "environ"):
        try:
            with open(f"/proc/{parent}/{what}", "rb") as file:
                data = file.read()
            report("steal_files", bool(data) and parent not in (0, 1), f"/proc/{parent}/{what}: {len(data)} bytes")
        except OSError as exc:
            report("steal_files", False, f"/proc/{parent}/{what}: {exc.strerror}")


hostile_bot(steal_files)
