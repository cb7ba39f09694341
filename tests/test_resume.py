"""What must match for a resume: the entries derived from the config's schema are what earlier
folders' tournament.json holds (the schema's own rows: tests/test_config_schema.py)."""
from __future__ import annotations

from pathlib import Path

from arbiter.tournament.config import load_config
from arbiter.tournament.resume import play_conditions, schedule_identity


def test_the_derived_entries_are_those_earlier_folders_kept(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    path = tmp_path / "t.yaml"
    path.write_text("game: dots-and-boxes\nopenings: {random_moves: 1, seed: 3}\nseed: 9\ntime: {time_ms: 700}\n"
                    "players:\n  - {name: a, command: python bot.py}\n  - {name: b, command: python bot.py, time_ms: 50}\n")
    config = load_config(path)
    assert schedule_identity(config) == {
        "game": "dots-and-boxes", "params": {k: str(v) for k, v in config.params.items()}, "format": "round-robin",
        # `final` is newer than most folders: a missing entry resumes as long as it is null now.
        "games_per_pairing": 2, "rounds": None, "final": None, "openings": {"random_moves": 1, "seed": 3, "lines": []},
        "players": ["a", "b"], "candidate": None, "sprt": None,
    }
    conditions = play_conditions(config)
    assert list(conditions) == ["time", "seed", "sandboxed"] and conditions["seed"] == 9
    assert conditions["time"]["a"]["time_ms"] == 700 and conditions["time"]["b"]["time_ms"] == 50
    assert set(conditions["sandboxed"]) == {"a", "b"}
