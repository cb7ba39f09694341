"""Tournaments of games with three or more seats: config, groups and seat rotations, places
and points, standings, and real bundled bots playing 3- and 4-seat round robins from YAML."""
from __future__ import annotations

import itertools
import json
import uuid
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.errors import UsageError
from arbiter.records import GameRecord, game_places
from arbiter.reports.standings import compute_standings, format_standings, summary_json
from arbiter.tournament.config import ConfigError, Scoring, load_config
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import run_tournament
from arbiter.tournament.schedule import balanced_groups, fixed_schedule, planned_games, round_robin_groups, swiss_round

from tournament_helpers import ROOT, fake_play, write_config


def players(*names: str) -> str:
    return "players:\n" + "".join(f'  - {{name: {name}, command: "true"}}\n' for name in names)


def config(tmp_path: Path, extra: str, names: str = "abcd", seats: int = 3):
    body = f"game: dots-and-boxes\nparams: {{rows: 2, cols: 2, players: {seats}}}\n{extra}" + players(*names)
    return load_config(write_config(tmp_path, body))


def problems(tmp_path: Path, extra: str, names: str = "abcd", seats: int = 3) -> str:
    with pytest.raises(ConfigError) as info:
        config(tmp_path, extra, names, seats)
    return str(info.value)


# --- config ---------------------------------------------------------------------------------------


def test_a_three_seat_round_robin_is_accepted_with_one_rotation_by_default(tmp_path: Path) -> None:
    cfg = config(tmp_path, "")
    assert (cfg.seats, cfg.games_per_pairing, cfg.params["players"]) == (3, 3, 3)
    assert cfg.scoring.points([1, 2, 3], [5, 3, 1]) == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("extra, message", [
    ("games_per_group: 4\n", "games_per_group: 4 is not allowed: must be a multiple of the 3 seats"),
    ("games_per_pairing: 2\n", "games_per_pairing: 2 is not allowed: must be an integer >= 3"),
    ("games_per_group: 3\ngames_per_pairing: 3\n", "give games_per_group or games_per_pairing (the same key), not both"),
    ("scoring: {win: 3}\n", "scoring.win: applies to two-seat games; with 3 seats give places: a list of 3 points"),
    ("scoring: {places: [3, 1]}\n", "scoring.places: [3, 1] is not allowed: must be a list of 3 finite numbers"),
    ("scoring: {places: [3, .nan, 0]}\n", "scoring.places: [3, nan, 0] is not allowed"),
])
def test_bad_keys_for_three_seats_are_named(tmp_path: Path, extra: str, message: str) -> None:
    assert message in problems(tmp_path, extra)


def test_the_sprt_refuses_more_than_two_seats(tmp_path: Path) -> None:
    body = ("game: dots-and-boxes\nparams: {players: 3}\nformat: sprt\n"
            'candidate: {command: "true"}\nbaseline: {command: "true"}\n')
    with pytest.raises(ConfigError, match="params.players: 3 is not allowed: the SPRT compares a candidate "
                                          "with a baseline in two-seat games"):
        load_config(write_config(tmp_path, body))


# --- places and points ------------------------------------------------------------------------------


@pytest.mark.parametrize("scores, winner, offender, places", [
    ([5, 3, 1], 0, None, [1, 2, 3]),
    ([3, 3, 3], None, None, [1, 1, 1]),
    ([2, 4, 2], 1, None, [2, 1, 2]),
    ([4, 4, 1], None, None, [1, 1, 3]),
    ([6, 1, 2], 2, 0, [3, 2, 1]),  # the offender is last whatever it had; the others by cells so far
    ([0, 0, 0, 0], None, 2, [1, 1, 4, 1]),
    ([7, 2], 1, None, [2, 1]),  # two seats follow the game's winner (CodeCup Sudoku decides by more than points)
    ([4, 4], None, None, [1, 1]),
])
def test_places_rank_by_cells_with_the_offender_last(scores, winner, offender, places) -> None:
    assert game_places(scores, winner, offender) == places


@pytest.mark.parametrize("scoring, places, points", [
    (Scoring(), [1, 2, 3], [1, 0, 0]),
    (Scoring(), [1, 1, 3], [0.5, 0.5, 0]),  # a tie for first shares the win
    (Scoring(), [1, 1, 1, 1], [0.25] * 4),
    (Scoring(places=(3, 1, 0)), [2, 1, 3], [1, 3, 0]),
    (Scoring(places=(3, 1, 0)), [1, 1, 3], [2, 2, 0]),  # tied places share the points of the places they span
    (Scoring(places=(3, 1, 0)), [1, 2, 2], [3, 0.5, 0.5]),
    (Scoring(win=3, draw=1, loss=0), [1, 1], [1, 1]),  # two seats: win/draw/loss as always
    (Scoring(win=3, draw=1, loss=0), [2, 1], [0, 3]),
])
def test_points_come_from_places(scoring: Scoring, places: list[int], points: list[float]) -> None:
    assert scoring.points(places, [9] * len(places)) == points


def test_scoring_game_sums_cells() -> None:
    assert Scoring(game_points=True).points([2, 1, 3], [3, 5, 1]) == [3.0, 5.0, 1.0]


# --- schedules ----------------------------------------------------------------------------------------


def test_round_robin_plays_every_group_with_each_player_once_in_each_seat_per_rotation(tmp_path: Path) -> None:
    cfg = config(tmp_path, "games_per_group: 6\nopenings: {random_moves: 2, seed: 1}\n")
    games = fixed_schedule(cfg)
    assert len(games) == planned_games(cfg) == 4 * 6
    assert len({g.id for g in games}) == len(games)
    assert Counter(frozenset(g.seats) for g in games) == {frozenset(group): 6 for group in itertools.combinations("abcd", 3)}
    seat_counts = Counter((name, seat) for g in games for seat, name in enumerate(g.seats))
    assert set(seat_counts.values()) == {6 // 3 * 3}  # each player sits in each seat of its 3 groups twice
    for (group, opening), rotation in itertools.groupby(
            sorted(games, key=lambda g: (sorted(g.seats), g.opening)), key=lambda g: (frozenset(g.seats), g.opening)):
        orders = [g.seats for g in rotation]
        assert len(orders) == 3 and {o[0] for o in orders} == set(group)  # each opening once per rotation
        assert all(o[1:] + o[:1] in orders for o in orders)  # a rotation is the turns of one cyclic order
    # The two rotations of a group use the two cyclic orders: who follows whom differs.
    followers = {(g.seats[0], g.seats[1]) for g in games if set(g.seats) == set("abc")}
    assert followers == set(itertools.permutations("abc", 2))
    assert fixed_schedule(cfg) == games  # stable


def sat_directly_before(games) -> Counter:
    """(x, y) -> games in which y sat right after x around the table (the last seat before the first)."""
    return Counter((x, y) for g in games for x, y in zip(g.seats, g.seats[1:] + g.seats[:1]))


def test_with_one_rotation_no_player_always_sits_directly_before_another(tmp_path: Path) -> None:
    # 7 players, 3 seats, the default games_per_group (3): each pair meets in 5 groups, 15 games.
    cfg = config(tmp_path, "", names="abcdefg")
    games = fixed_schedule(cfg)
    before = sat_directly_before(games)
    for x, y in itertools.combinations("abcdefg", 2):
        assert before[(x, y)] + before[(y, x)] == 15
        assert {before[(x, y)], before[(y, x)]} == {6, 9}, (x, y)  # 2 groups one way, 3 the other: never 5 of 5
    assert fixed_schedule(config(tmp_path, "", names="abcdefg")) == games  # reproducible


@pytest.mark.parametrize("names, seats, per_group", [
    ("abcde", 3, 3), ("abcdef", 3, 3), ("abcdef", 4, 4), ("abcdefgh", 4, 4), ("abcdefg", 3, 6), ("abcdef", 5, 10),
])
def test_who_sits_before_whom_is_even_to_within_one_group(tmp_path: Path, names: str, seats: int,
                                                           per_group: int) -> None:
    cfg = config(tmp_path, f"games_per_group: {per_group}\n", names=names, seats=seats)
    before = sat_directly_before(fixed_schedule(cfg))
    # A group's rotation seats a pair the same way in all its `seats` games; over the groups the
    # two ways differ by at most one group (a pair meeting an odd number of times).
    assert max(abs(before[(x, y)] - before[(y, x)]) for x, y in itertools.combinations(names, 2)) <= seats


def test_a_folder_seated_by_the_old_rule_is_refused_not_mixed(tmp_path: Path) -> None:
    from arbiter.tournament import runner
    cfg = replace(config(tmp_path, "", names="abcd"), results_dir=tmp_path / "r")
    play = lambda *a, **k: runner.TournamentRunner(*a, **k, play=fake_play)  # noqa: E731
    assert len(runner.run_held(cfg, Progress(quiet=True, tty=False), play).records) == 12
    # A folder from before seat orders were balanced: its description has no seat_orders entry.
    description = tmp_path / "r" / "tournament.json"
    kept = json.loads(description.read_text())
    assert kept["schedule"].pop("seat_orders") == "balanced-cycles"
    description.write_text(json.dumps(kept))
    with pytest.raises(UsageError, match=r"different schedule \(changed: seat_orders None -> 'balanced-cycles'\)\. "
                                         r"Its games were seated by an older rule.*--fresh"):
        runner.run_held(cfg, Progress(quiet=True, tty=False), play)
    assert json.loads((tmp_path / "r" / "games.jsonl").read_text().splitlines()[0])  # nothing was touched
    assert len((tmp_path / "r" / "games.jsonl").read_text().splitlines()) == 12


def test_two_seat_ids_are_unchanged(tmp_path: Path) -> None:
    cfg = config(tmp_path, "games_per_group: 4\n", names="abc", seats=2)
    assert [g.id for g in fixed_schedule(cfg)][:4] == ["001-a-b", "001-b-a", "001-a-c", "001-c-a"]


def test_many_players_get_a_balanced_design(tmp_path: Path) -> None:
    names = [f"p{k:02d}" for k in range(12)]  # C(12, 3) = 220 groups: too many, so a design
    groups = round_robin_groups(names, 3)
    assert groups == balanced_groups(names, 3) and len(groups) == 22  # 12 * 11 / (3 * 2)
    plays = Counter(name for group in groups for name in group)
    assert max(plays.values()) - min(plays.values()) <= 1
    meetings = Counter(frozenset(pair) for group in groups for pair in itertools.combinations(group, 2))
    assert max(meetings.values()) <= 2
    assert len(meetings) >= 0.9 * 66  # nearly every pair meets
    assert len(round_robin_groups(names[:10], 3)) == 120  # few enough: every group


def test_gauntlet_fills_the_other_seats_from_the_field_in_rotation(tmp_path: Path) -> None:
    cfg = config(tmp_path, "format: gauntlet\ngauntlet: {candidate: c}\n", names="abcde")
    games = fixed_schedule(cfg)
    assert all("c" in g.seats for g in games) and len(games) == planned_games(cfg) == 4 * 3
    groups = {frozenset(g.seats) - {"c"} for g in games}
    assert groups == {frozenset("ab"), frozenset("bd"), frozenset("de"), frozenset("ea")}
    assert set(Counter(name for g in games for name in g.seats if name != "c").values()) == {6}


def test_swiss_groups_players_of_similar_score_and_gives_byes(tmp_path: Path) -> None:
    cfg = config(tmp_path, "format: swiss\nrounds: 2\n", names="abcdefg")
    points = {"a": 0, "b": 3, "c": 0, "d": 2, "e": 1, "f": 0, "g": 2.5}
    games, sitting_out = swiss_round(cfg, 2, points, set(), set())
    assert sitting_out == ["f"]  # 7 players in groups of 3: the lowest-ranked sits out
    assert {frozenset(g.seats) for g in games} == {frozenset("bgd"), frozenset("eac")}
    again, _ = swiss_round(cfg, 2, points, {frozenset("bgd")}, set())
    assert frozenset("bgd") not in {frozenset(g.seats) for g in again}


# --- standings ----------------------------------------------------------------------------------------


def three_seat_record(names: str, scores: list[int], offender: int | None = None) -> GameRecord:
    places = game_places(scores, None, offender)
    return GameRecord.from_json({"game": "dots-and-boxes", "names": list(names), "scores": scores, "places": places,
                                 "winner": None, "offender": offender,
                                 "termination": "normal" if offender is None else "timeout", "moves": [],
                                 "points": Scoring().points(places, scores)})


def test_standings_count_places_and_who_finished_ahead_of_whom() -> None:
    records = [three_seat_record("abc", [5, 3, 1]), three_seat_record("bca", [4, 4, 1]),
               three_seat_record("cab", [2, 6, 1], offender=1)]
    standings = compute_standings(records)
    rows = {row.name: row for row in standings.players}
    assert (rows["a"].places, rows["b"].places, rows["c"].places) == ([1, 0, 2], [1, 2, 0], [2, 0, 1])
    assert (rows["b"].wins, rows["b"].draws, rows["b"].losses, rows["b"].points) == (0, 1, 2, 0.5)
    assert standings.crosstable["a"] == {"b": 1.0, "c": 1.0} and standings.crosstable["b"] == {"a": 2.0, "c": 1.5}
    assert standings.head_to_head is None and standings.seats == 3
    text = format_standings(standings)
    assert "1st-2nd-3rd" in text and "finished ahead of the column player" in text
    summary = summary_json(standings, {})
    assert summary["seats"] == 3 and summary["crosstable_counts"] == "finished_ahead"
    assert {p["name"]: p["places"] for p in summary["players"]}["c"] == [2, 0, 1]


def test_a_fake_three_seat_tournament_records_places_and_points(tmp_path: Path) -> None:
    cfg = replace(config(tmp_path, "games_per_group: 3\nscoring: {places: [3, 1, 0]}\n"),
                  results_dir=tmp_path / "r")
    from arbiter.tournament import runner
    outcome = runner.run_held(cfg, Progress(quiet=True, tty=False),
                              lambda *a, **k: runner.TournamentRunner(*a, **k, play=fake_play))
    assert len(outcome.records) == 12
    for record in outcome.records:
        assert record.places == game_places(record.scores, record.winner, record.offender)
        assert record.points == Scoring(places=(3, 1, 0)).points(record.places, record.scores)


# --- real bots from YAML ------------------------------------------------------------------------------


def bundled(bots: str = "perfect_dp double_cross greedy random") -> str:
    """Player entries running the bundled bots."""
    commands = {"perfect_dp": "perfect_dp.py", "double_cross": "double_cross.py --seed 1",
                "greedy": "greedy.py --seed 1", "random": "random_bot.py --seed 1"}
    return "".join(f"  - {{name: {bot}, command: python {ROOT}/players/{commands[bot]}}}\n" for bot in bots.split())


@pytest.mark.parametrize("seats, games", [(3, 12), (4, 4)])
def test_bundled_bots_play_a_round_robin_from_yaml_with_balanced_seats(tmp_path: Path, seats: int, games: int) -> None:
    body = (f"game: dots-and-boxes\nparams: {{rows: 2, cols: 2, players: {seats}}}\nconcurrency: 2\n"
            f"openings: {{random_moves: 1, seed: 3}}\ntime: {{time_ms: 20000}}\nplayers:\n" + bundled())
    cfg = load_config(write_config(tmp_path, body))
    outcome = run_tournament(cfg, Progress(quiet=True, tty=False))
    assert len(outcome.records) == outcome.planned == games
    assert [(r.id, r.termination) for r in outcome.records if r.termination != "normal"] == []
    seat_counts = Counter((name, seat) for r in outcome.records for seat, name in enumerate(r.names))
    assert len(seat_counts) == 4 * seats and len(set(seat_counts.values())) == 1  # every bot equally in every seat
    standings = compute_standings(outcome.records)
    assert standings.seats == seats and sum(row.games for row in standings.players) == seats * games


def test_arbiter_sprt_refuses_more_than_two_seats_on_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "arbiter", "sprt", "dots-and-boxes", "-p", "players=3", "true", "true",
                           "--results", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("arbiter sprt: error: -p players=3 is not allowed: the SPRT compares a candidate with a "
                           "baseline in two-seat games; rate games of more seats with a tournament (arbiter run)\n")


def test_kill_9_mid_run_resumes_to_the_records_of_an_uninterrupted_run(tmp_path: Path) -> None:
    from test_tournament_processes import SLOW_BOT, arbiter, processes_marked, recorded, wait_for

    marker = uuid.uuid4().hex

    def body(slow_ms: int) -> str:
        return ("game: dots-and-boxes\nparams: {rows: 2, cols: 2, players: 3}\ngames_per_group: 3\nconcurrency: 2\n"
                "openings: {random_moves: 1, seed: 4}\nplayers:\n" + "".join(
                    f"  - {{name: {name}, command: python {SLOW_BOT}, "
                    f"env: {{ARBITER_TEST_MARK: {marker}, SLOW_MS: '{slow_ms}'}}}}\n" for name in "abcd"))

    whole_dir, killed_dir = tmp_path / "whole", tmp_path / "killed"
    whole_dir.mkdir()
    killed_dir.mkdir()
    whole = arbiter("run", str(write_config(whole_dir, body(1))), "--quiet")
    assert whole.wait(timeout=120) == 0, whole.stderr.read()
    path = write_config(killed_dir, body(30))
    run = arbiter("run", str(path))
    assert wait_for(lambda: recorded(killed_dir) >= 3, 60)
    run.kill()  # kill -9: no chance to clean up
    run.wait()
    assert recorded(killed_dir) < 12
    resumed = arbiter("run", str(path), "--quiet")
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert "resuming:" in err

    def records(folder: Path) -> list[tuple]:
        """What was played and decided, game by game (timings left out: they differ run to run)."""
        lines = (folder / "results" / "games.jsonl").read_text().splitlines()
        return sorted((r["id"], r["names"], r["opening"], r["seed"], [(m["seat"], m["move"]) for m in r["moves"]],
                       r["scores"], r["winner"], r["termination"], r["offender"], r["places"], r["points"])
                      for r in map(json.loads, lines))

    assert len(records(whole_dir)) == 12 and records(killed_dir) == records(whole_dir)
    assert wait_for(lambda: not processes_marked(marker), 5)


@pytest.mark.parametrize("edit, problem", [
    ({}, None),
    ({"places": [1, 4, 2]}, "places must be 3 places from 1 to 3, not [1, 4, 2]"),
    ({"points": [1, 0]}, "points must be three numbers, not [1, 0]"),
    ({"winner": 3}, "winner must be 0, 1, 2 or null, not 3"),
    ({"moves": [{"seat": 3, "wall_ms": 1}]}, "every move needs a seat (0, 1 or 2) and its wall_ms"),
])
def test_a_damaged_three_seat_record_is_named(edit: dict, problem: str | None) -> None:
    from arbiter.records import record_problem
    record = {"id": "001-a-b-c", "names": ["a", "b", "c"], "winner": 0, "termination": "normal",
              "moves": [{"seat": 2, "wall_ms": 1}], "points": [1, 0, 0], "places": [1, 2, 2]}
    found = record_problem({**record, **edit})
    assert found == (None if problem is None else f"game 001-a-b-c: {problem}")


def test_a_remote_player_in_three_seat_games_plays_one_game_at_a_time(tmp_path: Path) -> None:
    from arbiter.tournament.runner import TournamentRunner, prepare_results
    from test_remote_tournament import RemoteWatch

    body = ("game: dots-and-boxes\nparams: {rows: 2, cols: 2, players: 3}\nconcurrency: 3\nplayers:\n"
            '  - {name: alice, transport: remote, bind: "tcp://127.0.0.1:5611"}\n'
            + "".join(f'  - {{name: {name}, command: "true"}}\n' for name in ("house", "guest", "third")))
    cfg = load_config(write_config(tmp_path, body))
    watch = RemoteWatch(meet=False)
    outcome = TournamentRunner(cfg, prepare_results(cfg, fresh=False), Progress(quiet=True, tty=False),
                               play=watch).run()
    assert len(outcome.records) == outcome.planned == 4 * 3 and watch.clashes == []
    assert sorted(watch.started) == sorted(g.id for g in fixed_schedule(cfg))
