"""What must match for a resume: every field of the config's records has a row in resume.py's
tables, and the entries derived from them are what earlier folders' tournament.json holds."""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from arbiter.referee import PlayerSpec
from arbiter.tournament.config import Openings, SprtSettings, TournamentConfig, load_config
from arbiter.tournament.resume import (CONFIG_RULES, OPENINGS_RULES, PLAYER_RULES, SPRT_RULES, OnResume,
                                       play_conditions, schedule_identity)


@pytest.mark.parametrize("record_type, rules", [
    (TournamentConfig, CONFIG_RULES), (PlayerSpec, PLAYER_RULES), (Openings, OPENINGS_RULES), (SprtSettings, SPRT_RULES),
], ids=["config", "player", "openings", "sprt"])
def test_every_field_says_what_a_resume_requires_of_it(record_type: type, rules: dict) -> None:
    names = [f.name for f in fields(record_type)]
    assert [name for name in names if name not in rules] == [], "a field without a row would mix games silently"
    assert [name for name in rules if name not in names] == []  # no row for a field that is gone


def test_an_entry_of_the_description_comes_with_how_to_compute_it() -> None:
    for name, rule in CONFIG_RULES.items():
        assert (rule.entry is None) == (rule.value is None), name
        assert rule.entry is None or rule.on_resume in (OnResume.SCHEDULE, OnResume.CONDITION), name


def test_the_derived_entries_are_those_earlier_folders_kept(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    path = tmp_path / "t.yaml"
    path.write_text("game: dots-and-boxes\nopenings: {random_moves: 1, seed: 3}\nseed: 9\ntime: {time_ms: 700}\n"
                    "players:\n  - {name: a, command: python bot.py}\n  - {name: b, command: python bot.py, time_ms: 50}\n")
    config = load_config(path)
    assert schedule_identity(config) == {
        "game": "dots-and-boxes", "params": {k: str(v) for k, v in config.params.items()}, "format": "round-robin",
        "games_per_pairing": 2, "rounds": None, "openings": {"random_moves": 1, "seed": 3, "lines": []},
        "players": ["a", "b"], "candidate": None, "sprt": None,
    }
    conditions = play_conditions(config)
    assert list(conditions) == ["time", "seed", "sandboxed"] and conditions["seed"] == 9
    assert conditions["time"]["a"]["time_ms"] == 700 and conditions["time"]["b"]["time_ms"] == 50
    assert set(conditions["sandboxed"]) == {"a", "b"}
