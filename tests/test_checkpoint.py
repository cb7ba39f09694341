"""The checkpoint beside games.jsonl (docs/records.md): a resume and a report read only the
records after it, and a record changed, removed or inserted anywhere is still refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.errors import UsageError
from arbiter.reports.results import report_results
from arbiter.tournament.config import load_config
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import TournamentRunner, prepare_results
from arbiter.tournament.store import CHECKPOINT_FILE, ResultsFolder

from tournament_helpers import fake_play, write_config

BODY = """game: dots-and-triangles
games_per_pairing: 4
openings: {random_moves: 2, seed: 3}
players:
  - {name: a, command: "true"}
  - {name: b, command: "true"}
  - {name: c, command: "true"}
"""


def _run(config) -> None:
    TournamentRunner(config, prepare_results(config, fresh=False), Progress(quiet=True, tty=False),
                     play=fake_play).run()


@pytest.fixture
def played(tmp_path: Path):
    """A round robin of 12 games, 8 recorded and checkpointed by `arbiter report`, 2 more after."""
    config = load_config(write_config(tmp_path, BODY))
    _run(config)
    folder = ResultsFolder(config.results_dir)
    lines = folder.games.read_bytes().splitlines(keepends=True)
    assert len(lines) == 12
    folder.games.write_bytes(b"".join(lines[:8]))
    report_results(folder.path)  # writes the checkpoint: 8 records
    assert json.loads(folder.path.joinpath(CHECKPOINT_FILE).read_text())["lines"] == 8
    folder.games.write_bytes(b"".join(lines[:10]))  # two more, after the checkpoint
    return config, folder, lines


def _changed(line: bytes) -> bytes:
    record = json.loads(line)
    record["duration_s"] = record["duration_s"] + 1  # a change no replay sees: only the digest does
    return (json.dumps(record, separators=(",", ":")) + "\n").encode()


def _refused(config, folder: ResultsFolder) -> list[str]:
    said = []
    for attempt in (lambda: report_results(folder.path), lambda: prepare_results(config, fresh=False)):
        with pytest.raises(UsageError) as caught:
            attempt()
        said.append(str(caught.value))
    return said


def test_a_record_changed_before_the_checkpoint_is_refused_by_report_and_resume(played) -> None:
    config, folder, lines = played
    folder.games.write_bytes(b"".join(lines[:3] + [_changed(lines[3])] + lines[4:10]))
    for said in _refused(config, folder):
        assert "first 8 records are not the ones the arbiter checked" in said and "changed, removed or inserted" in said


def test_a_record_removed_or_inserted_before_the_checkpoint_is_refused(played) -> None:
    config, folder, lines = played
    folder.games.write_bytes(b"".join(lines[:2] + lines[3:10]))  # line 3 removed
    assert all("changed, removed or inserted" in said for said in _refused(config, folder))
    folder.games.write_bytes(b"".join(lines[:2] + [lines[11]] + lines[2:10]))  # an unplayed game's record inserted
    assert all("changed, removed or inserted" in said for said in _refused(config, folder))


def test_a_record_altered_after_the_checkpoint_is_replayed_and_refused(played) -> None:
    config, folder, lines = played
    record = json.loads(lines[9])
    record["winner"] = 1 - record["winner"] if record["winner"] is not None else 0  # its moves say otherwise
    folder.games.write_bytes(b"".join(lines[:9]) + (json.dumps(record) + "\n").encode())
    for said in _refused(config, folder):
        assert ":10:" in said and "fix or remove this line" in said


def test_a_record_repeated_after_the_checkpoint_names_its_first_line(played) -> None:
    config, folder, lines = played
    folder.games.write_bytes(b"".join(lines[:10] + [lines[2]]))
    for said in _refused(config, folder):
        assert ":11:" in said and "is recorded twice (first on line 3)" in said


def test_a_resume_reads_only_the_records_after_the_checkpoint(played, monkeypatch) -> None:
    config, folder, _ = played
    replayed = []
    import arbiter.tournament.audit as audit

    def counting(record, *args, **kwargs):
        replayed.append(record.id)
        return None
    monkeypatch.setattr(audit, "replay_problem", counting)  # the store's RecordAudit replays with it
    _run(config)
    assert len(replayed) == 2  # the two records after the checkpoint; the 8 before it by their digest
    assert folder.count_records() == 12


def test_without_the_checkpoint_every_record_is_checked_again_and_a_new_one_written(played) -> None:
    config, folder, lines = played
    folder.path.joinpath(CHECKPOINT_FILE).unlink()
    folder.games.write_bytes(b"".join(lines[:2] + lines[3:10]))  # the organiser removed a line on purpose
    report_results(folder.path)
    assert json.loads(folder.path.joinpath(CHECKPOINT_FILE).read_text())["lines"] == 9


def test_report_audit_replays_every_record(played, capsys) -> None:
    _, folder, _ = played
    assert main(["report", "--audit", str(folder.path)]) == 0
    assert "10" in capsys.readouterr().out


def test_fresh_moves_the_checkpoint_and_the_reports_games_into_the_backup(played) -> None:
    from arbiter.reports.html import write_tournament_report
    _, folder, _ = played
    report_results(folder.path)
    write_tournament_report(folder.path)
    assert (folder.path / "report-games").is_dir()
    kept = folder.prepare(fresh=True)
    assert kept is not None and (kept / CHECKPOINT_FILE).is_file() and (kept / "report-games").is_dir()
    assert not (folder.path / CHECKPOINT_FILE).exists() and not (folder.path / "report-games").exists()
