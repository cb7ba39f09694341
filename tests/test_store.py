"""The results folder's description (tournament.json) and game records (games.jsonl): typed
records with a schema version, read from folders written before they had one, refused from a
newer arbiter."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.errors import UsageError
from arbiter.games import find_game
from arbiter.records import RECORD_SCHEMA, GameRecord, MoveRecord, PlayerRef, Termination
from arbiter.reports.results import report_results
from arbiter.tournament.store import DESCRIPTION_SCHEMA, NewRecords, ResultsFolder, TournamentDescription

from tournament_helpers import game_won_by


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


# --- games.jsonl: typed records with a schema version ------------------------------------------

def won_game(game_id: str, names: list[str], winner: int) -> GameRecord:
    """A tournament's record of a real limit-nim game that seat `winner` won (records replay when read)."""
    moves, scores = game_won_by(find_game("limit-nim"), (), winner, seed=len(game_id))
    return GameRecord(game="limit-nim", params=find_game("limit-nim").json_params(),
                      players=[PlayerRef(name, f"python {name}.py") for name in names], moves=moves, scores=scores,
                      winner=winner, termination=Termination.NORMAL, offender=None, detail="played to the end",
                      started_at="2026-11-25T12:00:00.000+00:00", duration_s=0.1, logs=[None, None], id=game_id,
                      round=1, opening=[], names=names, places=[1 + (seat != winner) for seat in range(2)],
                      points=[float(seat == winner) for seat in range(2)], seed=7)


def test_a_record_is_written_with_its_schema_and_reads_back_as_written(tmp_path: Path) -> None:
    store = ResultsFolder(tmp_path).store()
    written = [won_game("001-a-b", ["a", "b"], 0), won_game("001-b-a", ["b", "a"], 1)]
    for record in written:
        store.append(record)
    lines = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert [line["schema"] for line in lines] == [RECORD_SCHEMA] * 2
    assert [(line["id"], line["names"], line["points"]) for line in lines] == [
        ("001-a-b", ["a", "b"], [1.0, 0.0]), ("001-b-a", ["b", "a"], [0.0, 1.0])]
    assert store.load() == written


def test_a_record_line_holds_every_field_as_the_dataclass_has_it_and_copies_nothing_it_shares(tmp_path: Path) -> None:
    """`to_json` builds the line field by field (asdict took most of a record's write): the
    same keys in the same order as `dataclasses.asdict` gives, a game's own record without the
    tournament's fields, unknown keys kept at the top level, and containers copied."""
    import dataclasses
    record = dataclasses.replace(won_game("001-a-b", ["a", "b"], 0), extra={"judge": {"name": "x"}},
                                 time_controls=[{"time_ms": 1000, "nested": [1, (2, 3)]}])
    expected = {"schema": RECORD_SCHEMA, **dataclasses.asdict(record)}
    expected["termination"] = "normal"
    expected.update(expected.pop("extra"))
    data = record.to_json()
    assert list(data) == list(expected) and data == expected
    data["time_controls"][0]["nested"].append(4)
    data["judge"]["name"] = "y"
    assert record.time_controls == [{"time_ms": 1000, "nested": [1, (2, 3)]}] and record.extra["judge"] == {"name": "x"}
    alone = dataclasses.replace(record, id=None, round=None, opening=None, names=None, places=None, points=None, seed=None)
    assert not {"id", "round", "opening", "names", "places", "points", "seed"} & set(alone.to_json())


def test_a_record_of_a_newer_schema_is_refused_naming_its_file_and_line(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    older, newer = won_game("001-a-b", ["a", "b"], 0).to_json(), won_game("001-b-a", ["b", "a"], 1).to_json()
    newer["schema"] = RECORD_SCHEMA + 1
    (tmp_path / "games.jsonl").write_text(json.dumps(older) + "\n" + json.dumps(newer) + "\n")
    message = (f"games.jsonl:2: a game record of schema {RECORD_SCHEMA + 1}, which this arbiter (schema "
               f"{RECORD_SCHEMA}) cannot read; read it with a newer arbiter")
    with pytest.raises(UsageError, match=re.escape(message) + "$"):
        ResultsFolder(tmp_path).store().load()
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_a_record_from_before_the_schema_loads_and_reports(tmp_path: Path) -> None:
    # As an older arbiter wrote them: no schema, and none of the fields kept since (places, seed,
    # digests, clocks, start-ups, sandboxing, pids, the arbiter's version).
    old_keys = {"id", "round", "opening", "names", "points", "game", "params", "players", "moves", "scores",
                "winner", "termination", "offender", "detail", "started_at", "duration_s", "logs", "outcome"}
    games = [won_game("001-a-b", ["a", "b"], 0), won_game("001-b-a", ["b", "a"], 0)]
    lines = []
    for game in games:
        data = {key: value for key, value in game.to_json().items() if key in old_keys}
        data["players"] = [{"name": p.name, "command": p.command} for p in game.players]
        lines.append(json.dumps(data) + "\n")
    (tmp_path / "games.jsonl").write_text("".join(lines))
    loaded = ResultsFolder(tmp_path).store(players=["a", "b"]).load()
    assert [(r.id, r.names, r.points, r.places, r.arbiter_version) for r in loaded] == [
        ("001-a-b", ["a", "b"], [1.0, 0.0], None, "unknown"), ("001-b-a", ["b", "a"], [1.0, 0.0], None, "unknown")]
    assert [p.digest for r in loaded for p in r.players] == [None] * 4
    text = report_results(tmp_path)
    rows = {line.split()[1]: line.split()[2:7] for line in text.splitlines()[2:4]}
    assert rows == {"a": ["2", "1", "0", "1", "1"], "b": ["2", "1", "0", "1", "1"]}  # games W D L points
    assert "2 of 2 games do not say whether their bots were sandboxed (recorded by an older arbiter)" in text


# -- following games.jsonl as a run appends to it (the live page's reader) --

def line_of(record: GameRecord) -> bytes:
    return (json.dumps(record.to_json()) + "\n").encode()


def test_a_tail_returns_the_records_appended_since_its_last_read(tmp_path: Path) -> None:
    store = ResultsFolder(tmp_path).store()
    tail = store.tail()
    assert tail.read() == NewRecords([])  # no games.jsonl yet: nothing, and nothing to start over
    first, second, third = (won_game(f"00{n}-a-b", ["a", "b"], n % 2) for n in range(1, 4))
    store.append(first)
    store.append(second)
    assert tail.read() == NewRecords([first, second])
    assert tail.read() == NewRecords([])
    store.append(third)
    assert tail.read() == NewRecords([third])


def test_a_torn_last_line_is_read_with_the_rest_of_it_next_time(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    first, second = won_game("001-a-b", ["a", "b"], 0), won_game("002-b-a", ["b", "a"], 1)
    line = line_of(second)
    games.write_bytes(line_of(first) + line[:40])  # the run is writing the second record
    tail = ResultsFolder(tmp_path).store().tail()
    assert tail.read() == NewRecords([first])
    with games.open("ab") as file:
        file.write(line[40:-1])
    assert tail.read() == NewRecords([])  # still no newline: still being written
    with games.open("ab") as file:
        file.write(b"\n")
    assert tail.read() == NewRecords([second])


def test_a_file_that_shrank_or_was_replaced_is_read_again_from_its_start(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    records = [won_game(f"00{n}-a-b", ["a", "b"], n % 2) for n in range(1, 5)]
    games.write_bytes(line_of(records[0]) + line_of(records[1]))
    tail = ResultsFolder(tmp_path).store().tail()
    assert tail.read() == NewRecords(records[:2])
    games.write_bytes(line_of(records[2]))  # shorter: the folder was started again (--fresh)
    assert tail.read() == NewRecords([records[2]], started_over=True)
    other = tmp_path / "other.jsonl"  # a longer file put in its place (another inode)
    other.write_bytes(line_of(records[2]) + line_of(records[3]) + line_of(records[0]))
    os.replace(other, games)
    assert tail.read() == NewRecords([records[2], records[3], records[0]], started_over=True)
    games.unlink()  # moved away: started again, nothing to show yet
    assert tail.read() == NewRecords([], started_over=True)
    games.write_bytes(line_of(records[1]))
    assert tail.read() == NewRecords([records[1]])


def test_a_line_that_is_not_a_record_is_skipped_by_the_tail_and_named_by_load(tmp_path: Path) -> None:
    first, second = won_game("001-a-b", ["a", "b"], 0), won_game("002-b-a", ["b", "a"], 1)
    newer = {**second.to_json(), "id": "003-a-b", "schema": RECORD_SCHEMA + 1}
    (tmp_path / "games.jsonl").write_bytes(line_of(first) + b"{not json\n" + b'{"game": "limit-nim"}\n\n'
                                           + (json.dumps(newer) + "\n").encode() + line_of(second))
    store = ResultsFolder(tmp_path).store()
    assert store.tail().read() == NewRecords([first, second])
    with pytest.raises(UsageError, match=r"games\.jsonl:2: this line is not a valid game record, and it is not the "
                                         r"last line"):
        store.load()


def test_keys_this_arbiter_does_not_know_and_moves_written_by_hand_read_as_before(tmp_path: Path) -> None:
    # A newer arbiter's extra key is kept and written back; a move written by hand needs only its
    # seat and wall_ms (the rest at their defaults), and a key a move does not have is dropped.
    record = won_game("001-a-b", ["a", "b"], 0)
    data = {**record.to_json(), "judge": {"name": "x"}, "extra": 1}
    data["moves"] = [{"seat": 0, "wall_ms": 5}, {**data["moves"][1], "note": "late"}, *data["moves"][2:]]
    data["players"] = [{"name": "a"}, {"name": "b", "command": "python b.py", "digest": "d", "team": "t"}]
    (tmp_path / "games.jsonl").write_text(json.dumps(data) + "\n")
    [loaded] = ResultsFolder(tmp_path).store().load()
    assert loaded.extra == {"judge": {"name": "x"}, "extra": 1}
    assert loaded.moves[0] == MoveRecord(0, "", 5, 0.0, False)
    assert loaded.moves[1:] == record.moves[1:]
    assert loaded.players == [PlayerRef("a", ""), PlayerRef("b", "python b.py", "d")]
    assert {k: v for k, v in loaded.to_json().items() if k in ("judge", "extra")} == {"judge": {"name": "x"}, "extra": 1}
    assert GameRecord.from_json(data) == loaded


# --- a results folder whose disk runs full ----------------------------------------------

@pytest.fixture
def small_disk(tmp_path: Path):
    """A tmpfs of 4 MiB of its own (mounted here as root), unmounted afterwards."""
    import subprocess
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system of its own needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "arbiter-test-disk", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"this machine cannot mount a tmpfs: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=False)


def fill_up(disk: Path, room_bytes: int) -> Path:
    """A ballast file leaving `room_bytes` free on `disk`."""
    seen = os.statvfs(disk)
    ballast = disk / "ballast"
    with open(ballast, "wb") as file:
        file.write(b"\0" * (seen.f_bavail * seen.f_frsize - room_bytes))
    return ballast


def test_a_full_results_disk_stops_the_run_cleanly_and_the_same_command_resumes(small_disk: Path, tmp_path: Path,
                                                                              capsys, request) -> None:
    """The results folder's disk runs full mid-run (here a 4 MiB tmpfs with 40 KiB left): the
    run stops with one line naming the folder and saying what to do, exit status 2; every line
    of games.jsonl is a whole record (none torn). Once there is room, the same command plays
    the rest, each game recorded once. The logs' disk is full all along (`logs/` is a tmpfs
    of one page, taken): no bot is blamed for a log that could not be written, and each
    record of the bot that writes on stderr says its log could not be kept, and why."""
    import subprocess
    from referee_support import BOTS, ROOT
    results = small_disk / "results"
    config = tmp_path / "full.yaml"
    chatty = f"{os.sys.executable} {BOTS / 'transcript_bot.py'}"  # every line it gets, on stderr
    config.write_text(
        f"name: full\ngame: limit-nim\nformat: round-robin\ngames_per_pairing: 8\nconcurrency: 2\n"
        f"results: {results}\ntime: {{time_ms: 10000}}\nplayers:\n"
        f"  - {{name: random, command: {os.sys.executable} {ROOT / 'players' / 'random_bot.py'} --seed 1}}\n"
        f"  - {{name: greedy, command: {os.sys.executable} {ROOT / 'players' / 'nim_greedy.py'} --seed 1}}\n"
        f"  - {{name: chatty, command: {chatty}, sandbox: {{read: [{BOTS}]}}}}\n")
    planned = 24
    logs = results / "logs"
    logs.mkdir(parents=True)
    (results / "games.jsonl").touch()  # a results folder, not a stranger's
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "arbiter-test-logs", str(logs)], check=True)
    request.addfinalizer(lambda: subprocess.run(["umount", "--lazy", str(logs)], check=False))
    (logs / "ballast").write_bytes(b"\0" * 4096)
    ballast = fill_up(small_disk, 40 << 10)
    assert main(["run", str(config), "--quiet"]) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1:]  # after the run's notes
    assert said[0].startswith(f"arbiter run: error: the disk of the results folder {results} is full "
                              "(No space left on device); free some space there"), said
    assert "run the same command again to resume" in said[0] and "will be played again" in said[0]
    data = (results / "games.jsonl").read_bytes()
    assert data.endswith(b"\n")
    stopped = [json.loads(line) for line in data.splitlines()]
    assert 0 < len(stopped) < planned
    assert not list(results.glob("*.partial"))

    ballast.unlink()
    assert main(["run", str(config), "--quiet"]) == 0
    records = ResultsFolder(results).store().load()
    assert len(records) == planned
    assert len({record.id for record in records}) == planned
    assert [record.to_json() for record in records[:len(stopped)]] == stopped  # kept as they were
    assert all(record.termination is Termination.NORMAL for record in records), \
        [record.detail for record in records if record.termination is not Termination.NORMAL]
    for record in records:
        if "chatty" in record.names:
            assert "could not keep" in record.detail and "No space left on device" in record.detail, record.detail


def test_a_record_that_cannot_be_written_whole_leaves_nothing(small_disk: Path) -> None:
    """Appending on a full disk writes no part of the line: the file is as it was."""
    from arbiter.tournament.store import GameStore, RecordNotWritten
    from dataclasses import replace
    store = GameStore(small_disk / "games.jsonl")
    store.append(won_game("g1", ["a", "b"], 0))
    before = store.path.read_bytes()
    big = replace(won_game("g2", ["a", "b"], 0), detail="x" * (64 << 10))
    fill_up(small_disk, 8 << 10)
    with pytest.raises(RecordNotWritten) as refused:
        store.append(big)
    assert store.path.read_bytes() == before
    assert f"the disk of the results folder {small_disk} is full" in str(refused.value)
    assert "game g2 was not recorded" in str(refused.value)

