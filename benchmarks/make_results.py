#!/usr/bin/env python3
"""A results folder of N synthetic but valid games of a real tournament config (issue 40).

    python benchmarks/make_results.py CONFIG N OUT [--per-opening 16] [--seed 1]
    arbiter run OUT.yaml       # resumes it: plays the games of the schedule after the N made
    arbiter report OUT         # reads it: every record's moves replay to its result

OUT is left as `arbiter run` leaves a tournament stopped after its first N games, played one
at a time: `tournament.json`, the config copy and `secret.json` are written by the arbiter's
own `prepare_results`, and `games.jsonl` holds the schedule's first N games in schedule order,
each with its scheduled id, round, opening and seats, the players' program digests
(`run_digests`), its places and points (`tournament_record`), a `started_at` that follows the
game before it, move times, start-up times and pids.

The config the folder belongs to is written beside it as OUT.yaml: CONFIG's keys with
`results:` set to OUT, each player's `cwd:` set to the folder its command ran in under CONFIG
(so that the command finds its program from there), and `games_per_pairing` raised (unless
--games-per-pairing gives it) to the smallest whose schedule has games left after the N made.
A config has a fixed schedule (round robin or gauntlet), launched players, and no paths but
the players' commands and `cwd` (no entries:, builds, openings file or sandbox paths).

The games are real games of the config's game, played by the rules library: for each opening
the schedule uses, `--per-opening` random continuations are played once and then reused, each
scheduled game taking one of its opening's at random. A game's result follows its seats
(whoever the schedule seats where seat 0 won wins it), so its moves replay to its recorded
result as the tamper check (tournament/audit.py) requires. A game with chance is refused: its
dice are drawn from its own game id, so no game could be reused. Records are written a line
at a time, never held together, so memory stays bounded whatever N; the schedule itself is the
arbiter's (`fixed_schedule`), built whole as `arbiter run` builds it.

Not written: the bots' stderr logs (a run leaves a file per seat, empty for these bots; the
records name them, and no reader measured by bench_readers.py opens them), and the
standings, summary.json and report.html, which `arbiter report` writes.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter import verdicts  # noqa: E402
from arbiter.errors import UsageError  # noqa: E402
from arbiter.games import CHANCE, Game  # noqa: E402
from arbiter.records import GameRecord, MoveRecord, PlayerRef, Termination  # noqa: E402
from arbiter.referee import seat_log_name  # noqa: E402
from arbiter.tournament.config import TournamentConfig, load_config  # noqa: E402
from arbiter.tournament.plan import group_count  # noqa: E402
from arbiter.tournament.runner import prepare_results, tournament_record  # noqa: E402
from arbiter.tournament.schedule import ScheduledGame, fixed_schedule  # noqa: E402
from arbiter.tournament.schema import MAX_PLANNED_GAMES, sandboxed_players  # noqa: E402
from arbiter.tournament.store import ResultsFolder, game_log_prefix, hold_results_folder  # noqa: E402

FIRST_GAME_AT = datetime(2026, 11, 1, 8, 0, tzinfo=timezone.utc)  # when the made tournament began
MOVE_MEDIAN_MS = 0.08  # a bundled bot's typical move on the 10-dot board, measured by a real run
STARTUP_MS = (25.0, 140.0)  # a boxed Python bot's start-up, off the clock (docs/performance.md)
# Config keys holding paths (from the config's folder) that OUT.yaml, written elsewhere, would
# read from the wrong place; `cwd` is the one made absolute.
PATH_KEYS = ("entries", "arbiter_keys")
PLAYER_PATH_KEYS = ("build", "sandbox", "public_key")


@dataclass(frozen=True)
class PoolGame:
    """One game played once by the rules and reused: its moves (the opening's forced) and result by seat."""

    moves: tuple[MoveRecord, ...]
    scores: tuple[int, ...]
    winner: int | None
    outcome: str | None
    time_used_ms: tuple[float, ...]


class GamePool:
    """`per_opening` random continuations of each opening, played by the rules when first asked for."""

    def __init__(self, game: Game[Any], per_opening: int, rng: random.Random) -> None:
        self.game = game
        self.per_opening = per_opening
        self.rng = rng
        self.games: dict[tuple[str, ...], list[PoolGame]] = {}

    def __len__(self) -> int:
        return sum(len(games) for games in self.games.values())

    def pick(self, opening: tuple[str, ...]) -> PoolGame:
        """One of the opening's games, at random."""
        games = self.games.get(opening)
        if games is None:
            games = self.games[opening] = [self._play(opening) for _ in range(self.per_opening)]
        return games[self.rng.randrange(len(games))]

    def _play(self, opening: tuple[str, ...]) -> PoolGame:
        """The opening's moves, then random legal moves to the end, with made-up move times."""
        state = self.game.new_state()
        seats = self.game.num_players
        moves: list[MoveRecord] = []
        used = [0.0] * seats
        while not state.is_over():
            if state.current_player == CHANCE:
                raise UsageError(f"{self.game.describe()} has chance: its dice are drawn from each game's id, "
                                 "so a game cannot be reused under another id; give a config of a game without chance")
            seat = state.current_player
            if len(moves) < len(opening):
                state.play(opening[len(moves)])
                moves.append(MoveRecord(seat, opening[len(moves)], 0.0, 0.0, forced=True))
                continue
            move = self.rng.choice(state.legal_moves())
            wall_ms = round(self.rng.lognormvariate(math.log(MOVE_MEDIAN_MS), 0.6), 3)
            moves.append(MoveRecord(seat, self.game.format_move(move), wall_ms, round(wall_ms * 0.8, 3)))
            used[seat] += wall_ms
            state.apply(move)
        return PoolGame(tuple(moves), tuple(state.scores), state.winner(), state.outcome,
                        tuple(round(ms + 0.04, 3) for ms in used))  # the clock also counts the line's round trip


def per_pairing_for(config: TournamentConfig, games: int) -> int:
    """The smallest games_per_pairing (a multiple of the seats) whose schedule has more than `games`
    games; UsageError when that is more than one tournament holds."""
    groups = group_count(config.format, len(config.players), config.seats, config.rounds or 0)
    per_group = config.seats * (games // (groups * config.seats) + 1)
    if groups * per_group > MAX_PLANNED_GAMES:
        raise UsageError(f"{games} games and one more do not fit in one tournament of {groups} groups: a schedule "
                         f"holds at most {MAX_PLANNED_GAMES} games (arbiter/tournament/schema.py)")
    return per_group


def write_run_config(config_path: Path, games: int, out: Path, per_pairing: int | None) -> Path:
    """OUT.yaml beside `out`: CONFIG with `results:` OUT, absolute player folders and a schedule
    longer than `games`; its path."""
    base = load_config(config_path)
    if base.format not in ("round-robin", "gauntlet"):
        raise UsageError(f"{config_path}: format {base.format} has no fixed schedule; give a round robin or gauntlet")
    raw: dict[str, Any] = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    keys = [key for key in PATH_KEYS if key in raw] + [f"players[{index}].{key}"
                                                      for index, entry in enumerate(raw.get("players") or [])
                                                      for key in PLAYER_PATH_KEYS if key in entry]
    if "file" in (raw.get("openings") or {}):
        keys.append("openings.file")
    if keys:
        raise UsageError(f"{config_path}: {', '.join(keys)} would be read from beside {out} instead; "
                         "give a config whose only paths are the players' commands and cwd")
    key = "games_per_group" if "games_per_group" in raw else "games_per_pairing"
    raw[key] = per_pairing or per_pairing_for(base, games)
    raw["results"] = out.name
    for entry, player in zip(raw["players"], base.players):
        entry["cwd"] = player.cwd  # the folder it ran in under CONFIG, absolute
    run_config = out.with_name(out.name + ".yaml")
    run_config.write_text(f"# {config_path.name} for the results folder {out.name} made by "
                          f"benchmarks/make_results.py ({games} games)\n" + yaml.safe_dump(raw, sort_keys=False),
                          encoding="utf-8")
    return run_config


def made_records(config: TournamentConfig, schedule: Sequence[ScheduledGame], digests: dict[str, str | None],
                 pool: GamePool, rng: random.Random) -> Iterator[GameRecord]:
    """The scheduled games' records, one at a time, as the runner stores them."""
    game = config.make_game()
    params = game.json_params()
    commands = {p.name: p.command_text() for p in config.players}
    clocks = {p.name: asdict(p.clock(config.time)) for p in config.players}
    boxed = sandboxed_players(config)
    logs = ResultsFolder(config.results_dir).logs
    started = FIRST_GAME_AT
    pid = 4000
    for scheduled in schedule:
        played = pool.pick(scheduled.opening)
        names = scheduled.seats
        labels = [f"seat {seat} ({name})" for seat, name in enumerate(names)]
        startup_ms = [round(rng.uniform(*STARTUP_MS), 3) for _ in names]
        duration_s = round((max(startup_ms) + sum(played.time_used_ms)) / 1000 + 0.004, 3)
        prefix = game_log_prefix(scheduled.id)
        record = GameRecord(
            game=game.name, params=params, players=[PlayerRef(name, commands[name]) for name in names],
            moves=list(played.moves), scores=list(played.scores), winner=played.winner,
            termination=Termination.NORMAL, offender=None,
            detail=verdicts.game_over(labels, played.scores, played.winner, played.outcome).detail,
            started_at=started.isoformat(timespec="milliseconds"), duration_s=duration_s,
            logs=[str(logs / seat_log_name(prefix, seat, name)) for seat, name in enumerate(names)],
            outcome=played.outcome, time_used_ms=list(played.time_used_ms),
            time_controls=[clocks[name] for name in names], startup_ms=startup_ms,
            sandboxed=[boxed.get(name) for name in names],
            suspended_cpu_ms=[round(rng.uniform(0.01, 0.06), 3) for _ in names],
            pids=[pid + 3 * seat for seat in range(len(names))], game_of_process=[1] * len(names),
        )
        yield tournament_record(config, scheduled, record, digests)
        started += timedelta(seconds=duration_s + 0.012)  # one game at a time, and the next one's setup
        pid = 4000 + (pid - 4000 + 3 * len(names) + 1) % 4_000_000  # pids wrap as the kernel's do


def make_results(config_path: Path, games: int, out: Path, *, per_opening: int = 16, seed: int = 1,
                 per_pairing: int | None = None) -> Path:
    """Make `out` with the first `games` games of `config_path`'s schedule; the run config's path (OUT.yaml)."""
    out = out.resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} exists and is not empty; remove it or give another folder")
    run_config = write_run_config(config_path.resolve(), games, out, per_pairing)
    config = load_config(run_config)
    schedule = fixed_schedule(config)
    if len(schedule) < games:
        raise UsageError(f"{run_config}: its schedule has {len(schedule)} games, fewer than {games}")
    rng = random.Random(seed)
    pool = GamePool(config.make_game(), per_opening, rng)
    with hold_results_folder(config.results_dir):
        store = prepare_results(config, fresh=False)
        # Through the store, as a run appends them (its tally, ids and digest follow), each line
        # not fsynced on its own: the checkpoint a run leaves makes them durable together.
        for record in made_records(config, schedule[:games], store.digests, pool, rng):
            store.append(record, sync=False)
        store.checkpoint()
    print(f"{out}: {games} games of {len(schedule)} ({len(pool)} distinct games reused); "
          f"resume with: arbiter run {run_config}", file=sys.stderr)
    return run_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", type=Path, help="a tournament config with a fixed schedule (e.g. benchmarks/million.yaml)")
    parser.add_argument("games", type=int, help="how many games to make (N)")
    parser.add_argument("out", type=Path, help="the results folder to make (new or empty); OUT.yaml is written beside it")
    parser.add_argument("--per-opening", type=int, default=16,
                        help="distinct games played for each opening, then reused (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the made games and times (default %(default)s)")
    parser.add_argument("--games-per-pairing", type=int, default=None,
                        help="the run config's games_per_pairing (default: the smallest leaving games to play)")
    args = parser.parse_args(argv)
    if args.games < 0 or args.per_opening < 1:
        parser.error("N is at least 0 and --per-opening at least 1")
    started = time.monotonic()
    try:
        make_results(args.config, args.games, args.out, per_opening=args.per_opening, seed=args.seed,
                     per_pairing=args.games_per_pairing)
    except UsageError as exc:
        print(f"make_results: {exc}", file=sys.stderr)
        return 2
    print(f"made in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
