"""The config's schema (tournament/schema.py): every key of every mapping says what a resume
requires of it, fills a field of the typed record, is documented, and the readers refuse what
the tables do not hold; every play condition, changed between two runs, refuses the resume."""
from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from arbiter.referee import PlayerSpec, TimeControl
from arbiter.tournament.config import (ClusterSpec, ConfigError, Openings, Scoring, SprtSettings, TournamentConfig,
                                       load_config)
from arbiter.tournament.resume import play_conditions, refuse_changed_conditions, schedule_identity
from arbiter.tournament.schema import (CLUSTER, CONDITION, FREE, OPENINGS, PLAYER, RECORDS, SCHEDULE, SCORING, SPRT,
                                       TABLES, TIME, TOP, OnResume, Table)
from arbiter.transport import sandbox as sandbox_module
from arbiter.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
ALL_KEYS = [(table_name, key) for table_name, table in TABLES.items() for key in table]


@pytest.mark.parametrize("table_name, key", ALL_KEYS, ids=[f"{t}.{k.name}" for t, k in ALL_KEYS])
def test_every_key_says_what_a_resume_requires_of_it(table_name: str, key: Any) -> None:
    assert isinstance(key.on_resume, OnResume)
    top_entries = {k.entry for k in TOP if k.value is not None}
    if key.on_resume in (SCHEDULE, CONDITION):
        # Kept in the description under an entry one top-level row computes, or a change would pass unseen.
        assert key.entry in top_entries, f"{table_name}.{key.name} is {key.on_resume.value} but kept nowhere"
    else:
        assert key.entry is None and key.value is None, f"{table_name}.{key.name} is {key.on_resume.value}"
    if key.value is not None:
        assert table_name == "top" and key.on_resume in (SCHEDULE, CONDITION)


def test_each_entry_of_the_description_has_one_row_that_computes_it() -> None:
    owners = [key.entry for key in TOP if key.value is not None]
    assert len(owners) == len(set(owners))
    for key in TOP:
        if key.entry is not None:
            owner = next(k for k in TOP if k.entry == key.entry and k.value is not None)
            assert owner.on_resume is key.on_resume, key.name  # one entry, one rule


@pytest.mark.parametrize("record_type, table", [
    (TournamentConfig, TOP), (PlayerSpec, PLAYER), (TimeControl, TIME), (Openings, OPENINGS), (SprtSettings, SPRT),
    (ClusterSpec, CLUSTER), (Scoring, SCORING),
], ids=["config", "player", "time", "openings", "sprt", "cluster", "scoring"])
def test_every_field_of_the_records_is_filled_by_a_classified_key(record_type: type, table: Table) -> None:
    names = [f.name for f in fields(record_type)]
    classes: dict[str, set[OnResume]] = {}
    for key in table:
        if key.fills is not None:
            classes.setdefault(key.fills, set()).add(key.on_resume)
    for name, on_resume in table.derived.items():
        classes.setdefault(name, set()).add(on_resume)
    assert [name for name in names if name not in classes] == [], "a field without a key would mix games silently"
    assert [name for name in classes if name not in names] == []  # no row for a field that is gone
    assert {name: c for name, c in classes.items() if len(c) > 1} == {}  # keys filling one field agree


@pytest.mark.parametrize("table_name, key", ALL_KEYS, ids=[f"{t}.{k.name}" for t, k in ALL_KEYS])
def test_every_key_is_documented(table_name: str, key: Any) -> None:
    page = (ROOT / TABLES[table_name].page).read_text(encoding="utf-8")
    assert re.search(rf"`{key.name}`|\b{key.name}:", page), f"{table_name}.{key.name} is not in {TABLES[table_name].page}"


def test_a_key_outside_the_table_is_refused_where_it_stands(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    path = tmp_path / "t.yaml"
    path.write_text("game: limit-nim\ntime: {time_ms: 100, move: 5}\nplayers:\n  - {name: a, command: python bot.py}\n"
                    "  - {name: b, command: python bot.py, sandbox: {red: [x]}}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    message = str(refused.value)
    assert f"{path}:2: time.move: unknown key 'move'; did you mean 'move_ms'?" in message
    assert f"{path}:5: players[1].sandbox.red: unknown key 'red'; did you mean 'read'?" in message


# One other value for each key that is a play condition, by table: a new CONDITION key fails
# test_every_play_condition_is_covered until it has one here.
Data = dict[str, Any]
CHANGES: dict[tuple[str, str], Callable[[Data], None]] = {
    ("top", "time"): lambda d: d.update(time={"time_ms": 900}),
    ("top", "seed"): lambda d: d.update(seed=5),
    ("top", "sandbox"): lambda d: d.update(sandbox="off"),
    ("player", "sandbox"): lambda d: d["players"][0].update(sandbox="off"),
    **{("time", name): (lambda d, name=name, other=other: d["time"].update({name: other}))
       for name, other in (("time_ms", 900), ("move_ms", 50), ("clock", "cpu"), ("suspend_idle", False),
                           ("memory_mb", 512), ("startup_ms", 2000), ("charge_startup", True))},
    **{("player", name): (lambda d, name=name, other=other: d["players"][1].update({name: other}))
       for name, other in (("time_ms", 900), ("move_ms", 50), ("clock", "cpu"), ("suspend_idle", False),
                           ("memory_mb", 512), ("startup_ms", 2000), ("charge_startup", True))},
}


def test_every_play_condition_is_covered() -> None:
    conditions = {(name, key.name) for name, table in TABLES.items() for key in table if key.on_resume is CONDITION}
    assert conditions == set(CHANGES)


@pytest.fixture
def boxes_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that makes boxes, whatever this one is: only the config is read, no bot runs."""
    monkeypatch.setattr(sandbox_module, "_SUPPORT", sandbox_module.Support(
        bwrap="/usr/bin/bwrap", setpriv="/usr/bin/setpriv", as_root=True))


def _config(folder: Path, data: Data, name: str) -> TournamentConfig:
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_config(path)


@pytest.mark.usefixtures("boxes_here")
def test_every_play_condition_changed_refuses_the_resume(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")

    def base() -> Data:
        return {"name": "t", "game": "limit-nim", "seed": 1, "time": {"time_ms": 700},
                "players": [{"name": "a", "command": "python bot.py"}, {"name": "b", "command": "python bot.py"}]}

    before = _config(tmp_path, base(), "before")
    for (table_name, key), change in CHANGES.items():
        data = base()
        change(data)
        now = _config(tmp_path, data, f"{table_name}-{key}")
        assert schedule_identity(now) == schedule_identity(before)  # the same games, played another way
        with pytest.raises(UsageError, match="games played under other conditions") as refused:
            refuse_changed_conditions(tmp_path, play_conditions(before), play_conditions(now), 3, "advice")
        assert "3 games" in str(refused.value), (table_name, key)
        # ...and the same conditions, or none recorded yet, resume.
        refuse_changed_conditions(tmp_path, play_conditions(now), play_conditions(now), 3, "advice")
        refuse_changed_conditions(tmp_path, play_conditions(before), play_conditions(now), 0, "advice")


def test_free_and_records_keys_are_not_in_what_a_resume_compares(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    data: Data = {"name": "t", "game": "limit-nim",
                  "players": [{"name": "a", "command": "python bot.py"}, {"name": "b", "command": "python bot.py"}]}
    before = _config(tmp_path, data, "before")
    data.update(concurrency=1, check=True, scoring={"win": 3, "draw": 1, "loss": 0}, results="elsewhere")
    data["players"][0].update(command=["python", "bot.py"], env={"X": "1"}, reuse=True)
    now = _config(tmp_path, data, "now")
    assert (schedule_identity(now), play_conditions(now)) == (schedule_identity(before), play_conditions(before))
    assert {key.name for key in TOP if key.on_resume in (FREE, RECORDS)} >= {"concurrency", "check", "scoring",
                                                                             "results"}


LAUNCHED_VALUES = {"command": "python bot.py", "cwd": ".", "env": {"A": 1}, "sandbox": "off", "reuse": False, "build": "make",
                   "suspend_idle": True, "memory_mb": 512, "startup_ms": 100, "charge_startup": False}


def test_every_key_for_a_launched_bot_is_refused_on_a_remote_one(tmp_path: Path) -> None:
    assert {key.name for key in PLAYER if key.launched} == set(LAUNCHED_VALUES)
    (tmp_path / "bot.py").write_text("")
    remote = {"name": "far", "transport": "remote", "bind": "tcp://127.0.0.1:5601", **LAUNCHED_VALUES}
    data: Data = {"game": "limit-nim", "players": [{"name": "a", "command": "python bot.py"}, remote]}
    with pytest.raises(ConfigError) as refused:
        _config(tmp_path, data, "t")
    for key in LAUNCHED_VALUES:
        assert f"players[1].{key}: does not apply to transport: remote" in str(refused.value), key
