"""perfect_dp for three or more seats: max-n, checked against a brute-force search on every
position of tiny boards.

The rule (docs/bots.md): every player takes the most cells it can for itself; among moves
equal for the mover, the fewest cells for its best-placed rival, then the lowest edge index.
While safe moves are left and nothing can be captured, perfect_dp plays the safe move that
expects the most cells (same tie-break) when its rivals play safe moves uniformly at random
and everyone plays max-n from the first position without one. The brute forces below are
written from those rules alone: they play moves with the rules library's states and read the
scores they make, with no rotation, table or key of the solver's.
"""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.bot import BotContext
from arbiter.games import find_game
from arbiter.games.dots import DotsGame, DotsState
from players.strategies.exact import (MaxnTable, board_key, build_table, cached_board_table, solve_maxn_values,
                                     solve_values)
from players.strategies.perfect import MAXN_LINE, SAFE_LINE, PerfectPlayer

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Solved tables go to a fresh directory, never to the user's cache."""
    monkeypatch.setenv("ARBITER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


class QuietContext(BotContext):
    """A bot context keeping the log lines."""

    def __init__(self, game: DotsGame, time_ms: int | None = 30_000) -> None:
        super().__init__(game=game, seat=0, rng=random.Random(0), time_ms=time_ms)
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)


class BruteForce:
    """Max-n by plain recursion over rules-library states: (cells each seat still takes, by
    seat number; the move the player to move makes)."""

    def __init__(self, game: DotsGame) -> None:
        self.game = game
        self.memo: dict[tuple[int, int], tuple[tuple[int, ...], int | None]] = {}
        self.safe: dict[int, list[int]] = {}  # drawn edges -> safe_moves (they depend on nothing else)
        self.phases: dict[int, BruteSafePhase] = {}  # decider -> its safe-phase solver, memo shared

    def safe_moves(self, state: DotsState) -> list[int]:
        """`safe_moves`, remembered by position."""
        if state.drawn not in self.safe:
            self.safe[state.drawn] = safe_moves(state)
        return self.safe[state.drawn]

    def safe_phase(self, decider: int) -> BruteSafePhase:
        """The safe-phase solver for `decider`: its values are the same from any root."""
        if decider not in self.phases:
            self.phases[decider] = BruteSafePhase(self, decider)
        return self.phases[decider]

    def solve(self, state: DotsState) -> tuple[tuple[int, ...], int | None]:
        key = (state.drawn, state.current_player)
        if key not in self.memo:
            seats = self.game.num_players
            if state.is_over():
                self.memo[key] = (tuple([0] * seats), None)
            else:
                me = state.current_player
                before = state.scores
                best: tuple[tuple[int, int, int], tuple[int, ...], int] | None = None
                for move in state.legal_moves():
                    child = state.clone()
                    child.apply(move)
                    later, _ = self.solve(child)
                    total = tuple(child.scores[s] - before[s] + later[s] for s in range(seats))
                    rival = max(total[s] for s in range(seats) if s != me)
                    rank = (total[me], -rival, -move)
                    if best is None or rank > best[0]:
                        best = (rank, total, move)
                assert best is not None
                self.memo[key] = (best[1], best[2])
        return self.memo[key]


class BruteSafePhase:
    """The safe-phase rule by plain recursion: expected cells each seat takes (by seat number)
    when `decider` picks its best safe move, each rival a safe move uniformly at random, and
    max-n (`BruteForce`) decides from the first position without a safe move."""

    def __init__(self, brute: BruteForce, decider: int) -> None:
        self.brute = brute
        self.decider = decider
        self.memo: dict[tuple[int, int], tuple[float, ...]] = {}

    def solve(self, state: DotsState) -> tuple[tuple[float, ...], int | None]:
        """(expected cells by seat, the decider's move when it is to move, else None)."""
        safe = self.brute.safe_moves(state)
        if not safe:
            return tuple(float(c) for c in self.brute.solve(state)[0]), None
        children = []
        for move in safe:
            child = state.clone()
            child.apply(move)
            known = self.memo.get((child.drawn, child.current_player))
            if known is None:
                known = self.memo[child.drawn, child.current_player] = self.solve(child)[0]
            children.append((known, move))
        if state.current_player != self.decider:
            seats = len(children[0][0])
            return tuple(sum(c[seat] for c, _ in children) / len(children) for seat in range(seats)), None
        me = self.decider
        cells, move = max(children, key=lambda c: (c[0][me], -max(v for s, v in enumerate(c[0]) if s != me), -c[1]))
        return cells, move


def safe_moves(state: DotsState) -> list[int]:
    """The moves of a position where nothing can be captured that leave nothing to capture
    (none when something can be captured already)."""
    def capturable(s: DotsState) -> bool:
        return any(after.scores != s.scores for after in (applied(s, m) for m in s.legal_moves()))

    if capturable(state):
        return []
    return [m for m in state.legal_moves() if not capturable(applied(state, m))]


def applied(state: DotsState, move: int) -> DotsState:
    """The state after one move."""
    child = state.clone()
    child.apply(move)
    return child


def expected_move(brute: BruteForce, state: DotsState) -> int | None:
    """perfect_dp's move by the rules: the safe-phase move while safe moves are left, else max-n."""
    if brute.safe_moves(state):
        return brute.safe_phase(state.current_player).solve(state)[1]
    return brute.solve(state)[1]


def position(game: DotsGame, drawn: int, mover: int) -> DotsState:
    """A state with exactly these edges drawn and this seat to move (scores do not matter here)."""
    state = game.new_state()
    state.drawn = drawn
    state._current = mover
    return state


TINY_BOARDS = [
    pytest.param("dots-and-boxes", {"rows": 1, "cols": 2}, 3, id="boxes-1x2-3seats"),
    pytest.param("dots-and-boxes", {"rows": 1, "cols": 2}, 4, id="boxes-1x2-4seats"),
    pytest.param("dots-and-triangles", {"rows": 3}, 3, id="triangles-3rows-3seats"),
    pytest.param("dots-and-triangles", {"rows": 3}, 4, id="triangles-3rows-4seats"),
    pytest.param("dots-and-boxes", {"rows": 2, "cols": 2}, 3, id="boxes-2x2-3seats"),
    pytest.param("dots-and-boxes", {"rows": 2, "cols": 2}, 4, id="boxes-2x2-4seats"),
]


@pytest.mark.parametrize(("name", "params", "seats"), TINY_BOARDS)
def test_perfect_dp_agrees_with_brute_force_max_n_on_every_position(name: str, params: dict[str, int],
                                                                    seats: int) -> None:
    game = find_game(name, players=seats, **params)
    table = build_table(game)
    assert isinstance(table, MaxnTable)
    brute = BruteForce(game)
    player = PerfectPlayer(game)
    ctx = QuietContext(game)
    not_max_n = 0
    for drawn in range(game.full_mask + 1):
        mover = drawn % seats  # any seat: the values are counted from the mover round the table
        state = position(game, drawn, mover)
        cells, move = brute.solve(state)
        from_mover = tuple(cells[(mover + offset) % seats] for offset in range(seats))
        assert table.vector(drawn) == from_mover, f"{game.describe()}: drawn {drawn:b}"
        if move is not None:
            wanted = expected_move(brute, state)
            assert player.choose(state, ctx) == wanted, f"{game.describe()}: drawn {drawn:b}"
            not_max_n += wanted != move
    assert not_max_n > 0  # the safe-phase rule did decide somewhere


def test_two_seat_max_n_is_the_net_score_solver() -> None:
    # With two seats maximizing one's own cells is maximizing the margin (the cells left are fixed).
    game = find_game("dots-and-triangles", rows=3)
    masks = list(game.cell_masks)
    vectors = solve_maxn_values(len(game.edges), masks, 2)
    net = solve_values(len(game.edges), masks)
    assert (vectors[0].astype(int) - vectors[1] == net).all()


def test_ties_go_to_the_move_that_leaves_the_best_rival_least() -> None:
    # Wherever the mover has moves equal for itself, the chosen one leaves its best rival the least.
    game = find_game("dots-and-boxes", rows=2, cols=2, players=3)
    table = build_table(game)
    assert isinstance(table, MaxnTable)
    decided = 0
    for drawn in range(game.full_mask):
        moves = table.move_vectors(drawn)
        move, vector = table.best_move(drawn)
        mine = max(v[0] for v in moves.values())
        equal = [v for v in moves.values() if v[0] == mine]
        assert vector[0] == mine
        assert max(vector[1:]) == min(max(v[1:]) for v in equal)
        decided += len({max(v[1:]) for v in equal}) > 1
    assert decided > 0  # the rival rule did decide somewhere


def test_a_safe_phase_move_logs_every_seats_expected_final_score() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2, players=3)
    ctx = QuietContext(game)
    state = game.new_state()
    move = PerfectPlayer(game).choose(state, ctx)
    line = SAFE_LINE.fullmatch(ctx.lines[-1])
    assert line, ctx.lines
    assert line[1] == game.format_move(move)
    expects = dict(pair.split("=") for pair in line[2].split())
    assert set(expects) == {"A", "B", "C"}
    assert abs(sum(float(v) for v in expects.values()) - len(game.cells)) < 0.2  # one decimal each


def test_the_log_line_says_the_cells_and_every_seats_expected_final_score() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2, players=3)
    ctx = QuietContext(game)
    state = game.new_state()
    for move in (3, 5, 7, 8):  # the four inner edges: every cell misses two sides, no safe move left
        state.apply(move)
    assert not safe_moves(state)
    PerfectPlayer(game).choose(state, ctx)
    line = MAXN_LINE.fullmatch(ctx.lines[-1])
    assert line, ctx.lines
    expects = dict(pair.split("=") for pair in line[3].split())
    assert set(expects) == {"A", "B", "C"}
    assert sum(int(v) for v in expects.values()) == len(game.cells)
    assert int(expects["A"]) == int(line[1])  # nothing scored yet: the final score is the cells to come


def test_max_n_tables_are_cached_apart_from_two_seat_ones(private_cache: Path) -> None:
    two = find_game("dots-and-boxes", rows=1, cols=2)
    three = find_game("dots-and-boxes", rows=1, cols=2, players=3)
    assert board_key(two) != board_key(three) != board_key(find_game("dots-and-boxes", rows=1, cols=2, players=4))
    ctx = QuietContext(three)
    PerfectPlayer(three).choose(three.new_state(), ctx)
    loaded = cached_board_table(three)
    assert isinstance(loaded, MaxnTable) and loaded.values.shape == (3, 1 << 7)
    assert cached_board_table(two) is None  # a three-seat table is never read as a two-seat one


def test_on_a_board_too_big_for_the_clock_it_plays_double_cross_then_solves_the_rest(monkeypatch) -> None:
    # 3 x 3 boxes with three seats (24 edges) under a 2 s clock: too big at first, solved later.
    # Each move's own search gets ample time (its share of a 2 s clock, 0.04 s, is too short
    # for the safe phase on a slow or busy machine): what is tested is the table's timing.
    # Played by node counts alone (BOT_NODES_ONLY): what it spends of the clock depends on the
    # machine's load, and a loaded machine could spend the 2 s before the table fits; so the
    # tables are sized by the whole clock, the same on any machine.
    import players.strategies.double_cross as double_cross
    import players.strategies.perfect as perfect
    monkeypatch.setattr(perfect, "NODES_ONLY", True)
    monkeypatch.setattr(double_cross, "NODES_ONLY", True)
    game = find_game("dots-and-boxes", rows=3, cols=3, players=3)
    ctx = QuietContext(game, time_ms=2_000)
    player = PerfectPlayer(game)
    rng = random.Random(5)
    state = game.new_state()
    while not state.is_over():
        if state.current_player == 0:
            state.apply(player.choose(state, ctx))
        else:
            state.apply(rng.choice(state.legal_moves()))
    assert ctx.lines[0].startswith("heuristic move ") and "too many to solve within the clock" in ctx.lines[0]
    solved = [i for i, line in enumerate(ctx.lines) if line.startswith("exact play from here")]
    assert solved, ctx.lines
    assert all(MAXN_LINE.fullmatch(line) or SAFE_LINE.fullmatch(line) for line in ctx.lines[solved[0] + 1:])


def test_the_program_plays_three_seats_by_the_rules() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2, players=3)
    state = game.new_state()
    state.apply(0)  # seat 0's move, relayed to seat 1
    lines = f"Game {game.describe()} seat=1 time_ms=30000\n{game.format_move(0)}\nQuit\n"
    done = subprocess.run([sys.executable, str(ROOT / "players" / "perfect_dp.py")], input=lines,
                          capture_output=True, text=True, timeout=60, check=True)
    move = expected_move(BruteForce(game), state)  # a safe move is left: the safe-phase rule
    assert move is not None
    assert done.stdout.splitlines()[0] == game.format_move(move)
    assert f"safe move {game.format_move(move)} expects " in done.stderr
