"""`arbiter check` on the bundled bots: each reference bot of players/ passes every scenario on
every game it plays, run as the bundled configs run it, sandboxed as `arbiter check` runs a bot
by default (its folder shown read-only)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arbiter.check import CheckTarget, run_check
from arbiter.referee import PlayerSpec
from arbiter.transport.sandbox import SandboxSpec

ROOT = Path(__file__).resolve().parent.parent
DOTS = [("dots-and-triangles", {}), ("dots-and-boxes", {})]  # the boards of configs/demo.yaml and boxes-3x3.yaml
NIM = [("limit-nim", {"piles": "10/9,10/9,10/9"})]  # configs/limit-nim.yaml

# (bot, its arguments as configs/ give them, dialect, the games it plays: docs/bots.md, docs/codecup.md).
# random_bot plays every game: tests/test_check.py checks it on the triangles, limit-nim and
# codecup-sudoku; here on the boxes. perfect_dp runs without a cache, as `arbiter check` runs it
# unless told otherwise: it solves the board in every game, the slowest way it plays. The check
# runs on the CPU clock, so that its clocks judge what a bot computes, not a loaded machine.
BUNDLED = [
    *[("random_bot", ("--seed", "1"), "arbiter", game) for game in DOTS[1:]],
    *[(bot, ("--seed", "1"), "arbiter", game) for bot in ("greedy", "double_cross") for game in DOTS],
    *[("perfect_dp", (), "arbiter", game) for game in DOTS],
    ("nim_greedy", ("--seed", "1"), "arbiter", NIM[0]),
    ("nim_perfect", (), "arbiter", NIM[0]),
    *[(bot, ("--game", "codecup-sudoku"), "codecup", ("codecup-sudoku", {}))
      for bot in ("sudoku_winner", "sudoku_claimer", "sudoku_random")],
]


@pytest.mark.parametrize("bot, args, dialect, game", BUNDLED, ids=[f"{b}-{g[0]}" for b, _, _, g in BUNDLED])
def test_a_bundled_bot_passes_arbiter_check(tmp_path, bot, args, dialect, game):
    name, params = game
    player = PlayerSpec(name=bot, command=(sys.executable, f"players/{bot}.py", *args), cwd=str(ROOT),
                        dialect=dialect, sandbox=SandboxSpec(read=(str(ROOT),)))
    # On the CPU clock: the small clock and the first move are the bot's own computing, not
    # the time a loaded machine kept it waiting (perfect_dp solves the board within them).
    report = run_check(CheckTarget(name, params, player, clock="cpu"), log_dir=tmp_path, concurrency=2)
    assert report.failed() == [], [(i.id, i.hint, i.transcript, i.log) for i in report.items if i.status == "fail"]
    assert report.item("seat-0").status == "pass" and report.item("quit").status == "pass"
