"""The launch helper (arbiter/transport/spawn.py): an unboxed bot started through it gets what a
launch from Python gives it (parent-death signal, child subreaper, memory cap, its own session),
a boxed one exactly the rights the shell and setpriv left it, a bot that cannot start is refused
the same way, and a helper someone else could replace is never run. Also what every launch
does first: the kit's bytecode written (process.py)."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from arbiter.transport import process, spawn
from arbiter.transport.process import BotProcess, LaunchError

# Prints, one a line: its parent-death signal, whether it is a child subreaper, its RLIMIT_DATA
# (soft) and whether it leads its own session.
REPORT_BOT = r"""
import ctypes, os, resource
libc = ctypes.CDLL(None, use_errno=True)
value = ctypes.c_int()
libc.prctl(2, ctypes.byref(value), 0, 0, 0)   # PR_GET_PDEATHSIG
print(value.value)
libc.prctl(37, ctypes.byref(value), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
print(value.value)
print(resource.getrlimit(resource.RLIMIT_DATA)[0])
print(os.getsid(0) == os.getpid())
"""

needs_compiler = pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")),
                                    reason="no C compiler on this machine: launches go without the helper")


@pytest.fixture(params=["helper", "python"])
def launch_way(request, monkeypatch):
    """Each test runs with the launch helper and with the launch from Python it replaces."""
    if request.param == "helper":
        if spawn.helper() is None:
            pytest.skip("the launch helper cannot be built here (no C compiler or no cache folder)")
    else:
        monkeypatch.setattr(spawn, "helper", lambda: None)
    return request.param


def output_of(command: list[str], **launch: Any) -> str:
    """Everything a bot launched with `launch`'s settings writes, once it has exited 0."""
    bot, stdin_fd, stdout_fd = BotProcess.launch(command, **launch)
    os.close(stdin_fd)
    with os.fdopen(stdout_fd, "rb") as out:
        text = out.read().decode()
    assert bot.wait_exit(10.0) == 0
    bot.close()
    return text


def report(memory_mb: int | None) -> list[str]:
    return output_of([sys.executable, "-c", REPORT_BOT], memory_mb=memory_mb).split()


def test_an_unboxed_bot_gets_its_parent_death_signal_subreaper_flag_memory_cap_and_session(launch_way):
    assert report(memory_mb=300) == ["9", "1", str(300 << 20), "True"]  # 9: SIGKILL


def test_without_a_memory_cap_the_bot_keeps_the_arbiters_limit(launch_way):
    import resource
    assert report(memory_mb=None)[2] == str(resource.getrlimit(resource.RLIMIT_DATA)[0])


def test_a_program_that_cannot_start_is_refused_naming_it(launch_way, tmp_path):
    with pytest.raises(LaunchError, match=r"cannot start '/no/such/bot': \[Errno 2\] No such file"):
        BotProcess.launch(["/no/such/bot"])
    not_executable = tmp_path / "bot.sh"
    not_executable.write_text("echo hi\n")
    with pytest.raises(LaunchError, match=r"Permission denied"):
        BotProcess.launch([str(not_executable)])
    with pytest.raises(LaunchError, match="no_such_bot_on_path"):
        BotProcess.launch(["no_such_bot_on_path"])
    no_first_line = tmp_path / "bot"
    no_first_line.write_text("echo hi\n")  # no #! line: the kernel cannot run it, and no shell is tried
    no_first_line.chmod(0o755)
    with pytest.raises(LaunchError, match=r"Exec format error"):
        BotProcess.launch([str(no_first_line)])


@needs_compiler
def test_the_helper_is_built_once_into_the_users_cache_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    built = spawn._build()
    assert built is not None and Path(built).parent == tmp_path / "arbiter"
    made = os.stat(built).st_mtime_ns
    assert spawn._build() == built and os.stat(built).st_mtime_ns == made  # found, not built again
    assert [p.name for p in (tmp_path / "arbiter").iterdir()] == [Path(built).name]  # no partial file left


@needs_compiler
def test_a_helper_others_may_write_is_never_run(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    built = Path(spawn._build() or "")
    for mode, node in ((0o777, built), (0o777, built.parent)):
        os.chmod(node, mode)
        assert not spawn._trusted(built)
        os.chmod(node, 0o755 if node == built else 0o700)
    assert spawn._trusted(built)
    link = tmp_path / "arbiter" / "link"
    link.symlink_to(built)
    assert not spawn._trusted(link)


def test_without_a_cache_folder_there_is_no_helper_and_bots_still_start(monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/not/allowed")
    assert spawn._build() is None
    monkeypatch.setattr(spawn, "helper", spawn._build)
    assert report(memory_mb=None)[:2] == ["9", "1"]


def test_the_launch_uses_the_helper_when_there_is_one(monkeypatch):
    if spawn.helper() is None:
        pytest.skip("the launch helper cannot be built here")
    used = []
    real = process._spawn
    monkeypatch.setattr(process, "_spawn", lambda *args: used.append(args[0]) or real(*args))
    report(memory_mb=None)
    assert used == [spawn.helper()]


# What a boxed bot is: its user and groups, every capability set, no_new_privs, the system-call
# filter, its open descriptors and limits.
IDENTITY = ("id -u; id -g; id -G; grep -E '^(Cap[A-Za-z]+|NoNewPrivs|Seccomp):' /proc/self/status; "
            "ls /proc/self/fd; ulimit -n; ulimit -f; ulimit -c; echo $$")


def boxed_identity(monkeypatch, helper: str | None) -> list[str]:
    from dataclasses import replace

    from arbiter.transport import sandbox
    from arbiter.transport.sandbox import SandboxSpec, support
    monkeypatch.setattr(sandbox, "_SUPPORT", replace(support(), spawn=helper))
    return output_of(["/bin/sh", "-c", IDENTITY], sandbox=SandboxSpec()).splitlines()


def test_in_a_box_the_helper_drops_every_right_as_the_shell_and_setpriv_do(monkeypatch):
    from arbiter.transport.sandbox import BOX_UID, support
    if not support().usable or support().spawn is None:
        pytest.skip("no box, or no launch helper, on this machine")
    by_helper = boxed_identity(monkeypatch, support().spawn)
    assert by_helper == boxed_identity(monkeypatch, None)
    status = dict(line.split(":", 1) for line in by_helper if ":" in line)
    assert {key: value.strip() for key, value in status.items()} == {
        "CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
        "CapBnd": "0000000000000000" if os.geteuid() == 0 else status["CapBnd"].strip(),
        "CapAmb": "0000000000000000", "NoNewPrivs": "1", "Seccomp": "2"}
    if os.geteuid() == 0:
        assert by_helper[:3] == [str(BOX_UID)] * 3  # the box's user, its group alone
    fds = by_helper[by_helper.index("Seccomp:\t2") + 1:-4]
    assert fds == ["0", "1", "2", "3"]  # 3 is ls's own: the bot holds no other descriptor
    assert by_helper[-4:-1] == ["256", str((64 << 20) // 512), "0"]  # files, file size (512-byte blocks), cores
    assert by_helper[-1] == "2"  # the bot is the PID namespace's second process: the box's init is the first


def test_the_helpers_keeper_gives_the_bot_what_the_python_keeper_does(monkeypatch):
    """A box's keeper is the helper (`spawn keeper`) or `keeper.py`: the bot gets the same
    environment (a name no shell takes is left out both ways, a value with quotes, spaces and a
    newline kept whole), the same caps and the address-space cap where there is no memory group
    (the groups it is born in are the sandbox tests' subject: limits, freezing, CPU time)."""
    from dataclasses import replace

    from arbiter.transport import sandbox
    from arbiter.transport.sandbox import SandboxSpec, support
    places = support()
    if not places.usable or places.spawn is None:
        pytest.skip("no box, or no launch helper, on this machine")
    seen = []
    for helper in (places.spawn, None):
        monkeypatch.setattr(sandbox, "_SUPPORT", replace(places, spawn=helper, memory=None))
        box = sandbox.Box(["/bin/true"], cwd=None, env={}, spec=SandboxSpec(), memory_mb=None)
        assert (box.argv[:2] == [helper, "keeper"]) == (helper is not None)
        box.remove()
        seen.append(output_of(["/bin/sh", "-c", "env | sort; ulimit -v; ulimit -n; ulimit -f; ulimit -c"],
                              sandbox=SandboxSpec(), memory_mb=300,
                              env={"QUOTED": "it's \"a\" $HOME\nline two", "my.setting": "dropped"}))
    by_helper, by_keeper_py = seen
    assert by_helper == by_keeper_py
    assert "QUOTED=it's \"a\" $HOME\nline two\n" in by_helper and "my.setting" not in by_helper
    assert by_helper.splitlines()[-4:] == [str(300 << 10), "256", str((64 << 20) // 512), "0"]


def test_a_nul_in_a_bots_environment_is_refused_before_its_box_starts() -> None:
    from arbiter.transport.sandbox import SandboxError, SandboxSpec, support
    if not support().usable:
        pytest.skip("no box on this machine")
    with pytest.raises(SandboxError, match="NUL"):
        BotProcess.launch(["/bin/true"], env={"A": "1\0abash"}, sandbox=SandboxSpec())


def test_the_kits_bytecode_is_written_before_the_first_launch_where_the_arbiter_may(tmp_path, monkeypatch):
    """A box shows the kit read-only, so a boxed bot cannot write its `__pycache__` (nor any bot
    under PYTHONDONTWRITEBYTECODE): the arbiter writes it once, or every start of a Python bot
    compiles the kit again."""
    import importlib.util
    import shutil

    from tournament_helpers import ROOT
    kit, players = tmp_path / "arbiter", tmp_path / "players"
    shutil.copytree(ROOT / "arbiter", kit, ignore=shutil.ignore_patterns("__pycache__", "reports", "tournament", "cli"))
    shutil.copytree(ROOT / "players", players, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(process, "PACKAGE_DIR", kit)
    monkeypatch.setattr(process, "PLAYERS_DIR", players)
    wanted = [kit / "bot.py", kit / "protocol.py", kit / "games" / "dots_and_triangles.py",
              players / "random_bot.py", players / "strategies" / "perfect.py"]
    assert not any(Path(importlib.util.cache_from_source(str(path))).exists() for path in wanted)
    process._write_kit_bytecode.__wrapped__()
    assert all(Path(importlib.util.cache_from_source(str(path))).exists() for path in wanted)
    assert not (kit / "transport" / "__pycache__").exists()  # what no bot imports is left alone
    shutil.rmtree(players / "__pycache__")
    (players / "__pycache__").write_text("")  # a cache the arbiter cannot write: nothing raised, nothing changed
    process._write_kit_bytecode.__wrapped__()
    assert (players / "__pycache__").read_text() == ""


def test_a_helper_that_cannot_start_a_box_leaves_the_work_to_the_shell_and_setpriv(monkeypatch, tmp_path):
    from arbiter.transport import sandbox
    if not sandbox.support().usable:
        pytest.skip("no box on this machine")
    broken = tmp_path / "spawn"
    broken.write_text("#!/bin/sh\nexit 126\n")
    broken.chmod(0o755)
    monkeypatch.setattr(spawn, "helper", lambda: str(broken))
    found = sandbox._probe()
    assert found.usable and found.spawn is None, found.describe()
    assert found.seccomp == sandbox.support().seccomp  # the filter is not blamed for the helper
