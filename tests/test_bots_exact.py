"""Exact values of dots positions, the perfect_dp player, and the Triangle War solver mode."""
from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arbiter.bot import BotContext
from arbiter.games import find_game
from arbiter.games.dots import DotsGame
from players.strategies.double_cross import components, components_value
from players.strategies.exact import board_key, board_table, build_table, cache_dir, cached_board_table
from players.strategies.perfect import VALUE_LINE, PerfectPlayer, triangle_war

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Solved tables go to a fresh directory, never to the user's cache."""
    monkeypatch.setenv("ARBITER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


class QuietContext(BotContext):
    """A bot context keeping the log lines."""

    def __init__(self, game: DotsGame, seed: int = 0, time_ms: int | None = 30_000) -> None:
        super().__init__(game=game, seat=0, rng=random.Random(seed), time_ms=time_ms)
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)


def reference_value(game: DotsGame, drawn: int, memo: dict[int, int]) -> int:
    """The value by its definition, by plain memoized recursion."""
    if drawn == game.full_mask:
        return 0
    if drawn not in memo:
        best = None
        for edge in range(len(game.edges)):
            if not (drawn >> edge) & 1:
                completed = game.completed_by(drawn, edge)
                child = reference_value(game, drawn | (1 << edge), memo)
                value = completed + child if completed else -child
                best = value if best is None else max(best, value)
        memo[drawn] = best  # type: ignore[assignment]
    return memo[drawn]


def horizontal_edges(game: DotsGame) -> int:
    """The 4-row triangle board's horizontal edges (both dots on one row) as a bitmask."""
    rows = {d: r for r in range(1, 5) for d in range(game.dot(r, 1), game.dot(r, 1) + r)}
    return sum(1 << e for e, (a, b) in enumerate(game.edges) if rows[a] == rows[b])


@pytest.mark.parametrize(("name", "params", "value"), [
    ("dots-and-triangles", {"rows": 2}, +1),
    ("dots-and-triangles", {"rows": 3}, -2),
    ("dots-and-triangles", {"rows": 4}, -3),
    ("dots-and-boxes", {"rows": 1, "cols": 1}, -1),
    ("dots-and-boxes", {"rows": 1, "cols": 2}, 0),
    ("dots-and-boxes", {"rows": 2, "cols": 2}, +2),
    ("dots-and-boxes", {"rows": 2, "cols": 3}, -2),
    ("dots-and-boxes", {"rows": 3, "cols": 3}, -3),  # 2^24 positions, about a second
])
def test_the_empty_board_has_its_published_value(name: str, params: dict[str, int], value: int) -> None:
    assert build_table(find_game(name, **params)).value(0) == value


def test_with_only_the_horizontal_edges_drawn_the_mover_wins_by_three() -> None:
    game = find_game("dots-and-triangles", rows=4)
    drawn = horizontal_edges(game)
    assert bin(drawn).count("1") == 1 + 2 + 3  # rows of 2, 3 and 4 dots
    assert board_table(game).value(drawn) == 3
    # The same figure from the chain analysis: chains of 1, 3 and 5 triangles.
    assert components(game, drawn) == (("chain", 1), ("chain", 3), ("chain", 5))
    assert components_value(components(game, drawn)) == 3


@pytest.mark.parametrize(("name", "params"), [
    ("dots-and-triangles", {"rows": 3}),  # 9 edges: an odd split of the table
    ("dots-and-boxes", {"rows": 2, "cols": 2}),  # 12 edges
    ("dots-and-boxes", {"rows": 1, "cols": 3}),  # 10 edges, cells in a row
])
def test_every_position_has_the_value_the_definition_gives(name: str, params: dict[str, int]) -> None:
    game = find_game(name, **params)
    table = build_table(game)
    memo: dict[int, int] = {}
    for drawn in range(1 << len(game.edges)):
        assert table.value(drawn) == reference_value(game, drawn, memo), game.render_state(game.new_state())


def test_a_table_solved_mid_game_agrees_with_the_whole_board_table() -> None:
    game = find_game("dots-and-triangles", rows=4)
    whole = board_table(game)
    rng = random.Random(7)
    state = game.new_state()
    for _ in range(6):
        state.apply(rng.choice(state.legal_moves()))
    part = build_table(game, state.drawn)
    assert len(part.values) == 1 << (18 - 6)
    for _ in range(300):
        drawn = state.drawn | rng.getrandbits(18) & game.full_mask
        assert part.covers(drawn) and part.value(drawn) == whole.value(drawn)
    assert not part.covers(0)


def test_whole_board_tables_are_cached_on_disk_by_geometry(private_cache: Path) -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2)
    assert cache_dir() == private_cache
    assert cached_board_table(game) is None
    solved = board_table(game)
    assert (private_cache / board_key(game)).is_file()
    loaded = cached_board_table(game)
    assert loaded is not None and np.array_equal(loaded.values, solved.values)
    # The size changes the board (beyond two seats so does the seat count: tests/test_bots_maxn.py).
    assert board_key(find_game("dots-and-boxes", rows=2, cols=3)) != board_key(game)


@pytest.mark.parametrize("content", [
    pytest.param(b"not a table", id="garbage"),
    pytest.param(b"", id="empty file"),
    pytest.param(b"\x93NUMPY\x01\x00v\x00{'descr': '|i1', 'fortran_order': False, 'shape': (128,), }",
                 id="header without data"),
])
def test_an_unreadable_cache_file_is_solved_again(private_cache: Path, content: bytes) -> None:
    game = find_game("dots-and-boxes", rows=1, cols=2)
    private_cache.mkdir(parents=True)
    (private_cache / board_key(game)).write_bytes(content)
    assert cached_board_table(game) is None
    assert board_table(game).value(0) == 0
    assert cached_board_table(game) is not None


# --- the perfect player -----------------------------------------------------------------

def play_out(game: DotsGame, perfect: PerfectPlayer, seat: int, seed: int) -> tuple[list[int], QuietContext]:
    """A game of `perfect` (at `seat`) against random moves; the final scores and its log."""
    rng = random.Random(seed)
    ctx = QuietContext(game, seed)
    state = game.new_state()
    while not state.is_over():
        if state.current_player == seat:
            state.apply(perfect.choose(state, ctx))
        else:
            state.apply(rng.choice(state.legal_moves()))
    return list(state.scores), ctx


@pytest.mark.parametrize("seat", [0, 1])
def test_perfect_play_meets_the_margin_it_logs_at_its_first_move(seat: int) -> None:
    game = find_game("dots-and-triangles", rows=4)
    for seed in range(6):
        scores, ctx = play_out(game, PerfectPlayer(game), seat, seed)
        values = [VALUE_LINE.fullmatch(line) for line in ctx.lines if line.startswith("value ")]
        assert values and all(values), ctx.lines
        promised = int(values[0][2])  # type: ignore[index]
        assert scores[seat] - scores[1 - seat] >= promised
        if seat == 0:
            assert int(values[0][1]) == -3  # type: ignore[index]  # the empty board's value


def test_perfect_play_picks_a_move_of_the_best_value() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2)
    table = board_table(game)
    rng = random.Random(3)
    for _ in range(20):
        state = game.new_state()
        for _ in range(rng.randrange(0, 10)):
            state.apply(rng.choice(state.legal_moves()))
        ctx = QuietContext(game, rng.randrange(100))
        move = PerfectPlayer(game).choose(state, ctx)
        values = table.move_values(state.drawn)
        assert values[move] == max(values.values()) == table.value(state.drawn)
        assert f"value {values[move]} " in ctx.lines[-1]


def test_with_no_time_to_solve_it_plays_double_cross_and_says_so() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2)
    ctx = QuietContext(game, time_ms=1)
    move = PerfectPlayer(game).choose(game.new_state(), ctx)
    assert move in range(12)
    assert ctx.lines[-1].startswith(f"heuristic move {game.format_move(move)} (double-cross")


@pytest.mark.parametrize(("time_ms", "max_edges", "why"), [
    (1, 26, "12 free edges are too many to solve within the clock"),
    (30_000, 11, "12 free edges are too many to solve at once (at most 11, --exact-edges)"),
])
def test_the_heuristic_move_says_what_kept_it_from_solving(time_ms: int, max_edges: int, why: str) -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2)
    ctx = QuietContext(game, time_ms=time_ms)
    PerfectPlayer(game, max_edges).choose(game.new_state(), ctx)
    assert ctx.lines[-1].endswith(f"(double-cross: {why})")


def test_the_program_refuses_a_negative_exact_edges() -> None:
    bot = Path(__file__).resolve().parents[1] / "players" / "perfect_dp.py"
    done = subprocess.run([sys.executable, str(bot), "--exact-edges", "-1"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=30)
    assert done.returncode == 2
    assert "--exact-edges: must be 0 or more, got -1" in done.stderr


def test_a_per_move_cap_too_short_for_the_solve_means_double_cross_first() -> None:
    game = find_game("dots-and-boxes", rows=3, cols=3)
    ctx = QuietContext(game)
    ctx.move_ms = 200  # 2^24 positions do not fit in half of 0.2 s
    PerfectPlayer(game).choose(game.new_state(), ctx)
    assert ctx.lines[-1].startswith("heuristic move")


def test_on_a_board_too_big_to_solve_it_switches_to_exact_play_when_few_edges_remain() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=3)  # 17 edges; allow solving 10 at most
    scores, ctx = play_out(game, PerfectPlayer(game, max_exact_edges=10), 0, seed=5)
    switch = next(i for i, line in enumerate(ctx.lines) if line.startswith("exact play from here"))
    assert switch > 0 and all(line.startswith("heuristic move") for line in ctx.lines[:switch])
    solved = re.match(r"exact play from here: solved the (\d+) free edges", ctx.lines[switch])
    assert solved and int(solved[1]) <= 10
    assert all(VALUE_LINE.fullmatch(line) for line in ctx.lines[switch + 1 :])


# --- Triangle War solver mode -------------------------------------------------------------

def solve(*games: list[str]) -> list[str]:
    lines = [str(len(games))]
    for moves in games:
        lines += [str(len(moves)), *moves]
    return triangle_war(lines)


HORIZONTAL = ["2 3", "4 5", "5 6", "7 8", "8 9", "9 10"]  # every horizontal edge of the board


def test_the_player_to_move_wins_from_the_horizontal_edges_position() -> None:
    # Six moves, none completing (A, B, A, B, A, B): A is to move, with value +3.
    assert solve(HORIZONTAL) == ["Game 1: A wins."]
    # A gives away the top triangle (the puzzle's answer) and still wins; opening the
    # row of five instead loses: B takes all five, gives A the top one, takes the three.
    assert solve(HORIZONTAL + ["1 2"]) == ["Game 1: A wins."]
    assert solve(HORIZONTAL + ["4 7"]) == ["Game 1: B wins."]


# Fourteen moves that complete the top triangle and the five of the bottom row, leaving
# the middle row as a chain of three (free edges 2 4, 2 5, 3 5, 3 6). Whoever is to move
# must open it and the other takes all three, so the six triangles already taken decide.
MOVER_A_HOLDS_5 = ["6 10", "1 2", "5 8", "4 8", "5 9", "9 10", "2 3", "8 9", "7 8", "4 5", "6 9", "5 6",
                   "1 3", "4 7"]
MOVER_A_HOLDS_4 = ["9 10", "1 3", "6 10", "7 8", "8 9", "6 9", "4 8", "5 9", "5 6", "2 3", "1 2", "4 7",
                   "5 8", "4 5"]
MOVER_B_HOLDS_5 = ["6 10", "8 9", "6 9", "4 7", "5 6", "2 3", "4 8", "1 2", "9 10", "4 5", "5 9", "5 8",
                   "7 8", "1 3"]


@pytest.mark.parametrize(("moves", "mover", "scores", "winner"), [
    (MOVER_A_HOLDS_5, 0, [5, 1], "A"),  # A ends 5 to 4, though it loses the rest
    (MOVER_A_HOLDS_4, 0, [4, 2], "B"),  # A ends 4 to 5
    (MOVER_B_HOLDS_5, 1, [1, 5], "B"),
])
def test_triangles_already_taken_count_with_the_value_of_the_rest(
        moves: list[str], mover: int, scores: list[int], winner: str) -> None:
    game = find_game("dots-and-triangles", rows=4)
    state = game.new_state()
    for text in moves:
        state.play(text)
    assert (state.current_player, state.scores) == (mover, scores)
    assert board_table(game).value(state.drawn) == -3
    assert solve(moves) == [f"Game 1: {winner} wins."]


def test_a_finished_game_is_won_on_the_count() -> None:
    moves = MOVER_A_HOLDS_4 + ["2 4", "2 5", "3 5", "3 6"]  # A opens the chain, B takes it all
    state = find_game("dots-and-triangles", rows=4).new_state()
    for text in moves:
        state.play(text)
    assert state.is_over() and state.scores == [4, 5]
    assert solve(moves) == ["Game 1: B wins."]


def test_the_published_sample_games() -> None:
    games = [
        ["2 4", "4 5", "5 9", "3 6", "2 5", "3 5"],
        ["2 4", "4 5", "5 9", "3 6", "2 5", "3 5", "7 8"],
        ["1 2", "2 3", "1 3", "2 4", "2 5", "4 5"],
        ["1 2", "2 5", "3 6", "5 8", "4 7", "6 10", "2 4", "4 5", "4 8", "7 8"],
    ]
    assert solve(*games) == ["Game 1: B wins.", "Game 2: A wins.", "Game 3: A wins.", "Game 4: B wins."]


@pytest.mark.parametrize(("lines", "message"), [
    (["1", "2", "1 2"], "input ends before its 2 moves"),
    (["1", "1", "1 4"], "line 3 (game 1): malformed move '1 4'"),
    (["1", "2", "1 2", "2 1"], "line 4 (game 1): illegal move '2 1'"),
    (["x"], "line 1: expected the number of games"),
    (["1", "19"], "game 1: 19 moves, but the board has only 18 edges"),
])
def test_bad_solver_input_is_named_by_line(lines: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        triangle_war(lines)


def test_the_solver_mode_of_the_bot_program(private_cache: Path) -> None:
    text = "2\n6\n2 4\n4 5\n5 9\n3 6\n2 5\n3 5\n6\n2 3\n4 5\n5 6\n7 8\n8 9\n9 10\n"
    done = subprocess.run([sys.executable, str(ROOT / "players" / "perfect_dp.py"), "--triangle-war"],
                          input=text, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Game 1: B wins.\nGame 2: A wins.\n"
    bad = subprocess.run([sys.executable, str(ROOT / "players" / "perfect_dp.py"), "--triangle-war"],
                         input="1\n1\n1 9\n", capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not adjacent" in bad.stderr
