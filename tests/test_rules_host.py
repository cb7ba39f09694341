"""The rules host (arbiter/tournament/rules_host.py): rules that are not the arbiter's own
run in a child process, whose crash, abort or hang is a RulesFailed sentence, never the
arbiter's end; the host is replaced after a failure and after its share of calls, and none
outlives the arbiter."""
from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.tournament.rules_host import RULES_HOST_MEMORY_MB, RulesFailed, RulesHost, hosted

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def host():
    made = RulesHost()
    yield made
    made.close()


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_arbiters_own_games_run_in_process_and_the_others_in_the_host():
    """The one predicate every caller asks."""
    assert not hosted("limit-nim") and not hosted("triangle-war") and not hosted("dots-and-triangles")
    assert hosted("openspiel:hex") and hosted("failing_games:FailingNim")


def test_a_call_returns_what_the_function_returns(host):
    assert host.call("host_calls:echo", {"moves": ["a1", "b2"]}, game="g", doing="echoing") == {"moves": ["a1", "b2"]}
    assert host.started == 1


def test_an_exception_is_the_rules_failure_at_once(host):
    with pytest.raises(RulesFailed, match=r"^the rules of openspiel:quoridor raised RuntimeError: the rules failed "
                                          r"on purpose \(move.cc:623 .*\) replaying game 0042$"):
        host.call("host_calls:raises", game="openspiel:quoridor", doing="replaying game 0042")
    assert host.started == 1  # a Python exception is the same in a fresh host: no second try
    assert host.call("host_calls:echo", 7, game="g", doing="echoing") == 7


@pytest.mark.parametrize("function, signal_name", [("segfault", "SIGSEGV"), ("abort", "SIGABRT")])
def test_a_crash_is_tried_again_in_a_fresh_host_then_said(host, function, signal_name):
    with pytest.raises(RulesFailed, match=rf"^the rules of openspiel:hex crashed \({signal_name}\) replaying game "
                                          r"0042, and again in a fresh process$"):
        host.call(f"host_calls:{function}", game="openspiel:hex", doing="replaying game 0042")
    assert host.started == 2
    first = host.call("host_calls:pid_of_host", game="g", doing="asking")  # a third host, answering
    assert host.started == 3 and alive(first)


def test_a_crash_from_earlier_damage_is_not_this_calls(host, tmp_path):
    assert host.call("host_calls:crash_once", str(tmp_path / "marker"), game="g", doing="replaying") == "fine"
    assert host.started == 2


def test_rules_that_grow_past_the_hosts_memory_cap_fail_and_the_host_goes_on(host):
    assert host.call("host_calls:grow", 64, game="g", doing="drawing") == 64 << 20
    with pytest.raises(RulesFailed, match=r"the rules of openspiel:go raised MemoryError.* replaying game 7"):
        host.call("host_calls:grow", RULES_HOST_MEMORY_MB + 512, game="openspiel:go", doing="replaying game 7")
    assert host.call("host_calls:echo", 1, game="g", doing="echoing") == 1


def test_a_hung_host_is_killed_and_said(host):
    first = host.call("host_calls:pid_of_host", game="g", doing="asking")
    with pytest.raises(RulesFailed, match=r"^the rules of openspiel:quoridor did not answer within 1 s \(hung\) "
                                          r"listing the legal moves, and again in a fresh process$"):
        host.call("host_calls:hang", game="openspiel:quoridor", doing="listing the legal moves", deadline_s=1.0)
    assert not alive(first)
    second = host.call("host_calls:pid_of_host", game="g", doing="asking")
    assert second != first and alive(second)


def test_the_host_is_replaced_after_its_share_of_calls():
    host = RulesHost(recycle_after=3)
    try:
        pids = [host.call("host_calls:pid_of_host", game="g", doing="asking") for _ in range(7)]
    finally:
        host.close()
    assert pids[:3] == [pids[0]] * 3 and pids[3:6] == [pids[3]] * 3 and len(set(pids)) == 3
    assert host.started == 3 and not any(alive(pid) for pid in set(pids))


@pytest.mark.parametrize("how", ["exits", "is killed", "is killed while the host hangs"])
def test_no_host_outlives_the_arbiter(tmp_path, how):
    """The arbiter's process exits normally (the host reads the end of its socket), or is
    killed with SIGKILL, even while the host hangs in native code holding Python's lock (the
    guardian kills it)."""
    hang = how.endswith("hangs")
    code = f"""
import os, sys, threading
sys.path.insert(0, {str(TESTS)!r})
from arbiter.tournament.rules_host import RULES_HOST
print(RULES_HOST.call("host_calls:pid_of_host", game="g", doing="asking"), flush=True)
if {hang!r}:
    threading.Thread(target=RULES_HOST.call, args=("host_calls:hang",), kwargs=dict(game="g", doing="hanging"),
                     daemon=True).start()
if {how!r} != "exits":
    sys.stdin.read()
"""
    arbiter = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    host_pid = int(arbiter.stdout.readline())
    host = os.pidfd_open(host_pid)  # readable once it has ended (it is no child of ours)
    try:
        assert alive(host_pid)
        if how != "exits":
            arbiter.kill()
        arbiter.wait(60)
        # It goes by itself (its socket's end) or by the guardian's kill: awaited, with a generous bound.
        assert select.select([host], [], [], 30)[0] == [host]
    finally:
        os.close(host)


# ---- the arbiter's readers, with rules that crash on its side (tests/hosted_failures.py) -------

RANDOM = TESTS.parent / "players" / "random_bot.py"


def arbiter(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The arbiter as a user runs it, with tests/ on PYTHONPATH (its test games' modules)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "arbiter", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def crashing_config(tmp_path: Path, params: str, *, games: int = 2, openings: str = "") -> Path:
    player = f"command: python {RANDOM}, env: {{PYTHONPATH: '{TESTS}'}}"
    config = tmp_path / "crashing.yaml"
    config.write_text(f"""name: crashing
game: hosted_failures:CrashingNim
params: {{{params}}}
games_per_pairing: {games}
concurrency: 1
results: results
sandbox: off
time: {{time_ms: 10000}}
{openings}players:
  - {{name: a, {player}}}
  - {{name: b, {player}}}
""")
    return config


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


NOT_REPLAYED = (r"game (001|002)-[ab]-[ab] was accepted without its tamper check: the rules of "
                r"hosted_failures:CrashingNim crashed \(SIGABRT\) replaying game \S+, and again in a fresh process")


def test_records_whose_replay_crashes_the_rules_are_accepted_unverified_by_a_resume_and_a_report(tmp_path):
    """Each game's rules abort at its last move, on the arbiter's side alone: the run ends with
    its report, a resume that replays every record completes and says which it did not replay,
    and so does `arbiter report --audit`. (On the code before the host, the arbiter died.)"""
    config = crashing_config(tmp_path, "piles: '3/1', failure: abort, at: 3")
    done = arbiter("run", str(config), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = tmp_path / "results"
    assert [r["termination"] for r in records(results)] == ["normal", "normal"]
    (results / "checkpoint.json").unlink(missing_ok=True)  # the resume replays every record
    resumed = arbiter("run", str(config), "--quiet", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert len(re.findall(NOT_REPLAYED, resumed.stderr)) >= 2, resumed.stderr
    audited = arbiter("report", "--audit", str(results), cwd=tmp_path)
    assert audited.returncode == 0, audited.stderr
    assert len(re.findall(NOT_REPLAYED, audited.stderr)) == 2, audited.stderr
    assert "a" in audited.stdout and "b" in audited.stdout  # the standings


def test_a_tampered_record_of_hosted_rules_is_still_refused(tmp_path):
    """The host replays as the arbiter did: a result changed by hand is caught."""
    config = crashing_config(tmp_path, "piles: '3/1', failure: abort, at: 99")
    assert arbiter("run", str(config), "--quiet", cwd=tmp_path).returncode == 0
    results = tmp_path / "results"
    lines = records(results)
    lines[0]["winner"] = 1 - lines[0]["winner"]
    (results / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (results / "checkpoint.json").unlink(missing_ok=True)
    refused = arbiter("report", str(results), cwd=tmp_path)
    assert refused.returncode == 2 and "the recorded result contradicts its moves" in refused.stderr


def test_a_report_whose_pictures_crash_the_rules_is_written_whole(tmp_path):
    config = crashing_config(tmp_path, "piles: '3/1', failure: segfault, at: 2")
    assert arbiter("run", str(config), "--quiet", cwd=tmp_path).returncode == 0
    results = tmp_path / "results"
    written = arbiter("report", "--html", str(results), cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    games = "".join(path.read_text() for path in (results / "report-games").glob("*/games-*.js"))
    assert games.count("No pictures of this game's positions: the rules of hosted_failures:CrashingNim crashed "
                       "(SIGSEGV) drawing the positions of game 00") == 2, games


def test_an_opening_the_rules_crash_on_voids_its_games_and_the_run_goes_on(tmp_path):
    """Random opening 2 (seed 2) is `2 1`, which the rules abort on: its rotation's two games are
    void with the reason, the other openings' four games are played."""
    config = crashing_config(tmp_path, "piles: '3/2,3/2', failure: abort, at: 1, move: '2 1'", games=6,
                             openings="openings: {random_moves: 1, seed: 2}\n")
    done = arbiter("run", str(config), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    played = {r["id"]: r for r in records(tmp_path / "results")}
    assert len(played) == 6
    void = {game_id: r for game_id, r in played.items() if r["termination"] == "void"}
    assert sorted(void) == ["003-a-b", "003-b-a"]
    assert all(re.fullmatch(r"the rules of hosted_failures:CrashingNim crashed \(SIGABRT\) drawing random opening 2, "
                            r"and again in a fresh process: the games of this opening were not played", r["detail"])
               for r in void.values())
    assert all(r["opening"] != ["2 1"] for r in played.values())
    again = arbiter("run", str(config), "--quiet", cwd=tmp_path)  # a resume plays nothing again
    assert again.returncode == 0 and len(records(tmp_path / "results")) == 6


def test_an_opening_0_the_rules_crash_on_is_a_config_error(tmp_path):
    config = crashing_config(tmp_path, "piles: '3/2,3/2', failure: abort, at: 1, move: '2 2'", games=2,
                             openings="openings: {random_moves: 1, seed: 2}\n")
    refused = arbiter("run", str(config), cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert re.search(r"openings\.random_moves.*1 is not allowed: the rules of hosted_failures:CrashingNim crashed "
                     r"\(SIGABRT\) drawing random opening 0, and again in a fresh process; these rules cannot draw "
                     r"random openings", refused.stderr), refused.stderr
    assert "Traceback" not in refused.stderr


def test_an_openings_file_is_played_in_the_host(tmp_path):
    """Its lines are checked by the rules there: a move they refuse is named by its line, and
    a line they crash on is a clean config error."""
    (tmp_path / "openings.txt").write_text("1 1\n9 9\n2 1\n")
    config = crashing_config(tmp_path, "piles: '3/2,3/2', failure: abort, at: 1, move: '2 1'", games=2,
                             openings="openings: {file: openings.txt}\n")
    refused = arbiter("run", str(config), cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert re.search(r"openings\.file.*openings\.txt: the rules of hosted_failures:CrashingNim crashed \(SIGABRT\) "
                     r"playing the openings of the file, and again in a fresh process; these rules cannot play its "
                     r"openings", refused.stderr), refused.stderr
    (tmp_path / "openings.txt").write_text("1 1\n9 9\n")
    refused = arbiter("run", str(config), cwd=tmp_path)
    assert refused.returncode == 2 and re.search(r"openings\.txt:2: .*9 9", refused.stderr), refused.stderr


def test_a_call_interrupted_by_ctrl_c_ends_its_host(host):
    """Its answer, were it to come, must not be taken for the next call's."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    first = host.call("host_calls:pid_of_host", game="g", doing="asking")
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            host.call("host_calls:hang", game="g", doing="hanging")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not alive(first)
    assert host.call("host_calls:echo", 5, game="g", doing="echoing") == 5 and host.started == 2


def test_a_hosted_random_opening_is_the_one_drawn_in_process():
    """Openings stay reproducible: the host draws the very opening this process would."""
    pytest.importorskip("pyspiel")
    from arbiter.games import find_game
    from arbiter.tournament.plan import make_opening, random_opening

    game = find_game("openspiel:connect_four", rows=5)
    assert [random_opening(game, 4, 7, k) for k in range(5)] == [make_opening(game, 4, 7, k) for k in range(5)]


def test_the_records_not_replayed_are_named_up_to_ten_then_counted(monkeypatch):
    from arbiter.records import GameRecord, Termination
    from arbiter.tournament import audit

    def failing(*args, **kwargs):
        raise RulesFailed("the rules of openspiel:hex crashed (SIGABRT) replaying it, and again in a fresh process")

    said: list[str] = []
    check = audit.RecordAudit(note=said.append)
    monkeypatch.setattr(audit.RULES_HOST, "call", failing)
    record = GameRecord(game="openspiel:hex", params={}, players=[], moves=[], scores=[0, 0], winner=None,
                        termination=Termination.NORMAL, offender=None, detail="", started_at="", duration_s=0.0,
                        logs=[])
    assert [check(replace(record, id=f"{n:03d}")) for n in range(12)] == [None] * 12
    check.said_in_all()
    assert len(said) == 11 and said[0].startswith("game 000 was accepted without its tamper check: the rules of")
    assert said[9].endswith("(further records not replayed are not listed one by one)")
    assert said[10] == "12 records in all were accepted without their tamper check"
