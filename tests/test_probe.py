"""What a config asks of this machine (tournament/probe.py): each ask answered at the key that
asked, after the file is read, and told together with the reading's own problems."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import arbiter.tournament.probe as probe_module
from arbiter.tournament.config import ConfigError, load_config
from arbiter.tournament.probe import FolderThere, PathThere, Sandboxing, Startable, ThisMachine, probe
from arbiter.tournament.validate import Problems
from arbiter.transport.sandbox import Support


def answers(tmp_path: Path, *asks: object) -> list[str]:
    problems = Problems(tmp_path / "t.yaml", {}, [])
    probe(problems, asks)  # type: ignore[arg-type]
    return problems.messages


def test_each_ask_the_machine_refuses_is_a_problem_at_its_key(tmp_path: Path) -> None:
    where = tmp_path / "t.yaml"
    assert answers(tmp_path, Startable(("players", 0, "command"), (sys.executable, "gone.py"), tmp_path)) == [
        f"{where}: players[0].command: cannot be started: script gone.py does not exist (looked in {tmp_path})"]
    assert answers(tmp_path, FolderThere(("players", 1, "cwd"), "bots", tmp_path / "bots")) == [
        f"{where}: players[1].cwd: 'bots' is not allowed: no such folder ({tmp_path / 'bots'})"]
    assert answers(tmp_path, PathThere(("cluster", "cert"), "c.pem", str(tmp_path), file=True)) == [
        f"{where}: cluster.cert: 'c.pem' is not allowed: no such file ({tmp_path})"]  # a folder is not a file
    assert answers(tmp_path, PathThere(("players", 0, "sandbox", "read"), "book", str(tmp_path / "book"),
                                       file=False)) == [
        f"{where}: players[0].sandbox.read: 'book' is not allowed: no such file or folder ({tmp_path / 'book'})"]
    refused = answers(tmp_path, ThisMachine(("cluster",), "tcp://10.1.2.3:8786", "10.1.2.3"))
    assert refused == [f"{where}: cluster: 'tcp://10.1.2.3:8786' is not allowed: 10.1.2.3 is not this machine, "
                       "and a plain tcp:// connection is readable and forgeable on the network: start the scheduler "
                       "with TLS and give tls://HOST:PORT (docs/cluster.md)"]


def test_what_the_machine_grants_is_no_problem(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    assert answers(tmp_path,
                   Startable(("players", 0, "command"), (sys.executable, "bot.py"), tmp_path),
                   FolderThere(("players", 0, "cwd"), ".", tmp_path),
                   PathThere(("cluster", "cert"), "bot.py", str(tmp_path / "bot.py"), file=True),
                   PathThere(("players", 0, "sandbox", "read"), ".", str(tmp_path), file=False),
                   ThisMachine(("cluster",), "tcp://127.0.0.1:8786", "127.0.0.1")) == []


def test_a_command_in_a_missing_folder_is_told_once_as_the_folder(tmp_path: Path) -> None:
    missing = tmp_path / "bots"
    assert answers(tmp_path, Startable(("players", 0, "command"), ("./bot",), missing),
                   FolderThere(("players", 0, "cwd"), "bots", missing)) == [
        f"{tmp_path / 't.yaml'}: players[0].cwd: 'bots' is not allowed: no such folder ({missing})"]


def test_required_boxes_ask_the_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    absent = Support(bwrap=None, setpriv=None, as_root=True, missing=("bubblewrap (bwrap) is not installed",))
    monkeypatch.setattr(probe_module, "support", lambda: absent)
    assert answers(tmp_path, Sandboxing(("sandbox",))) == [
        f"{tmp_path / 't.yaml'}: sandbox: is required, but this machine cannot sandbox bots: "
        "bots are NOT sandboxed: bubblewrap (bwrap) is not installed"]
    monkeypatch.setattr(probe_module, "support", lambda: Support(bwrap="/bwrap", setpriv="/setpriv", as_root=True))
    assert answers(tmp_path, Sandboxing(("sandbox",))) == []


def test_the_machine_is_asked_after_the_file_is_read_and_all_problems_come_together(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[object] = []
    answer = probe_module._answer
    monkeypatch.setattr(probe_module, "_answer", lambda ask: asked.append(ask) or answer(ask))
    path = tmp_path / "t.yaml"
    path.write_text("game: limit-nim\nformat: round-robbin\nplayers:\n  - {name: a, command: python gone.py}\n"
                    "  - {name: b, command: python gone.py, cwd: nowhere}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert [type(ask).__name__ for ask in asked] == ["Startable", "FolderThere", "Startable"]
    assert str(refused.value).splitlines() == [
        f"3 problems in {path}:",
        f"  {path}:2: format: 'round-robbin' is not allowed: must be one of: round-robin, gauntlet, swiss, sprt "
        "(did you mean 'round-robin'?)",
        f"  {path}:4: players[0].command: cannot be started: script gone.py does not exist (looked in {tmp_path})",
        f"  {path}:5: players[1].cwd: 'nowhere' is not allowed: no such folder ({tmp_path / 'nowhere'})",
    ]
