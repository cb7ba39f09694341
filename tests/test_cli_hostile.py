"""The error boundary: every subcommand, driven with hostile arguments and paths, ends in one
line naming the argument or the path and an exit code from the documented table; never a
traceback, never an "internal error", and never a game played into a file it cannot write."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from arbiter.cli import SUBCOMMANDS, build_parser, main
from arbiter.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{sys.executable} {ROOT / 'players' / 'random_bot.py'}"
BAD_NAME = os.fsdecode(b"caf\xe9")  # Latin-1 bytes in a UTF-8 world: what argv gives Python for them
LONG_NAME = "n" * 300  # over the 255 bytes of a file name
LONG_SCRIPT = "b" * 200 + ".py"  # a file name that fits, but not in a player name (64 bytes)
LONG_BOT = f"{sys.executable} {{tmp}}/{LONG_SCRIPT}"  # random_bot.py under that name
HUGE = str(10**30)
EXIT_CODES = {int(code) for code in ExitCode}


@dataclass(frozen=True)
class Mounts:
    """A read-only and a full file system, each holding a readable results folder; `missing`
    says why they could not be made ('' when they are there)."""

    ro: Path
    full: Path
    missing: str = ""


@dataclass(frozen=True)
class Places:
    """Paths of every hostile kind, made fresh for each case."""

    tmp: Path
    file: Path  # a file where a folder is expected
    folder: Path  # a folder where a file is expected
    done: Path  # a writable results folder holding one game
    mounts: Mounts

    def fill(self, text: str) -> str:
        """`text` with the places and constants filled in; a case that names the read-only or
        the full file system is skipped (only it) where they could not be mounted."""
        if self.mounts.missing and ("{ro}" in text or "{full}" in text):
            pytest.skip(self.mounts.missing)
        return text.format(tmp=self.tmp, file=self.file, folder=self.folder, done=self.done, ro=self.mounts.ro,
                           full=self.mounts.full, random=RANDOM, long_bot=LONG_BOT.format(tmp=self.tmp),
                           bad=BAD_NAME, long=LONG_NAME, huge=HUGE, bad_shown=repr(BAD_NAME)[1:-1])


def _mount(where: Path, options: str) -> str:
    """Mount a tmpfs at `where`; why it could not be done, or ''."""
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    return "" if done.returncode == 0 else f"cannot mount a tmpfs here ({done.stderr.decode().strip()}): needs root"


@pytest.fixture(scope="module")
def mounts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mounts]:
    """A read-only and a full file system, each holding a readable results folder (or why not)."""
    base = tmp_path_factory.mktemp("mounts")
    ro, full = base / "ro", base / "full"
    missing = _mount(ro, "size=256k") or _mount(full, "size=256k")
    if missing:
        subprocess.run(["umount", str(ro)], capture_output=True)
        yield Mounts(ro, full, missing)
        return
    try:
        for mount in (ro, full):
            (mount / "results").mkdir()
            (mount / "results" / "games.jsonl").write_text(RECORD + "\n")
        (ro / "results" / "tournament.json").write_text('{"name": "ro"}\n')
        subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
        filler = os.open(full / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(filler, b"x" * 4096):  # until the disk is full
                pass
        except OSError:
            pass
        finally:
            os.close(filler)
        yield Mounts(ro, full)
    finally:
        for mount in (ro, full):
            subprocess.run(["umount", str(mount)], capture_output=True)


@pytest.fixture
def places(tmp_path: Path, mounts: Mounts) -> Places:
    (tmp_path / "file").write_text("not a folder\n")
    (tmp_path / "folder").mkdir()
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "games.jsonl").write_text(RECORD + "\n")
    shutil.copy(ROOT / "players" / "random_bot.py", tmp_path / LONG_SCRIPT)
    return Places(tmp_path, tmp_path / "file", tmp_path / "folder", tmp_path / "done", mounts)


def test_without_a_tmpfs_only_the_cases_that_need_one_are_skipped(tmp_path: Path) -> None:
    places = Places(tmp_path, tmp_path / "file", tmp_path / "folder", tmp_path / "done",
                    Mounts(tmp_path / "ro", tmp_path / "full", "cannot mount a tmpfs here"))
    assert places.fill("--json {tmp}/{long}") == f"--json {tmp_path}/{LONG_NAME}"
    for needs in ("{ro}/x.json", "{full}/results"):
        with pytest.raises(pytest.skip.Exception, match="cannot mount a tmpfs here"):
            places.fill(needs)


def _record() -> str:
    """One real game's record (records are replayed through the rules when read back)."""
    from dataclasses import asdict

    from arbiter.games import find_game
    from tournament_helpers import game_won_by

    moves, scores = game_won_by(find_game("limit-nim"), (), 0, seed=1)
    return json.dumps({"id": "001-a-b", "round": 1, "game": "limit-nim", "params": {}, "names": ["a", "b"],
                       "winner": 0, "termination": "normal", "detail": "", "scores": scores, "points": [1, 0],
                       "moves": [asdict(m) for m in moves]})


RECORD = _record()

CONFIG = """\
name: hostile
game: limit-nim
games_per_pairing: 2
concurrency: 1
results: {results}
time: {{time_ms: {time_ms}}}
players:
  - {{name: a, command: {random}}}
  - {{name: b, command: {random}}}
"""


def config(places: Places, *, results: str = "results", time_ms: str = "5000", extra: str = "") -> str:
    """A small tournament config in the case's folder; its path."""
    path = places.tmp / "t.yaml"
    path.write_text(CONFIG.format(results=places.fill(results), time_ms=places.fill(time_ms), random=RANDOM) + extra)
    return str(path)


SPRT = ["sprt", "limit-nim", "{random}", "{random}", "--quiet", "--max-games", "2"]

# (argv, exit code, what the one line must name). `{...}` are Places and the constants above.
CASES: list[tuple[list[str], int, str]] = [
    # play: output paths, checked before the game
    (["play", "limit-nim", "{random}", "{random}", "--html", "{folder}"], 2, "--html {folder} is a folder"),
    (["play", "limit-nim", "{random}", "{random}", "--json", "{folder}"], 2, "--json {folder} is a folder"),
    (["play", "limit-nim", "{random}", "{random}", "--log-dir", "{file}"], 2, "--log-dir {file} is a file"),
    (["play", "limit-nim", "{random}", "{random}", "--json", "{file}/x.json"], 2, "{file} is a file, not a folder"),
    (["play", "limit-nim", "{random}", "{random}", "--html", "{tmp}/no/x.html"], 2, "the folder {tmp}/no does not"),
    (["play", "limit-nim", "{random}", "{random}", "--json", "{ro}/x.json"], 2, "--json {ro}/x.json: cannot write"),
    (["play", "limit-nim", "{random}", "{random}", "--log-dir", "{ro}/logs"], 2, "--log-dir {ro}/logs: cannot"),
    (["play", "limit-nim", "{random}", "{random}", "--json", "{full}/x.json"], 2, "No space left on device"),
    (["play", "limit-nim", "{random}", "{random}", "--html", "{full}/x.html"], 2, "--html {full}/x.html"),
    (["play", "limit-nim", "{random}", "{random}", "--log-dir", "{full}/logs"], 2, "--log-dir {full}/logs"),
    (["play", "limit-nim", "{random}", "{random}", "--json", "{tmp}/{long}"], 2, "File name too long"),
    (["play", "limit-nim", "{random}", "{random}", "--json", "{tmp}/{bad}/x"], 2, "--json '{tmp}/{bad_shown}/x'"),
    (["play", "limit-nim", "{random}", "{random}", "--log-dir", "{tmp}/{bad}", "--json", "{tmp}/{bad}.json"],
     0, ""),
    # play: numbers, names and commands
    (["play", "limit-nim", "{random}", "{random}", "--time-ms", "-5"], 2, "--time-ms must be a positive"),
    (["play", "limit-nim", "{random}", "{random}", "--move-ms", "0"], 2, "--move-ms must be a positive"),
    (["play", "limit-nim", "{random}", "{random}", "--time-ms", "{huge}"], 0, ""),
    (["play", "limit-nim", "{random}", "{random}", "--time-ms", "1e400"], 2, "--time-ms"),
    (["play", "dots-and-boxes", "-p", "rows={huge}", "{random}", "{random}"], 2, "rows"),
    (["play", "dots-and-boxes", "-p", "rows=-3", "{random}", "{random}"], 2, "rows"),
    (["play", "{bad}", "{random}", "{random}"], 2, "{bad_shown}"),
    (["play", "limit-nim", "{random}"], 2, "give 2 players"),
    (["play", "limit-nim", "{random}", "{tmp}/{bad}"], 2, "seat 1's command"),
    (["play", "limit-nim", "{random}", "{long}"], 2, "seat 1's command"),
    # run: the config and its results folder
    (["run", "{tmp}/missing.yaml"], 2, "{tmp}/missing.yaml"),
    (["run", "{folder}"], 2, "{folder}"),
    (["run", "{file}/t.yaml"], 2, "{file}/t.yaml"),
    (["run", "{tmp}/{bad}.yaml"], 2, "{bad_shown}"),
    (["run", "{tmp}/{long}.yaml"], 2, "{long}"),
    (["run", "CONFIG:results={file}"], 2, "results folder {file} is a file"),
    (["run", "CONFIG:results={file}/r"], 2, "{file}/r"),
    (["run", "CONFIG:results={ro}/new"], 2, "{ro}/new"),
    (["run", "CONFIG:results={full}/new"], 2, "{full}/new"),
    (["run", "CONFIG:results={tmp}/{long}"], 2, "{long}"),
    (["run", "CONFIG:time_ms=-5"], 2, "time.time_ms: -5 is not allowed"),
    (["run", "CONFIG:time_ms={huge}"], 0, ""),  # a budget nobody runs out of
    (["run", "CONFIG", "--concurrency", "-1"], 2, "--concurrency -1"),
    (["run", "CONFIG", "--concurrency", "{huge}"], 2, "--concurrency"),
    (["run", "CONFIG:extra=games_per_pairing: {huge}"], 2, "games_per_pairing"),
    # report: the results folder
    (["report", "{tmp}/missing"], 2, "{tmp}/missing does not exist"),
    (["report", "{file}"], 2, "{file} is a file"),
    (["report", "{folder}"], 2, "{folder} is not a results folder"),
    (["report", "{tmp}/{bad}"], 2, "{bad_shown}"),
    (["report", "{ro}/results"], 2, "{ro}/results"),
    (["report", "{full}/results"], 2, "{full}/results"),
    (["report", "{full}/results", "--html"], 2, "{full}/results"),
    (["report", "{done}", "--anchor", "nobody"], 2, "--anchor 'nobody'"),
    (["report", "{done}", "--anchor", "{long}"], 2, "--anchor '{long}' is not a player"),
    (["report", "{tmp}/{long}"], 2, "{tmp}/{long}: File name too long"),
    (["export", "{tmp}/missing"], 2, "{tmp}/missing does not exist"),
    (["export", "{file}"], 2, "{file} is a file"),
    (["export", "{folder}"], 2, "{folder} is not a results folder"),
    (["export", "{done}", "--player", "nobody"], 2, "--player 'nobody' is not a player"),
    (["export", "{done}", "--to", "{file}"], 2, "{file}"),
    (["export", "{done}", "--to", "{ro}/x"], 2, "{ro}/x"),
    (["export", "{done}", "--to", "{full}/x"], 2, "{full}/x"),
    (["export", "{done}", "--log-chars", "-1"], 2, "--log-chars must be 0 or more"),
    (["report", "{tmp}/{long}", "--html"], 2, "{tmp}/{long}: File name too long"),
    # serve: the results folder and the address
    (["serve", "{tmp}/missing"], 2, "{tmp}/missing does not exist"),
    (["serve", "{file}"], 2, "{file} is a file"),
    (["serve", "{folder}"], 2, "{folder} is not a results folder"),
    (["serve", "{tmp}/{bad}"], 2, "{bad_shown}"),
    (["serve", "{done}", "--address", "{huge}"], 2, "--address '{huge}'"),
    (["serve", "{done}", "--address", "{long}"], 2, "--address"),
    (["run", "CONFIG", "--serve", "1.2.3.4:99999"], 2, "--serve '1.2.3.4:99999': port 99999"),
    (["run", "CONFIG", "--serve-logs"], 2, "--serve-logs: only with --serve"),
    (["run", "CONFIG", "--serve", "{file}"], 2, "--serve '{file}'"),
    # sprt: the results folder and the numbers
    ([*SPRT, "--results", "{file}"], 2, "results folder {file} is a file"),
    ([*SPRT, "--results", "{file}/r"], 2, "{file}/r"),
    ([*SPRT, "--results", "{ro}/r"], 2, "{ro}/r"),
    ([*SPRT, "--results", "{full}/r"], 2, "{full}/r"),
    ([*SPRT, "--results", "{tmp}/{bad}"], 2, "{bad_shown}"),
    ([*SPRT, "--results", "{tmp}/{long}"], 2, "{long}"),
    ([*SPRT, "--results", "{tmp}/r", "--max-games", "-2"], 2, "--max-games: -2"),
    ([*SPRT, "--results", "{tmp}/r", "--max-games", "{huge}"], 2, "--max-games: "),
    ([*SPRT, "--results", "{tmp}/r", "--time-ms", "-1"], 2, "--time-ms: -1"),
    ([*SPRT, "--results", "{tmp}/r", "--concurrency", "0"], 2, "--concurrency: 0"),
    ([*SPRT, "--results", "{tmp}/r", "--elo0", "nan"], 2, "elo0"),
    ([*SPRT, "--results", "{tmp}/r", "--elo1", "inf"], 2, "elo1"),
    ([*SPRT, "--results", "{tmp}/r", "--alpha", "-1"], 2, "alpha"),
    ([*SPRT, "--results", "{tmp}/r", "--openings", "{huge}"], 2, "--openings: {huge} is not allowed"),
    ([*SPRT, "--results", "{tmp}/r", "--openings", "-3"], 2, "--openings: "),
    ([*SPRT, "--results", "{tmp}/r", "--openings", "{folder}"], 2, "--openings: "),
    ([*SPRT, "--results", "{tmp}/r", "--openings-seed", "-1"], 2, "--openings-seed: -1"),
    # check: its output paths and numbers
    # check: its output paths, checked before the first game, and numbers
    (["check", "limit-nim", "{random}", "--json", "{folder}"], 2, "--json {folder} is a folder: give a file name"),
    (["check", "limit-nim", "{random}", "--json", "{file}/x.json"], 2,
     "--json {file}/x.json: {file} is a file, not a folder"),
    (["check", "limit-nim", "{random}", "--json", "{tmp}/no/x.json"], 2,
     "--json {tmp}/no/x.json: the folder {tmp}/no does not exist"),
    (["check", "limit-nim", "{random}", "--json", "{ro}/x.json"], 2, "--json {ro}/x.json: cannot write it"),
    (["check", "limit-nim", "{random}", "--json", "{full}/x.json"], 2,
     "--json {full}/x.json: cannot write it (No space left on device)"),
    (["check", "limit-nim", "{random}", "--json", "{tmp}/{long}"], 2, "--json {tmp}/{long}: cannot write it (File name"),
    (["check", "limit-nim", "{random}", "--json", "{tmp}/{bad}/x"], 2, "--json '{tmp}/{bad_shown}/x'"),
    (["check", "limit-nim", "{random}", "--log-dir", "{file}"], 2, "--log-dir {file} is a file, not a folder"),
    (["check", "limit-nim", "{random}", "--log-dir", "{ro}/l"], 2, "--log-dir {ro}/l: cannot"),
    (["check", "limit-nim", "{random}", "--log-dir", "{full}/l"], 2, "--log-dir {full}/l: cannot"),
    (["check", "limit-nim", "{random}", "--log-dir", "{tmp}/{long}"], 2, "--log-dir {tmp}/{long}: cannot"),
    (["check", "{long}", "{random}"], 2, "unknown game '{long}'"),
    (["check", "limit-nim", "{long}"], 2, "CMD: cannot be started: '{long}'"),
    (["check", "limit-nim", "{random}", "--time-ms", "-1"], 2, "--time-ms"),
    (["check", "limit-nim", "{random}", "--concurrency", "{huge}"], 0, ""),
    (["check", "{bad}", "{random}"], 2, "{bad_shown}"),
    (["check", "limit-nim", "{tmp}/{bad}"], 2, "{bad_shown}"),
    # match: its results folder and numbers
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{file}"], 2, "{file}"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{file}/r"], 2, "{file}/r"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{ro}/r"], 2, "{ro}/r"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{full}/r"], 2, "{full}/r"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{tmp}/{bad}"], 2, "{bad_shown}"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "-2", "--results", "{tmp}/r"], 2, "-2"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "{huge}", "--results", "{tmp}/r"], 2, "games"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--time-ms", "0", "--results", "{tmp}/r"],
     2, "--time-ms: 0 is not allowed"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{tmp}/{long}"], 2,
     "{tmp}/{long}: File name too long"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{tmp}/r", "--openings", "{folder}"],
     2, "--openings: '{folder}' is not allowed: cannot read {folder} (Is a directory)"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{tmp}/r", "--openings", "{tmp}/{long}"],
     2, "File name too long"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{tmp}/r", "--openings", "{file}/o"],
     2, "cannot read {file}/o (Not a directory)"),
    (["match", "limit-nim", "{random}", "{long}", "--games", "2", "--results", "{tmp}/r"], 2,
     "CMD_B: cannot be started: '{long}' is not found on PATH"),
    (["match", "limit-nim", "{long_bot}", "{random}", "--games", "2", "--results", "{tmp}/r", "--quiet"], 0, ""),
    # keys: the folder and the name
    (["keys", "x", "--dir", "{file}"], 2, "--dir {file}"),
    (["keys", "x", "--dir", "{file}/k"], 2, "--dir {file}/k"),
    (["keys", "x", "--dir", "{ro}/k"], 2, "--dir {ro}/k"),
    (["keys", "x", "--dir", "{full}"], 2, "--dir {full}"),
    (["keys", "{bad}", "--dir", "{tmp}"], 2, "is not a key name"),
    (["keys", "{long}", "--dir", "{tmp}"], 2, "File name too long"),
    (["keys", "a/b", "--dir", "{tmp}"], 2, "is not a key name"),
]


def _argv(places: Places, template: list[str]) -> list[str]:
    """The case's arguments; `CONFIG[:key=value]` is a config written for the case."""
    argv = []
    for word in template:
        if word.startswith("CONFIG"):
            _, _, change = word.partition(":")
            key, _, value = change.partition("=")
            word = config(places, **({key: value} if key in ("results", "time_ms") else
                                     {"extra": places.fill(value) + "\n"} if key == "extra" else {}))
        argv.append(places.fill(word))
    return argv


def one_line_error(err: str) -> str:
    """The error line (the last line; a run's notes may come before it), checked to be the only
    kind of line a user sees: no traceback, no internal error."""
    assert "Traceback" not in err and "internal error" not in err, err
    lines = err.strip().splitlines()
    assert lines, "no message"
    return lines[-1]


def test_every_subcommand_has_hostile_cases() -> None:
    covered = {case[0][0] for case in CASES}
    assert set(SUBCOMMANDS) <= covered, f"no hostile cases for {set(SUBCOMMANDS) - covered}"


def _case_id(template: list[str]) -> str:
    return " ".join([template[0], *(w for w in template[1:] if w.startswith(("-", "{", "CONFIG")) and w != "{random}")])


@pytest.mark.parametrize("template, code, names", CASES, ids=[_case_id(c[0]) for c in CASES])
def test_hostile_arguments_end_in_one_line_and_a_documented_exit_code(
        places: Places, template: list[str], code: int, names: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(places.tmp)
    got = main(_argv(places, template))
    out, err = capsys.readouterr()
    assert got in EXIT_CODES
    if code == 0:
        assert got == 0 and "Traceback" not in err, err
        return
    line = one_line_error(err)
    assert got == code, err
    assert line.startswith(f"arbiter {template[0]}: error: "), line
    assert places.fill(names) in line, line


@pytest.mark.parametrize("command", [["play", "limit-nim", RANDOM, RANDOM, "--html"],
                                     ["check", "limit-nim", RANDOM, "--json"]])
def test_no_game_is_played_into_an_output_that_cannot_be_written(places: Places, command: list[str], capsys) -> None:
    assert main([*command, str(places.folder), "--log-dir", str(places.tmp / "logs")]) == 2
    assert not (places.tmp / "logs").exists() or not any((places.tmp / "logs").iterdir())  # no bot ever started
    out, err = capsys.readouterr()
    assert "moves:" not in out and "checking" not in out
    assert f"{command[-1]} {places.folder} is a folder" in err


# Ctrl-C at every phase: (argv, the function that is interrupted)
PHASES: list[tuple[list[str], str]] = [
    (["play", "limit-nim", "{random}", "{random}"], "arbiter.cli.players.find_game"),  # the game, found for play
    (["play", "limit-nim", "{random}", "{random}", "--json", "{tmp}/g.json"], "arbiter.cli.play.check_output_file"),
    (["play", "limit-nim", "{random}", "{random}"], "arbiter.cli.play.play_game"),
    (["play", "limit-nim", "{random}", "{random}", "--html", "{tmp}/g.html"], "arbiter.cli.play.write_game_page"),
    (["run", "CONFIG"], "arbiter.cli.run.load_config"),
    (["run", "CONFIG"], "arbiter.tournament.runner.prepare_results"),
    (["run", "CONFIG"], "arbiter.tournament.workers.WorkerPool.submit"),
    (["run", "CONFIG"], "arbiter.cli.run.report_results"),
    (["run", "CONFIG"], "arbiter.cli.run.write_tournament_report"),
    (["report", "{done}"], "arbiter.cli.report.report_results"),
    (["report", "{tmp}/r", "--html"], "arbiter.cli.report.write_tournament_report"),
    (["export", "{done}", "--to", "{tmp}/x"], "arbiter.cli.export.export_entrants"),
    (["serve", "{done}"], "arbiter.reports.live.check_results_folder"),
    (["serve", "{done}"], "arbiter.cli.serve.wait_for_ctrl_c"),
    (["run", "CONFIG", "--serve"], "arbiter.cli.run.run_tournament"),
    ([*SPRT, "--results", "{tmp}/s"], "arbiter.cli.sprt.config_from_data"),
    ([*SPRT, "--results", "{tmp}/s"], "arbiter.tournament.runner.prepare_results"),
    ([*SPRT, "--results", "{tmp}/s"], "arbiter.tournament.workers.WorkerPool.submit"),
    ([*SPRT, "--results", "{tmp}/s"], "arbiter.cli.sprt.report_results"),
    (["keys", "x", "--dir", "{tmp}"], "arbiter.cli.keys.write_key_pair"),
    (["check", "limit-nim", "{random}"], "arbiter.cli.players.find_game"),  # and for check
    (["check", "limit-nim", "{random}", "--json", "{tmp}/c.json"], "arbiter.cli.check.check_output_file"),
    (["check", "limit-nim", "{random}", "--log-dir", "{tmp}/logs"], "arbiter.check.scenarios.play_game"),
    (["match", "limit-nim", "{random}", "{random}", "--games", "2", "--results", "{tmp}/m"],
     "arbiter.tournament.workers.WorkerPool.submit"),
]


def test_every_subcommand_has_interrupted_phases() -> None:
    assert set(SUBCOMMANDS) <= {argv[0] for argv, _ in PHASES}


@pytest.mark.parametrize("template, target", PHASES, ids=[f"{a[0]}-{t.rsplit('.', 1)[1]}-{i}" for i, (a, t) in enumerate(PHASES)])
def test_ctrl_c_at_every_phase_exits_130_with_one_line(places: Places, template: list[str], target: str,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    (places.tmp / "r").mkdir()
    (places.tmp / "r" / "games.jsonl").write_text(RECORD + "\n")
    monkeypatch.chdir(places.tmp)
    monkeypatch.setattr(target, interrupted)
    assert main(_argv(places, template)) == 130
    line = one_line_error(capsys.readouterr().err)
    assert line.startswith(f"arbiter {template[0]}: interrupted") or line.startswith("stopped: "), line


STREAM_COMMANDS = ["help", "play", "report", "run", "check", "match", "sprt", "keys"]


def end_to_end(tmp_path: Path, command: str) -> tuple[list[str], int, list[Path]]:
    """A whole command, small and fast, as run from a shell: its arguments, its exit code when
    its output is dropped, and the files it must have written by then."""
    (tmp_path / "games.jsonl").write_text(RECORD + "\n")  # a results folder for report and serve
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG.format(results=tmp_path / "run", time_ms=5000, random=RANDOM))
    logs = ["--log-dir", str(tmp_path / "logs")]
    cases: dict[str, tuple[list[str], int, list[str]]] = {
        "help": (["--help"], 0, []),
        "play": (["play", "limit-nim", RANDOM, RANDOM, *logs, "--json", "-"], 0, []),
        "play --show": (["play", "limit-nim", RANDOM, RANDOM, *logs, "--show", "--json", str(tmp_path / "g.json")],
                        0, ["g.json"]),  # the board printed as the game goes
        "report": (["report", str(tmp_path)], 0, ["standings.txt", "summary.json"]),
        "run": (["run", str(config)], 0, ["run/standings.txt", "run/report.html"]),
        "check": (["check", "limit-nim", RANDOM, *logs, "--json", str(tmp_path / "check.json")], 0, ["check.json"]),
        "match": (["match", "limit-nim", RANDOM, RANDOM, "--games", "2", "--results", str(tmp_path / "match")],
                  0, ["match/standings.txt", "match/report.html"]),
        "sprt": ([*(w.format(random=RANDOM) for w in SPRT), "--results", str(tmp_path / "sprt")],
                 4, ["sprt/standings.txt"]),  # random against random, 2 games: inconclusive
        "keys": (["keys", "k", "--dir", str(tmp_path / "keys")], 0, ["keys/k.key", "keys/k.key_secret"]),
        "serve": (["serve", str(tmp_path)], 130, []),  # until Ctrl-C
    }
    args, code, files = cases[command]
    return [sys.executable, "-m", "arbiter", *args], code, [tmp_path / name for name in files]


@pytest.mark.parametrize("closed", [">&-", "2>&-", ">&- 2>&-"])
@pytest.mark.parametrize("command", STREAM_COMMANDS)
def test_closed_standard_output_or_error_is_an_orderly_exit(tmp_path: Path, closed: str, command: str) -> None:
    """`arbiter ... >&-`: what would be printed is dropped, the files are written, and the exit
    code is the command's own (Python's own failure to flush at exit would be 120, a traceback 1)."""
    argv, code, files = end_to_end(tmp_path, command)
    done = subprocess.run(["bash", "-c", f"{shlex.join(argv)} {closed}; echo $? > {tmp_path}/status"], cwd=ROOT,
                          capture_output=True, timeout=120)
    assert b"Traceback" not in done.stdout + done.stderr, done.stderr
    assert int((tmp_path / "status").read_text()) == code, done.stderr
    assert all(path.exists() for path in files), files


# serve writes only its address, to stdout, then runs until Ctrl-C: no stderr to lose.
PIPES = [(command, stream) for command in [*(c for c in STREAM_COMMANDS if c != "help"), "play --show", "serve"]
         for stream in ("stdout", "stderr") if (command, stream) != ("serve", "stderr")]


@pytest.mark.parametrize("command, stream", PIPES)
def test_a_reader_that_leaves_early_is_one_line_and_the_files_are_written(tmp_path: Path, command: str,
                                                                          stream: str) -> None:
    """`arbiter run CONFIG | head -3`: the reader of stdout (or of stderr) is gone before the
    command writes to it. Gone from stdout: the files are written, then one line on stderr and
    exit 2. Gone from stderr: progress stops, the run does not, and the exit code is its own.
    (Not --help: argparse itself ignores a failure to write the help.)"""
    argv, code, files = end_to_end(tmp_path, command)
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    gone, kept = (process.stdout, process.stderr) if stream == "stdout" else (process.stderr, process.stdout)
    assert gone is not None and kept is not None
    gone.close()  # before it writes anything: its first write finds the pipe closed
    text = kept.read().decode()
    if stream == "stdout":
        assert process.wait(120) == 2, text
        line = one_line_error(text)
        assert line.startswith(f"arbiter {command.split()[0]}: error: ") and "broken pipe" in line, line
        if command == "check":
            files = []  # its first line is printed before its first game: it stops before any game
    else:
        assert process.wait(120) == code, text
        assert text and "Traceback" not in text
    assert all(path.exists() for path in files), files


def test_serve_into_a_closed_stdout_serves_until_ctrl_c(tmp_path: Path) -> None:
    """`arbiter serve DIR >&-`: the address line goes nowhere, the page is served all the same."""
    (tmp_path / "games.jsonl").write_text(RECORD + "\n")
    with socket.socket() as probe:  # a free port, to know where the page is without the address line
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "arbiter", "serve", str(tmp_path), "--address", f"127.0.0.1:{port}"]
    process = subprocess.Popen(["bash", "-c", f"exec {shlex.join(argv)} >&-"], cwd=ROOT, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while True:  # no line announces it: the page is up once the port answers
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "serve never listened"
            time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert one_line_error(err.decode()) == "arbiter serve: interrupted"


def test_real_ctrl_c_during_a_tournament_exits_130_without_traceback(tmp_path: Path) -> None:
    slow = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'sleep_bot.py'}"
    path = tmp_path / "t.yaml"
    path.write_text(CONFIG.format(results="results", time_ms=60000, random=slow))
    process = subprocess.Popen([sys.executable, "-m", "arbiter", "run", str(path)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stderr is not None
    while "hostile: round-robin" not in process.stderr.readline().decode():  # the start note: under way
        pass
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    last = err.decode().strip().splitlines()[-1]  # stopped before or during the first games
    assert "Traceback" not in err.decode() and (last == "arbiter run: interrupted" or last.startswith("stopped: "))


def test_real_ctrl_c_during_checks_games_exits_130_without_traceback(tmp_path: Path) -> None:
    """Ctrl-C while `arbiter check` plays its scenarios (after the first game, with the others
    running side by side): one line, exit 130."""
    logs = tmp_path / "logs"
    slow = f"/usr/bin/env SLOW_MS=300 {sys.executable} {ROOT / 'tests' / 'bots' / 'slow_random_bot.py'}"
    process = subprocess.Popen([sys.executable, "-m", "arbiter", "check", "limit-nim", slow, "--log-dir", str(logs),
                                "--concurrency", "2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not any("-02-" in path.name for path in logs.rglob("*.log")):  # the second game has started
        assert process.poll() is None and time.monotonic() < deadline, "check never reached its second game"
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    out, err = process.communicate(timeout=120)
    stopped_s = time.monotonic() - interrupted
    assert process.returncode == 130, err
    assert one_line_error(err.decode()) == "arbiter check: interrupted"
    # The games in flight are cancelled, not played out (a bot that thinks 300 ms a move
    # would keep the rest of the check going for 10 s and more).
    assert stopped_s < 6, f"check took {stopped_s:.1f} s to stop after Ctrl-C"
    assert "passed:" not in out.decode() and "FAILED" not in out.decode()  # no checklist from a cut-short check


def test_help_of_every_subcommand_lists_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    for command in SUBCOMMANDS:
        assert main([command, "--help"]) == 0
        assert "130  interrupted" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("arbiter ")
    assert build_parser().epilog is not None and "4    inconclusive" in build_parser().epilog
