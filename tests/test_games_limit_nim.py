"""Limit Nim: the examples of the game's definition, the notation and the errors."""
from __future__ import annotations

import pytest

from arbiter.games import GameParamError, IllegalMove, MalformedMove, find_game
from arbiter.games.limit_nim import LimitNimState


def start(piles: str = "10/9,10/9,10/9") -> LimitNimState:
    """The initial position with the given piles."""
    state = find_game("limit-nim", piles=piles).new_state()
    assert isinstance(state, LimitNimState)
    return state


def test_the_default_is_three_piles_of_ten_with_limit_nine() -> None:
    game = find_game("limit-nim")
    assert game.new_state().piles == ((10, 9), (10, 9), (10, 9))
    assert game.describe() == "limit-nim piles=10/9,10/9,10/9"
    assert game.num_players == 2


def test_the_worked_example() -> None:
    # (10/9;10/9;10/9) -> take 2 from pile 1 -> (8/4;10/9;10/9) -> take 4 from pile 2 -> (8/4;6/6;10/9)
    state = start()
    state.play("1 2")
    assert state.piles == ((8, 4), (10, 9), (10, 9))
    assert state.current_player == 1
    state.play("2 4")
    assert state.piles == ((8, 4), (6, 6), (10, 9))
    assert state.current_player == 0


def test_taking_the_last_stone_wins() -> None:
    state = start("1/1;0/0")  # the definition's own notation is accepted too
    assert state.legal_moves() == [(0, 1)]
    state.play("1 1")
    assert state.is_over()
    assert state.legal_moves() == []
    assert state.winner() == 0
    assert state.scores == [1, 0]


def test_the_second_player_can_win_too() -> None:
    state = start("1/1,1/1")
    state.play("1 1")
    assert not state.is_over()
    state.play("2 1")
    assert state.winner() == 1
    assert state.scores == [0, 1]


@pytest.mark.parametrize(
    ("piles", "take", "after"),
    [
        ("10/9", "1 3", (7, 6)),  # limit 2n
        ("10/9", "1 6", (4, 4)),  # capped by the stones left
        ("5/5,3/1", "2 1", (2, 2)),
        ("2/2,3/1", "1 2", (0, 0)),  # an emptied pile has limit 0
    ],
)
def test_the_new_limit_is_twice_the_take_but_at_most_the_stones_left(
    piles: str, take: str, after: tuple[int, int]
) -> None:
    state = start(piles)
    pile = int(take.split()[0]) - 1
    state.play(take)
    assert state.piles[pile] == after


def test_the_legal_moves_are_every_take_up_to_each_limit() -> None:
    state = start("3/2,0/0,4/1")
    assert state.legal_moves() == [(0, 1), (0, 2), (2, 1)]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "expected a pile number and a count separated by one space"),
        ("1", "expected a pile number and a count separated by one space"),
        ("1 2 3", "expected a pile number and a count separated by one space"),
        ("1 -2", "expected a pile number and a count separated by one space"),
        ("1 two", "expected a pile number and a count separated by one space"),
        ("0 1", "there is no pile 0; piles are 1 to 3"),
        ("4 1", "there is no pile 4; piles are 1 to 3"),
        ("1 0", "a move takes at least 1 stone"),
    ],
)
def test_text_that_is_no_take_from_a_pile_is_malformed(text: str, why: str) -> None:
    state = start()
    with pytest.raises(MalformedMove) as caught:
        state.play(text)
    assert caught.value.text == text
    assert repr(text) in str(caught.value)
    assert why in str(caught.value)
    assert state.history == []


@pytest.mark.parametrize(
    ("piles", "text", "why"),
    [
        ("10/9,10/9,10/9", "1 10", "pile 1 has limit 9 (and 10 stones), so at most 9 may be taken"),
        ("10/9,10/9,10/9", "3 99", "pile 3 has limit 9 (and 10 stones), so at most 9 may be taken"),
        ("8/4,1/1", "1 5", "pile 1 has limit 4 (and 8 stones), so at most 4 may be taken"),
        ("0/0,1/1", "1 1", "pile 1 is empty"),
    ],
)
def test_too_many_stones_or_an_empty_pile_is_illegal(piles: str, text: str, why: str) -> None:
    state = start(piles)
    with pytest.raises(IllegalMove) as caught:
        state.play(text)
    assert str(caught.value) == f"illegal move {text!r}: {why}"
    assert state.current_player == 0 and state.history == []


def test_applying_a_take_of_nothing_is_illegal_and_changes_nothing() -> None:
    state = start()
    for move, why in [((0, 0), "at least 1 stone"), ((3, 1), "there is no pile 4"), ((-1, 1), "no pile 0")]:
        with pytest.raises(IllegalMove, match=why):
            state.apply(move)
    assert state.piles == ((10, 9), (10, 9), (10, 9))


@pytest.mark.parametrize(
    ("piles", "why"),
    [
        ("", "is not valid"),
        ("10", "pile '10' is not written stones/limit"),
        ("10/x", "is not valid"),
        ("10/11", "pile 1 is 10/11; a pile's limit must be between 1 and its stones"),
        ("10/0", "pile 1 is 10/0"),
        ("0/1", "pile 1 is 0/1"),
        ("0/0,0/0", "at least one pile must have stones"),
        ("1001/1", "pile 1 has 1001 stones; a pile has 0 to 1000"),
        (",".join(["1/1"] * 65), "give between 1 and 64 piles"),
        ("1_0/9", "not an integer: '1_0'"),
        ("\u0663/2", "not an integer"),
        (((3, 2, 1),), "pile 1 is (3, 2, 1); a pile is two integers"),
        ((("3", "2"),), "pile 1 is ('3', '2'); a pile is two integers"),
        (((3.0, 2),), "a pile is two integers"),
    ],
)
def test_bad_piles_are_refused_with_the_reason(piles: object, why: str) -> None:
    with pytest.raises(GameParamError) as caught:
        find_game("limit-nim", piles=piles)
    assert f"piles={piles!r}" in str(caught.value)
    assert why in str(caught.value)


def test_an_empty_pile_in_the_parameters_has_no_moves_and_refuses_a_take() -> None:
    state = start("0/0,3/2")
    assert state.legal_moves() == [(1, 1), (1, 2)]
    with pytest.raises(IllegalMove, match="pile 1 is empty"):
        state.play("1 1")


def test_piles_may_be_given_typed_and_positions_stay_hashable() -> None:
    state = find_game("limit-nim", piles=[[2, 2], [1, 1]]).new_state()
    assert state.piles == ((2, 2), (1, 1))
    assert hash(state.key()) == hash(start("2/2,1/1").key())


def test_render_shows_each_pile() -> None:
    state = start("3/2,0/0,4/1")
    state.play("1 1")
    assert state.render() == "pile 1: oo   2/2\npile 2:      0/0\npile 3: oooo 4/1"


def test_the_key_tells_apart_the_player_to_move() -> None:
    two_takes, one_take = start("3/2,5/5"), start("3/2,5/5")
    two_takes.play("1 1")
    two_takes.play("1 1")
    one_take.play("1 2")
    assert two_takes.piles == one_take.piles == ((1, 1), (5, 5))
    assert two_takes.key() != one_take.key()


def test_the_key_is_the_same_whatever_the_order_of_takes_from_different_piles() -> None:
    first, second = start(), start()
    for text in ["1 2", "2 4", "3 1"]:
        first.play(text)
    for text in ["3 1", "1 2", "2 4"]:
        second.play(text)
    assert first.key() == second.key()
