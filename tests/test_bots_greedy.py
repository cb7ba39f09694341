"""The cell index and the greedy dots strategy, on hand-built positions."""
from __future__ import annotations

import random

import pytest

from arbiter.bot import BotContext
from arbiter.games import find_game
from arbiter.games.dots import DotsGame, DotsState
from players.strategies.cell_index import CellIndex, capture_run, tracked_index
from players.strategies.greedy import cheapest_gifts, choose_greedy


def position(game: DotsGame, *texts: str) -> DotsState:
    """The position after drawing these edges in order."""
    state = game.new_state()
    for text in texts:
        state.play(text)
    return state


def greedy_choices(state: DotsState, seeds: int = 12) -> set[str]:
    """Every move greedy plays here over a range of seeds."""
    return {
        state.game.format_move(choose_greedy(state, BotContext(game=state.game, seat=0, rng=random.Random(s))))
        for s in range(seeds)
    }


def all_edges_but(game: DotsGame, *free: str) -> list[str]:
    """Every edge's text except the given ones."""
    keep = {game.parse_move(t) for t in free}
    return [game.format_move(e) for e in range(len(game.edges)) if e not in keep]


@pytest.mark.parametrize(("name", "params"), [("dots-and-boxes", {"rows": 3, "cols": 3}),
                                              ("dots-and-triangles", {"rows": 4})])
def test_the_index_matches_the_position_after_every_move_and_takeback(name: str, params: dict[str, int]) -> None:
    game = find_game(name, **params)
    rng = random.Random(1)
    for _ in range(20):
        index, drawn, order = CellIndex(game), 0, []
        for edge in rng.sample(range(len(game.edges)), rng.randrange(len(game.edges) + 1)):
            assert index.draw(edge) == game.completed_by(drawn, edge)
            drawn |= 1 << edge
            order.append(edge)
            check_index(index, game, drawn)
        for edge in reversed(order[len(order) // 2 :]):
            index.undraw(edge)
            drawn &= ~(1 << edge)
            check_index(index, game, drawn)


def check_index(index: CellIndex, game: DotsGame, drawn: int) -> None:
    missing = [len(cell) - sum((drawn >> e) & 1 for e in cell) for cell in game.cells]
    assert index.drawn == drawn and index.missing == missing
    for k, cells in enumerate(index.by_missing):
        assert cells == {c for c in range(len(game.cells)) if missing[c] == k}
    safe = {e for e in range(len(game.edges))
            if not (drawn >> e) & 1 and all(missing[c] > 2 for c in game.edge_cells[e])}
    assert index.safe == safe
    assert {e for e in range(len(game.edges)) if not (drawn >> e) & 1 and index.is_pitfall(e)} == {
        e for e in range(len(game.edges)) if not (drawn >> e) & 1 and any(missing[c] == 2 for c in game.edge_cells[e])}


def test_the_tracked_index_follows_the_game_and_restarts_for_a_new_one() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2)
    memory: dict[str, object] = {}
    first = tracked_index(game, position(game, "1 1 h", "2 1 h").drawn, memory)
    later = tracked_index(game, position(game, "1 1 h", "2 1 h", "1 1 v").drawn, memory)
    assert later is first and first.missing[0] == 1
    fresh = tracked_index(game, position(game, "3 2 h").drawn, memory)  # not a continuation
    assert fresh is not first and fresh.missing == [4, 4, 4, 3]


def test_greedy_completes_a_cell_when_it_can() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2)
    state = position(game, "1 1 h", "2 1 h", "1 1 v")  # the top-left box misses its right side
    assert greedy_choices(state) == {"1 2 v"}


def test_greedy_prefers_the_edge_that_completes_two_cells() -> None:
    game = find_game("dots-and-boxes", rows=1, cols=3)
    # Boxes 1 and 2 each miss only the line between them; box 3 misses its right side.
    state = position(game, "1 1 h", "2 1 h", "1 1 v", "1 2 h", "2 2 h", "1 3 h", "2 3 h", "1 3 v")
    assert greedy_choices(state) == {"1 2 v"}


def test_greedy_takes_triangles_too() -> None:
    game = find_game("dots-and-triangles", rows=3)
    state = position(game, "1 2", "2 3")  # the top triangle misses 1 3
    assert greedy_choices(state) == {"1 3"}


def test_greedy_plays_a_safe_move_when_one_is_left() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2)
    # Every box has two sides but the bottom-right one, which has one: its right side,
    # touching no other box, is the only safe move.
    state = position(game, "1 1 h", "1 1 v", "1 2 h", "1 3 v", "2 1 v", "3 1 h", "3 2 h")
    assert [state.sides_drawn(c) for c in range(4)] == [2, 2, 2, 1]
    assert greedy_choices(state) == {"2 3 v"}


def test_with_no_safe_move_greedy_gives_away_the_fewest_cells() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=3)
    # The top row is a chain of three boxes (only its vertical lines are free); in the
    # bottom row, two boxes are taken and the left one is a chain of one.
    top_row = ["1 1 h", "1 2 h", "1 3 h", "2 1 h", "2 2 h", "2 3 h"]
    state = position(game, *top_row, "3 2 h", "3 3 h", "2 2 v", "2 3 v", "2 4 v")
    index = CellIndex(game, state.drawn)
    assert not index.safe and not index.opportunities
    assert greedy_choices(state) == {"2 1 v", "3 1 h"}  # either free side of the single box
    for text in ("1 1 v", "1 2 v"):
        assert capture_run(game, state.drawn | 1 << game.parse_move(text))[0] == 3


def test_a_capture_run_asked_to_stop_above_a_count_stops_there() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=3)
    top_row = ["1 1 h", "1 2 h", "1 3 h", "2 1 h", "2 2 h", "2 3 h"]
    state = position(game, *top_row, "3 2 h", "3 3 h", "2 2 v", "2 3 v", "2 4 v")
    opened = state.drawn | 1 << game.parse_move("1 1 v")  # opens the chain of three
    assert [capture_run(game, opened, stop_above=limit)[0] for limit in (0, 1, 2, 3, None)] == [1, 2, 3, 3, 3]


@pytest.mark.parametrize(("name", "params"), [("dots-and-boxes", {"rows": 4, "cols": 5}),
                                              ("dots-and-triangles", {"rows": 7})])
def test_the_cheapest_gifts_are_the_edges_that_give_the_fewest_cells(name: str, params: dict[str, int]) -> None:
    """Against the definition, every run counted in full, in the no-safe-move positions of
    greedy-versus-greedy games (where long chains make the early stop matter)."""
    game = find_game(name, **params)
    assert isinstance(game, DotsGame)
    checked = 0
    for seed in range(6):
        state = game.new_state()
        ctx = BotContext(game=game, seat=0, rng=random.Random(seed))
        while not state.is_over():
            index = CellIndex(game, state.drawn)
            if not index.safe and not index.opportunities:
                free = [e for e in range(len(game.edges)) if not (state.drawn >> e) & 1]
                gift = {e: capture_run(game, state.drawn | 1 << e)[0] for e in free}
                assert cheapest_gifts(game, state.drawn) == [e for e in free if gift[e] == min(gift.values())]
                checked += 1
            state.apply(choose_greedy(state, ctx))
    assert checked >= 10
