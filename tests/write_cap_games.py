"""The disk filler's games (tests/bots/write_cap_filler_bot.py), with its write folder and
the capped copies its boxes see sampled from outside while they are played: shared by
tests/test_write_cap.py and the script it runs as an ordinary user (nonroot_write_cap.py)."""
from __future__ import annotations

import os
import threading
from dataclasses import replace
from pathlib import Path

from arbiter.games import find_game
from arbiter.referee import TimeControl, play_game
from arbiter.transport.sandbox import SandboxSpec
from referee_support import BOTS, bot, honest, new_marker


def folder_size(folder: Path) -> tuple[int, int]:
    """(bytes in its files, entries) of a folder and everything in it, no link followed."""
    size, entries, pending = 0, 0, [str(folder)]
    while pending:
        try:
            with os.scandir(pending.pop()) as found:
                for entry in found:
                    entries += 1
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        size += entry.stat(follow_symlinks=False).st_size
        except OSError:
            continue
    return size, entries


def held_copies() -> list[tuple[int, int]]:
    """(bytes, entries) in use on each capped tmpfs that a child of this process holds."""
    held = []
    for task in os.listdir("/proc/self/task"):
        try:
            children = Path(f"/proc/self/task/{task}/children").read_text().split()
        except OSError:
            continue
        for pid in children:
            try:
                mounts = Path(f"/proc/{pid}/mountinfo").read_text().splitlines()
            except OSError:
                continue
            for line in mounts:
                if " - tmpfs arbiter-write " in line:
                    try:
                        seen = os.statvfs(f"/proc/{pid}/root{line.split()[4]}")
                    except OSError:
                        continue
                    held.append(((seen.f_blocks - seen.f_bfree) * seen.f_frsize, seen.f_files - seen.f_ffree))
    return held


def filled_games(folder: Path, logs: Path, *, games: int, write_mb: int, write_files: int) -> dict:
    """Play `games` games of the filler (trying 4x its byte cap and 4x its entry cap in each
    burst) against the random bot, sampling its folder and its boxes' copies meanwhile."""
    folder.mkdir(exist_ok=True)
    marker = new_marker()
    filler = replace(bot("write_cap_filler_bot.py", "filler", marker, FOLDER=str(folder),
                         LIMIT_MB=str(4 * write_mb), LIMIT_FILES=str(4 * write_files)),
                     sandbox=SandboxSpec(read=(str(BOTS),), write=(str(folder),), write_mb=write_mb,
                                         write_files=write_files))
    most = {"disk_bytes": 0, "disk_entries": 0, "copy_bytes": 0, "copy_entries": 0, "copies_seen": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            size, entries = folder_size(folder)
            most["disk_bytes"], most["disk_entries"] = max(most["disk_bytes"], size), max(most["disk_entries"], entries)
            for size, entries in held_copies():
                most["copies_seen"] += 1
                most["copy_bytes"], most["copy_entries"] = max(most["copy_bytes"], size), max(most["copy_entries"], entries)
            done.wait(0.002)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    fills, endings = [], []
    try:
        for number in range(games):
            log_dir = logs / f"game-{number}"
            log_dir.mkdir(parents=True, exist_ok=True)
            record = play_game(find_game("limit-nim"), [filler, honest(marker)], time=TimeControl(time_ms=20000),
                               log_dir=log_dir)
            endings.append([record.termination.value, record.offender, record.detail])
            fills += [line for line in Path(record.logs[0]).read_text().splitlines() if line.startswith("FILL")]
    finally:
        done.set()
        sampler.join()
    size, entries = folder_size(folder)
    return {**most, "after_bytes": size, "after_entries": entries, "fills": fills, "endings": endings,
            "names_after": sorted(os.listdir(folder))}
