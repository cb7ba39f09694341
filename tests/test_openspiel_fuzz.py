"""benchmarks/fuzz_openspiel.py, bounded: a few random games of every OpenSpiel game the adapter
plays, each in a child process with a CPU-time and memory limit, all ending normally; and the
fuzz's own machinery telling a crash, a hang and the rules' failure apart, by game."""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspiel")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fuzz_openspiel as fuzzer  # noqa: E402
from arbiter.games.openspiel import supported_names  # noqa: E402


def test_the_fuzz_covers_every_game_at_every_seat_count_and_each_preset() -> None:
    found = fuzzer.variants([n for n in supported_names() if n != "efg_game"])
    names = {v.name for v in found}
    assert names == set(supported_names()) - {"efg_game"}
    seats = {dict(v.params).get("players") for v in found if v.name == "chinese_checkers"}
    assert seats == {None, 3, 4, 5, 6}  # 5 is OpenSpiel's own refusal, reported as such
    assert fuzzer.Variant("quoridor", (("board_size", 5), ("players", 4))) in found
    assert fuzzer.Variant("hex", (("num_cols", 6), ("num_rows", 4), ("swap", True))) in found
    assert len(found) == len(set(found))


def test_a_few_games_of_every_playable_variant_end_normally() -> None:
    """Two games of each variant at its defaults and each seat count (the full run plays 3,000
    of each, and the presets: docs/games.md, Refused variants)."""
    seen = 0
    for variant in fuzzer.variants([n for n in supported_names() if n != "efg_game"]):
        if variant.name == "yacht" or any(key != "players" for key, _ in variant.params):
            continue  # yacht's games take a second each; the presets are the full run's
        try:
            game = fuzzer.make_game(variant, refused=False)
        except fuzzer.GameParamError:  # a refused variant, or OpenSpiel's own refusal
            continue
        tally = fuzzer.Tally()
        fuzzer.fuzz(game, range(2), tally, cpu_s=20)
        assert tally.counts == {"ok": 2}, (variant.describe(), tally.first)
        seen += 1
    assert seen >= 40


def test_the_fuzz_meets_four_seat_quoridors_failures_past_the_refusal() -> None:
    """Seeds the full run found: 4-seat quoridor on 5x5 fails in its own rules (a CHECK on a
    move off the board, or garbage read past its board): each is the rules' exception, by name."""
    game = fuzzer.make_game(fuzzer.Variant("quoridor", (("board_size", 5), ("players", 4))), refused=True)
    tally = fuzzer.Tally()
    fuzzer.fuzz(game, range(4, 8), tally, cpu_s=20)
    failures = [key for key in tally.counts if key != "ok"]
    assert any("quoridor.cc:6" in key for key in failures), tally.counts
    assert all(key.startswith("exception: ") for key in failures)


class _Doomed:
    """A stand-in game whose one game ends as `how` says, in the child that plays it."""

    def __init__(self, how: str) -> None:
        self.how = how

    def new_state(self) -> Any:
        if self.how == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if self.how == "spin":
            while True:
                pass
        raise RuntimeError("the rules broke")


@pytest.mark.parametrize("how, said", [
    ("segfault", "crash: SIGSEGV"),
    ("spin", "hang: "),  # over its CPU-time limit, or its wall-time limit on a machine too busy to give it 1 s
    ("raise", "exception: RuntimeError: the rules broke"),
])
def test_a_crash_a_hang_and_an_exception_each_cost_one_child_and_are_told_apart(how: str, said: str) -> None:
    tally = fuzzer.Tally()
    fuzzer.fuzz(_Doomed(how), range(3), tally, cpu_s=1)  # type: ignore[arg-type]
    assert sum(tally.counts.values()) == 3 and all(key.startswith(said) for key in tally.counts)
    assert min(seed for seed, _ in tally.first.values()) == 0
