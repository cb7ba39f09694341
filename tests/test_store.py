"""The results folder's description (tournament.json): a typed record with a schema version,
read from folders written before it had one, refused from a newer arbiter."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.errors import UsageError
from arbiter.tournament.store import DESCRIPTION_SCHEMA, ResultsFolder, TournamentDescription


def test_a_description_reads_back_as_written(tmp_path: Path) -> None:
    folder = ResultsFolder(tmp_path)
    written = TournamentDescription(name="t", schedule={"game": "limit-nim", "players": ["a", "b"]},
                                    scoring={"win": 1.0}, time={"time_ms": 5}, planned=4,
                                    conditions={"seed": 3}, sandbox={"mode": "on"})
    folder.write_description(written)
    assert json.loads(folder.description_file.read_text())["schema"] == DESCRIPTION_SCHEMA
    assert folder.read_description() == written


def test_a_folder_from_before_the_schema_reads_with_what_it_has(tmp_path: Path) -> None:
    folder = ResultsFolder(tmp_path)
    assert folder.read_description() is None
    folder.description_file.write_text(json.dumps({"name": "old", "planned": 6, "schedule": {"format": "round-robin"}}))
    description = folder.read_description()
    assert description is not None and description.schema == 0
    assert (description.name, description.planned, description.schedule) == ("old", 6, {"format": "round-robin"})
    assert description.conditions is None and description.scoring is None


def test_a_description_from_a_newer_arbiter_is_refused(tmp_path: Path) -> None:
    folder = ResultsFolder(tmp_path)
    folder.description_file.write_text(json.dumps({"schema": DESCRIPTION_SCHEMA + 1, "name": "new"}))
    with pytest.raises(UsageError, match="cannot read; read it with a newer arbiter"):
        folder.read_description()


def test_a_seat_log_is_found_by_listing_the_folder(tmp_path: Path) -> None:
    folder = ResultsFolder(tmp_path)
    folder.prepare(fresh=False)
    (folder.logs / "001-a-b-seat1-b.log").write_text("hi")
    (folder.logs / "001-a-b-c-seat1-b.log").write_text("another game")
    assert folder.seat_logs("001-a-b", 1) == [folder.logs / "001-a-b-seat1-b.log"]
    assert folder.seat_logs("001-a-b", 0) == []
