"""Which program a player is (tournament/programs.py): its digest follows its own files and
nothing else, and a match never shows an edited bot's new games beside its old ones."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import arbiter.tournament.programs as programs
from arbiter.cli import main
from arbiter.referee import PlayerSpec
from arbiter.transport.sandbox import SandboxSpec
from referee_support import RANDOM_BOT

PY = sys.executable


def home_with_bot(folder: Path) -> Path:
    """A bot of two files: its program and a book beside it."""
    folder.mkdir(parents=True)
    (folder / "main.py").write_bytes(RANDOM_BOT.read_bytes())
    (folder / "book.txt").write_text("opening book, edition 1\n")
    return folder


def digest(home: Path, *, skip: tuple[str, ...] = (), sandbox: SandboxSpec | None = None,
           command: tuple[str, ...] | None = None) -> str:
    return programs.program_digest(command or (PY, str(home / "main.py")), str(home), sandbox, skip)


def test_a_digest_changes_with_the_program_and_the_files_of_its_home(tmp_path: Path) -> None:
    home = home_with_bot(tmp_path / "bot")
    before = digest(home)
    assert digest(home) == before  # the same files, the same program
    (home / "book.txt").write_text("opening book, edition 2\n")
    assert digest(home) != before
    edited = digest(home)
    (home / "main.py").write_text((home / "main.py").read_text() + "\n# tuned\n")
    assert digest(home) != edited
    (home / "book.txt").rename(home / "book2.txt")
    assert len({before, edited, digest(home)}) == 3


def test_what_a_player_must_not_see_or_may_write_does_not_change_its_digest(tmp_path: Path) -> None:
    home = home_with_bot(tmp_path / "bot")
    results, other, cache = home / "results" / "match", home / "bob", home / "cache"
    before = digest(home, skip=(str(results), str(other)), sandbox=SandboxSpec(write=(str(cache),)))
    for folder in (results, other, cache, home / "__pycache__", home / ".git"):
        folder.mkdir(parents=True)
        (folder / "new.txt").write_text("changes as games are played\n")
    assert digest(home, skip=(str(results), str(other)), sandbox=SandboxSpec(write=(str(cache),))) == before
    assert digest(home) != before  # the same folders count when nothing says to leave them out


def test_a_command_without_a_program_file_is_its_cwd_and_named_folders(tmp_path: Path) -> None:
    """`java -cp . Bot` is the folder it runs in; `java -cp classes Bot`, the folder it names."""
    classes = tmp_path / "classes"
    classes.mkdir()
    (classes / "Bot.class").write_bytes(b"\xca\xfe\xba\xbe one")
    by_cwd = digest(classes, command=("java", "-cp", ".", "Bot"))
    named = programs.program_digest(("java", "-cp", str(classes), "Bot"), str(tmp_path), None, ())
    (classes / "Bot.class").write_bytes(b"\xca\xfe\xba\xbe two")
    assert digest(classes, command=("java", "-cp", ".", "Bot")) != by_cwd
    assert programs.program_digest(("java", "-cp", str(classes), "Bot"), str(tmp_path), None, ()) != named


def test_the_digest_is_bounded_and_says_so(tmp_path: Path, monkeypatch) -> None:
    """Past MAX_FILES entries a change goes unseen; past the content cap a file counts by its
    size and time (docs/records.md)."""
    home = home_with_bot(tmp_path / "bot")
    for name in ("a.txt", "b.txt", "z.txt"):
        (home / name).write_text("x\n")
    monkeypatch.setattr(programs, "MAX_FILES", 3)  # a.txt, b.txt, book.txt; not main.py nor z.txt
    before = digest(home)
    (home / "z.txt").write_text("y\n")
    assert digest(home) == before
    (home / "b.txt").write_text("y\n")
    assert digest(home) != before
    monkeypatch.setattr(programs, "MAX_FILES", 2000)
    monkeypatch.setattr(programs, "MAX_CONTENT_BYTES", 1)
    capped = digest(home)
    (home / "book.txt").write_text("same size, other text\n"[:len("opening book, edition 1\n")])
    os.utime(home / "book.txt", ns=(1, 1))
    assert digest(home) != capped  # its time changed


def test_players_digests_leave_out_each_others_folders_and_a_remote_bot_has_none(tmp_path: Path) -> None:
    alice = home_with_bot(tmp_path / "alice")
    bob = home_with_bot(alice / "bob")
    players = [PlayerSpec("alice", (PY, str(alice / "main.py")), cwd=str(alice)),
               PlayerSpec("bob", (PY, str(bob / "main.py")), cwd=str(bob)),
               PlayerSpec("carol", (), transport="remote")]
    before = programs.player_digests(players, hidden=())
    (bob / "book.txt").write_text("bob's new book\n")
    after = programs.player_digests(players, hidden=())
    assert after["alice"] == before["alice"] and after["bob"] != before["bob"]
    assert before["carol"] is None


# --- resuming --------------------------------------------------------------------------

def match(tmp_path: Path, *extra: str) -> list[str]:
    return ["match", "limit-nim", f"{PY} bot/main.py --seed 1", f"{PY} {RANDOM_BOT} --seed 2", "--games", "2",
            "--results", str(tmp_path / "results"), "--quiet", *extra]


def test_a_match_whose_bot_changed_is_refused_on_resume_with_the_way_out(tmp_path: Path, monkeypatch, capsys) -> None:
    home = home_with_bot(tmp_path / "bot")
    monkeypatch.chdir(tmp_path)
    assert main(match(tmp_path)) == 0
    games = [json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]
    assert all(len(p["digest"]) == 64 for g in games for p in g["players"])
    capsys.readouterr()
    assert main(match(tmp_path)) == 0  # unchanged: resumed, nothing to play
    assert "resuming: 2 of 2 games already recorded" in capsys.readouterr().err

    (home / "book.txt").write_text("opening book, edition 2\n")
    assert main(match(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "main played 2 of them as another program" in err and "random_bot" not in err.split("error:")[1]
    assert "give the new run its own folder with --results DIR; or run with --fresh" in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1
    assert main(match(tmp_path, "--fresh")) == 0


def test_records_from_before_digests_resume_as_unknown(tmp_path: Path, monkeypatch, capsys) -> None:
    home = home_with_bot(tmp_path / "bot")
    monkeypatch.chdir(tmp_path)
    assert main(match(tmp_path)) == 0
    games = tmp_path / "results" / "games.jsonl"
    old = []
    for line in games.read_text().splitlines():
        record = json.loads(line)
        record["players"] = [{"name": p["name"], "command": p["command"]} for p in record["players"]]
        old.append(json.dumps(record))
    games.write_text("\n".join(old) + "\n")
    (tmp_path / "results" / "checkpoint.json").unlink()  # an older arbiter wrote none
    (home / "book.txt").write_text("opening book, edition 2\n")
    capsys.readouterr()
    assert main(match(tmp_path)) == 0
    assert "resuming: 2 of 2 games already recorded" in capsys.readouterr().err
