"""The write cap (arbiter/transport/write_cap.py): a box's write folders are a copy on a
tmpfs the kernel caps, at every moment of the bot's life, for root and for an ordinary user."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

import arbiter.transport.sandbox as sandbox_module
from arbiter.transport import write_cap
from arbiter.transport.sandbox import support
from referee_support import ROOT
from write_cap_games import filled_games, folder_size

MB = 1 << 20


def assert_capped(seen: dict, write_mb: int, write_files: int) -> None:
    """Nothing held more than the cap at any moment sampled, and the filler met ENOSPC."""
    assert seen["disk_bytes"] <= write_mb * MB and seen["disk_entries"] <= write_files, seen
    assert seen["after_bytes"] <= write_mb * MB and seen["after_entries"] <= write_files, seen
    assert seen["copy_bytes"] <= write_mb * MB and seen["copy_entries"] <= write_files + 2, seen
    full = "then No space left on device; "  # the bytes burst met the byte cap...
    for phase in ("FILL start", "FILL turn"):
        assert any(line.startswith(phase) and full in line and line.endswith("then No space left on device")
                   for line in seen["fills"]), seen["fills"]  # ...and the files burst the entry cap
    assert all(ending[0] == "normal" for ending in seen["endings"]), seen["endings"]


@pytest.mark.skipif(write_cap.available() is not None, reason=f"no capped tmpfs here: {write_cap.available()}")
@pytest.mark.parametrize("launch", ["helper", "shell and setpriv"])
def test_the_disk_filler_never_holds_more_than_its_cap_boxed_as_root(launch: str, tmp_path: Path,
                                                                      monkeypatch) -> None:
    """Writing as fast as it can while starting, on its turns and after `Quit`, game after
    game (deleting what it left at each start), the filler's folder and its boxes' copies
    never hold more than 4 MiB in 40 entries, sampled from outside while it writes; it meets
    ENOSPC and plays on, and what its last game left is in its folder afterwards."""
    assert support().usable, support().describe()
    if launch == "helper" and support().spawn is None:
        pytest.skip("no launch helper here")
    if launch != "helper":
        monkeypatch.setattr(sandbox_module, "_SUPPORT", replace(support(), spawn=None))
    seen = filled_games(tmp_path / "cache", tmp_path / "logs", games=3, write_mb=4, write_files=40)
    assert_capped(seen, 4, 40)
    assert seen["copies_seen"] > 0, "no capped copy was ever seen: the sampler looked at nothing"
    assert seen["after_entries"] > 0 and all(name.startswith(("start-", "turn-", "quit-")) for name in seen["names_after"])


@pytest.mark.parametrize("launch", ["helper", "shell and setpriv"])
def test_the_disk_filler_never_holds_more_than_its_cap_boxed_as_an_ordinary_user(launch: str) -> None:
    """The same games run by an ordinary user (nobody), whose boxes are made in user namespaces:
    bubblewrap, root of the holder's, runs the box as nobody with no capability; whether the
    launch helper (built into the user's cache) or the box's shell starts the bot."""
    import pwd
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root to become another user, and the system's Python")
    if launch == "helper" and not (shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")):
        pytest.skip("no C compiler: the launch helper cannot be built here")
    user = pwd.getpwnam("nobody")
    base = Path(tempfile.mkdtemp(prefix="arbiter-nonroot-"))  # pytest's own folders are root's alone
    os.chown(base, user.pw_uid, user.pw_gid)
    try:
        done = subprocess.run(["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
                               "/usr/bin/python3", str(ROOT / "tests" / "nonroot_write_cap.py"), str(base)],
                              capture_output=True, text=True, timeout=300, cwd="/",
                              env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": "/tmp",
                                   "XDG_CACHE_HOME": str(base / "xdg") if launch == "helper" else "no/cache"})
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    if "NOT sandboxed" in seen["header"]:
        pytest.skip(f"an ordinary user cannot make a box here: {seen['header']}")
    assert seen["write_cap"] is None, seen["write_cap"]
    assert seen["helper"] == (launch == "helper")
    assert_capped(seen, 4, 40)
    assert seen["copies_seen"] > 0


@pytest.mark.skipif(write_cap.available() is not None, reason=f"no capped tmpfs here: {write_cap.available()}")
def test_a_copy_is_held_to_the_cap_and_never_follows_a_link(tmp_path: Path) -> None:
    """What a box leaves is copied back as files, folders and links (a link copied as a link,
    never followed), and only when it fits the cap as plain files: hard links and holes,
    which cost the tmpfs nothing, cannot multiply what lands on disk (the folder then keeps
    what it held before)."""
    folder = tmp_path / "cache"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "book.txt").write_text("opening")
    secret = tmp_path / "secret.txt"
    secret.write_text("not the bot's")
    cap = write_cap.WriteCap([str(folder)], write_mb=1, write_files=10, box_uid=None)
    inside = Path(cap.root, "0")
    assert (inside / "deep" / "book.txt").read_text() == "opening"
    (inside / "link").symlink_to(secret)
    (inside / "deep" / "book.txt").write_text("learned")
    cap.close()
    assert (folder / "deep" / "book.txt").read_text() == "learned"
    assert os.readlink(folder / "link") == str(secret)
    assert folder_size(folder) == (len("learned"), 3)

    cap = write_cap.WriteCap([str(folder)], write_mb=1, write_files=10, box_uid=None)
    inside = Path(cap.root, "0")
    with open(inside / "hole", "wb") as hole:
        hole.truncate(8 * MB)  # 8 MiB in no block at all
    assert cap.held_bytes() < MB
    cap.close()
    assert not (folder / "hole").exists() and (folder / "deep" / "book.txt").read_text() == "learned"
    assert not list(tmp_path.glob(".cache.arbiter-*"))  # no copy left beside it


def test_where_no_holder_can_be_made_the_folder_is_checked_after_each_turn(tmp_path: Path, monkeypatch) -> None:
    """Without a capped tmpfs (no unshare or nsenter, no user namespaces), the box shows the
    folder itself and the referee checks it after each of the bot's turns: the filler, over
    the cap by its start, loses by a recorded fault, which names the cap."""
    assert support().usable, support().describe()
    monkeypatch.setattr(write_cap, "available", lambda: "not on this machine (the test says)")
    seen = filled_games(tmp_path / "cache", tmp_path / "logs", games=1, write_mb=4, write_files=40)
    assert seen["copies_seen"] == 0
    ((termination, offender, detail),) = seen["endings"]
    assert (termination, offender) == ("crash", 0)
    assert "its write folders hold more than their cap of 4 MiB in 40 files (sandbox: write_mb, write_files)" in detail


@pytest.mark.skipif(write_cap.available() is not None, reason=f"no capped tmpfs here: {write_cap.available()}")
def test_a_players_boxes_at_once_share_one_copy_written_back_when_the_last_ends(tmp_path: Path) -> None:
    """Two boxes of one player at once (two of its games side by side) show one tmpfs, as they
    would the folder on disk (a counter or a cache shared between its games still works), the
    cap holding for both together; it is written back when the last has ended."""
    folder = tmp_path / "cache"
    folder.mkdir()
    first = write_cap.hold([str(folder)], write_mb=1, write_files=10, box_uid=None)
    second = write_cap.hold([str(folder)], write_mb=1, write_files=10, box_uid=None)
    assert second is first
    Path(first.root, "0", "game-1").write_text("claimed")
    write_cap.release(first)
    assert not (folder / "game-1").exists()  # the other box still shows it
    assert Path(second.root, "0", "game-1").read_text() == "claimed"
    write_cap.release(second)
    assert (folder / "game-1").read_text() == "claimed"
    third = write_cap.hold([str(folder)], write_mb=1, write_files=10, box_uid=None)
    assert third is not first and Path(third.root, "0", "game-1").read_text() == "claimed"
    write_cap.release(third)


def test_a_file_or_folder_gone_while_the_folder_is_copied_is_left_out(tmp_path: Path, monkeypatch) -> None:
    """A player's other game may rename files in its write folder while this box's copy is made
    (a table written beside and renamed into place): what vanished between the listing and its
    copy is left out, never a failed box blamed on the machinery."""
    folder = tmp_path / "cache"
    (folder / "sub").mkdir(parents=True)
    (folder / "kept.txt").write_text("kept")
    (folder / "gone.tmp").write_text("about to be renamed")
    (folder / "gone-link").symlink_to("kept.txt")
    (folder / "sub" / "inner.txt").write_text("inner")
    taken = write_cap._Budget.take

    def take_and_remove(budget, size):  # the other game's rename, between the listing and the copy
        for name in ("gone.tmp", "gone-link"):
            (folder / name).unlink(missing_ok=True)
        if (folder / "sub").exists():
            (folder / "sub" / "inner.txt").unlink()
            (folder / "sub").rmdir()
        return taken(budget, size)
    monkeypatch.setattr(write_cap._Budget, "take", take_and_remove)
    cap = write_cap.WriteCap([str(folder)], write_mb=1, write_files=10, box_uid=None)
    inside = Path(cap.root, "0")
    assert (inside / "kept.txt").read_text() == "kept"
    assert not (inside / "gone.tmp").exists() and not (inside / "gone-link").is_symlink()
    cap.close()
