"""Invariants of every game, checked on random playouts at several sizes (hypothesis)."""
from __future__ import annotations

import random
import re
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arbiter.games import Game, IllegalMove, MalformedMove, State, find_game
from arbiter.games.dots import DotsGame, DotsState
from arbiter.games.limit_nim import LimitNimState

DOTS_CASES = [
    ("dots-and-triangles", {"rows": 2}),
    ("dots-and-triangles", {"rows": 3}),
    ("dots-and-triangles", {"rows": 4}),
    ("dots-and-triangles", {"rows": 6}),
    ("dots-and-triangles", {"rows": 4, "players": 3}),
    ("dots-and-triangles", {"rows": 5, "players": 3}),
    ("dots-and-boxes", {"rows": 1, "cols": 1}),
    ("dots-and-boxes", {"rows": 2, "cols": 3}),
    ("dots-and-boxes", {"rows": 3, "cols": 3}),
    ("dots-and-boxes", {"rows": 4, "cols": 4}),
    ("dots-and-boxes", {"rows": 3, "cols": 3, "players": 3}),
]
NIM_CASES = [
    ("limit-nim", {}),
    ("limit-nim", {"piles": "1/1,0/0"}),
    ("limit-nim", {"piles": "5/5,3/2,7/1"}),
    ("limit-nim", {"piles": "20/19,20/19"}),
]
ALL_CASES = DOTS_CASES + NIM_CASES

# Shape-alike texts reach the board checks; arbitrary text reaches the syntax checks.
MOVE_TEXTS = st.one_of(
    st.text(max_size=12),
    st.from_regex(r"\A[0-9]{1,3} [0-9]{1,3}( [hv])?\Z"),
)
MOVE_BOUND = 200  # far above any game of the cases, in moves per game and legal moves
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def game_of(case: tuple[str, dict[str, Any]]) -> Game[Any]:
    name, params = case
    return find_game(name, **params)


def cases(chosen: list[tuple[str, dict[str, Any]]]) -> st.SearchStrategy[Game[Any]]:
    """A strategy over the games of `chosen`, shown by their description."""
    return st.sampled_from([game_of(case) for case in chosen])


Step = Callable[[State[Any], Any, State[Any]], None]


def playout(game: Game[Any], data: st.DataObject, step: Step | None = None) -> State[Any]:
    """Play hypothesis-chosen legal moves to the end; `step(before, move, after)` after each."""
    state = game.new_state()
    while True:
        moves = legal(state)
        assert state.is_over() == (moves == [])
        assert len(state.history) <= MOVE_BOUND, "the game does not end"
        if not moves:
            return state
        move = moves[data.draw(st.integers(0, len(moves) - 1), label="move index")]
        before = state.clone()
        state.apply(move)
        if step is not None:
            step(before, move, state)


def legal(state: State[Any]) -> list[Any]:
    """The legal moves, checked to stay few (a broken rule must fail, not exhaust memory)."""
    moves = state.legal_moves()
    assert len(moves) <= MOVE_BOUND, f"{len(moves)} legal moves"
    return moves


def cells_completed_by(game: DotsGame, drawn: int, edge: int) -> int:
    """How many cells drawing `edge` completes, from the cells' edge lists alone."""
    return sum(1 for cell in game.cells if edge in cell and all((drawn >> e) & 1 for e in cell if e != edge))


def full_cells(game: DotsGame, drawn: int) -> int:
    return sum(1 for cell in game.cells if all((drawn >> e) & 1 for e in cell))


# --- every game ----------------------------------------------------------------------


@PROPERTY
@given(game=cases(ALL_CASES), data=st.data())
def test_the_game_ends_exactly_when_no_move_is_legal(game: Game[Any], data: st.DataObject) -> None:
    end = playout(game, data)  # checks is_over() == (no legal move) at every position
    assert end.is_over() and end.legal_moves() == []
    for move in {*end.history, *game.new_state().legal_moves()}:
        with pytest.raises(IllegalMove, match="the game is over"):
            end.apply(move)


@PROPERTY
@given(game=cases(ALL_CASES), data=st.data())
def test_notation_round_trips_for_every_legal_move(game: Game[Any], data: st.DataObject) -> None:
    def step(before: State[Any], move: Any, after: State[Any]) -> None:
        for legal in before.legal_moves():
            text = game.format_move(legal)
            assert game.parse_move(text) == legal
            assert game.format_move(game.parse_move(text)) == text
        if game.name == "dots-and-triangles":  # the larger dot first means the same edge
            a, b = game.format_move(move).split()
            assert game.parse_move(f"{b} {a}") == move

    playout(game, data, step)


@PROPERTY
@given(game=cases(ALL_CASES), text=MOVE_TEXTS, data=st.data())
def test_any_text_is_a_move_malformed_or_illegal(game: Game[Any], text: str, data: st.DataObject) -> None:
    try:
        move = game.parse_move(text)
    except MalformedMove as error:
        assert error.text == text and repr(text) in str(error)
    else:
        assert game.parse_move(game.format_move(move)) == move
    # And against a position somewhere in a game: only the two move errors, never a crash.
    state = game.new_state()
    for _ in range(data.draw(st.integers(0, 30), label="moves before")):
        if state.is_over():
            break
        state.apply(data.draw(st.sampled_from(legal(state)), label="move"))
    key = state.key()
    try:
        state.play(text)
    except (MalformedMove, IllegalMove) as error:
        assert error.text == text and repr(text) in str(error)
        assert state.key() == key  # a refused move changes nothing


@PROPERTY
@given(game=cases(ALL_CASES), data=st.data())
def test_every_position_of_a_game_has_its_own_key(game: Game[Any], data: st.DataObject) -> None:
    keys = [game.new_state().key()]
    playout(game, data, lambda before, move, after: keys.append(after.key()))
    assert len(set(keys)) == len(keys)  # dots: more edges each time; nim: fewer stones
    for key in keys:
        hash(key)


@PROPERTY
@given(game=cases(ALL_CASES), data=st.data())
def test_a_replayed_clone_reaches_the_same_key(game: Game[Any], data: st.DataObject) -> None:
    end = playout(game, data)
    replay = game.new_state()
    for move in end.history:
        replay.play(game.format_move(move))
    assert replay.key() == end.key()
    assert replay.scores == end.scores and replay.winner() == end.winner()
    assert replay.render() == end.render()


# --- the dots games ------------------------------------------------------------------


@PROPERTY
@given(game=cases(DOTS_CASES), data=st.data())
def test_the_scores_add_up_to_the_cells_completed(game: DotsGame, data: st.DataObject) -> None:
    def step(before: State[Any], move: Any, after: State[Any]) -> None:
        assert isinstance(after, DotsState)
        assert sum(after.scores) == full_cells(game, after.drawn)
        assert sum(after.scores) == sum(1 for owner in after.owner if owner >= 0)
        for seat, score in enumerate(after.scores):
            assert after.owner.count(seat) == score

    end = playout(game, data, step)
    assert sum(end.scores) == len(game.cells)


@PROPERTY
@given(game=cases(DOTS_CASES), data=st.data())
def test_no_move_is_ever_legal_twice(game: DotsGame, data: st.DataObject) -> None:
    def step(before: State[Any], move: Any, after: State[Any]) -> None:
        assert not after.is_legal(move)
        assert move not in after.legal_moves()
        assert len(after.legal_moves()) == len(before.legal_moves()) - 1
        with pytest.raises(IllegalMove, match="already drawn|the game is over"):
            after.clone().apply(move)

    end = playout(game, data, step)
    assert sorted(end.history) == list(range(len(game.edges)))


@PROPERTY
@given(game=cases(DOTS_CASES), data=st.data())
def test_completing_a_cell_scores_it_and_moves_again_else_the_turn_passes(
    game: DotsGame, data: st.DataObject
) -> None:
    seats = game.num_players

    def step(before: State[Any], move: Any, after: State[Any]) -> None:
        assert isinstance(before, DotsState)
        mover = before.current_player
        completed = cells_completed_by(game, before.drawn, move)
        assert game.completed_by(before.drawn, move) == completed
        assert isinstance(after, DotsState) and after.last_completed == completed
        expected = list(before.scores)
        expected[mover] += completed
        assert after.scores == expected
        if completed:
            assert after.current_player == mover
        else:
            assert after.current_player == (mover + 1) % seats  # the last seat wraps to the first

    playout(game, data, step)


@PROPERTY
@given(game=cases(DOTS_CASES), data=st.data())
def test_the_same_position_reached_in_another_order_has_the_same_key(
    game: DotsGame, data: st.DataObject
) -> None:
    # Moves that complete nothing only pass the turn, so reordering a run of them reaches
    # the same edges, scores and mover (and owners) by a different route.
    original = game.new_state()
    runs: list[list[int]] = [[]]
    completing: list[int] = []
    moves = playout(game, data).history
    for move in moves:
        original.apply(move)
        if original.last_completed:
            completing.append(move)
            runs.append([])
        else:
            runs[-1].append(move)
    assume(any(len(run) >= 2 for run in runs))
    orders = [data.draw(st.permutations(run), label=f"run {i}") for i, run in enumerate(runs)]
    if orders == runs:  # make sure the route differs
        first = next(i for i, run in enumerate(runs) if len(run) >= 2)
        orders[first] = runs[first][::-1]
    reordered = game.new_state()
    for i, order in enumerate(orders):
        for move in order:
            reordered.apply(move)
        if i < len(completing):
            reordered.apply(completing[i])
    assert reordered.history != original.history
    assert reordered.key() == original.key()
    assert reordered.owner == original.owner
    assert reordered.render() == original.render()


@PROPERTY
@given(game=cases(DOTS_CASES), data=st.data())
def test_render_shows_every_edge_and_owner(game: DotsGame, data: st.DataObject) -> None:
    end = game.new_state()
    for _ in range(data.draw(st.integers(0, len(game.edges)), label="moves")):
        end.apply(data.draw(st.sampled_from(legal(end)), label="move"))
    assert isinstance(end, DotsState)
    assert_render_matches(game, end)


def assert_render_matches(game: DotsGame, state: DotsState) -> None:
    """Count the marks of the picture against the position."""
    picture = state.render()
    owned = sum(1 for owner in state.owner if owner >= 0)
    assert sum(1 for ch in picture if ch.isupper()) == owned
    for seat in range(game.num_players):
        assert picture.count(chr(ord("A") + seat)) == state.owner.count(seat)
    drawn = state.drawn.bit_count()
    if game.name == "dots-and-triangles":
        assert picture.count(".") == len(game.edges) - drawn
        dot_rows = picture.splitlines()[::2]
        flats = sum(len(re.findall(r"-+", line)) for line in dot_rows)
        assert flats + picture.count("/") + picture.count("\\") == drawn
    else:
        assert picture.count("---") + picture.count("|") == drawn


def test_render_of_a_large_triangle_board_matches_its_position() -> None:
    for rows in (13, 14, 40):
        game = find_game("dots-and-triangles", rows=rows)
        state = game.new_state()
        rng = random.Random(rows)
        for move in rng.sample(state.legal_moves(), len(game.edges) * 2 // 3):
            state.apply(move)
        assert isinstance(state, DotsState)
        assert_render_matches(game, state)  # type: ignore[arg-type]


# --- limit nim -----------------------------------------------------------------------


@PROPERTY
@given(game=cases(NIM_CASES), data=st.data())
def test_a_take_leaves_twice_the_take_as_limit_and_the_turn_passes(
    game: Game[Any], data: st.DataObject
) -> None:
    def step(before: State[Any], move: Any, after: State[Any]) -> None:
        assert isinstance(before, LimitNimState) and isinstance(after, LimitNimState)
        pile, count = move
        stones, limit = before.piles[pile]
        assert 1 <= count <= limit <= stones
        left = stones - count
        assert after.piles[pile] == (left, min(2 * count, left))
        assert [p for i, p in enumerate(after.piles) if i != pile] == [
            p for i, p in enumerate(before.piles) if i != pile
        ]
        if after.is_over():
            assert after.winner() == before.current_player  # whoever takes the last stone
        else:
            assert after.current_player == 1 - before.current_player

    end = playout(game, data, step)
    assert sorted(end.scores) == [0, 1]


@PROPERTY
@given(game=cases(NIM_CASES), data=st.data())
def test_takes_from_different_piles_commute(game: Game[Any], data: st.DataObject) -> None:
    # Each pile's story depends only on its own takes; any interleaving keeping each pile's
    # order of takes reaches the same position (with as many moves, so the same mover).
    end = playout(game, data)
    per_pile: dict[int, list[tuple[int, int]]] = {}
    for move in end.history:
        per_pile.setdefault(move[0], []).append(move)
    order = data.draw(st.permutations([pile for pile, _ in end.history]), label="interleaving")
    reordered = game.new_state()
    taken = {pile: 0 for pile in per_pile}
    for pile in order:
        reordered.apply(per_pile[pile][taken[pile]])
        taken[pile] += 1
    assert reordered.key() == end.key()
    assert reordered.winner() == end.winner()


@pytest.mark.parametrize(
    ("name", "params"), [("dots-and-triangles", {"rows": 40}), ("dots-and-boxes", {"rows": 30, "cols": 30})]
)
def test_legal_moves_are_the_undrawn_edges_on_large_boards(name: str, params: dict[str, Any]) -> None:
    game = find_game(name, **params)
    state = game.new_state()
    rng = random.Random(1)
    for _ in range(3):
        for move in rng.sample(state.legal_moves(), len(game.edges) // 4):
            state.apply(move)
        assert isinstance(state, DotsState)
        assert state.legal_moves() == [e for e in range(len(game.edges)) if not (state.drawn >> e) & 1]
