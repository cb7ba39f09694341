"""Results folders for report tests and benchmarks: real games played in-process.

Games are played with the rules library by a seeded random mover, with made-up but
plausible move times (each player has its own typical speed). Standings and summary.json
come from the real standings code, so the report is tested on what `arbiter run` writes.
"""
from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from arbiter.games import find_game
from arbiter.records import GameRecord, MoveRecord, PlayerRef, Termination, game_places
from arbiter.reports.standings import compute_standings, write_standings

SCORING = {"win": 1.0, "draw": 0.5, "loss": 0.0}
MOVE_LIMIT_MS = 1000


def play_random_game(
    game_name: str,
    params: dict[str, Any],
    names: Sequence[str],
    rng: random.Random,
    *,
    opening: int = 0,
    typical_ms: Sequence[float] = (),
    timeout_at: int | None = None,
) -> GameRecord:
    """One game of random moves: `opening` forced moves first; with `timeout_at`, the
    player to move at that move number (1-based) times out instead of moving."""
    game = find_game(game_name, **params)
    state = game.new_state()
    moves: list[MoveRecord] = []
    speeds = list(typical_ms) or [5.0] * len(names)
    while not state.is_over():
        seat = state.current_player
        if timeout_at is not None and len(moves) + 1 == timeout_at:
            return _record(game_name, params, names, moves, state.fault_scores(seat, "timeout"),
                           state.fault_winner(seat), Termination.TIMEOUT, seat,
                           f"seat {seat} ({names[seat]}) sent no move within its {MOVE_LIMIT_MS} ms move limit",
                           state.fault_outcome(seat, "timeout"), rng)
        move = rng.choice(state.legal_moves())
        forced = len(moves) < opening
        wall_ms = 0.0 if forced else round(rng.lognormvariate(0, 0.5) * speeds[seat], 3)
        moves.append(MoveRecord(seat, game.format_move(move), wall_ms, round(wall_ms * 0.9, 3), forced=forced))
        state.apply(move)
    return _record(game_name, params, names, moves, list(state.scores), state.winner(), Termination.NORMAL,
                   None, "the game was played to the end", state.outcome, rng)


def _record(game_name: str, params: dict[str, Any], names: Sequence[str], moves: list[MoveRecord],
            scores: list[int], winner: int | None, termination: Termination, offender: int | None,
            detail: str, outcome: str | None, rng: random.Random) -> GameRecord:
    return GameRecord(
        game=game_name, params=dict(params), players=[PlayerRef(n, f"python players/{n}.py") for n in names],
        moves=moves, scores=scores, winner=winner, termination=termination, offender=offender, detail=detail,
        started_at=f"2026-03-01T12:{rng.randrange(60):02d}:{rng.randrange(60):02d}Z",
        duration_s=round(0.05 + sum(m.wall_ms for m in moves) / 1000, 3), logs=[None] * len(names),
        outcome=outcome,
    )


def write_sample_tournament(
    folder: Path,
    *,
    players: Sequence[str] = ("alpha", "beta", "gamma"),
    game_name: str = "dots-and-triangles",
    params: dict[str, Any] | None = None,
    games_per_pairing: int = 2,
    opening: int = 2,
    timeouts: int = 1,
    seed: int = 1,
    seats: int = 2,
) -> Path:
    """A round robin written like `arbiter run` writes it: games.jsonl, summary.json and
    standings files. The last `timeouts` games end by a timeout. With `seats` > 2, every group
    of that many players, its seat order rotated from game to game, and `params` gets
    `players`; a win (first place alone) scores 1, a tie for first shares it. Returns the folder."""
    params = dict(params if params is not None else {"rows": 4})
    if seats > 2:
        params["players"] = seats
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    speed = {name: 2.0 * (index + 1) ** 2 for index, name in enumerate(players)}
    schedule = [
        (game_no + 1, group[game_no % seats:] + group[:game_no % seats] if seats > 2
         else group if game_no % 2 == 0 else group[::-1])
        for game_no in range(games_per_pairing)
        for group in itertools.combinations(players, seats)
    ]
    records = []
    for number, (round_no, names) in enumerate(schedule, 1):
        timeout_at = 7 if number > len(schedule) - timeouts else None
        record = play_random_game(game_name, params, names, rng, opening=opening,
                                  typical_ms=[speed[n] for n in names], timeout_at=timeout_at)
        places = game_places(record.scores, record.winner, record.offender)
        if len(names) == 2:
            points = [SCORING["draw"] if record.winner is None else
                      SCORING["win"] if record.winner == seat else SCORING["loss"] for seat in range(2)]
        else:
            points = [1 / places.count(1) if place == 1 else 0.0 for place in places]
        records.append(replace(record, id=f"g{number:05d}", round=round_no,
                               opening=[m.move for m in record.moves if m.forced], names=list(names),
                               places=places, points=points))
    # One write instead of GameStore.append's fsync per game: same lines, much faster for 10,000.
    lines = [json.dumps(r.to_json(), separators=(",", ":"), ensure_ascii=False) + "\n" for r in records]
    (folder / "games.jsonl").write_text("".join(lines), encoding="utf-8")
    meta = {
        "name": folder.name, "game": game_name, "params": params, "format": "round-robin",
        "settings": {"games_per_pairing": games_per_pairing, "rounds": None,
                     "openings": {"random_moves": opening, "seed": seed},
                     "time": {"time_ms": 30000, "move_ms": MOVE_LIMIT_MS}},
        "scoring": SCORING, "totals": {"planned": len(schedule), "played": len(records)},
    }
    standings = compute_standings(records, players=list(players), scoring=SCORING)
    write_standings(folder, standings, meta)
    return folder


SPRT_HYPOTHESES = {"elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05}


def write_sample_sprt(folder: Path, *, pairs: int = 4, planned: int = 100, seed: int = 9) -> Path:
    """An SPRT's results folder as `arbiter sprt` leaves it mid-test: `pairs` pairs of games of
    `new` (the candidate) against `old`, both seatings of each, and its tournament.json."""
    write_sample_tournament(folder, players=("new", "old"), games_per_pairing=2 * pairs, timeouts=0, seed=seed)
    records = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
    for index, record in enumerate(records):
        record["round"] = index // 2 + 1  # pair k: both seatings
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "tournament.json").write_text(json.dumps({
        "name": folder.name, "planned": planned,
        "schedule": {"game": "dots-and-triangles", "format": "sprt", "players": ["new", "old"],
                     "sprt": SPRT_HYPOTHESES}}))
    return folder
