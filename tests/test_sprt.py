"""The sequential test of a candidate against a baseline, with an in-process referee stand-in.

Pairs count in pair order, the first LLR crossing decides, faults and log lines fail the
run, and a stopped run resumes to the verdict an uninterrupted run reaches.
"""
from __future__ import annotations

import functools
import io
import math
import random
import re
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest

from arbiter.tournament.tally import Tally
from arbiter.cli import main
from arbiter.cli.sprt import describe_outcome
from arbiter.errors import UsageError
from arbiter.games import Game
from arbiter.records import GameRecord, PlayerRef, Termination
from arbiter.referee import GameAborted, PlayerSpec
from arbiter.stats import NELO_PER_T
from arbiter.tournament.config import ConfigError, SprtSettings, load_config
from arbiter.tournament.runner import Interrupted, prepare_results
from arbiter.tournament.sprt import SprtOutcome, SprtProgress, SprtRunner, SprtTest, scan_logs

from tournament_helpers import ROOT, game_won_by, write_config

BODY = """game: dots-and-triangles
params: {rows: 4}
format: sprt
openings: {random_moves: 2, seed: 5}
concurrency: 1
candidate: {name: new, command: "true"}
baseline: {name: old, command: "true"}
sprt: {elo0: 0, elo1: 50, alpha: 0.05, beta: 0.05, max_games: 100}
"""

# A game's result as the script decides it: the winner's name, None for a draw, or
# ("crash", name) for a fault by that player.
Result = Any


class Script:
    """A stand-in for `play_game` whose results come from `decide(pair, first_player)`.

    It writes each seat's stderr log (`log_text(name)`), and games of pairs from
    `block_from` on wait for the cancel event and then raise GameAborted, like a real
    game ended by the runner.
    """

    def __init__(self, decide: Callable[[int, str], Result], *, log_text: Callable[[str], str] = lambda name: "",
                 block_from: int | None = None) -> None:
        self.decide = decide
        self.log_text = log_text
        self.block_from = block_from
        self.started: list[str] = []
        self.lock = threading.Lock()
        # With block_from, the pair before it finishes only once a blocked game has started,
        # so that some game is surely running when the verdict comes.
        self.blocked_started = threading.Event()

    def __call__(self, game: Game[Any], players: Sequence[PlayerSpec], *, log_dir: Path | None = None,
                 log_prefix: str = "", cancel: threading.Event | None = None, opening: Sequence[str] = (),
                 **_: Any) -> GameRecord:
        pair = int(log_prefix.split("-")[0])
        names = [p.name for p in players]
        with self.lock:
            self.started.append(log_prefix.rstrip("-"))
        if self.block_from is not None and pair >= self.block_from:
            self.blocked_started.set()
            assert cancel is not None and cancel.wait(10), "the runner never cancelled a running game"
            raise GameAborted("the game was cancelled")
        if self.block_from is not None and pair == self.block_from - 1:
            assert self.blocked_started.wait(10), "no later game was started while this pair ran"
        result = self.decide(pair, names[0])
        termination, offender, winner = Termination.NORMAL, None, None
        if isinstance(result, tuple):
            termination, offender = Termination.CRASH, names.index(result[1])
            winner = 1 - offender
        elif result is not None:
            winner = names.index(result)
        # A real game with that result (the records are replayed when read back); a crash comes
        # before the first move.
        moves, scores = game_won_by(game, opening, winner, pair) if offender is None else ([], [0, 0])
        logs: list[str | None] = [None, None]
        if log_dir is not None:
            for seat, name in enumerate(names):
                path = log_dir / f"{log_prefix}seat{seat}-{name}.log"
                path.write_text(self.log_text(name))
                logs[seat] = str(path)
        return GameRecord(
            game=game.name, params=dict(game.params), players=[PlayerRef(n, "true") for n in names], moves=moves,
            scores=scores, winner=winner, termination=termination, offender=offender,
            detail="scripted" if offender is None else f"{names[offender]} exited with status 1",
            started_at="2026-01-01T00:00:00Z", duration_s=0.0, logs=logs,
        )


def always(name: str | None) -> Callable[[int, str], Result]:
    return lambda pair, first: name


def alternating(pair: int, first: str) -> Result:
    """The first mover wins in odd pairs, the second in even ones: every pair scores 1/2."""
    return first if pair % 2 else ("old" if first == "new" else "new")


def run(path: Path, script: Callable[..., GameRecord], *, progress: SprtProgress | None = None,
        fresh: bool = False, concurrency: int | None = None) -> SprtOutcome:
    config = load_config(path, concurrency=concurrency)
    store = prepare_results(config, fresh=fresh)
    return SprtRunner(config, store, progress or SprtProgress(quiet=True, tty=False), play=script).run()


def records_of(path: Path) -> list[dict[str, Any]]:
    return load_config(path).results_dir.joinpath("games.jsonl").read_text().splitlines()


def pair_llr_all_wins(elo1: float) -> float:
    """LLR per pair when every pair scores 1, for H0 nElo 0 against H1 nElo elo1.

    The most likely distribution with pair t-value t puts p on 1 and 1 - p on 0 with
    (p - 1/2) / sqrt(p (1 - p)) = t, so p = 1/2 + t / (2 sqrt(1 + t^2)); under H0 p = 1/2.
    """
    t = elo1 * math.sqrt(2) / NELO_PER_T
    return math.log(1 + t / math.sqrt(1 + t * t))


def record(pair: int, first: str, winner: str | None, *, fault_by: str | None = None) -> GameRecord:
    second = "old" if first == "new" else "new"
    names = [first, second]
    seat = None if winner is None else names.index(winner)
    return GameRecord.from_json({
        "game": "limit-nim", "id": f"{pair:03d}-{first}-{second}", "round": pair, "names": names, "logs": [None, None],
        "moves": [], "winner": seat, "scores": [0, 0],
        "points": [0.5, 0.5] if seat is None else [float(seat == 0), float(seat == 1)],
        "termination": "crash" if fault_by else "normal",
        "offender": names.index(fault_by) if fault_by else None,
        "detail": "exited" if fault_by else "played to the end",
    })


# --- configs --------------------------------------------------------------------------------


def test_sprt_config_reads_candidate_baseline_and_settings(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, BODY))
    assert config.format == "sprt"
    assert [p.name for p in config.players] == ["new", "old"]
    assert config.candidate == "new"
    assert config.sprt == SprtSettings(elo0=0, elo1=50, alpha=0.05, beta=0.05, max_games=100)


def test_sprt_defaults_and_role_names(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, """game: limit-nim
format: sprt
candidate: {command: "true"}
baseline: {command: "true"}
"""))
    assert [p.name for p in config.players] == ["candidate", "baseline"]
    assert config.sprt == SprtSettings()
    assert (config.sprt.elo0, config.sprt.elo1, config.sprt.alpha, config.sprt.beta) == (0, 5, 0.05, 0.05)


def test_the_bundled_example_is_an_sprt_of_double_cross_against_greedy() -> None:
    config = load_config(ROOT / "configs" / "sprt-example.yaml")
    assert (config.format, config.candidate, [p.name for p in config.players]) == \
           ("sprt", "double_cross", ["double_cross", "greedy"])
    assert config.sprt == SprtSettings(elo0=0, elo1=20, max_games=400)


@pytest.mark.parametrize("change, message", [
    ("players: [{name: a, command: 'true'}]", "players: does not apply to format: sprt"),
    ("games_per_pairing: 4", "games_per_pairing: does not apply to format: sprt"),
    ("sprt: {elo0: 5, elo1: 5}", "sprt.elo1: 5 is not allowed: must be greater than elo0 (5)"),
    ("sprt: {alpha: 1.5}", "sprt.alpha: 1.5 is not allowed: must be a number between 0 and 1 (exclusive)"),
    ("sprt: {alpha: 0.5, beta: 0.5}", "sprt.beta: 0.5 is not allowed: alpha + beta must be below 1"),
    ("sprt: {max_games: 11}", "sprt.max_games: 11 is not allowed: must be an even integer >= 2"),
    ("sprt: {max_game: 10}", "sprt.max_game: unknown key 'max_game'; did you mean 'max_games'?"),
    ("sprt: {log_pattern: 'warn('}", "sprt.log_pattern: 'warn(' is not allowed: must be a valid regular expression"),
    ("sprt: {fail_on_fault: maybe}", "sprt.fail_on_fault: 'maybe' is not allowed: must be true or false"),
    ("baseline: {name: new, command: 'true'}", "baseline.name: 'new' is not allowed: the candidate and the baseline "
                                               "need different names"),
    ("baseline: {name: old, command: ./nothing-here}", "baseline.command: cannot be started: ./nothing-here does "
                                                       "not exist"),
])
def test_sprt_config_errors_name_the_key(tmp_path: Path, change: str, message: str) -> None:
    key = change.split(":")[0]
    body = "\n".join(line for line in BODY.splitlines() if not line.startswith(key + ":")) + "\n" + change + "\n"
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, body))
    assert message in str(info.value)
    assert str(tmp_path / "t.yaml") in str(info.value)


def test_a_missing_baseline_and_sprt_keys_in_a_tournament_are_errors(tmp_path: Path) -> None:
    no_baseline = "\n".join(line for line in BODY.splitlines() if not line.startswith("baseline:")) + "\n"
    with pytest.raises(ConfigError, match=r"baseline: is required: a player \{name, command\}"):
        load_config(write_config(tmp_path, no_baseline))
    tournament = BODY.replace("format: sprt", "format: round-robin")
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, tournament))
    for key in ("candidate", "baseline", "sprt"):
        assert f"{key}: only applies to format: sprt, not round-robin" in str(info.value)


# --- the test's state from records ------------------------------------------------------------


SETTINGS = SprtSettings(elo0=0, elo1=50, max_games=100)


def test_a_pair_counts_only_when_both_games_and_every_earlier_pair_are_recorded() -> None:
    test = SprtTest(SETTINGS, "new", "old")
    test.add(record(2, "new", "new"))
    test.add(record(2, "old", "new"))
    test.add(record(1, "new", "new"))
    assert (test.pairs_counted, test.pentanomial) == (0, [0, 0, 0, 0, 0])
    test.add(record(1, "old", None))
    assert test.pairs_counted == 2
    assert test.pentanomial == [0, 0, 0, 1, 1]  # pair 1: a win and a draw; pair 2: two wins
    assert (test.wins, test.draws, test.losses) == (3, 1, 0)


def test_pair_scores_fill_the_five_bins() -> None:
    test = SprtTest(SETTINGS, "new", "old")
    outcomes = [("old", "old"), ("old", None), ("new", "old"), (None, None), ("new", None), ("new", "new")]
    for pair, (a, b) in enumerate(outcomes, 1):
        test.add(record(pair, "new", a))
        test.add(record(pair, "old", b))
    assert test.pentanomial == [1, 1, 2, 1, 1]


def test_the_state_does_not_depend_on_the_order_records_arrive_in() -> None:
    rng = random.Random(1)
    records = [record(pair, first, rng.choice(["new", "old", None, "new"]))
               for pair in range(1, 21) for first in ("new", "old")]
    expected = SprtTest(SETTINGS, "new", "old")
    for r in records:
        expected.add(r)
    for seed in range(3):
        shuffled = records[:]
        random.Random(seed).shuffle(shuffled)
        test = SprtTest(SETTINGS, "new", "old")
        for r in shuffled:
            test.add(r)
        assert (test.pentanomial, test.state, test.verdict) == (expected.pentanomial, expected.state, expected.verdict)


def test_the_first_crossing_decides_and_later_pairs_are_not_counted() -> None:
    per_pair = pair_llr_all_wins(50)
    needed = math.ceil(math.log(0.95 / 0.05) / per_pair)  # Wald's upper bound ln((1 - beta) / alpha)
    test = SprtTest(SETTINGS, "new", "old")
    for pair in range(1, needed + 6):
        for first in ("new", "old"):
            test.add(record(pair, first, "new"))
    assert test.verdict == "H1"
    assert test.pairs_counted == needed
    assert test.pentanomial == [0, 0, 0, 0, needed]
    assert test.state.llr == pytest.approx(needed * per_pair, rel=1e-3)
    assert test.games_recorded == 2 * (needed + 5)


def test_swapping_candidate_and_baseline_negates_elo_and_flips_the_verdict() -> None:
    rng = random.Random(7)
    records = [record(pair, first, rng.choice(["new", "new", "new", "old", None]))
               for pair in range(1, 41) for first in ("new", "old")]
    symmetric = SprtSettings(elo0=-50, elo1=50, max_games=80)
    forward, backward = SprtTest(symmetric, "new", "old"), SprtTest(symmetric, "old", "new")
    for r in records:
        forward.add(r)
        backward.add(r)
    assert backward.pentanomial == forward.pentanomial[::-1]
    assert backward.elo().elo == pytest.approx(-forward.elo().elo)
    assert backward.nelo()[0] == pytest.approx(-forward.nelo()[0])
    assert backward.state.llr == pytest.approx(-forward.state.llr, abs=1e-6)
    assert (forward.verdict, backward.verdict) == ("H1", "H0")


def test_a_candidate_fault_fails_the_test_unless_the_gate_is_off() -> None:
    gated, ungated = SprtTest(SETTINGS, "new", "old"), SprtTest(
        SprtSettings(elo0=0, elo1=50, max_games=100, fail_on_fault=False), "new", "old")
    for test in (gated, ungated):
        test.add(record(1, "new", "old", fault_by="new"))
    assert gated.verdict == "fault"
    assert ungated.verdict is None
    assert len(ungated.candidate_faults) == 1


def test_a_baseline_fault_is_reported_but_does_not_fail_the_test() -> None:
    test = SprtTest(SETTINGS, "new", "old")
    test.add(record(1, "new", "new", fault_by="old"))
    assert test.verdict is None
    assert len(test.baseline_faults) == 1 and not test.candidate_faults


# --- runs -------------------------------------------------------------------------------------


def test_a_run_stops_at_the_first_crossing(tmp_path: Path) -> None:
    outcome = run(write_config(tmp_path, BODY), Script(always("new")))
    needed = math.ceil(math.log(19) / pair_llr_all_wins(50))
    assert outcome.test.verdict == "H1" and outcome.exit_code == 0
    assert outcome.played_now == len(records_of(write_config(tmp_path, BODY))) == 2 * needed
    assert outcome.test.games_counted == 2 * needed


def test_running_games_are_ended_at_the_verdict_and_not_recorded(tmp_path: Path) -> None:
    needed = math.ceil(math.log(19) / pair_llr_all_wins(50))
    script = Script(always("new"), block_from=needed + 1)
    outcome = run(write_config(tmp_path, BODY), script, concurrency=4)
    assert outcome.test.verdict == "H1"
    assert any(int(game_id[:3]) > needed for game_id in script.started)  # some were running
    assert outcome.test.games_recorded == outcome.test.games_counted == 2 * needed


def test_more_concurrency_gives_the_same_verdict_from_the_same_pairs(tmp_path: Path) -> None:
    decide = lambda pair, first: "new" if pair % 3 else first  # noqa: E731
    results = []
    for concurrency in (1, 3):
        folder = tmp_path / f"c{concurrency}"
        folder.mkdir()
        test = run(write_config(folder, BODY), Script(decide), concurrency=concurrency).test
        results.append((test.verdict, test.pentanomial, test.state.llr))
        assert test.games_recorded >= test.games_counted
    assert results[0] == results[1]


class StopAfter(SprtProgress):
    """Presses Ctrl-C once `limit` games are recorded."""

    def __init__(self, limit: int) -> None:
        super().__init__(quiet=True, tty=False)
        self.limit = limit

    def game_done(self, record: GameRecord, records: Sequence[GameRecord]) -> None:
        super().game_done(record, records)
        if self.done >= self.limit:
            raise KeyboardInterrupt


def test_a_stopped_run_resumes_to_the_uninterrupted_verdict(tmp_path: Path) -> None:
    decide = lambda pair, first: first if pair % 4 == 0 else "new"  # noqa: E731
    (tmp_path / "whole").mkdir()
    whole = run(write_config(tmp_path / "whole", BODY), Script(decide))
    (tmp_path / "stopped").mkdir()
    path = write_config(tmp_path / "stopped", BODY)
    with pytest.raises(Interrupted):
        run(path, Script(decide), progress=StopAfter(7))
    assert len(records_of(path)) == 7  # pair 4 half played
    resumed = run(path, Script(decide), concurrency=2)
    # With two games at once, games running when the verdict is reached may finish and be
    # recorded (not counted): at most one per concurrency slot.
    assert resumed.played_now - (whole.played_now - 7) in (0, 1, 2)
    assert resumed.test.games_counted == whole.test.games_counted
    assert (resumed.test.verdict, resumed.test.pentanomial, resumed.test.state) == \
           (whole.test.verdict, whole.test.pentanomial, whole.test.state)
    again = run(path, Script(decide))
    assert again.played_now == 0 and again.test.verdict == whole.test.verdict


def test_max_games_ends_inconclusive_and_a_larger_maximum_continues(tmp_path: Path) -> None:
    path = write_config(tmp_path, BODY.replace("max_games: 100", "max_games: 8"))
    first = run(path, Script(alternating))
    assert (first.test.verdict, first.exit_code, first.test.pentanomial) == ("inconclusive", 4, [0, 0, 4, 0, 0])
    path = write_config(tmp_path, BODY.replace("max_games: 100", "max_games: 12"))
    more = run(path, Script(alternating))
    assert more.played_now == 4 and more.test.pairs_counted == 6


def test_h0_accepted_exits_1_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline wins every game: H0 is accepted, and `arbiter run` exits 1 (the README's table)."""
    monkeypatch.setattr("arbiter.tournament.sprt.SprtRunner", functools.partial(SprtRunner, play=Script(always("old"))))
    code = main(["run", "--quiet", str(write_config(tmp_path, BODY))])
    out = capsys.readouterr().out
    assert code == 1, out
    assert re.search(r"Verdict: H0 accepted after \d+ games: new is not better than old by the margin", out), out
    assert out.rstrip().endswith("(exit 1)")


def test_changed_hypotheses_refuse_to_resume(tmp_path: Path) -> None:
    run(write_config(tmp_path, BODY.replace("max_games: 100", "max_games: 4")), Script(alternating))
    with pytest.raises(UsageError, match=r"changed: sprt.elo1 50.0 -> 10.0\)\. A resumed SPRT keeps the hypotheses .*"
                                         r"set another `name:` or `results:` in .*--fresh to start over"):
        run(write_config(tmp_path, BODY.replace("elo1: 50", "elo1: 10")), Script(alternating))


def test_a_candidate_crash_stops_the_run_with_exit_3(tmp_path: Path) -> None:
    crash_in_pair_2 = lambda pair, first: ("crash", "new") if pair == 2 else "new"  # noqa: E731
    outcome = run(write_config(tmp_path, BODY), Script(crash_in_pair_2))
    assert outcome.test.verdict == "fault" and outcome.exit_code == 3
    assert outcome.played_now == 3
    report = describe_outcome(outcome)
    assert "Verdict: FAILED: new faulted (crash in game 002-new-old: new exited with status 1). (exit 3)" in report


# --- the log check ----------------------------------------------------------------------------


def test_problem_lines_in_the_candidates_logs_fail_an_accepted_test(tmp_path: Path) -> None:
    logs = {"new": "value -3\nWARNING: table cache missing\nvalue 1\n", "old": "Traceback (most recent call last)\n"}
    outcome = run(write_config(tmp_path, BODY), Script(always("new"), log_text=logs.__getitem__))
    games = outcome.test.games_recorded
    assert outcome.test.verdict == "H1"
    assert (outcome.logs.logs_scanned, outcome.logs.lines_matched, outcome.logs.logs_matched) == (games, games, games)
    assert outcome.logs.first_lines[0].endswith("001-new-old-seat0-new.log:2: WARNING: table cache missing")
    assert len(outcome.logs.first_lines) == 5
    assert outcome.exit_code == 3
    assert "FAILED: new's logs have" in describe_outcome(outcome)
    assert "the test itself: H1 accepted" in describe_outcome(outcome)


def test_the_log_pattern_is_case_insensitive_and_empty_turns_the_check_off(tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    log.write_text("all fine\nAssertion failed\nerror: x\n")
    records = [replace(record(1, "new", "new"), logs=[str(log), None]), record(1, "old", "new")]
    scan = scan_logs(records, "new", "assert", tmp_path)
    assert (scan.logs_scanned, scan.logs_missing, scan.lines_matched) == (1, 1, 1)
    assert scan.first_lines == (f"{log}:2: Assertion failed",)
    assert not scan_logs(records, "new", "", tmp_path).problem


# --- progress and the command line ------------------------------------------------------------


def test_the_live_line_shows_counts_ratings_and_the_llr_with_its_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # the line is cut to the terminal's width
    stream = io.StringIO()
    progress = SprtProgress(stream, tty=True)
    test = SprtTest(SETTINGS, "new", "old")
    progress.start(100, Tally())
    for first in ("new", "old"):
        test.add(record(1, first, "new"))
        progress.game_done(record(1, first, "new"), [])
        progress.status(test)
    last = stream.getvalue().split("\r\x1b[K")[-1]
    assert last.startswith("games 2/100 ")
    for part in ("pairs 1 [0 0 0 0 1]", "Elo +", "nElo +", "LOS ", "LLR +0.18 [-2.94, +2.94]"):
        assert part in last


def test_plain_output_prints_a_status_line_per_counted_pair() -> None:
    stream = io.StringIO()
    progress = SprtProgress(stream, tty=False)
    test = SprtTest(SETTINGS, "new", "old")
    progress.start(100, Tally())
    for first in ("new", "old"):
        r = record(1, first, "new")
        test.add(r)
        progress.game_done(r, [])
        progress.status(test)
    lines = stream.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["[1/100]", "[2/100]", "pairs"]
    assert "\x1b" not in stream.getvalue()


@pytest.mark.parametrize("flags, message", [
    (["--elo0", "3", "--elo1", "2"], "--elo1: 2.0 is not allowed: must be greater than elo0 (3.0)"),
    (["-p", "rows"], "-p 'rows': write a game parameter as KEY=VALUE"),
    (["-p", "rows=99"], "-p: dots-and-triangles: parameter rows='99' is out of range"),
    (["--max-games", "7"], "--max-games: 7 is not allowed: must be an even integer >= 2"),
])
def test_bad_flags_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str],
                                    message: str) -> None:
    code = main(["sprt", "dots-and-triangles", "true", "true", "--results", str(tmp_path / "r"), *flags])
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_second_sprt_on_a_held_results_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arbiter.tournament.store import hold_results_folder

    path = write_config(tmp_path, BODY)
    folder = load_config(path).results_dir
    with hold_results_folder(folder):  # another run has it (flock conflicts even within one process)
        assert main(["run", "--quiet", str(path)]) == 2
    assert f"results folder {folder} is in use by another arbiter run" in capsys.readouterr().err
    assert not (folder / "games.jsonl").exists()


def test_a_pair_with_a_void_game_is_left_out_whole_and_the_next_pairs_count() -> None:
    settings = SprtSettings(elo0=0, elo1=50, alpha=0.05, beta=0.05, max_games=6)
    test = SprtTest(settings, "new", "old")
    void = replace(record(1, "old", None), termination=Termination.VOID, points=None,
                   detail="the worker playing this game was killed by SIGSEGV")
    for game in (record(1, "new", "new"), void, record(2, "new", "new"), record(2, "old", "new")):
        test.add(game)
    assert (test.pairs_counted, test.pairs_void, test.wins, test.draws, test.losses) == (1, 1, 2, 0, 0)
    assert test.pentanomial == [0, 0, 0, 0, 1] and "pairs 1 (1 void)" in test.status_line()
    assert test.verdict is None
    for game in (record(3, "new", "new"), record(3, "old", "new")):
        test.add(game)
    assert test.verdict == "inconclusive"  # max_games reached: every pair counted or left out
