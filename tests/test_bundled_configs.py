"""Every bundled config in configs/ validates and runs, cut down to a few games."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.records import GameRecord
from arbiter.reports.standings import compute_standings
from arbiter.tournament.config import load_config, without_sandbox
from arbiter.tournament.progress import Progress
from arbiter.tournament.runner import run_tournament
from arbiter.transport.sandbox import support

ALL_CONFIGS = sorted((Path(__file__).resolve().parent.parent / "configs").glob("*.yaml"))
# SPRT configs are release checks, not tournaments: tests/test_sprt.py runs them.
CONFIGS = [path for path in ALL_CONFIGS if "format: sprt" not in path.read_text()]


def test_there_are_bundled_configs_for_every_format() -> None:
    formats = {load_config(path).format for path in CONFIGS}
    assert {"round-robin", "gauntlet", "swiss"} <= formats


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_bundled_config_runs_without_faults(path: Path, tmp_path: Path) -> None:
    config = load_config(path)
    config = replace(config, games_per_pairing=config.seats, rounds=min(config.rounds or 1, 2) if config.rounds else None,
                     results_dir=tmp_path / config.name)
    outcome = run_tournament(config, Progress(quiet=True, tty=False))
    assert len(outcome.records) == outcome.planned > 0
    faults = [(r.id, r.termination, r.detail) for r in outcome.records if r.termination != "normal"]
    assert faults == []
    standings = compute_standings(outcome.records, players=[p.name for p in config.players])
    assert sum(row.games for row in standings.players) == config.seats * len(outcome.records)


# All that may differ between two runs (and whether the bots were boxed, which the second run changes;
# the processes, by their pids).
TIMINGS = ("started_at", "duration_s", "time_used_ms", "startup_ms", "logs", "sandboxed", "suspended_cpu_ms",
           "pids")


def played(records: list[GameRecord]) -> list[dict]:
    """The records without their timings, in game-id order (concurrency reorders the file)."""
    games = []
    for record in sorted(records, key=lambda r: r.id or ""):
        game = {k: v for k, v in record.to_json().items() if k not in TIMINGS}
        game["moves"] = [(m.seat, m.move, m.forced) for m in record.moves]
        games.append(game)
    return games


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_bundled_config_reproduces_game_for_game(path: Path, tmp_path: Path) -> None:
    """Same config, same games: every bot that plays at random is seeded from the game id."""
    config = load_config(path)
    config = replace(config, games_per_pairing=config.seats, rounds=min(config.rounds or 1, 2) if config.rounds else None)
    # Searches bounded by the clock play differently on a loaded machine: by node counts alone
    # (docs/bots.md, BOT_NODES_ONLY) the bundled bots play the same moves on any machine.
    config = replace(config, players=tuple(replace(p, env={**p.env, "BOT_NODES_ONLY": "1"}) for p in config.players))
    runs = [run_tournament(replace(config, results_dir=tmp_path / str(k)), Progress(quiet=True, tty=False)).records
            for k in range(2)]
    assert played(runs[0]) == played(runs[1])
    assert len({r.seed for r in runs[0]}) == len(runs[0])  # one seed per game


def test_the_demo_plays_the_same_games_in_the_sandbox_and_out_of_it(tmp_path: Path) -> None:
    """The box changes nothing in how bots play: the demo's games (cut down), boxed and not, move
    for move, with searches bounded by node counts alone (docs/bots.md, BOT_NODES_ONLY): bounded
    by the clock, perfect_dp's and double_cross's can differ between any two runs under load."""
    config = load_config(ALL_CONFIGS[0].parent / "demo.yaml")
    config = replace(config, games_per_pairing=2,
                     players=tuple(replace(p, env={**p.env, "BOT_NODES_ONLY": "1"}) for p in config.players))
    runs = [run_tournament(replace(how, results_dir=tmp_path / str(k)), Progress(quiet=True, tty=False)).records
            for k, how in enumerate((config, without_sandbox(config)))]
    assert played(runs[0]) == played(runs[1])
    assert {tuple(r.sandboxed) for r in runs[0]} == {(support().usable,) * 2}
    assert {tuple(r.sandboxed) for r in runs[1]} == {(False, False)}
