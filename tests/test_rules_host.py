"""The rules host (arbiter/tournament/rules_host.py): rules that are not the arbiter's own
run in a child process, whose crash, abort or hang is a RulesFailed sentence, never the
arbiter's end; the host is replaced after a failure and after its share of calls, and none
outlives the arbiter."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arbiter.tournament.rules_host import RULES_HOST, RulesFailed, RulesHost, hosted, run_rules

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
    assert not hosted("limit-nim") and not hosted("triangle-war") and not hosted("dots-and-triangles")
    assert hosted("openspiel:hex") and hosted("failing_games:FailingNim")
    assert run_rules(os.getpid, game="limit-nim", doing="asking") == os.getpid()
    from host_calls import pid_of_host
    try:
        assert run_rules(pid_of_host, game="openspiel:tic_tac_toe", doing="asking") == RULES_HOST.pid != os.getpid()
    finally:
        RULES_HOST.close()


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
    assert alive(host_pid)
    if how != "exits":
        arbiter.kill()
    arbiter.wait(60)
    # The host is no child of ours: it goes by itself (its socket's end) or by the guardian's kill.
    give_up = time.monotonic() + 30
    while alive(host_pid) and time.monotonic() < give_up:
        time.sleep(0.05)  # nothing of ours to wait on: polled, with a generous bound
    assert not alive(host_pid)
