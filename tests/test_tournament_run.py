"""Running tournaments: records on disk, resume after a stop equals an uninterrupted run."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.records import GameRecord
from arbiter.reports.results import report_results
from arbiter.tournament.config import load_config
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import Interrupted, TournamentRunner, prepare_results
from arbiter.tournament.store import hold_results_folder
from arbiter.errors import UsageError

from tournament_helpers import StopAfter, fake_play, write_config

BODY = """game: dots-and-triangles
games_per_pairing: 4
openings: {random_moves: 2, seed: 3}
concurrency: 2
players:
  - {name: a, command: "true"}
  - {name: b, command: "true"}
  - {name: c, command: "true"}
"""


def run(config_path: Path, progress: Progress | None = None, *, fresh: bool = False):
    config = load_config(config_path)
    store = prepare_results(config, fresh=fresh)
    runner = TournamentRunner(config, store, progress or Progress(quiet=True, tty=False), play=fake_play)
    return runner.run()


def comparable(records):
    return sorted((r.id, tuple(r.scores), r.winner, tuple(r.opening)) for r in records)


def test_every_game_is_recorded_once(tmp_path: Path) -> None:
    outcome = run(write_config(tmp_path, BODY))
    lines = (tmp_path / "results" / "games.jsonl").read_text().splitlines()
    assert outcome.played_now == outcome.planned == len(lines) == 12
    records = [json.loads(line) for line in lines]
    assert len({r["id"] for r in records}) == 12
    assert all(r["names"] == [p["name"] for p in r["players"]] for r in records)
    assert all(m["forced"] for r in records for m in r["moves"][:2])


def test_resume_after_a_stop_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    whole = run(write_config(tmp_path / "x", BODY))
    stopped_dir = tmp_path / "y"
    stopped_dir.mkdir()
    path = write_config(stopped_dir, BODY)
    with pytest.raises(Interrupted):
        run(path, StopAfter(5))
    on_disk = (stopped_dir / "results" / "games.jsonl").read_text().splitlines()
    assert len(on_disk) == 5
    resumed = run(path)
    assert resumed.played_now == 7
    assert comparable(resumed.records) == comparable(whole.records)
    assert len((stopped_dir / "results" / "games.jsonl").read_text().splitlines()) == 12


def test_torn_last_line_is_ignored_and_replayed(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY)
    whole = run(path)
    games = tmp_path / "results" / "games.jsonl"
    lines = games.read_bytes().splitlines(keepends=True)
    games.write_bytes(b"".join(lines[:-1]) + lines[-1][:40])  # power cut in the middle of a write
    resumed = run(path)
    assert resumed.played_now == 1
    assert comparable(resumed.records) == comparable(whole.records)
    assert all(json.loads(line) for line in games.read_text().splitlines())


def test_a_folder_of_records_from_before_the_schema_resumes_and_reports_as_it_was(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY)
    whole = run(path)
    before = report_results(tmp_path / "results")
    games = tmp_path / "results" / "games.jsonl"
    # As an older arbiter wrote them: no schema, and none of the fields kept since.
    later = {"schema", "places", "seed", "time_used_ms", "time_controls", "startup_ms", "sandboxed",
             "suspended_cpu_ms", "chance_seed", "pids", "game_of_process", "arbiter_version"}
    old = []
    for line in games.read_text().splitlines():
        record = {key: value for key, value in json.loads(line).items() if key not in later}
        record["players"] = [{"name": p["name"], "command": p["command"]} for p in record["players"]]
        old.append(json.dumps(record) + "\n")
    games.write_text("".join(old))
    (tmp_path / "results" / "checkpoint.json").unlink()  # an older arbiter wrote none
    resumed = run(path)
    assert resumed.played_now == 0 and comparable(resumed.records) == comparable(whole.records)
    assert games.read_text() == "".join(old)  # read, never rewritten
    after = report_results(tmp_path / "results")
    assert after.splitlines()[:-1] == before.splitlines()[:-1]  # the same standings and crosstable
    assert after.splitlines()[-1] == ("Sandbox: 12 of 12 games do not say whether their bots were sandboxed "
                                      "(recorded by an older arbiter)")


def test_a_changed_schedule_is_refused_with_a_way_out(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY)
    run(path)
    path.write_text(path.read_text().replace("games_per_pairing: 4", "games_per_pairing: 6"))
    with pytest.raises(UsageError, match=r"changed: games_per_pairing 4 -> 6\).*--fresh to start over "
                                         r"\(its 12 recorded games are moved to a dated backup folder"):
        run(path)
    assert run(path, fresh=True).played_now == 18


def test_report_from_records_matches_the_run(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY)
    run(path)
    folder = tmp_path / "results"
    first = report_results(folder)
    summary = json.loads((folder / "summary.json").read_text())
    assert sum(p["games"] for p in summary["players"]) == 24
    assert sum(p["points"] for p in summary["players"]) == 12
    (folder / "standings.txt").unlink()
    assert report_results(folder) == first == (folder / "standings.txt").read_text()


def test_swiss_resume_recomputes_the_same_pairings(tmp_path: Path) -> None:
    body = BODY.replace("games_per_pairing: 4", "format: swiss\nrounds: 3\ngames_per_pairing: 2") + \
        '  - {name: d, command: "true"}\n  - {name: e, command: "true"}\n'
    whole_dir = tmp_path / "whole"
    whole_dir.mkdir()
    whole = run(write_config(whole_dir, body))
    assert len(whole.records) == 3 * 2 * 2
    path = write_config(tmp_path, body)
    with pytest.raises(Interrupted):
        run(path, StopAfter(5))
    assert comparable(run(path).records) == comparable(whole.records)


def test_summary_json_is_strict_json_even_for_a_clean_sweep(tmp_path: Path) -> None:
    from arbiter.reports.standings import compute_standings, summary_json

    records = [GameRecord.from_json({"game": "limit-nim", "names": ["a", "b"], "winner": 0, "termination": "normal",
                                     "offender": None, "moves": [], "scores": [1, 0], "points": [1, 0]})]
    summary = summary_json(compute_standings(records, players=["a", "b", "idle"]), {})
    text = json.dumps(summary, allow_nan=False)  # raises on inf/nan
    idle = next(p for p in json.loads(text)["players"] if p["name"] == "idle")
    assert idle["games"] == 0 and idle["rating_low"] is None


def test_progress_on_a_terminal_shows_a_bar_eta_and_leaders(tmp_path: Path) -> None:
    import io

    stream = io.StringIO()
    path = write_config(tmp_path, BODY)
    config = load_config(path)
    TournamentRunner(config, prepare_results(config, fresh=False), Progress(stream, tty=True), play=fake_play).run()
    last = stream.getvalue().split("\r\x1b[K")[-1]
    assert last.startswith("[" + "#" * 24 + "] 12/12 ETA 0:00")
    leaders = last.split("ETA 0:00")[1].split()
    assert len(leaders) == 6 and set(leaders[::2]) <= {"a", "b", "c"}


def test_progress_off_a_terminal_logs_one_line_per_game(tmp_path: Path) -> None:
    import io

    stream = io.StringIO()
    config = load_config(write_config(tmp_path, BODY))
    TournamentRunner(config, prepare_results(config, fresh=False), Progress(stream, tty=False), play=fake_play).run()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 12 and lines[0].startswith("[1/12] 001-a-b: ")
    assert "\x1b" not in stream.getvalue()


@pytest.mark.parametrize("winner, scores, text", [
    (1, [4, 5], "001-a-b: b beat a 5-4"),  # the winner's score first, whatever its seat
    (0, [6, 3], "001-a-b: a beat b 6-3"),
    (None, [2, 2], "001-a-b: a drew b 2-2"),
    (1, [-1, 1], "001-a-b: b beat a +1 / -1"),  # OpenSpiel's returns: a score below zero
])
def test_a_progress_line_gives_the_winners_score_first(winner: int | None, scores: list[int], text: str) -> None:
    from arbiter.tournament.progress import describe_result

    record = GameRecord.from_json({"game": "limit-nim", "id": "001-a-b", "names": ["a", "b"], "winner": winner,
                                   "scores": scores, "termination": "normal", "moves": []})
    assert describe_result(record) == text


def test_progress_into_a_closed_pipe_stops_the_output_not_the_run(tmp_path: Path) -> None:
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone, as after `| head -3`
    stream = os.fdopen(write_end, "w", buffering=1)
    config = load_config(write_config(tmp_path, BODY))
    outcome = TournamentRunner(config, prepare_results(config, fresh=False), Progress(stream, tty=False),
                               play=fake_play).run()
    assert outcome.played_now == 12 and len(outcome.records) == 12
    with pytest.raises(BrokenPipeError):
        stream.close()  # the pipe is still closed: the output really failed


def test_a_resume_under_another_time_control_is_refused_with_what_changed(tmp_path: Path) -> None:
    run(write_config(tmp_path, "time: {time_ms: 5000}\n" + BODY))
    faster = write_config(tmp_path, "time: {time_ms: 100}\n" + BODY)
    with pytest.raises(UsageError, match=r"holds 12 games played under other conditions \(changed: "
                                         r"a's time_ms 5000 -> 100; b's time_ms 5000 -> 100; c's time_ms 5000 -> 100\)"
                                         r".* another `name:` or `results:` in .*; or run with --fresh"):
        run(faster)
    own = write_config(tmp_path, "time: {time_ms: 5000}\n" + BODY.replace('{name: c, command: "true"}',
                                                                            '{name: c, command: "true", memory_mb: 64}'))
    with pytest.raises(UsageError, match=r"c's memory_mb 2048 -> 64"):
        run(own)
    assert run(faster, fresh=True).played_now == 12  # the way out


def test_a_resume_with_other_game_params_is_refused_with_what_changed(tmp_path: Path) -> None:
    run(write_config(tmp_path, "params: {rows: 4}\n" + BODY))
    spelled_out = write_config(tmp_path, BODY)  # rows 4 is the default: the same games
    assert run(spelled_out).played_now == 0
    bigger = write_config(tmp_path, "params: {rows: 5}\n" + BODY)
    with pytest.raises(UsageError, match=r"different schedule \(changed: params.rows '4' -> '5'\)\. .* --fresh to "
                                         r"start over \(its 12 recorded games"):
        run(bigger)
    assert run(bigger, fresh=True).played_now == 12  # the way out


def test_a_resume_that_would_change_who_is_sandboxed_is_refused(tmp_path: Path) -> None:
    from arbiter.transport.sandbox import support

    run(write_config(tmp_path, "time: {time_ms: 5000}\n" + BODY))
    loose = write_config(tmp_path, "time: {time_ms: 5000}\n" + BODY.replace('{name: c, command: "true"}',
                                                                            '{name: c, command: "true", sandbox: off}'))
    if support().usable:
        with pytest.raises(UsageError, match=r"changed: c sandboxed -> not sandboxed\).* run with --fresh"):
            run(loose)
    else:  # nothing could be boxed here, so turning the box off changes nothing
        assert run(loose).played_now == 0


def test_a_resume_with_other_concurrency_is_accepted(tmp_path: Path) -> None:
    run(write_config(tmp_path, "time: {time_ms: 5000}\n" + BODY))
    outcome = run(write_config(tmp_path, "time: {time_ms: 5000}\n" + BODY.replace("concurrency: 2", "concurrency: 1")))
    assert outcome.played_now == 0 and len(outcome.records) == 12


def test_records_say_how_they_were_played() -> None:
    from arbiter.games import find_game
    from arbiter.records import arbiter_version
    from arbiter.referee import PlayerSpec, TimeControl, play_game

    random_bot = (sys.executable, str(Path(__file__).parent.parent / "players" / "random_bot.py"))
    players = [PlayerSpec(name="a", command=random_bot), PlayerSpec(name="b", command=random_bot,
                                                                   time=TimeControl(time_ms=4000, memory_mb=512))]
    record = play_game(find_game("limit-nim"), players, time=TimeControl(time_ms=3000, move_ms=500)).to_json()
    assert [(t["time_ms"], t["move_ms"], t["memory_mb"]) for t in record["time_controls"]] == [
        (3000, 500, 2048), (4000, None, 512)]
    assert record["arbiter_version"] == arbiter_version() != ""
    from arbiter.transport.sandbox import support
    assert record["sandboxed"] == [support().usable, support().usable]
    loose = play_game(find_game("limit-nim"), [players[0], PlayerSpec(name="c", command=random_bot, sandbox=None)],
                      time=TimeControl(time_ms=3000))
    assert loose.sandboxed == [support().usable, False]


def test_a_second_run_on_a_held_results_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess
    import sys

    from arbiter.cli import main

    path = write_config(tmp_path, BODY)
    folder = tmp_path / "results"
    holder = subprocess.Popen(  # another arbiter run, as far as the lock can tell
        [sys.executable, "-c", "import sys; from pathlib import Path; from arbiter.tournament.store import "
         "hold_results_folder\nwith hold_results_folder(Path(sys.argv[1])):\n print('held', flush=True)\n "
         "sys.stdin.read()", str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert main(["run", "--quiet", str(path)]) == 2
        assert (f"arbiter run: error: results folder {folder} is in use by another arbiter run (it holds "
                f"{folder / '.arbiter.lock'}); wait for that run to end, or stop it") in capsys.readouterr().err
        assert not (folder / "games.jsonl").exists()
    finally:
        holder.communicate("", timeout=10)
    assert holder.returncode == 0
    with hold_results_folder(folder):  # the lock ended with the run that held it: the next one may go
        assert (folder / ".arbiter.lock").exists()


def test_a_results_folder_that_is_a_file_or_holds_other_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("mine\n")
    with pytest.raises(UsageError, match=r"results folder .*afile is a file, not a folder"):
        with hold_results_folder(tmp_path / "afile"):
            pass
    with pytest.raises(UsageError, match=r"cannot create results folder .*afile/sub: Not a directory"):
        with hold_results_folder(tmp_path / "afile" / "sub"):
            pass
    own = tmp_path / "mine"
    (own / "logs").mkdir(parents=True)
    (own / "logs" / "keep.txt").write_text("keep\n")
    with pytest.raises(UsageError, match=r"already holds other files and no games.jsonl.*--fresh moves them away\): "
                                         r"set `results:` to a new or empty folder"):
        with hold_results_folder(own):
            pass
    assert (own / "logs" / "keep.txt").read_text() == "keep\n"  # --fresh never got to move it


def corrupt_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[number - 1] = text + "\n"
    path.write_text("".join(lines))


@pytest.mark.parametrize("line, problem", [
    ("{}", "this game record lacks id, names, winner, termination, moves"),
    ("[1, 2]", "a game record is a JSON object, not list"),
    ('{"id": "x", "names": ["a", "b"]}', "this game record lacks winner, termination, moves"),
])
def test_a_line_that_is_not_a_game_record_is_a_clear_error(tmp_path: Path, line: str, problem: str) -> None:
    path = write_config(tmp_path, BODY)
    run(path)
    games = tmp_path / "results" / "games.jsonl"
    corrupt_line(games, 3, line)
    for attempt in (lambda: report_results(tmp_path / "results"), lambda: run(path)):
        with pytest.raises(UsageError, match=rf"games.jsonl:3: {re.escape(problem)}; fix or remove this line"):
            attempt()
    assert len(games.read_text().splitlines()) == 12  # nothing recorded was dropped


def test_a_game_recorded_twice_is_a_clear_error_not_counted_twice(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY)
    run(path)
    games = tmp_path / "results" / "games.jsonl"
    first = games.read_text().splitlines(keepends=True)[0]  # whichever game ended first
    games.write_text(games.read_text() + first)
    twice = re.escape(json.loads(first)["id"])
    with pytest.raises(UsageError, match=rf"games.jsonl:13: game {twice} is recorded twice \(first on line 1\)"):
        report_results(tmp_path / "results")


def test_a_record_of_a_stranger_is_a_clear_error(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY)
    run(path)
    games = tmp_path / "results" / "games.jsonl"
    line = games.read_text().splitlines()[1]  # whichever game finished second (concurrency 2)
    record = json.loads(line)
    names = json.dumps(record["names"], separators=(",", ":"))
    assert names in line
    corrupt_line(games, 2, line.replace(names, json.dumps(["zed", *record["names"][1:]], separators=(",", ":"))))
    with pytest.raises(UsageError, match=rf"games.jsonl:2: game {record['id']}: 'zed' is not a player of this "
                                         r"tournament \(players: a, b, c\)"):
        report_results(tmp_path / "results")


def test_a_corrupt_middle_line_stops_the_run_without_losing_records(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY)
    run(path)
    games = tmp_path / "results" / "games.jsonl"
    corrupt_line(games, 4, games.read_text().splitlines()[3][:40])
    before = games.read_bytes()
    with pytest.raises(UsageError, match=r"games.jsonl:4: this line is not a valid game record, and it is not the last"):
        run(path)
    assert games.read_bytes() == before


def test_a_damaged_tournament_description_is_a_clear_error(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY)
    run(path)
    (tmp_path / "results" / "tournament.json").write_text('{"name": ')
    for attempt in (lambda: report_results(tmp_path / "results"), lambda: run(path)):
        with pytest.raises(UsageError, match=r"tournament.json cannot be read \(.*\); it is rewritten by"):
            attempt()


@pytest.mark.parametrize("name, message", [
    ("", r"is not a results folder: it has no games.jsonl"),
    ("file", r"/file is a file, not a results folder"),
    ("missing", r"/missing does not exist$"),
])
def test_report_on_a_folder_without_games_is_a_clear_error(tmp_path: Path, name: str, message: str) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match=message):
        report_results(tmp_path / name)


def test_report_of_an_empty_games_file_says_there_is_nothing_to_rank(tmp_path: Path) -> None:
    (tmp_path / "games.jsonl").write_text("")
    text = report_results(tmp_path)
    assert text == "No players and 0 games recorded: nothing to rank yet.\n"
    assert (tmp_path / "standings.md").read_text() == text


def test_report_of_a_run_stopped_before_its_first_game_lists_the_players(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, BODY))
    prepare_results(config, fresh=False)  # then Ctrl-C: tournament.json, no games.jsonl
    table = report_results(tmp_path / "results")
    assert "0 games, 0 ended by a fault." in table
    assert [line.split()[1] for line in table.splitlines()[2:5]] == ["a", "b", "c"]


@pytest.mark.parametrize("edit, problem", [
    (lambda r: {**r, "points": ["1", 0]}, "points must be two numbers, not ['1', 0]"),
    (lambda r: {**r, "moves": [{"move": "1 2"}]}, "every move needs a seat (0 or 1) and its wall_ms"),
    (lambda r: {**r, "winner": 2}, "winner must be 0, 1 or null, not 2"),
    (lambda r: {**r, "termination": ["normal"]},
     "termination must be one of normal, timeout, crash, malformed, illegal, protocol, void, not ['normal']"),
])
def test_a_damaged_field_in_a_record_is_named(tmp_path: Path, edit, problem: str) -> None:
    path = write_config(tmp_path, BODY)
    run(path)
    games = tmp_path / "results" / "games.jsonl"
    corrupt_line(games, 5, json.dumps(edit(json.loads(games.read_text().splitlines()[4]))))
    with pytest.raises(UsageError, match=rf"games.jsonl:5: game \S+: {re.escape(problem)}; fix or remove"):
        report_results(tmp_path / "results")


def test_a_tournament_of_pipe_bots_launches_them_from_an_arbiter_without_zeromq_or_numpy(tmp_path: Path) -> None:
    # An unboxed bot's launch forks the process that launches it (a game's worker), and every
    # command starts by importing the arbiter: ZeroMQ and numpy would make it 16 MB larger and
    # its start 35 and 40 ms longer. They load where they are used: a game with a zmq or
    # remote seat, the standings. A worker is what its forkserver imported (workers.py) and
    # what its games load: played here as a worker plays them.
    config = write_config(tmp_path, BODY)
    code = ("import io, sys, threading\n"
            "from arbiter.tournament.config import load_config\n"
            "from arbiter.tournament import workers\n"
            "from arbiter.tournament.pool import play_setup\n"
            "from arbiter.tournament.runner import TournamentRunner, prepare_results\n"
            "from arbiter.tournament.progress import Progress\n"
            "from arbiter.tournament.schedule import fixed_schedule\n"
            "from arbiter.transport import process\n"
            "loaded, launches = set(), []\n"
            "launch = process.BotProcess.launch.__func__\n"
            "def watched(cls, *args, **kwargs):\n"
            "    loaded.update(m for m in ('zmq', 'numpy') if m in sys.modules)\n"
            "    launches.append(1)\n"
            "    return launch(cls, *args, **kwargs)\n"
            "process.BotProcess.launch = classmethod(watched)\n"
            f"config = load_config({str(config)!r})\n"
            "runner = TournamentRunner(config, prepare_results(config, fresh=True), Progress(io.StringIO(), quiet=True))\n"
            "games = fixed_schedule(config)[:3]\n"
            "for scheduled in games:\n"
            "    play_setup(runner.game, runner.game_setup(scheduled), tmp, cancel=threading.Event())\n"
            "print(sorted(loaded), len(launches), len(games))\n")
    done = subprocess.run([sys.executable, "-c", f"tmp = {str(tmp_path)!r}\n" + code], capture_output=True,
                          text=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    loaded, launches, games = done.stdout.split("\n")[0].rsplit(" ", 2)
    assert int(games) > 0 and (loaded, int(launches)) == ("[]", 2 * int(games))


def test_a_failure_of_the_machinery_costs_one_game_and_a_resume_plays_it(tmp_path: Path) -> None:
    """A game whose machinery fails (a box that cannot be made, a folder that cannot be
    removed: OSError, SandboxError, RecursionError) has no record and blames no bot; the run
    says so and goes on, the folder notes it in arbiter-faults.jsonl, and a resume plays it."""
    import io
    from arbiter.transport.sandbox import SandboxError
    config_path = write_config(tmp_path, BODY)
    failures = iter([RecursionError("maximum recursion depth exceeded"), SandboxError("cannot make the box")])
    failed: list[str] = []

    def flaky_play(game, players, **options):
        if options["log_prefix"] in ("001-a-c-", "002-b-c-") and options["log_prefix"] not in failed:
            failed.append(options["log_prefix"])
            raise next(failures)
        return fake_play(game, players, **options)

    config = load_config(config_path)
    stream = io.StringIO()
    outcome = TournamentRunner(config, prepare_results(config, fresh=False), Progress(stream, tty=False),
                               play=flaky_play).run()
    assert (outcome.planned, outcome.played_now, len(outcome.records)) == (12, 10, 10)
    assert "arbiter fault in game 001-a-c (a vs c): RecursionError" in stream.getvalue()
    assert "no bot is blamed" in stream.getvalue()
    faults = [json.loads(line) for line in (tmp_path / "results" / "arbiter-faults.jsonl").read_text().splitlines()]
    assert sorted(f["id"] for f in faults) == ["001-a-c", "002-b-c"]
    assert {f["problem"] for f in faults} == {"RecursionError: maximum recursion depth exceeded",
                                               "SandboxError: cannot make the box"}
    resumed = run(config_path)
    assert (resumed.played_now, len(resumed.records)) == (2, 12)


def test_a_void_game_is_described_as_counted_for_no_one() -> None:
    from arbiter.tournament.progress import describe_result
    void = GameRecord.from_json({"game": "limit-nim", "id": "007-a-b", "names": ["a", "b"], "winner": None,
                                 "termination": "void", "moves": [], "scores": [0, 0],
                                 "detail": "the worker playing this game ran out of descriptors"})
    assert describe_result(void) == ("007-a-b: a vs b void, counted for no one (the worker playing this game ran "
                                     "out of descriptors)")
