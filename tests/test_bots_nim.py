"""Limit Nim strategies: winning plays by their definition, and the greedy rule."""
from __future__ import annotations

import random
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bot import BotContext
from arbiter.games import find_game
from arbiter.games.limit_nim import Pile
from players.strategies.nim import NimSolver, after, choose_nim_greedy, greedy_moves, make_nim_perfect_chooser


@lru_cache(maxsize=None)
def has_winning_play(piles: tuple[Pile, ...]) -> bool:
    """The definition, searched over whole positions: some play leads to a position without one."""
    return any(
        not has_winning_play(tuple(sorted(after(piles, (p, n)))))
        for p, (_, limit) in enumerate(piles)
        for n in range(1, limit + 1)
    )


def test_two_single_stones_have_no_winning_play() -> None:
    assert NimSolver().winning_play(((1, 1), (1, 1))) is None


def test_two_and_one_has_one_take_one_from_the_first_pile() -> None:
    assert NimSolver().winning_play(((2, 2), (1, 1))) == (0, 1)


def test_taking_the_last_stones_is_a_winning_play() -> None:
    assert NimSolver().winning_play(((0, 0), (3, 3))) == (1, 3)


pile = st.integers(1, 7).flatmap(lambda s: st.tuples(st.just(s), st.integers(1, s)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(pile, st.just((0, 0))), min_size=1, max_size=3))
def test_winning_plays_match_the_whole_position_search(piles: list[Pile]) -> None:
    position = tuple(piles)
    move = NimSolver().winning_play(position)
    assert (move is not None) == has_winning_play(tuple(sorted(position)))
    if move is not None:
        assert not has_winning_play(tuple(sorted(after(position, move))))


def test_the_default_game_is_won_by_the_first_player_with_perfect_play() -> None:
    game = find_game("limit-nim")
    perfect = make_nim_perfect_chooser()
    for seed in range(5):
        rng = random.Random(seed)
        state = game.new_state()
        ctx = BotContext(game=game, seat=0, rng=rng)
        while not state.is_over():
            move = perfect(state, ctx) if state.current_player == 0 else rng.choice(state.legal_moves())
            state.apply(move)
        assert state.winner() == 0


def test_greedy_takes_as_much_as_the_limit_allows() -> None:
    assert sorted(greedy_moves(((10, 9), (10, 4)))) == [(0, 9)]
    assert sorted(greedy_moves(((10, 9), (10, 9)))) == [(0, 9), (1, 9)]


def test_greedy_does_not_leave_a_pile_the_opponent_can_take_whole() -> None:
    # Taking 3 (or the single stone) leaves one pile the opponent can clear; take 2.
    assert greedy_moves(((3, 3), (1, 1))) == [(0, 2)]
    # 5/2: taking 2 leaves 3/3 (all takeable), taking 1 leaves 4/2.
    assert greedy_moves(((5, 2),)) == [(0, 1)]


def test_greedy_takes_everything_when_it_can() -> None:
    assert greedy_moves(((0, 0), (4, 4))) == [(1, 4)]


def test_greedy_moves_anyway_when_every_move_loses_at_once() -> None:
    assert sorted(greedy_moves(((1, 1), (1, 1)))) == [(0, 1), (1, 1)]


def test_the_greedy_chooser_plays_a_legal_greedy_move() -> None:
    game = find_game("limit-nim", piles="6/5,2/2")
    state = game.new_state()
    move = choose_nim_greedy(state, BotContext(game=game, seat=0, rng=random.Random(0)))
    assert move == (0, 5)  # leaves 1/1 and 2/2: two piles, none the opponent can clear at once
    state.apply(move)
