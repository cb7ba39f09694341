"""Tamper evidence: a record whose result contradicts its own moves is refused, with its line.

Every case starts from a real tournament's records (games played by the referee, faults
included) and changes one field the way a cheat would; the honest records all pass.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from arbiter.cli import main
from arbiter.errors import UsageError
from arbiter.records import GameRecord
from arbiter.reports.results import report_results
from arbiter.tournament.audit import replay_problem
from arbiter.tournament.tally import tally_of

from tournament_helpers import ROOT, write_config

RANDOM = ROOT / "players" / "random_bot.py"
ILLEGAL = ROOT / "tests" / "bots" / "illegal_bot.py"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder of real games: limit-nim between random bots and one that plays an illegal move."""
    folder = tmp_path_factory.mktemp("audit")
    path = write_config(folder, f"""game: limit-nim
games_per_pairing: 2
concurrency: 2
time: {{time_ms: 5000}}
players:
  - {{name: a, command: "python {RANDOM} --seed 1"}}
  - {{name: b, command: "python {RANDOM} --seed 2"}}
  - {{name: cheat, command: "python {ILLEGAL}", sandbox: {{read: [{ILLEGAL.parent}]}}}}
""")
    assert main(["run", str(path), "--quiet"]) == 0
    return folder / "results"


def records_of(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def test_every_record_the_referee_wrote_replays_to_its_result(played: Path) -> None:
    records = records_of(played)
    assert {r["termination"] for r in records} == {"normal", "illegal"}
    assert [replay_problem(GameRecord.from_json(r)) for r in records] == [None] * len(records)


def normal(records: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in records if r["termination"] == "normal" and r["winner"] is not None)


def fault(records: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in records if r["termination"] == "illegal")


def flip_winner(r: dict[str, Any]) -> None:
    r["winner"] = 1 - r["winner"]


def swap_scores(r: dict[str, Any]) -> None:
    r["scores"] = r["scores"][::-1]


def call_it_a_draw(r: dict[str, Any]) -> None:
    r["winner"] = None


def blame_the_victim(r: dict[str, Any]) -> None:
    r["offender"] = 1 - r["offender"]
    r["winner"] = 1 - r["winner"]


def no_offender(r: dict[str, Any]) -> None:
    r["offender"] = None


def cut_the_last_move(r: dict[str, Any]) -> None:
    r["moves"] = r["moves"][:-1]


def move_out_of_turn(r: dict[str, Any]) -> None:
    r["moves"][1]["seat"] = 1 - r["moves"][1]["seat"]


def take_too_many(r: dict[str, Any]) -> None:
    r["moves"][1]["move"] = "1 999"


def garbage_move(r: dict[str, Any]) -> None:
    r["moves"][0]["move"] = "hello"


def move_after_the_end(r: dict[str, Any]) -> None:
    r["moves"].append(dict(r["moves"][-1]))


def steal_a_point(r: dict[str, Any]) -> None:
    r["points"] = r["points"][::-1]


def unknown_game(r: dict[str, Any]) -> None:
    r["game"] = "chess"


def fault_called_normal(r: dict[str, Any]) -> None:
    r["termination"], r["offender"] = "normal", None


Tamper = Callable[[dict[str, Any]], None]
CASES: list[tuple[Callable[[list[dict[str, Any]]], dict[str, Any]], Tamper, str]] = [
    (normal, flip_winner, r"the recorded result contradicts its moves \(winner \d where the moves give \d\)"),
    (normal, swap_scores, r"scores \[\d+, \d+\] where the moves give \[\d+, \d+\]"),
    (normal, call_it_a_draw, r"winner None where the moves give \d"),
    (fault, blame_the_victim, r"recorded as a fault \(illegal\) by seat \d, but it was seat \d's turn"),
    (fault, no_offender, r"recorded as a fault \(illegal\) without a seat as the offender \(None\)"),
    (normal, cut_the_last_move, r"recorded as ended normally, but after its \d+ moves the game is not over"),
    (normal, move_out_of_turn, r"move 2 \('[0-9 ]+'\) is recorded for seat \d, but it was seat \d's turn"),
    (normal, take_too_many, r"move 2 \('1 999'\) does not replay: (illegal|malformed) move"),
    (normal, garbage_move, r"move 1 \('hello'\) does not replay: malformed move"),
    (normal, move_after_the_end, r"move \d+ \('[0-9 ]+'\) comes after the game was over"),
    (normal, steal_a_point, r"its points \[\d\.\d, \d\.\d\] are not what its result gives under the tournament's "
                            r"scoring \(\[\d\.\d, \d\.\d\]\)"),
    (normal, unknown_game, r"its game cannot be rebuilt from the record \(unknown game 'chess'"),
    (fault, fault_called_normal, r"recorded as ended normally, but after its \d+ moves the game is not over"),
]


@pytest.mark.parametrize("pick, tamper, why", CASES, ids=[case[1].__name__ for case in CASES])
def test_a_tampered_record_is_refused_naming_its_line(pick, tamper: Tamper, why: str, played: Path,
                                                      tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "tournament.json").write_bytes((played / "tournament.json").read_bytes())
    records = records_of(played)
    target = pick(records)
    line = records.index(target) + 1
    tamper(target)
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(UsageError, match=rf"games.jsonl:{line}: game {target['id']}: .*{why}.*fix or remove this line"):
        report_results(folder)
    assert not (folder / "standings.txt").exists()  # nothing was written from the forged records


def test_arbiter_report_says_so_in_one_line_and_exits_2(played: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "tournament.json").write_bytes((played / "tournament.json").read_bytes())
    records = records_of(played)
    flip_winner(normal(records))
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "contradicts its moves" in err and "Traceback" not in err


def test_a_resume_refuses_to_build_on_a_tampered_file(played: Path, tmp_path: Path) -> None:
    games = played / "games.jsonl"
    honest = games.read_bytes()
    records = records_of(played)
    swap_scores(normal(records))
    try:
        games.write_text("".join(json.dumps(r) + "\n" for r in records))
        assert main(["run", str(played.parent / "t.yaml"), "--quiet"]) == 2
    finally:
        games.write_bytes(honest)
    assert main(["run", str(played.parent / "t.yaml"), "--quiet"]) == 0  # the honest file resumes (nothing to play)


# --- what boxed the bots, said by the report ---------------------------------------------

def _game(names: list[str], sandboxed: list | None) -> GameRecord:
    record: dict[str, Any] = {"id": "-".join(names), "names": names, "game": "limit-nim", "moves": [], "scores": [0, 0], "winner": None,
                              "termination": "normal"}
    if sandboxed is not None:
        record["sandboxed"] = sandboxed
    return GameRecord.from_json(record)


def test_the_standings_say_every_bot_was_sandboxed_only_when_every_record_says_so() -> None:
    from arbiter.reports.results import sandbox_status

    machine = {"machine": "bots are sandboxed (bubblewrap)", "enforced": {"namespaces": "bubblewrap"}}
    boxed = sandbox_status(tally_of([_game(["a", "b"], [True, True]), _game(["b", "r"], [True, None])]), machine)
    assert boxed["line"] == "Sandbox: every launched bot ran sandboxed in every game (bubblewrap)"
    assert boxed["not_sandboxed"] == {}  # the remote bot (None) is outside any box by nature
    loose = sandbox_status(tally_of([_game(["a", "b"], [True, False]), _game(["b", "a"], [False, True]),
                            _game(["a", "c"], [True, True])]), machine)
    assert loose["line"].startswith("WARNING: NOT sandboxed: b (2 of 2 games); such a bot could read, change or kill")
    old = sandbox_status(tally_of([_game(["a", "b"], None), _game(["a", "b"], [True, True])]), {})
    assert old["line"] == ("Sandbox: every launched bot ran sandboxed in every game; 1 of 2 games do not say whether "
                           "their bots were sandboxed (recorded by an older arbiter)")
    assert sandbox_status(tally_of([]), machine)["line"] is None


def test_a_run_without_the_sandbox_says_so_in_its_standings_and_report(played: Path, tmp_path: Path) -> None:
    from arbiter.transport.sandbox import support

    config = played.parent / "t.yaml"
    assert main(["run", str(config), "--quiet"]) == 0  # resumed: nothing to play, the standings rewritten
    standings = (played / "standings.txt").read_text()
    if support().usable:
        assert "Sandbox: every launched bot ran sandboxed in every game (bubblewrap" in standings
    loose = tmp_path / "loose.yaml"
    loose.write_text(config.read_text().replace("results: results", f"results: {tmp_path / 'loose'}"))
    assert main(["run", str(loose), "--quiet", "--no-sandbox"]) == 0
    line = "WARNING: NOT sandboxed: a (4 of 4 games), b (4 of 4 games), cheat (4 of 4 games)"
    assert line in (tmp_path / "loose" / "standings.txt").read_text()
    assert line in (tmp_path / "loose" / "report.html").read_text()


def test_a_void_record_passes_without_its_moves_replayed_but_never_with_a_result() -> None:
    void = {"game": "limit-nim", "id": "001-a-b", "names": ["a", "b"], "winner": None, "offender": None,
            "termination": "void", "scores": [0, 0], "detail": "the worker playing this game was killed by SIGSEGV",
            "moves": [{"seat": 0, "move": "1 999", "wall_ms": 1.0, "cpu_ms": 1.0, "forced": False}]}
    assert replay_problem(GameRecord.from_json(void)) is None  # a move that does not replay is not replayed
    for key, value in (("winner", 0), ("offender", 1), ("points", [1.0, 0.0]), ("places", [1, 2])):
        problem = replay_problem(GameRecord.from_json({**void, key: value}))
        assert problem == f"game 001-a-b: it is recorded as void, which counts for no one, but has {key} {value!r}"
