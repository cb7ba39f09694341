"""The sandbox against hostile bots: each attack of issue 13 is blocked in a box (and is real:
the harmless ones succeed unboxed), the victim is never blamed, nothing of the game is left
behind, and a machine that cannot sandbox says so."""
from __future__ import annotations

import os
import socket
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import arbiter.tournament.probe as probe_module
import arbiter.tournament.runner as runner_module
import arbiter.transport.sandbox as sandbox_module
from arbiter.games import find_game
from arbiter.records import Termination
from arbiter.referee import TimeControl, play_game
from arbiter.tournament.config import load_config
from arbiter.tournament.runner import sandbox_line, sandbox_report
from arbiter.tournament.validate import ConfigError
from arbiter.transport.sandbox import SandboxSpec, Support, support
from referee_support import BOTS, RANDOM_BOT as RANDOM, ROOT, bot, honest, live_marked, new_marker

GAME_TIME = TimeControl(time_ms=5000)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def decoys(tmp_path: Path) -> dict[str, Path]:
    """Another entrant's source and a results folder, as a contest would have them."""
    entrant = tmp_path / "entrants" / "bob"
    results = tmp_path / "results" / "contest"
    entrant.mkdir(parents=True)
    results.mkdir(parents=True)
    (entrant / "bot.py").write_text("SECRET_STRATEGY = 42\n")
    (results / "games.jsonl").write_text('{"id": "001-a-b"}\n')
    (results / "standings.txt").write_text("1. bob\n")
    return {"source": entrant / "bot.py", "games": results / "games.jsonl",
            "standings": results / "standings.txt", "arbiter": ROOT / "arbiter" / "__init__.py",
            "config": ROOT / "configs" / "demo.yaml"}


def attack_env(script: str, decoys: dict[str, Path], listen_port: int, target_port: int) -> tuple[dict[str, str], TimeControl]:
    """What each hostile bot is told to attack, and its clock."""
    if script == "steal_files_bot.py":
        return {"TARGETS": f"{decoys['source']}:{decoys['config']}:{decoys['games']}"}, GAME_TIME
    if script == "tamper_results_bot.py":
        return {"TARGETS": f"{decoys['games']}:{decoys['standings']}:{decoys['arbiter']}"}, GAME_TIME
    if script == "network_bot.py":
        return {"TARGET_PORT": str(target_port), "LISTEN_PORT": str(listen_port)}, GAME_TIME
    if script == "shm_memory_bot.py":
        return {"SIZE_MB": "96"}, TimeControl(time_ms=5000, memory_mb=64)
    if script == "disk_fill_bot.py":
        return {"SIZE_MB": "100"}, GAME_TIME
    if script == "kill_opponent_stop":
        return {"HOW": "stop"}, GAME_TIME
    return {}, GAME_TIME


ATTACKS = ["steal_files_bot.py", "tamper_results_bot.py", "kill_opponent_bot.py", "kill_opponent_stop",
           "forge_output_bot.py", "network_bot.py", "escape_bot.py", "shm_memory_bot.py", "disk_fill_bot.py",
           "kernel_channel_bot.py"]


def play_attack(script: str, decoys: dict[str, Path], tmp_path: Path, *, boxed: bool):
    marker = new_marker()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    listen_port = free_port()
    env, time = attack_env(script, decoys, listen_port, listener.getsockname()[1])
    file = "kill_opponent_bot.py" if script == "kill_opponent_stop" else script
    attacker = bot(file, "attacker", marker, time=time, **env)
    victim = honest(marker)
    if not boxed:
        attacker, victim = replace(attacker, sandbox=None), replace(victim, sandbox=None)
    record = play_game(find_game("limit-nim"), [attacker, victim], time=GAME_TIME, log_dir=tmp_path)
    try:
        listener.accept()
        reached = True
    except BlockingIOError:
        reached = False
    listener.close()
    log = Path(record.logs[0]).read_text(errors="replace")
    return record, log, marker, reached, listen_port


@pytest.mark.parametrize("script", ATTACKS)
def test_an_attack_from_inside_a_box_fails_and_the_victim_is_not_blamed(script: str, decoys, tmp_path: Path) -> None:
    assert support().usable, support().describe()
    before = {name: path.read_bytes() for name, path in decoys.items()}
    record, log, marker, reached, listen_port = play_attack(script, decoys, tmp_path, boxed=True)
    assert "ATTACK" in log, log[-2000:]  # the attack ran
    assert "SUCCEEDED" not in log, log[-2000:]
    assert "SECRET_STRATEGY" not in log
    if script == "shm_memory_bot.py":  # over its memory: the attacker loses, killed by the kernel
        assert (record.termination, record.offender) == (Termination.CRASH, 0), record.detail
        assert "memory limit of 64 MiB" in record.detail
    else:
        assert record.termination is Termination.NORMAL, record.detail
    assert {name: path.read_bytes() for name, path in decoys.items()} == before
    assert not reached  # nothing came out of the box to the machine's loopback
    with pytest.raises(OSError):  # and nothing outside can reach the bot's listener
        socket.create_connection(("127.0.0.1", listen_port), timeout=0.5).close()
    assert live_marked(marker) == []  # the escaped daemon too


@pytest.mark.parametrize("script, proof", [
    ("steal_files_bot.py", "read 21 bytes of"),
    ("tamper_results_bot.py", "for writing"),
    ("kill_opponent_stop", "signalled"),
    ("forge_output_bot.py", "/fd/1"),
    ("network_bot.py", "connected to 127.0.0.1"),
    ("shm_memory_bot.py", "touched 96 MiB"),
    ("disk_fill_bot.py", "wrote 100 MiB"),
    ("kernel_channel_bot.py", "ATTACK keyring: SUCCEEDED"),
    ("kernel_channel_bot.py", "ATTACK flock: SUCCEEDED"),
    ("kernel_channel_bot.py", "ATTACK io_uring: SUCCEEDED"),
    ("kernel_channel_bot.py", "ATTACK userns: SUCCEEDED"),
])
def test_the_same_attack_succeeds_without_the_box(script: str, proof: str, decoys, tmp_path: Path) -> None:
    """The attacks are real: unboxed, each gets through (none of these harms the machine)."""
    record, log, marker, _, _ = play_attack(script, decoys, tmp_path, boxed=False)
    assert "SUCCEEDED" in log and proof in log, log[-2000:]
    assert live_marked(marker) == []


def test_hostile_bots_in_a_tournament_leave_the_records_intact(tmp_path: Path) -> None:
    """A small round robin of attackers and an honest bot: every game recorded, victims never blamed."""
    bots = ROOT / "tests" / "bots"
    results = tmp_path / "results"
    path = tmp_path / "contest.yaml"
    players = "\n".join(
        f"  - {{name: {name}, command: [{sys.executable}, {bots / script}], sandbox: {{read: [{bots}]}}, "
        f"env: {{TARGETS: '{results / 'contest' / 'games.jsonl'}:{path}', HOW: stop}}}}"
        for name, script in (("thief", "steal_files_bot.py"), ("vandal", "tamper_results_bot.py"),
                             ("killer", "kill_opponent_bot.py")))
    path.write_text(f"name: contest\ngame: limit-nim\ngames_per_pairing: 2\nconcurrency: 2\nresults: results/contest\n"
                    f"time: {{time_ms: 5000}}\nplayers:\n{players}\n"
                    f"  - {{name: honest, command: [{sys.executable}, {ROOT / 'players' / 'random_bot.py'}]}}\n")
    from arbiter.cli import main
    assert main(["run", str(path), "--quiet"]) == 0
    lines = (results / "contest" / "games.jsonl").read_text().splitlines()
    import json
    records = [json.loads(line) for line in lines]
    assert len(records) == 12 and all(r["termination"] == "normal" for r in records)
    for record in records:
        for log in record["logs"]:
            assert "SUCCEEDED" not in Path(log).read_text(errors="replace")


def test_a_machine_without_a_sandbox_is_reported_and_required_refuses(tmp_path: Path, monkeypatch) -> None:
    absent = Support(bwrap=None, setpriv="/usr/bin/setpriv", as_root=True,
                     missing=("bubblewrap (bwrap) is not installed: apt-get install bubblewrap",))
    monkeypatch.setattr(probe_module, "support", lambda: absent)
    monkeypatch.setattr(runner_module, "support", lambda: absent)
    monkeypatch.setattr(sandbox_module, "_SUPPORT", absent)
    body = (f"name: t\ngame: limit-nim\nplayers:\n"
            f"  - {{name: a, command: [{sys.executable}, {ROOT / 'players' / 'random_bot.py'}]}}\n"
            f"  - {{name: b, command: [{sys.executable}, {ROOT / 'players' / 'random_bot.py'}]}}\n")
    (tmp_path / "on.yaml").write_text(body)
    (tmp_path / "required.yaml").write_text(body + "sandbox: required\n")
    config = load_config(tmp_path / "on.yaml")
    line = sandbox_line(config)
    assert line is not None and line.startswith("WARNING: a, b NOT sandboxed (bots are NOT sandboxed: bubblewrap")
    assert sandbox_report(config)["sandboxed"] == {"a": False, "b": False}
    assert sandbox_report(config)["enforced"]["namespaces"] is False
    assert [p.sandbox for p in config.players] == [None, None]  # decided once, carried in the spec
    with pytest.raises(sandbox_module.SandboxError, match="this machine cannot sandbox bots: bots are NOT"):
        sandbox_module.Box(["/bin/true"], cwd=None, env={}, spec=SandboxSpec(), memory_mb=None)
    with pytest.raises(ConfigError, match="sandbox: is required, but this machine cannot sandbox bots"):
        load_config(tmp_path / "required.yaml")


def test_a_bot_in_a_private_folder_under_tmp_starts_in_its_box(tmp_path: Path) -> None:
    """pytest's own folders under /tmp are 0700 and root's: the box re-makes the folders above
    a shown path searchable, /tmp's included, so the box's user reaches the bot."""
    private = Path("/tmp") / f"arbiter-private-{new_marker()}"
    private.mkdir(mode=0o700)
    try:
        (private / "deep").mkdir(mode=0o700)
        bot_file = private / "deep" / "bot.py"
        bot_file.write_bytes((ROOT / "players" / "random_bot.py").read_bytes())
        marker = new_marker()
        player = replace(honest(marker), name="private", command=(sys.executable, str(bot_file)))
        record = play_game(find_game("limit-nim"), [player, honest(marker)], time=GAME_TIME, log_dir=tmp_path)
        assert record.termination is Termination.NORMAL, record.detail
        assert record.sandboxed == [support().usable] * 2
    finally:
        import shutil
        shutil.rmtree(private)


def test_an_interpreter_named_among_the_arguments_starts_in_its_box(tmp_path: Path) -> None:
    """`env NAME=VALUE python bot.py`: the program is env, and the interpreter an argument; its
    installation is shown in the box as a program's is (not only the file the argument names)."""
    marker = new_marker()
    bot_file = str(ROOT / "players" / "random_bot.py")
    player = replace(honest(marker), name="through-env", command=("/usr/bin/env", "SOME_SETTING=1", sys.executable, bot_file),
                     sandbox=SandboxSpec(read=(str(ROOT),)))  # as `arbiter check` shows the folder it runs from
    record = play_game(find_game("limit-nim"), [player, honest(marker)], time=GAME_TIME, log_dir=tmp_path)
    assert record.termination is Termination.NORMAL, record.detail
    assert record.sandboxed == [support().usable] * 2


@pytest.mark.skipif(support().memory is None, reason="no memory control group on this machine")
def test_groups_left_by_a_gone_arbiter_are_swept_and_never_taken_for_a_new_box(tmp_path: Path) -> None:
    """A box's group can outlive it (its processes slow to leave): such a group must neither
    block a later arbiter that got the same pid (its box names carry a token of their own)
    nor stay for good (the next run removes the groups of arbiters that are gone)."""
    from arbiter.transport import cgroups
    parent = support().memory.parent
    stale = Path(parent) / "arbiter-999999999-0000-1"  # no such pid: its arbiter is gone
    old_style = Path(parent) / f"arbiter-{os.getpid()}-1"  # this pid's first box, named as before
    stale.mkdir()
    old_style.mkdir()
    try:
        cgroups.sweep_stale_groups(parent)
        assert not stale.exists()
        assert old_style.exists()  # its pid is running (this one): not swept
        marker = new_marker()
        record = play_game(find_game("limit-nim"), [honest(marker), honest(marker, seed=2)], time=GAME_TIME,
                           log_dir=tmp_path)
        assert record.termination is Termination.NORMAL, record.detail
    finally:
        for folder in (stale, old_style):
            if folder.exists():
                folder.rmdir()


# --- issue 25: hostile entrants, round two ---------------------------------------------

SUSPENSIONS = ["freezer", "stop-walk"]


@pytest.mark.parametrize("suspension", SUSPENSIONS)
def test_a_fork_hopping_thief_gains_no_cpu_while_suspended(suspension: str, monkeypatch) -> None:
    """A worker that forks its successor and exits every 2 ms used to run between turns (the
    walk that stopped a box's processes one by one never found the one running): with the
    freezer, and with the walk repeated until a pass finds nothing new, it gets no CPU while
    its bot is suspended, and what it would get is charged to its own clock."""
    if not support().usable:
        pytest.skip("bubblewrap cannot make a box here")
    if suspension == "freezer" and support().freezer is None:
        pytest.skip("no freezer control group here")
    if suspension == "stop-walk":
        monkeypatch.setattr(sandbox_module, "_SUPPORT", replace(support(), freezer=None))
    marker = new_marker()
    thief = bot("fork_hop_thief_bot.py", "thief", marker, time=TimeControl(time_ms=20000))
    # The victim thinks 20 ms of CPU a move: the thief's worker, if it ran, would run then.
    victim = bot("cpu_child_bot.py", "victim", marker, CHILD_CPU_MS="20")
    record = play_game(find_game("dots-and-boxes"), [thief, victim], time=TimeControl(time_ms=20000))
    assert record.termination is Termination.NORMAL, record.detail
    assert record.sandboxed == [True, True]
    moves_of_thief = sum(1 for move in record.moves if move.seat == 0)
    assert moves_of_thief >= 5
    # A box told to freeze runs for the microseconds its processes take to freeze (the arbiter
    # does not wait for the kernel's word); the stop walks leave a hop or two a turn. The thief
    # got 30 to 260 ms a game from the single walk before.
    allowed_ms = (0.2 if suspension == "freezer" else 3) * moves_of_thief
    assert record.suspended_cpu_ms[0] <= allowed_ms, record.suspended_cpu_ms
    assert record.suspended_cpu_ms[1] <= allowed_ms, record.suspended_cpu_ms
    assert not live_marked(marker)


def test_cpu_used_while_suspended_is_charged_to_the_thief_and_recorded(monkeypatch) -> None:
    """Where suspension cannot hold (here: never attempted), what the thief's worker uses
    between its turns is counted against its own clock and recorded, never its opponent's."""
    if not support().usable:
        pytest.skip("bubblewrap cannot make a box here")
    from arbiter.transport.process import BoxedBot
    monkeypatch.setattr(BoxedBot, "suspend", lambda self: None)
    monkeypatch.setattr(BoxedBot, "resume", lambda self: None)
    monkeypatch.setattr(BoxedBot, "turn_calls", lambda self: (lambda: None, lambda: None, self.cpu_ms))
    marker = new_marker()
    thief = bot("fork_hop_thief_bot.py", "thief", marker, time=TimeControl(time_ms=20000))
    victim = bot("cpu_child_bot.py", "victim", marker, CHILD_CPU_MS="20")
    record = play_game(find_game("dots-and-boxes"), [thief, victim], time=TimeControl(time_ms=20000))
    assert record.suspended_cpu_ms[0] > 20, record.suspended_cpu_ms
    thief_moves_cpu = sum(move.cpu_ms for move in record.moves if move.seat == 0)
    assert record.time_used_ms[0] >= record.suspended_cpu_ms[0]
    assert record.time_used_ms[0] > thief_moves_cpu + 10  # wall clock, plus the stolen CPU
    assert not live_marked(marker)


def test_a_zmq_bot_cannot_write_in_its_seat_folder_and_the_game_stands(tmp_path: Path) -> None:
    """5,000 folders nested in a seat folder used to make its removal raise RecursionError and
    end `arbiter run` (and every resume) with an internal error: the folder is now shown
    read-only in the box, so the bot can make nothing there, and its game ends normally."""
    assert support().usable, support().describe()
    marker = new_marker()
    attacker = replace(bot("nest_seat_folder_bot.py", "nester", marker), transport="zmq")
    victim = replace(honest(marker), transport="zmq")
    record = play_game(find_game("limit-nim"), [attacker, victim], time=GAME_TIME, log_dir=tmp_path)
    log = Path(record.logs[0]).read_text(errors="replace")
    assert "ATTACK nest_seat_folder: blocked: stopped after 0 folders: Read-only file system" in log, log[-2000:]
    assert record.termination is Termination.NORMAL, record.detail
    assert live_marked(marker) == []
    assert not list(Path("/tmp").glob("arbiter-seat-*/d"))


def test_a_tree_deeper_than_the_recursion_limit_is_removed_without_following_links(tmp_path: Path) -> None:
    """What the arbiter removes (a seat folder) is removed at any depth (Python 3.11's
    shutil.rmtree raises RecursionError past about 1,000), and a link in it is removed as a
    link: what it leads to is never touched."""
    from arbiter.transport.sandbox import remove_tree
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not yours")
    top = tmp_path / "seat"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    for _ in range(sys.getrecursionlimit() + 200):
        os.mkdir("d", dir_fd=fd)
        os.symlink(str(outside), "link", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.symlink(str(outside / "keep.txt"), "file-link", dir_fd=fd)
    os.close(fd)
    remove_tree(str(top))
    assert not top.exists()
    assert (outside / "keep.txt").read_text() == "not yours"
    link = tmp_path / "just-a-link"
    link.symlink_to(outside)
    remove_tree(str(link))
    assert not link.exists() and outside.is_dir()


def test_a_link_planted_in_a_writable_folder_named_by_the_command_shows_nothing(tmp_path: Path) -> None:
    """`python bot.py cache/book.txt` with `write: cache`: the bot makes cache/book.txt a link
    to another entrant's folder. The next run's box does not follow it (a path inside a
    writable folder is shown by that folder, never resolved), and a link the command names
    outside its writable folders is refused with the config, before the first game."""
    assert support().usable, support().describe()
    mine, bob = tmp_path / "alice", tmp_path / "bob"
    (mine / "cache").mkdir(parents=True)
    bob.mkdir()
    (bob / "bot.py").write_text("SECRET_STRATEGY = 42\n")
    marker = new_marker()  # the book does not exist yet: the bot makes it, as a link
    thief = replace(bot("plant_link_bot.py", "alice", marker, "cache/book.txt", BOOK="cache/book.txt", TARGET=str(bob)),
                    cwd=str(mine), sandbox=SandboxSpec(read=(str(BOTS),), write=(str(mine / "cache"),)))
    logs = []
    for game in range(2):
        sandbox_module._box_view.cache_clear()  # a box's view is worked out once per arbiter process: a new run
        record = play_game(find_game("limit-nim"), [thief, honest(marker)], time=GAME_TIME, log_dir=tmp_path / str(game))
        assert record.termination is Termination.NORMAL, record.detail
        logs.append(Path(record.logs[0]).read_text(errors="replace"))
    assert (mine / "cache" / "book.txt").is_symlink()  # planted in the first game
    assert all("ATTACK plant_link: blocked" in log and "SECRET_STRATEGY" not in log for log in logs), logs
    config = tmp_path / "contest.yaml"
    config.write_text(
        "name: linked\ngame: limit-nim\nplayers:\n"
        f"  - {{name: alice, command: {sys.executable} {BOTS / 'plant_link_bot.py'} cache/book.txt, cwd: {mine},\n"
        f"     sandbox: {{write: [{mine / 'cache'}]}}}}\n"
        f"  - {{name: bob, command: {sys.executable} {bob / 'bot.py'}, cwd: {bob}}}\n")
    config_module_load = load_config(config)  # inside a write folder: shown by the folder, never resolved
    assert config_module_load.players[0].sandbox is not None
    (mine / "book2.txt").symlink_to(bob)
    config.write_text(config.read_text().replace("cache/book.txt,", "book2.txt,"))
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert f"players[0].command: book2.txt is a link to {bob}, in another player's folder" in str(refused.value)


def test_a_shown_path_that_leads_to_the_results_is_refused(tmp_path: Path) -> None:
    """A link (or a read: path) to the results folder or the config is refused, by key."""
    results = tmp_path / "results" / "linked"
    results.mkdir(parents=True)
    (results / "games.jsonl").write_text("")
    bot_dir = tmp_path / "alice"
    bot_dir.mkdir()
    (bot_dir / "book.txt").symlink_to(results / "games.jsonl")
    config = tmp_path / "configs" / "contest.yaml"
    config.parent.mkdir()
    config.write_text(
        f"name: linked\ngame: limit-nim\nresults: {results}\nplayers:\n"
        f"  - {{name: alice, command: {sys.executable} {RANDOM} {bot_dir / 'book.txt'}}}\n"
        f"  - {{name: bob, command: {sys.executable} {RANDOM}, sandbox: {{read: [{config}]}}}}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    text = str(refused.value)
    assert f"players[0].command: {bot_dir / 'book.txt'} is a link to {results / 'games.jsonl'}, which holds {results}" in text
    assert f"players[1].sandbox.read: {config} shows {config}, which holds {config}" in text


@pytest.mark.parametrize("launch", ["helper", "shell and setpriv"])
def test_an_ordinary_user_gets_a_process_cap_and_a_fork_bomb_stops_at_it(launch: str) -> None:
    """Run as an ordinary user (most people's first run) there is no control group to use: the
    box's process cap is RLIMIT_NPROC set inside the box's own user namespace, which counts the
    box's tasks alone, and the run's header says so; whether the launch helper sets it (built
    into the user's cache) or the box's shell does (no cache folder: no helper)."""
    import json
    import pwd
    import subprocess
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root to become another user, and the system's Python")
    import shutil
    import tempfile
    if launch == "helper" and not (shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")):
        pytest.skip("no C compiler: the launch helper cannot be built here")
    user = pwd.getpwnam("nobody")
    logs = Path(tempfile.mkdtemp(prefix="arbiter-nonroot-"))  # pytest's own folders are root's alone
    os.chown(logs, user.pw_uid, user.pw_gid)
    cache = str(logs / "cache") if launch == "helper" else "no/cache"  # a relative one is never used
    # The user runs a copy of the checkout's files: the checkout itself may lie in a folder that
    # only root may enter (root's home, a `mktemp -d`), as CI's and many users' do.
    tree = Path(tempfile.mkdtemp(prefix="arbiter-nonroot-tree-"))
    os.chmod(tree, 0o755)
    for part in ("arbiter", "players", "tests"):
        shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    try:
        done = subprocess.run(["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
                               "/usr/bin/python3", str(tree / "tests" / "nonroot_fork_bomb.py"), str(logs)],
                              capture_output=True, text=True, timeout=120, cwd="/",
                              env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree), "HOME": "/tmp",
                                   "XDG_CACHE_HOME": cache})
    finally:
        shutil.rmtree(logs, ignore_errors=True)
        shutil.rmtree(tree, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    if "NOT sandboxed" in seen["header"]:
        pytest.skip(f"an ordinary user cannot make a box here: {seen['header']}")
    assert seen["helper"] == (launch == "helper")
    assert "processes by RLIMIT_NPROC=128 in the box's own user namespace" in seen["header"]
    assert seen["processes"] == "RLIMIT_NPROC=128 in the box's own user namespace"
    assert seen["termination"] == "normal", seen["detail"]
    (line,) = seen["report"]
    assert line.startswith("ATTACK fork_bomb: blocked: forked "), line
    forked = int(line.split("forked ")[1].split()[0])
    assert 100 <= forked < 128, line  # the bot itself and bubblewrap's init's child count too


@pytest.mark.parametrize("count, size_kb, cap, broken", [
    (20, 1024, {"write_mb": 10}, True),  # 20 MiB in a 10 MiB cap
    (100, 0, {"write_files": 50}, True),  # 100 files where 50 may be
    (20, 100, {"write_mb": 10, "write_files": 50}, False),  # 2 MiB in 20 files: within both
])
def test_a_write_folder_stops_at_its_cap(count: int, size_kb: int, cap: dict, broken: bool, tmp_path: Path) -> None:
    """A `write:` folder holds at most `write_mb` and `write_files` (256 MiB and 10,000 by
    default): a bot that writes more there meets ENOSPC in its box (the kernel holds the cap,
    write_cap.py) and plays on; what it wrote is in the folder after the game, within the cap."""
    assert support().usable, support().describe()
    from arbiter.transport.write_cap import available
    if available() is not None:
        pytest.skip(f"the kernel cannot hold the cap here (checked after each turn instead): {available()}")
    folder = tmp_path / "cache"
    marker = new_marker()
    filler = replace(bot("write_fill_bot.py", "filler", marker, FOLDER=str(folder), COUNT=str(count),
                         SIZE_KB=str(size_kb)),
                     sandbox=SandboxSpec(read=(str(BOTS),), write=(str(folder),), **cap))
    record = play_game(find_game("limit-nim"), [filler, honest(marker)], time=GAME_TIME, log_dir=tmp_path)
    assert record.termination is Termination.NORMAL, record.detail
    said = Path(record.logs[0]).read_text()
    files = list(folder.iterdir())
    if broken:
        assert "ATTACK write_fill: blocked: wrote" in said and "No space left on device" in said, said
        assert sum(f.stat().st_size for f in files) <= cap.get("write_mb", 256) << 20
        assert len(files) <= cap.get("write_files", 10000)
    else:
        assert "ATTACK write_fill: SUCCEEDED: wrote 20 files" in said, said
        assert len(files) == 20  # copied back whole
    assert live_marked(marker) == []


def test_the_write_caps_are_config_keys(tmp_path: Path) -> None:
    config = tmp_path / "contest.yaml"
    config.write_text(
        "name: capped\ngame: limit-nim\nplayers:\n"
        f"  - {{name: a, command: {sys.executable} {RANDOM}, sandbox: {{write: [cache], write_mb: 8, write_files: 99}}}}\n"
        f"  - {{name: b, command: {sys.executable} {RANDOM}, sandbox: {{write: [cache2]}}}}\n")
    a, b = load_config(config).players
    assert (a.sandbox.write_mb, a.sandbox.write_files) == (8, 99)
    assert (b.sandbox.write_mb, b.sandbox.write_files) == (256, 10000)
    config.write_text(config.read_text().replace("write_mb: 8", "write_mb: 0"))
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert "players[0].sandbox.write_mb: 0 is not allowed" in str(refused.value)


def test_a_log_that_cannot_be_written_costs_nothing_but_the_log(tmp_path: Path) -> None:
    """A bot's log that cannot be opened (here its name is taken by a folder) is said in the
    record; the bot's stderr is still read, so a bot that writes a lot there never blocks and
    is never blamed, and the game stands."""
    marker = new_marker()
    chatty = bot("stderr_flood_bot.py", "chatty", marker)
    (tmp_path / "seat0-chatty.log").mkdir()
    record = play_game(find_game("limit-nim"), [chatty, honest(marker)], time=GAME_TIME, log_dir=tmp_path)
    assert record.termination is Termination.NORMAL, record.detail
    assert "the arbiter could not keep seat 0 (chatty)'s log" in record.detail
    assert live_marked(marker) == []


# --- issue 28: a box started ahead of its bot --------------------------------------------

# Answers its first line with its environment and the descriptors it holds beyond the three
# standard ones (those still open once the listing's own is closed).
REPORTER = ("import json, os, sys\nsys.stdin.readline()\nfds = os.listdir('/proc/self/fd')\n"
            "extra = [fd for fd in fds if fd not in ('0', '1', '2') and os.path.exists('/proc/self/fd/' + fd)]\n"
            "print(json.dumps({'env': dict(os.environ), 'fds': extra}), flush=True)\nsys.stdin.readline()\n")


def boxed_report(env: dict[str, str], program: str = REPORTER) -> dict:
    """What a boxed REPORTER bot (or `program`) says about itself, given `env`."""
    import json
    import time
    from arbiter.transport.pipe import launch_pipe_bot
    from arbiter.transport.process import end_all
    channel, process = launch_pipe_bot((sys.executable, "-c", program), env=env, sandbox=SandboxSpec())
    try:
        assert channel.send_lines(["go"], time.monotonic() + 10) is None
        line = channel.read_line(time.monotonic() + 10)
    finally:
        channel.close()
        end_all([process], grace_s=1.0, term_grace_s=0.3)
    assert isinstance(line, str), line
    return json.loads(line)


def test_a_boxed_bot_gets_exactly_its_environment_whatever_the_names_and_values() -> None:
    """The box's script sets the bot's environment, shell-quoted: quotes, newlines, `$` and
    backquotes arrive as given, and nothing of the arbiter's environment does."""
    assert support().usable, support().describe()
    env = {"TRICKY": "it's $HOME\n`id` \"x\"", "SPACED": " a  b ", "EMPTY": ""}
    seen = boxed_report(env)["env"]
    assert {name: seen.get(name) for name in env} == env
    assert set(seen) - set(env) == {"PATH", "HOME", "LANG", "PWD"}, sorted(seen)


def test_each_bot_gets_a_fresh_box_with_its_own_environment(tmp_path: Path) -> None:
    """Each launch of the same command gets a box of its own: the environment of its own game
    (the seed differs), and no file a bot left in its box's /tmp, nor any descriptor, reaches
    the next bot."""
    assert support().usable, support().describe()
    leaver = ("import json, os, sys\nsys.stdin.readline()\nfound = os.path.exists('/tmp/left-behind')\n"
              "open('/tmp/left-behind', 'w').write('x')\n"
              "print(json.dumps({'seed': os.environ.get('ARBITER_SEED'), 'tmp': found}), flush=True)\n")
    seeds = ("1", "2", "3")
    seen = [boxed_report({"ARBITER_SEED": seed}, leaver) for seed in seeds]
    assert seen == [{"seed": seed, "tmp": False} for seed in seeds]  # (a checkout under /tmp shows there)


def _zombie_children() -> set[int]:
    """This process's (the arbiter's) children that have ended and are not reaped."""
    from arbiter.transport.procfs import children, stat_fields
    return {pid for pid in children(os.getpid()) if (stat_fields(pid) or [b""])[0] == b"Z"}


def _group_members(box: sandbox_module.Box) -> list[int]:
    """Every process still in one of the box's control groups."""
    members: list[int] = []
    for folder in set(box.groups.folders.values()):
        procs = Path(folder, "cgroup.procs")
        members += [int(pid) for pid in procs.read_text().split()] if procs.exists() else []
    return members


@pytest.mark.parametrize("script", ["exit 3", "kill -SEGV $$", "sleep 60 & sleep 60 & exit 0"])
def test_a_bot_that_ends_at_once_leaves_no_zombie_and_nothing_in_its_box(script: str) -> None:
    """A bot that ends before anything looked at its box (a crash at its first instruction, a
    hostile one that forks and exits) leaves the arbiter no zombie: the box's keeper reaps the
    box's init and everything else, and ends with the bot's status once nothing is left."""
    from arbiter.transport.process import BotProcess
    assert support().usable, support().describe()
    before = _zombie_children()
    for _ in range(3):
        process, stdin_fd, stdout_fd = BotProcess.launch(["/bin/sh", "-c", script], sandbox=SandboxSpec())
        os.close(stdin_fd)
        os.close(stdout_fd)
        status = process.wait_exit(10.0)
        assert status == {"exit 3": 3, "kill -SEGV $$": -11}.get(script, 0)
        assert process.box is not None and _group_members(process.box) == []  # the keeper ends with its box
        process.close()
        assert _zombie_children() - before == set()


def test_a_killed_box_leaves_nothing() -> None:
    """Killing a box whose bot forked and left its session ends every process in it, the
    keeper reaps them and ends, and its control groups are removed: no process, zombie or
    group is left."""
    import time
    from arbiter.transport.process import BotProcess
    assert support().usable, support().describe()
    before = _zombie_children()
    process, stdin_fd, stdout_fd = BotProcess.launch(
        ["/bin/sh", "-c", "setsid sleep 60 & sleep 60 & echo started; exec cat"], sandbox=SandboxSpec())
    with os.fdopen(stdout_fd, "rb") as out:
        assert out.readline() == b"started\n"
        box = process.box
        assert box is not None
        deadline = time.monotonic() + 10
        while len(_group_members(box)) < 5 and time.monotonic() < deadline:  # bubblewrap's two, sh's three
            time.sleep(0.01)
        assert len(_group_members(box)) >= 5
        folders = set(box.groups.folders.values())
        process.kill_tree()
    os.close(stdin_fd)
    assert process.exit_status() is not None
    assert not any(os.path.exists(folder) for folder in folders)
    assert _zombie_children() - before == set()


def test_the_keeper_stays_outside_its_box_never_frozen_and_the_bot_is_born_in_every_group() -> None:
    """The keeper starts bubblewrap already in the box's control groups (clone3 into the v2
    group, `tasks` in each v1 one): the bot's own process is in every group of the box from
    its start, and the keeper in none, so a frozen box never freezes its keeper and the box's
    CPU time is the bot's alone."""
    import time
    from arbiter.transport.pipe import launch_pipe_bot
    from arbiter.transport.process import end_all
    assert support().usable, support().describe()
    channel, process = launch_pipe_bot(["/bin/cat"], sandbox=SandboxSpec())
    try:
        assert channel.send_lines(["x"], time.monotonic() + 10) is None
        assert channel.read_line(time.monotonic() + 10) == "x"
        box = process.box
        assert box is not None
        bot = box.bot_pid()
        assert bot is not None and process.pid in box.keepers()
        folders = set(box.groups.folders.values())  # one a hierarchy, all of one name
        name = Path(next(iter(folders))).name
        bot_groups = Path(f"/proc/{bot}/cgroup").read_text().splitlines()
        assert len([line for line in bot_groups if line.endswith("/" + name)]) == len(folders), (folders, bot_groups)
        assert name not in Path(f"/proc/{process.pid}/cgroup").read_text()
        if box.freezes:
            box.suspend()
            time.sleep(0.05)  # what is frozen shows in the state within microseconds; the keeper must not be
            try:
                assert Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "S"
                assert name not in Path(f"/proc/{process.pid}/cgroup").read_text()
            finally:
                box.resume()
            assert channel.send_lines(["y"], time.monotonic() + 10) is None
            assert channel.read_line(time.monotonic() + 10) == "y"
    finally:
        channel.close()
        end_all([process], grace_s=1.0, term_grace_s=0.3)


def test_a_boxed_bot_holds_no_descriptor_but_its_standard_three() -> None:
    """Neither the keeper's report pipe nor any other descriptor of the arbiter reaches the bot."""
    assert support().usable, support().describe()
    assert boxed_report({})["fds"] == []


def test_a_box_is_made_with_what_the_machine_offers_as_known_at_its_launch(monkeypatch) -> None:
    """A launch once the machine's settings have changed (here: no freezer, as the stop-walk
    tests make it) gets a box made as they say."""
    import time
    from arbiter.transport.pipe import launch_pipe_bot
    from arbiter.transport.process import end_all
    if support().freezer is None:
        pytest.skip("no freezer control group here")
    for settings in (support(), replace(support(), freezer=None)):
        monkeypatch.setattr(sandbox_module, "_SUPPORT", settings)
        channel, process = launch_pipe_bot(["/bin/cat"], sandbox=SandboxSpec())
        try:
            assert process.box.freezes == (settings.freezer is not None)
            assert channel.send_lines(["x"], time.monotonic() + 10) is None
            assert channel.read_line(time.monotonic() + 10) == "x"
        finally:
            channel.close()
            end_all([process], grace_s=1.0, term_grace_s=0.3)


# Starts 40 processes that spin, says so, and spins too.
SPINNERS = ("import os, sys\nfor _ in range(40):\n    if os.fork() == 0:\n        while True:\n            pass\n"
            "print('spinning', flush=True)\nwhile True:\n    pass\n")


def test_a_starting_bot_that_spins_40_processes_takes_no_more_than_its_cpu_cap() -> None:
    """A box's processes together use at most `cpu_cores` CPUs at once (cgroup CPU bandwidth),
    from the box's first instruction: a bot that spins 40 processes while it starts (off its
    own clock) cannot take CPU from the other games' clocks. Measured as the box's CPU time
    over a window of wall time; a busy machine only lowers what it gets."""
    import time
    from arbiter.transport.process import BotProcess
    if not support().usable or support().cpu_cap is None:
        pytest.skip("no box, or no CPU bandwidth control group, on this machine")
    process, stdin_fd, stdout_fd = BotProcess.launch([sys.executable, "-c", SPINNERS],
                                                     sandbox=SandboxSpec(cpu_cores=0.25))
    try:
        with os.fdopen(stdout_fd, "rb") as out:
            assert out.readline() == b"spinning\n"
            cpu_before, wall_before = process.cpu_ms(), time.monotonic()
            time.sleep(1.0)  # the window: nothing to await, the spinners never stop
            cpu_ms, wall_ms = process.cpu_ms() - cpu_before, (time.monotonic() - wall_before) * 1000
    finally:
        process.kill_tree()
        os.close(stdin_fd)
    assert cpu_ms <= 0.25 * wall_ms * 1.6, (cpu_ms, wall_ms)  # uncapped, 40 spinners take near every core


def test_cpu_cores_is_a_config_key_with_a_default_of_one_core(tmp_path: Path) -> None:
    """`sandbox: {cpu_cores: N}` per player, one core by default; a value below 0.1 is refused naming the key."""
    body = (f"name: t\ngame: limit-nim\nplayers:\n"
            f"  - {{name: a, command: [{sys.executable}, {ROOT / 'players' / 'random_bot.py'}], "
            f"sandbox: {{cpu_cores: 0.5}}}}\n"
            f"  - {{name: b, command: [{sys.executable}, {ROOT / 'players' / 'random_bot.py'}]}}\n")
    (tmp_path / "t.yaml").write_text(body)
    config = load_config(tmp_path / "t.yaml")
    if support().usable:
        assert [p.sandbox.cpu_cores for p in config.players] == [0.5, 1.0]
    (tmp_path / "bad.yaml").write_text(body.replace("cpu_cores: 0.5", "cpu_cores: 0"))
    with pytest.raises(ConfigError, match="cpu_cores"):
        load_config(tmp_path / "bad.yaml")


def test_the_limits_table_is_the_one_docs_security_shows() -> None:
    """Each limit is described the same way in the code, the records and the docs: the table
    of limits (`LIMITS`) is printed in docs/security.md, and the records say each limit as it does."""
    from arbiter.transport.sandbox import LIMITS, limits_table
    assert limits_table() in (ROOT / "docs" / "security.md").read_text()
    if support().usable:
        enforced = support().enforced()
        assert all(enforced[limit.name] == (limit.how(support()) or False) for limit in LIMITS)
