"""A CodeCup contest end to end (issue 39): a folder of twelve entries' sources (C, C++, Rust and
Python; one that does not compile, one that fails its check), one config and one command that
builds, checks and plays Swiss rounds and then the top four's double round robin, stopped with
Ctrl-C in each stage and resumed by the same command; the faulty two kept out with their
reasons, and each entrant's export holding its own games and logs alone."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = ROOT / "tests" / "entries"

# A Limit Nim entrant in Rust: one stone from the last pile that has any.
RUST_BOT = """use std::io::{self, BufRead, Write};

fn main() {
    let mut stones: Vec<i64> = Vec::new();
    let mut forced = 0;
    let stdin = io::stdin();
    let mut out = io::stdout();
    let mut play = |stones: &mut Vec<i64>, out: &mut io::Stdout| {
        if let Some(pile) = (0..stones.len()).rev().find(|&i| stones[i] > 0) {
            stones[pile] -= 1;
            writeln!(out, "{} 1", pile + 1).unwrap();
            out.flush().unwrap();
        }
    };
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("Game ") {
            let piles = rest.split_whitespace().find_map(|w| w.strip_prefix("piles=")).unwrap_or("");
            stones = piles.split(',').map(|p| p.split('/').next().unwrap().parse().unwrap()).collect();
        } else if let Some(n) = line.strip_prefix("Opening ") {
            forced = n.trim().parse().unwrap();
        } else if line.starts_with("Start") {
            play(&mut stones, &mut out);
        } else if line.starts_with("Quit") {
            break;
        } else {
            let words: Vec<i64> = line.split_whitespace().map(|w| w.parse().unwrap()).collect();
            stones[(words[0] - 1) as usize] -= words[1];
            if forced > 0 {
                forced -= 1;
            } else if stones.iter().sum::<i64>() > 0 {
                play(&mut stones, &mut out);
            }
        }
    }
}
"""
# An entrant that writes its debug text on stdout: it fails `check: true`.
CHATTY_BOT = (ENTRIES / "pia_py" / "bot.py").read_text().replace(
    "def move() -> None:\n", "def move() -> None:\n    print('thinking...', flush=True)\n", 1)

ENTRANTS = {"ada_c": "carol_c", "bea_c": "carol_c", "cal_c": "carol_c", "dov_cpp": "cecil_cpp",
            "eli_cpp": "cecil_cpp", "fay_cpp": "cecil_cpp", "gus_py": "pia_py", "hal_py": "pia_py"}
SWISS_GAMES = 3 * 5 * 2  # three rounds of five pairs (ten admitted), two games a pair
FINAL_GAMES = 6 * 2  # the top four, every pair twice


def contest(folder: Path) -> Path:
    """The contest folder: twelve entries and one config."""
    entries = folder / "entries"
    for name, source in ENTRANTS.items():
        shutil.copytree(ENTRIES / source, entries / name)
    for name in ("ivo_rust", "jan_rust"):
        (entries / name).mkdir(parents=True)
        (entries / name / "main.rs").write_text(RUST_BOT)
    shutil.copytree(ENTRIES / "broken_c", entries / "kit_broken")
    (entries / "lou_chatty").mkdir()
    (entries / "lou_chatty" / "bot.py").write_text(CHATTY_BOT)
    config = folder / "contest.yaml"
    config.write_text("name: contest\ngame: limit-nim\nparams: {piles: \"4/2,3/2\"}\nentries: entries\n"
                      "format: swiss\nrounds: 3\nfinal: {top: 4}\ncheck: true\nconcurrency: 2\n"
                      "time: {time_ms: 5000}\n")
    return config


def recorded(folder: Path) -> list[dict]:
    games = folder / "results" / "contest" / "games.jsonl"
    return [json.loads(line) for line in games.read_text().splitlines()] if games.exists() else []


def run_until(folder: Path, config: Path, games: int | None) -> subprocess.CompletedProcess[str]:
    """`arbiter run CONFIG` from the contest folder; with `games`, Ctrl-C once that many are recorded."""
    command = [sys.executable, "-m", "arbiter", "run", str(config), "--quiet"]
    with subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) as arbiter:
        if games is not None:
            deadline = time.monotonic() + 600
            while len(recorded(folder)) < games and arbiter.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            arbiter.send_signal(signal.SIGINT)
        out, err = arbiter.communicate(timeout=600)
    return subprocess.CompletedProcess(command, arbiter.returncode, out, err)


def test_a_contest_from_an_entries_folder_built_checked_played_in_two_stages_and_resumed(tmp_path):
    assert shutil.which("gcc") and shutil.which("g++") and shutil.which("rustc"), \
        "the contest's entries are built with gcc, g++ and rustc: .ci/run and the README's test command install them"
    config = contest(tmp_path)
    stopped = run_until(tmp_path, config, games=4)  # in the Swiss rounds
    assert stopped.returncode == 130, stopped.stderr
    assert "Traceback" not in stopped.stderr
    in_swiss = len(recorded(tmp_path))
    assert 4 <= in_swiss < SWISS_GAMES
    stopped = run_until(tmp_path, config, games=SWISS_GAMES + 3)  # in the final
    assert stopped.returncode == 130, stopped.stderr
    assert SWISS_GAMES + 3 <= len(recorded(tmp_path)) < SWISS_GAMES + FINAL_GAMES
    done = run_until(tmp_path, config, games=None)
    assert done.returncode == 0, done.stderr

    games = recorded(tmp_path)
    assert len(games) == len({game["id"] for game in games}) == SWISS_GAMES + FINAL_GAMES
    final = [game for game in games if game["id"].startswith("final-")]
    assert len(final) == FINAL_GAMES and all(game["round"] == 4 for game in final)
    players = {name for game in games for name in game["names"]}
    assert players == {*ENTRANTS, "ivo_rust", "jan_rust"}
    entrants = json.loads((tmp_path / "results" / "contest" / "entrants.json").read_text())
    kept_out = {entry["name"]: entry["reason"] for entry in entrants["kept_out"]}
    assert set(kept_out) == {"kit_broken", "lou_chatty"}
    assert "build" in kept_out["kit_broken"] and "check" in kept_out["lou_chatty"]
    standings = (tmp_path / "results" / "contest" / "standings.txt").read_text()
    assert standings.startswith("Final ranking: the top 4 of the Swiss ranking played the final")

    exported = subprocess.run([sys.executable, "-m", "arbiter", "export", "results/contest"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
    assert exported.returncode == 0, exported.stderr
    for name in players:
        own = tmp_path / "results" / "contest-entrants" / name
        mine = [json.loads(line) for line in (own / "games.jsonl").read_text().splitlines()]
        assert mine and all(name in game["names"] for game in mine)
        assert all(log.name.endswith(f"-{name}.log") for log in (own / "logs").iterdir())
