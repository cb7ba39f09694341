"""Where results go, starting over and resuming, as the command line and docs/cli.md say:
results under the current folder for `run`, `match` and `sprt` alike, `--fresh` keeping the
old games in a dated backup, and a refused resume that says what changed and how to go on."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.errors import ExitCode, UsageError
from arbiter.tournament.config import load_config
from arbiter.tournament.runner import prepare_results
from arbiter.tournament.store import ResultsFolder

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}"
NIM = ["-p", "piles=4/3", "--time-ms", "5000"]  # short games


def game_ids(folder: Path) -> list[str]:
    return [json.loads(line)["id"] for line in (folder / "games.jsonl").read_text().splitlines() if line.strip()]


def last_line(err: str) -> str:
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


def write_yaml(path: Path, games: int, results: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"game: limit-nim\ngames_per_pairing: {games}\n" + (f"results: {results}\n" if results else "")
                    + f"players:\n  - {{name: a, command: {RANDOM}}}\n  - {{name: b, command: {RANDOM}}}\n")
    return path


def test_a_configs_results_go_under_the_current_folder_unless_it_names_them(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    config = write_yaml(tmp_path / "x" / "mybot" / "ladder.yaml", 2)
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    assert load_config(config).results_dir == here / "results" / "ladder"  # not /x/results/ladder
    named = write_yaml(tmp_path / "x" / "mybot" / "named.yaml", 2, results="out")
    assert load_config(named).results_dir == tmp_path / "x" / "mybot" / "out"  # moves with the config
    monkeypatch.chdir(ROOT)  # the README's demo, run from the repository's root
    assert load_config(ROOT / "configs" / "demo.yaml").results_dir == ROOT / "results" / "demo"


def test_a_refused_resume_of_a_config_names_the_change_and_the_configs_way_out(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_yaml(tmp_path / "t.yaml", 2)
    prepare_results(load_config(path), fresh=False)
    with pytest.raises(UsageError) as info:
        prepare_results(load_config(write_yaml(path, 4)), fresh=False)
    message = str(info.value)
    assert "(changed: games_per_pairing 2 -> 4)" in message
    assert f"set another `name:` or `results:` in {path}" in message and "--fresh to start over" in message
    assert "--results" not in message


def test_fresh_moves_the_old_files_to_a_dated_backup_or_deletes_them(tmp_path: Path) -> None:
    folder = ResultsFolder(tmp_path / "r")
    for _ in range(2):  # the second backup within the same second gets its own name
        folder.prepare(fresh=False)
        folder.games.write_text('{"id": "001-a-b"}\n')
        (folder.logs / "001-a-b-seat0-a.log").write_text("hello\n")
        kept = folder.prepare(fresh=True)
        assert kept is not None and kept.parent == tmp_path and re.fullmatch(
            r"r\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(-2)?", kept.name), kept
        assert (kept / "games.jsonl").read_text() == '{"id": "001-a-b"}\n'
        assert (kept / "logs" / "001-a-b-seat0-a.log").read_text() == "hello\n"
        assert not folder.games.exists() and not any(folder.logs.iterdir())
    assert len(list(tmp_path.glob("r.*"))) == 2
    folder.games.write_text('{"id": "001-a-b"}\n')
    assert folder.prepare(fresh=True, backup=False) is None
    assert not folder.games.exists() and len(list(tmp_path.glob("r.*"))) == 2
    assert folder.prepare(fresh=True) is None  # nothing to keep: no empty backup


def test_a_match_resumes_under_the_current_folder_refuses_a_change_and_fresh_keeps_a_backup(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    match = ["match", "limit-nim", RANDOM, RANDOM, *NIM, "--quiet"]
    assert main([*match, "--games", "2"]) == 0
    results = tmp_path / "results" / "match-random_bot-a-vs-random_bot-b"  # the default: after its players
    first = game_ids(results)
    capsys.readouterr()

    assert main([*match, "--games", "4"]) == 2
    line = last_line(capsys.readouterr().err)
    assert "(changed: games_per_pairing 2 -> 4)" in line
    assert "give the new run its own folder with --results DIR; or run with --fresh to start over" in line
    assert "config" not in line  # there is none: the way out is said in flags
    assert game_ids(results) == first

    assert main([*match, "--games", "2", "--fresh"]) == 0
    err = capsys.readouterr().err
    moved = re.search(rf"--fresh: the earlier games and files of {re.escape(str(results))} were moved to (\S+)", err)
    assert moved, err
    backup = Path(moved.group(1))
    assert game_ids(backup) == first and len(game_ids(results)) == 2
    assert main(["report", str(backup)]) == 0  # a backup is a results folder like any other
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == [results.name, backup.name]


def test_a_results_folder_that_cannot_be_used_is_told_in_the_flags_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("")
    for folder, says in (("afile", "is a file, not a folder; set --results to a folder"),
                         ("notes", "already holds other files and no games.jsonl; an arbiter run writes files there "
                                   "(and --fresh moves them away): set --results to a new or empty folder")):
        assert main(["match", "limit-nim", RANDOM, RANDOM, "--games", "2", "--results", folder]) == 2
        assert says in last_line(capsys.readouterr().err)


def test_an_undecided_sprts_advice_can_be_followed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Random against random over 2 games decides nothing; the verdict says to widen the
    bounds in a new test, and the resume with wider bounds says how, and both ways work."""
    monkeypatch.chdir(tmp_path)
    sprt = ["sprt", "limit-nim", RANDOM, RANDOM, *NIM, "--max-games", "2", "--quiet"]
    assert main(sprt) == ExitCode.INCONCLUSIVE
    verdict = capsys.readouterr().out.strip().splitlines()[-1]
    assert verdict.startswith("Verdict: inconclusive") and verdict.endswith("(exit 4)")
    assert "raise the maximum (--max-games" in verdict and "widen elo0..elo1, start a new test" in verdict
    assert "--results DIR" in verdict and "--fresh" in verdict

    assert main([*sprt, "--elo1", "10"]) == 2
    line = last_line(capsys.readouterr().err)
    assert "(changed: sprt.elo1 5.0 -> 10.0)" in line and "A resumed SPRT keeps the hypotheses" in line
    assert "--results DIR" in line and "--fresh" in line

    assert main([*sprt, "--elo1", "10", "--results", "results/wider"]) == ExitCode.INCONCLUSIVE
    assert main([*sprt, "--elo1", "10", "--fresh"]) == ExitCode.INCONCLUSIVE
    assert "--fresh: the earlier games and files of" in capsys.readouterr().err


def test_the_release_guides_quick_start_agrees_with_the_exit_codes() -> None:
    guide = (ROOT / "docs" / "release-checking.md").read_text()
    comment = next(line for line in guide.splitlines() if line.startswith("echo $?"))
    said = {int(code): text.strip() for code, text in re.findall(r"(\d+): ([^,]+)", comment)}
    meaning = {ExitCode.DONE: "better", ExitCode.CHECK_FAILED: "not better", ExitCode.USAGE: "usage",
               ExitCode.FAULT_GATE: "fault", ExitCode.INCONCLUSIVE: "undecided"}
    assert set(said) == {int(code) for code in meaning}, comment
    for code, word in meaning.items():
        assert said[int(code)].startswith(word), (code, said[int(code)])
