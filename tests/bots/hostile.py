"""Shared by the hostile test bots: play legal moves, attack once mid-game, say on stderr
what the attack achieved (`ATTACK name: SUCCEEDED ...` or `ATTACK name: blocked ...`), and
go on playing legal moves. tests/test_sandbox.py runs each in a box, where every attack must
be blocked, and (the harmless ones) unboxed, where they must succeed: the attacks are real.

A victim is found as a real attacker would find it: any process it can see that is not its
own, carrying the test's marker (so an unboxed run never touches anything but the test game).
"""
from __future__ import annotations

import os
import sys
from typing import Callable

from misbehave import first_legal, misbehaving_bot

MARK = "ARBITER_TEST_MARK"


def report(attack: str, succeeded: bool, detail: str) -> None:
    """One line on stderr for the test to read."""
    print(f"ATTACK {attack}: {'SUCCEEDED' if succeeded else 'blocked'}: {detail}", file=sys.stderr, flush=True)


def own_tree() -> set[int]:
    """This process and its ancestors (a parent is the arbiter unboxed, bubblewrap boxed)."""
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                pid = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except OSError:
            break
    return pids


def victims() -> list[int]:
    """Other processes this one can see that carry the test's marker (the opponent's)."""
    needle = f"{MARK}={os.environ.get(MARK, '')}".encode()
    mine, found = own_tree(), []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in mine:
            try:
                with open(f"/proc/{name}/environ", "rb") as environ:
                    if needle in environ.read().split(b"\0"):
                        found.append(int(name))
            except OSError:
                continue
    return found


def hostile_bot(attack: Callable[[], None]) -> None:
    """Honest moves, and `attack()` before the move MISBEHAVE_AT (default 2)."""
    def act(state, ctx):
        try:
            attack()
        except Exception as exc:  # noqa: BLE001 - an attack that raised was blocked
            report(attack.__name__, False, f"raised {exc!r}")
        return first_legal(state)

    misbehaving_bot(act)
