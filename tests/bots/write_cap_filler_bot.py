"""Fills its write folder (FOLDER) as fast as it can, up to LIMIT_MB a time: while starting
(after deleting what its last game left), on each of its turns, and after `Quit` until it
is killed; then a burst of empty files (up to LIMIT_FILES). Says on stderr how each burst
ended: `FILL phase: N MiB, M files, then <why>`."""
import atexit
import os
import sys

from misbehave import first_legal
from arbiter.bot import run_bot

FOLDER = os.environ["FOLDER"]
LIMIT_MB, LIMIT_FILES = int(os.environ["LIMIT_MB"]), int(os.environ["LIMIT_FILES"])
CHUNK = b"\1" * (1 << 20)
made = 0  # files made by this process, for their names


def fill(phase: str) -> None:
    """A burst of bytes (files of 4 MiB), then one of empty files, each until it fails."""
    global made
    written, why_bytes = 0, "its limit"
    try:
        while written < LIMIT_MB:
            made += 1
            with open(os.path.join(FOLDER, f"{phase}-{made}"), "wb") as file:
                for _ in range(4):  # a MiB at a time
                    file.write(CHUNK)
                    file.flush()
                    written += 1
    except OSError as exc:
        why_bytes = exc.strerror
    files, why_files = 0, "its limit"
    try:
        while files < LIMIT_FILES:
            made += 1
            open(os.path.join(FOLDER, f"{phase}-empty-{made}"), "wb").close()
            files += 1
    except OSError as exc:
        why_files = exc.strerror
    print(f"FILL {phase}: {written} MiB, then {why_bytes}; {files} files, then {why_files}", file=sys.stderr,
          flush=True)


def clear() -> None:
    for name in os.listdir(FOLDER):
        os.unlink(os.path.join(FOLDER, name))


def choose(state, ctx):
    fill("turn")
    return first_legal(state)


clear()
fill("start")
atexit.register(fill, "quit")  # after `Quit` (run_bot returns), until the box is killed
sys.exit(run_bot(choose))
