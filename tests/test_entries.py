"""Entries as folders (tournament/entries.py, preflight.admit): a contest from a folder of
entrants' sources, built, checked and played from one config and one command; an entrant
that does not build (or fails its check) is kept out with its reason and log, not the
tournament stopped; a second run builds nothing, a changed source is built again, and a
new entrant refuses a resume, named."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from arbiter.cli import main
from arbiter.tournament.config import ConfigError, load_config
from arbiter.tournament.entries import read_entry
from arbiter.transport.sandbox import support

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = ROOT / "tests" / "entries"  # carol_c, cecil_cpp, pia_py, and broken_c, which does not compile
ADMITTED = ["carol_c", "cecil_cpp", "pia_py"]

needs_compilers = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("g++")),
                                     reason="the C and C++ presets need gcc and g++")


def contest(tmp_path: Path, extra: str = "") -> Path:
    """A contest folder: the four entries and a round robin of tiny limit-nim games."""
    shutil.copytree(ENTRIES, tmp_path / "entries")
    config = tmp_path / "contest.yaml"
    config.write_text(f"""game: limit-nim
params: {{piles: "4/2,3/2"}}
entries: entries
games_per_pairing: 2
concurrency: 2
time: {{time_ms: 5000}}
results: results
{extra}""")
    return config


def records(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]


def built(tmp_path: Path) -> dict[str, Path]:
    """Each build's folder by player (one per digest: the newest)."""
    folders = sorted((tmp_path / "results" / "builds").iterdir(), key=lambda p: p.stat().st_mtime)
    return {folder.name.rsplit("-", 1)[0]: folder for folder in folders if not folder.name.startswith(".")}


@needs_compilers
def test_an_entries_folder_is_built_and_played_as_a_round_robin_from_one_command(tmp_path, capsys):
    assert main(["run", str(contest(tmp_path)), "--quiet"]) == 0
    err = capsys.readouterr().err
    games = records(tmp_path)
    assert len(games) == 6  # three admitted entrants, two games a pairing
    assert {name for game in games for name in game["names"]} == set(ADMITTED)
    assert all(game["termination"] not in ("crash", "illegal", "malformed") for game in games)
    # The one that does not compile is kept out with its reason and its build's log.
    assert "entrant broken_c is kept out of the tournament: it failed its build: gcc" in err
    log = built(tmp_path)["broken_c"] / "build.log"
    assert f"log: {log}" in err and "error" in log.read_text()
    entrants = json.loads((tmp_path / "results" / "entrants.json").read_text())
    assert entrants["admitted"] == ADMITTED
    assert [(out["name"], out["log"]) for out in entrants["kept_out"]] == [("broken_c", str(log))]
    # Each admitted entrant runs what was built, and its record's digest says which build.
    folders = built(tmp_path)
    assert (folders["carol_c"] / "bot").is_file() and (folders["cecil_cpp"] / "bot").is_file()
    assert all(seat["digest"] for game in games for seat in game["players"])
    summary = json.loads((tmp_path / "results" / "tournament.json").read_text())
    assert summary["schedule"]["players"] == ADMITTED


@needs_compilers
def test_each_entrants_export_holds_its_verdict_and_its_own_build_log(tmp_path, capsys):
    assert main(["run", str(contest(tmp_path)), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["export", str(tmp_path / "results"), "--to", str(tmp_path / "out")]) == 0
    said = capsys.readouterr().out
    # The entrant kept out gets a folder too: why, and its own build's log (what CodeCup sends).
    assert "broken_c: kept out of the tournament; its verdict and logs in" in said
    kept_out = tmp_path / "out" / "broken_c"
    assert sorted(path.name for path in kept_out.iterdir()) == ["build.log", "verdict.txt"]
    assert kept_out.joinpath("verdict.txt").read_text().startswith(
        "broken_c: kept out of the tournament: failed its build: gcc")
    assert kept_out.joinpath("build.log").read_text() == (built(tmp_path)["broken_c"] / "build.log").read_text()
    # Each admitted entrant: admitted, its own build log beside its games; nobody else's.
    for name in ADMITTED:
        folder = tmp_path / "out" / name
        assert folder.joinpath("verdict.txt").read_text().startswith(f"{name}: admitted to the tournament\n")
        assert folder.joinpath("build.log").read_text() == (built(tmp_path)[name] / "build.log").read_text()
    assert main(["export", str(tmp_path / "results"), "--player", "broken_c", "--to", str(tmp_path / "one")]) == 0
    assert [path.name for path in (tmp_path / "one").iterdir()] == ["broken_c"]


@needs_compilers
def test_a_second_run_builds_nothing_and_a_changed_source_is_built_again(tmp_path, capsys):
    config = contest(tmp_path)
    assert main(["run", str(config), "--quiet"]) == 0
    first = built(tmp_path)
    stamp = (first["carol_c"] / "bot").stat().st_mtime_ns
    digests = {game["names"][0]: game["players"][0]["digest"] for game in records(tmp_path)}
    capsys.readouterr()

    assert main(["run", str(config), "--quiet"]) == 0  # a resume: nothing to play, nothing to build
    err = capsys.readouterr().err
    assert "building" not in err and "carol_c: built by an earlier run" in err
    assert (first["carol_c"] / "bot").stat().st_mtime_ns == stamp

    source = tmp_path / "entries" / "carol_c" / "nim.c"
    source.write_text(source.read_text() + "\n/* a second version */\n")
    assert main(["run", str(config), "--quiet"]) == 2  # another program under carol_c's name
    err = capsys.readouterr().err
    assert "building carol_c" in err and "building cecil_cpp" not in err
    assert "carol_c played 4 of them as another program" in err
    assert main(["run", str(config), "--quiet", "--fresh", "--no-backup"]) == 0
    err = capsys.readouterr().err
    assert "building" not in err  # built by the refused run already, kept across --fresh
    now = {game["names"][0]: game["players"][0]["digest"] for game in records(tmp_path)}
    assert now["carol_c"] != digests["carol_c"] and now["cecil_cpp"] == digests["cecil_cpp"]
    assert len([path for path in (tmp_path / "results" / "builds").iterdir() if path.name.startswith("carol_c-")]) == 2


@needs_compilers
def test_a_new_entrant_refuses_the_resume_and_is_named(tmp_path, capsys):
    config = contest(tmp_path)
    assert main(["run", str(config), "--quiet"]) == 0
    shutil.copytree(ENTRIES / "pia_py", tmp_path / "entries" / "dora")
    capsys.readouterr()
    assert main(["run", str(config), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "holds a tournament of other players (new entrant 'dora')" in err
    assert "--fresh" in err


def test_a_preset_whose_compiler_is_missing_is_a_config_error_naming_the_entrant(tmp_path, monkeypatch):
    config = contest(tmp_path)
    empty = tmp_path / "no-compilers"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    message = str(refused.value)
    assert ("entries.carol_c.build: player 'carol_c' cannot be built here: the C preset needs 'gcc', which is not "
            "on this machine's PATH: install it (Debian: apt install gcc)") in message
    assert "entries.cecil_cpp.build: player 'cecil_cpp' cannot be built here: the C++ preset needs 'g++'" in message
    assert "pia_py" not in message  # the Python preset runs the arbiter's own interpreter


def test_an_entrant_needs_no_players_and_joins_the_organisers(tmp_path):
    config = contest(tmp_path, extra=f"players:\n  - {{name: sample, command: python {ROOT / 'players' / 'nim_greedy.py'}}}\n")
    loaded = load_config(config)
    assert [p.name for p in loaded.players] == ["sample", "broken_c", "carol_c", "cecil_cpp", "pia_py"]
    assert loaded.entrants == ("broken_c", "carol_c", "cecil_cpp", "pia_py")
    assert {spec.player: spec.preset for spec in loaded.builds} == {
        "broken_c": "c", "carol_c": "c", "cecil_cpp": "c++", "pia_py": "python"}
    pia = loaded.player("pia_py")
    assert pia.command == (sys.executable, "bot.py") and pia.cwd == str(tmp_path / "entries" / "pia_py")
    assert pia.sandbox is None or pia.sandbox.read == (str(tmp_path / "entries" / "pia_py"),)


def test_an_entrants_clash_with_a_player_is_refused(tmp_path):
    config = contest(tmp_path, extra="players:\n  - {name: Pia_py, command: python bot.py, cwd: entries/pia_py}\n")
    with pytest.raises(ConfigError, match="'pia_py' is not allowed: player 'Pia_py' has the same name up to case"):
        load_config(config)


def test_what_an_entry_folder_holds_gives_its_command_and_build(tmp_path):
    def entry(name: str, files: dict[str, str]) -> tuple[object, list[tuple[str, str]]]:
        folder = tmp_path / name
        folder.mkdir()
        for file, text in files.items():
            (folder / file).write_text(text)
        return read_entry(folder)

    made, problems = entry("maker", {"Makefile": "CFLAGS=-O2\n.PHONY: all\nall: mybot\n\nmybot: a.c b.c\n\tcc -o $@ $^\n",
                                     "a.c": "", "b.c": ""})
    assert problems == [] and made.data == {"build": "make", "command": "./mybot"}
    crab, problems = entry("crab", {"Cargo.toml": '[package]\nname = "crab_bot"\nversion = "0.1.0"\n'})
    assert crab.data == {"build": "cargo build --release --offline", "command": "./target/release/crab_bot"}
    java, problems = entry("javan", {"Bot.java": "", "entry.yaml": "dialect: codecup\n"})
    assert problems == [] and java.data == {"build": "java", "dialect": "codecup"}
    given, problems = entry("given", {"run.sh": "", "entry.yaml": "command: sh run.sh\n"})
    assert problems == [] and given.data == {"command": "sh run.sh"}  # runs as it is, from its folder
    _, problems = entry("twins", {"a.c": "", "b.py": ""})
    assert problems and "holds 2 source files (a.c, b.py)" in problems[0][1] and "entry.yaml" in problems[0][1]
    _, problems = entry("greedy", {"a.py": "", "entry.yaml": "command: python3 a.py\ntime_ms: 999999\nname: x\n"})
    assert [key for key, _ in problems] == ["time_ms", "name"]
    assert "its clock and box are the tournament's" in problems[0][1]


def test_a_player_with_a_build_needs_its_sources_folder(tmp_path):
    (tmp_path / "bot.c").write_text("int main(void) { return 0; }\n")
    config = tmp_path / "t.yaml"
    config.write_text("game: limit-nim\nplayers:\n  - {name: a, command: ./bot, build: c}\n"
                      "  - {name: b, command: ./bot, build: c, cwd: .}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert "players[0].build: needs cwd: (the folder of the player's sources" in str(refused.value)
    assert "players[1]" not in str(refused.value)


@needs_compilers
@pytest.mark.skipif(not support().usable, reason="the check of a kept-out entrant is run in boxes here")
def test_an_entrant_that_fails_its_check_is_kept_out_and_the_others_play(tmp_path, capsys):
    config = contest(tmp_path, extra="check: true\n")
    shutil.rmtree(tmp_path / "entries" / "broken_c")
    shutil.rmtree(tmp_path / "entries" / "cecil_cpp")
    chatty = tmp_path / "entries" / "chatty"
    chatty.mkdir()
    (chatty / "bot.py").write_text((ENTRIES / "pia_py" / "bot.py").read_text().replace(
        "def move() -> None:\n", "def move() -> None:\n    print('thinking...', flush=True)\n"))
    assert main(["run", str(config), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "entrant chatty is kept out of the tournament: it failed the check 'stdout'" in err
    assert {name for game in records(tmp_path) for name in game["names"]} == {"carol_c", "pia_py"}
    entrants = json.loads((tmp_path / "results" / "entrants.json").read_text())
    assert entrants["admitted"] == ["carol_c", "pia_py"] and entrants["kept_out"][0]["name"] == "chatty"


@needs_compilers
@pytest.mark.skipif(not support().usable, reason="this machine cannot make boxes: " + support().describe())
def test_each_entrants_box_shows_its_own_folder_only(tmp_path, capsys):
    config = contest(tmp_path)
    for name in ("broken_c", "cecil_cpp"):
        shutil.rmtree(tmp_path / "entries" / name)
    snoop = tmp_path / "entries" / "snoop"
    snoop.mkdir()
    # It runs from its build's folder, results/builds/snoop-DIGEST/, and looks around it.
    (snoop / "bot.py").write_text(
        "import sys\nfrom pathlib import Path\n"
        "own = Path(__file__).resolve().parent\n"
        "results, contest = own.parents[1], own.parents[2]\n"
        "near = [contest / 'contest.yaml', contest / 'entries' / 'carol_c' / 'nim.c', contest / 'entries' / 'snoop',\n"
        "        results / 'tournament.json', results / 'logs', *results.joinpath('builds').glob('carol_c-*')]\n"
        "print('sees', own.is_dir(), [str(path) for path in near if path.exists()], file=sys.stderr, flush=True)\n"
        + (ENTRIES / "pia_py" / "bot.py").read_text())
    assert main(["run", str(config), "--quiet"]) == 0
    said = [text for path in (tmp_path / "results" / "logs").glob("*snoop*") if (text := path.read_text())]
    assert said == ["sees True []\n"] * 4  # its four games: it sees its own folder, and nothing of the rest


@needs_compilers
def test_a_player_of_the_config_whose_build_fails_stops_the_run(tmp_path, capsys):
    shutil.copytree(ENTRIES / "broken_c", tmp_path / "broken")
    config = tmp_path / "t.yaml"
    config.write_text(f"game: limit-nim\nresults: results\nplayers:\n  - {{name: mine, build: c, cwd: broken}}\n"
                      f"  - {{name: sample, command: python {ROOT / 'players' / 'nim_greedy.py'}}}\n")
    assert main(["run", str(config), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "the tournament was not started: player mine failed its build: gcc" in err and "build.log" in err
    assert not (tmp_path / "results" / "games.jsonl").exists()


def test_an_entry_file_that_is_not_yaml_is_named(tmp_path):
    config = contest(tmp_path)
    (tmp_path / "entries" / "pia_py" / "entry.yaml").write_text("dialect: [codecup\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert f"entries.pia_py: {tmp_path / 'entries' / 'pia_py' / 'entry.yaml'}:2: not valid YAML" in str(refused.value)


def test_the_results_folder_may_not_be_an_entrant(tmp_path):
    config = contest(tmp_path)
    config.write_text(config.read_text().replace("results: results", "results: entries/results"))
    with pytest.raises(ConfigError, match="is not allowed as the results folder: it is inside the entries folder"):
        load_config(config)
