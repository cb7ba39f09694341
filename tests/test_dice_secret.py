"""Dice no seat can know (issue 38): unless the organiser sets `seed:`, a run's dice are keyed
by a secret kept in its results folder, which no bot sees; a bot's `$ARBITER_SEED` is never a
function of the dice's seed. A Pig bot that searches small seeds and the guessable game ids,
as an attacker did (532 of 532 rolls foreseen), does no better than chance under `arbiter run`,
`match` and `sprt`; with a seed set, the dice are the same in every run."""
from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from arbiter.chance import bot_seed, chance_seed
from arbiter.cli import main
from arbiter.transport.sandbox import support
from referee_support import BOTS, RANDOM_BOT

PY = sys.executable
SEER = BOTS / "seed_search_pig_bot.py"
PIG = ["openspiel:pig", "-p", "winscore=40"]
MIN_PREDICTIONS = 40  # enough that chance (1 in 6) never reaches half: P < 1e-6


def records(results: Path) -> list[dict]:
    return [json.loads(line) for line in (results / "games.jsonl").read_text().splitlines() if line.strip()]


def foreseen(results: Path, name: str = "seer") -> tuple[int, int]:
    """(hits, predictions) the seer's logs report across its games."""
    hits = misses = 0
    for log in (results / "logs").glob(f"*-{name}.log"):
        text = log.read_text()
        hits += text.count("SEER hit")
        misses += text.count("SEER miss")
    return hits, hits + misses


def assert_no_better_than_chance(results: Path, name: str = "seer") -> None:
    games = records(results)
    assert games and all(g["termination"] == "normal" and all(g["sandboxed"]) for g in games), games
    hits, predictions = foreseen(results, name)
    assert predictions >= MIN_PREDICTIONS, (hits, predictions)
    assert 2 * hits < predictions, f"the seer foresaw {hits} of {predictions} rolls"


@pytest.fixture(autouse=True)
def boxed() -> None:
    assert support().usable, support().describe()


# Games enough that the seer makes MIN_PREDICTIONS predictions whatever the (secret, so each
# run's own) dice: about 9 a game; 4 games once gave only 36.
GAMES = 8


def pig_config(folder: Path, *, seed: int | None = None, games: int = GAMES) -> Path:
    path = folder / "pig.yaml"
    path.write_text("name: pig\ngame: openspiel:pig\nparams: {winscore: 40}\nresults: results\n"
                    f"games_per_pairing: {games}\n" + (f"seed: {seed}\n" if seed is not None else "") +
                    f"players:\n  - {{name: seer, command: {PY} {SEER}}}\n"
                    f"  - {{name: hold, command: {PY} {RANDOM_BOT}}}\n")
    return path


def test_a_seed_searching_bot_foresees_no_die_under_run(tmp_path: Path) -> None:
    assert main(["run", str(pig_config(tmp_path)), "--quiet"]) == 0
    assert_no_better_than_chance(tmp_path / "results")


def test_a_seed_searching_bot_foresees_no_die_under_match(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["match", *PIG, "--engine", f"cmd={PY} {SEER}", "name=seer",
                 "--engine", f"cmd={PY} {RANDOM_BOT}", "name=hold", "--games", str(GAMES), "--quiet"]) == 0
    assert_no_better_than_chance(tmp_path / "results" / "match-seer-vs-hold")


def test_a_seed_searching_bot_foresees_no_die_under_sprt(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    status = main(["sprt", *PIG, f"{PY} {SEER}", f"{PY} {RANDOM_BOT}", "--max-games", str(GAMES + 2),
                   "--openings", "random:1"])
    assert status in (0, 1, 4)  # decided either way, or inconclusive: not a fault, not an error
    assert_no_better_than_chance(tmp_path / "results" / "sprt", "candidate")


def test_the_secret_is_kept_private_in_the_results_folder_reused_on_resume_and_drawn_anew_by_fresh(
        tmp_path: Path) -> None:
    """The audit's way back to the dice: each record's chance_seed is the secret's for its id."""
    from arbiter.chance import RunSeeds
    config = pig_config(tmp_path, games=2)
    assert main(["run", str(config), "--quiet"]) == 0
    secret_file = tmp_path / "results" / "secret.json"
    assert stat.S_IMODE(os.stat(secret_file).st_mode) == 0o600
    secret = bytes.fromhex(json.loads(secret_file.read_text())["secret"])
    seeds = RunSeeds(secret)
    first = records(tmp_path / "results")
    assert [g["chance_seed"] for g in first] == [seeds.chance(g["id"]) for g in first]
    assert all(g["chance_seed"] != chance_seed(0, g["id"]) for g in first)  # not the old default's dice
    assert all(g["seed"] == bot_seed(None, g["id"]) for g in first)
    assert main(["run", str(config), "--quiet"]) == 0  # a resume: nothing to play, the same secret
    assert json.loads(secret_file.read_text())["secret"] == secret.hex()
    assert "secret" not in repr(seeds) and secret.hex() not in repr(seeds)
    assert main(["run", str(config), "--quiet", "--fresh", "--no-backup"]) == 0
    assert json.loads(secret_file.read_text())["secret"] != secret.hex()


def test_with_a_seed_the_dice_are_the_same_in_every_run(tmp_path: Path, monkeypatch) -> None:
    dice = []
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        assert main(["run", str(pig_config(tmp_path / run, seed=7, games=2)), "--quiet"]) == 0
        games = records(tmp_path / run / "results")
        assert all(g["chance_seed"] == chance_seed(7, g["id"]) for g in games)
        dice.append(sorted((g["id"], [m["move"] for m in g["moves"] if m["seat"] == -1]) for g in games))
    assert dice[0] == dice[1] and all(moves for _, moves in dice[0])
    monkeypatch.chdir(tmp_path)
    assert main(["match", *PIG, f"{PY} {RANDOM_BOT}", f"{PY} {RANDOM_BOT}", "--games", "2", "--seed", "7",
                 "--quiet"]) == 0
    games = records(tmp_path / "results" / "match-random_bot-a-vs-random_bot-b")
    assert games and all(g["chance_seed"] == chance_seed(7, g["id"]) for g in games)


def test_without_a_seed_two_runs_draw_other_dice_and_the_bots_seed_is_no_clue(tmp_path: Path) -> None:
    chance = []
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        assert main(["run", str(pig_config(tmp_path / run, games=2)), "--quiet"]) == 0
        games = records(tmp_path / run / "results")
        chance.append({g["id"]: g["chance_seed"] for g in games})
        # The bots' seed is that of every run of the config (a game without chance plays the same
        # again) and no function of the dice's, which differ from run to run.
        assert all(g["seed"] == bot_seed(None, g["id"]) for g in games)
    assert chance[0].keys() == chance[1].keys() and all(chance[0][k] != chance[1][k] for k in chance[0])


def test_a_record_whose_dice_are_not_the_runs_is_refused_on_resume(tmp_path: Path, capsys) -> None:
    """A whole game of another run (same players and id, self-consistent, its dice replaying from
    its own chance_seed) put in place of one of this run's is named, not resumed over."""
    for run, seed in (("mine", None), ("other", 11)):
        (tmp_path / run).mkdir()
        assert main(["run", str(pig_config(tmp_path / run, seed=seed, games=2)), "--quiet"]) == 0
    games = tmp_path / "mine" / "results" / "games.jsonl"
    lines = games.read_text().splitlines()
    first = json.loads(lines[0])
    forged = next(line for line in (tmp_path / "other" / "results" / "games.jsonl").read_text().splitlines()
                  if json.loads(line)["id"] == first["id"])
    assert json.loads(forged)["chance_seed"] != first["chance_seed"]
    games.write_text("\n".join([forged, *lines[1:]]) + "\n")
    capsys.readouterr()
    assert main(["run", str(pig_config(tmp_path / "mine", games=2)), "--quiet"]) == 2
    assert "changed, removed or inserted" in capsys.readouterr().err  # the checkpoint's digest sees it first
    (tmp_path / "mine" / "results" / "checkpoint.json").unlink()  # a forger who removes the checkpoint too
    assert main(["run", str(pig_config(tmp_path / "mine", games=2)), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "games.jsonl:1:" in error and "is not the seed this run draws" in error, error


def test_a_folder_that_kept_seed_0_is_told_how_to_go_on_when_the_config_sets_no_seed(tmp_path: Path) -> None:
    """A results folder from before issue 38 kept `seed 0` (the old default): resumed by a config
    that sets none, its dice would change keys mid-tournament, so the refusal says how to go on."""
    from arbiter.errors import UsageError
    from arbiter.tournament.resume import refuse_changed_conditions
    with pytest.raises(UsageError) as refused:
        refuse_changed_conditions(tmp_path, {"seed": 0}, {"seed": "secret"}, 3, "ADVICE")
    assert ("changed: seed 0 -> none set (the dice keyed by the folder's secret); set `seed: 0` to go on as before)"
            in str(refused.value))
