"""Games in worker processes (arbiter/tournament/workers.py): whatever one game's rules do to
the process playing it (raise, hang holding Python's lock, segfault, use up the descriptors
or the memory) costs that game alone, recorded as void with its reason, and the tournament
goes on."""
from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from arbiter.games import find_game
from arbiter.records import Termination
from arbiter.tournament import workers
from arbiter.tournament.config import load_config
from arbiter.tournament.pool import GameSetup
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import run_tournament
from arbiter.tournament.turn_news import TurnNews, TurnReporter
from arbiter.referee import PlayerSpec, TimeControl
from referee_support import MARK, StderrRead, live_marked, new_marker

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
RANDOM = ROOT / "players" / "random_bot.py"

# What each failure's void record says (the worker's sentence; or, where the referee turns
# an exception from the rules into a void record itself, the exception's own words).
REASONS = {
    "raise": r"RulesFailed: the rules failed on purpose",
    "hang": r"the worker playing this game did not finish within \d+ s",
    "segfault": r"the worker playing this game was killed by SIGSEGV",
    "descriptors": r"ran out of descriptors|Too many open files",
    "memory": r"ran out of memory|MemoryError",
}


def live_workers() -> list[int]:
    """The pids of the workers (children of this process's zygote) that still run."""
    zygote = workers.zygote_pid()
    found = []
    for name in os.listdir("/proc") if zygote is not None else ():
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # not a process, or gone meanwhile
        if int(fields[1]) == zygote and fields[0] != "Z":
            found.append(int(name))
    return found


def write_config(tmp_path: Path, failure: str, marker: str, *, games: int = 4, concurrency: int = 2) -> Path:
    config = tmp_path / "failing.yaml"
    player = (f"{{command: python {RANDOM}, env: {{PYTHONPATH: '{TESTS}', {MARK}: {marker}}}}}")
    config.write_text(
        f"name: failing\nresults: {tmp_path / 'results'}\ngame: failing_games:FailingNim\n"
        f"params: {{failure: {failure}, marker: '{tmp_path / 'failed-once'}'}}\n"
        f"games_per_pairing: {games}\nconcurrency: {concurrency}\nsandbox: off\n"
        "time: {time_ms: 1000, startup_ms: 2000}\n"
        f"players:\n  - {{name: a, {player[1:]}\n  - {{name: b, {player[1:]}\n")
    return config


@pytest.mark.parametrize("failure", sorted(REASONS))
def test_a_game_whose_rules_fail_costs_that_game_only_recorded_void(tmp_path: Path, failure: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "HANG_MARGIN_S", 0.5)  # the hung game's deadline: its clocks and 0.5 s
    marker = new_marker()
    # A hung game's worker spins a core until its deadline; beside it, on two shared cores, a
    # game's bot on a wall clock may be starved out of its time (docs/architecture.md, Where games
    # run): the hung game is played alone, so the others' results are the rules' and bots' own.
    config = load_config(write_config(tmp_path, failure, marker, concurrency=1 if failure == "hang" else 2))
    stream = io.StringIO()
    outcome = run_tournament(config, Progress(stream, tty=False))
    records = outcome.records
    assert len(records) == 4 == outcome.played_now
    void = [r for r in records if r.termination is Termination.VOID]
    assert len(void) == 1, [(r.termination, r.detail) for r in records]
    assert re.search(REASONS[failure], void[0].detail), void[0].detail
    assert void[0].winner is None and void[0].offender is None and void[0].places is None and void[0].points is None
    assert all(r.termination is Termination.NORMAL for r in records if r is not void[0]), \
        [(r.termination, r.detail) for r in records]
    assert live_marked(marker) == []  # every bot of the failed game ended with its worker
    assert live_workers() == []  # and every worker with the run
    lines = [json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]
    assert [line["termination"] for line in lines].count("void") == 1
    again = run_tournament(config, Progress(io.StringIO(), tty=False))  # a resume replays nothing
    assert again.played_now == 0 and len(again.records) == 4


def test_the_deadline_is_every_seats_startup_and_clock_and_graces_and_the_margin() -> None:
    wall = PlayerSpec("a", ("x",), time=TimeControl(time_ms=2000, startup_ms=1000))
    cpu = PlayerSpec("b", ("x",), time=TimeControl(time_ms=2000, startup_ms=1000, clock="cpu"))
    setup = GameSetup(players=(wall, cpu), time=TimeControl(), opening=(), log_prefix="", chance_seed=1)
    graces = 2 * (workers.QUIT_GRACE_S + workers.TERM_GRACE_S)
    expected = (1 + 2 + 1 + 2 * workers.CPU_CLOCK_WALL_FACTOR + graces) * workers.HANG_SHARE + workers.HANG_MARGIN_S
    assert workers.game_deadline_s(setup) == pytest.approx(expected)


@pytest.mark.parametrize("presses", [1, 3])
def test_ctrl_c_stops_a_run_whose_game_hangs_holding_pythons_lock_while_the_live_page_answers(tmp_path: Path,
                                                                                            presses: int) -> None:
    marker = new_marker()
    config = write_config(tmp_path, "hang", marker, games=2, concurrency=1)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    run = subprocess.Popen([sys.executable, "-m", "arbiter", "run", str(config), "--serve"], cwd=tmp_path, env=env,
                           stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    with StderrRead(run) as read:
        deadline = time.monotonic() + 60
        while not (tmp_path / "failed-once").exists() and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.05)
        assert (tmp_path / "failed-once").exists(), read.text
        url = next(re.search(r"http://\S+", line)[0] for line in read.lines if "live page:" in line)
        with urllib.request.urlopen(url, timeout=10) as page:  # while the game's rules hang in its worker
            assert page.status == 200
        for _ in range(presses):  # three within 100 ms: each later one lands in the stopping
            run.send_signal(signal.SIGINT)
            time.sleep(0.03)
        assert run.wait(timeout=30) == 130
    err = read.text
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert ("stopped:" in err) if presses == 1 else ("stopped:" in err or "arbiter run: interrupted" in err), err
    assert live_marked(marker) == []


class Watch:
    """A GameWatch that keeps what its games' workers told of each game, by game id."""

    def __init__(self) -> None:
        self.news: dict[str, list[TurnNews]] = {}
        self.left: list[str] = []

    def game_started(self, scheduled, game, clocks):  # type: ignore[no-untyped-def]
        return self.news.setdefault(scheduled.id, []).append

    def game_left(self, game_id: str) -> None:
        self.left.append(game_id)


def test_the_moves_of_a_watched_game_come_from_its_worker_turn_by_turn(tmp_path: Path) -> None:
    config_path = tmp_path / "watched.yaml"
    config_path.write_text(
        f"name: watched\nresults: {tmp_path / 'results'}\ngame: limit-nim\ngames_per_pairing: 2\nconcurrency: 2\n"
        "openings: {random_moves: 1, seed: 3}\n"
        f"sandbox: off\nplayers:\n  - {{name: a, command: python {RANDOM}}}\n  - {{name: b, command: python {RANDOM}}}\n")
    watch = Watch()
    records = run_tournament(load_config(config_path), Progress(io.StringIO(), tty=False), watch=watch).records
    for record in records:
        # The opening as the game starts, then each turn: every move's seat and text as recorded,
        # the scores and who is to move, until the last news says the game is over.
        opening, *turns = watch.news[record.id]
        assert opening.forced and not any(news.forced for news in turns)
        told = [move for news in (opening, *turns) for move in news.moves]
        assert told == [(m.seat, m.move) for m in record.moves] and len(opening.moves) == 1
        assert turns[-1].over and list(turns[-1].scores) == record.scores
        assert all(not news.over for news in turns[:-1])
    assert sorted(watch.left) == sorted(r.id for r in records)


def test_news_whose_rules_fail_end_the_news_and_never_the_game() -> None:
    game = find_game("limit-nim", piles="3/2,3/2")
    told: list[tuple[object, ...]] = []
    state = game.new_state()
    state.play("1 1")  # the opening, as the referee's state holds it
    report = TurnReporter(lambda *news: told.append(news), game, ["1 1"])
    state.play("2 2")
    report(state)
    assert told == [(((0, "1 1"),), (0, 0), 1, True), (((1, "2 2"),), (0, 0), 0)]
    state.history.append((5, 1))  # a move its copy refuses, as rules that raise there would
    report(state)  # nothing raised: the game goes on without its news
    state.play("1 2")
    report(state)
    assert len(told) == 2


def test_workers_play_for_an_arbiter_whose_main_module_is_its_standard_input(tmp_path: Path) -> None:
    # A worker needs none of the main module of the process that started it: one read from
    # standard input (`python -`) cannot be found again, and must not fail every game.
    config = tmp_path / "stdin.yaml"
    config.write_text(
        f"name: stdin\nresults: {tmp_path / 'results'}\ngame: limit-nim\ngames_per_pairing: 2\nconcurrency: 2\n"
        f"sandbox: off\nplayers:\n  - {{name: a, command: python {RANDOM}}}\n  - {{name: b, command: python {RANDOM}}}\n")
    code = ("import io\nfrom arbiter.tournament.config import load_config\n"
            "from arbiter.tournament.progress import Progress\nfrom arbiter.tournament.runner import run_tournament\n"
            f"records = run_tournament(load_config({str(config)!r}), Progress(io.StringIO(), tty=False)).records\n"
            "print(sorted({r.termination.value for r in records}), len(records))\n")
    done = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "['normal'] 2", done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
