"""Dots and Triangles: the rules, the notation and the picture, case by case."""
from __future__ import annotations

import pytest

from arbiter.games import IllegalMove, MalformedMove, find_game
from arbiter.games.dots import DotsState

HORIZONTALS = ["2 3", "4 5", "5 6", "7 8", "8 9", "9 10"]


def play(*texts: str, rows: int = 4, players: int = 2) -> DotsState:
    """The position after playing `texts` from the start."""
    state = find_game("dots-and-triangles", rows=rows, players=players).new_state()
    for text in texts:
        state.play(text)
    assert isinstance(state, DotsState)
    return state


def test_the_classic_board_has_10_dots_18_edges_and_9_triangles() -> None:
    game = find_game("dots-and-triangles")
    assert game.params == {"rows": 4, "players": 2}
    assert game.dot_count == 10
    assert len(game.edges) == 18
    assert len(game.cells) == 9


@pytest.mark.parametrize("rows", [2, 3, 5, 9, 40])
def test_board_size_follows_the_rows(rows: int) -> None:
    game = find_game("dots-and-triangles", rows=rows)
    assert game.dot_count == rows * (rows + 1) // 2
    assert len(game.edges) == 3 * rows * (rows - 1) // 2
    assert len(game.cells) == (rows - 1) ** 2  # only unit triangles
    assert all(len(cell) == 3 for cell in game.cells)


def test_dots_are_numbered_row_by_row_from_the_apex() -> None:
    game = find_game("dots-and-triangles")
    # row 1: 1; row 2: 2 3; row 3: 4 5 6; row 4: 7 8 9 10 -- and each edge joins neighbours
    assert [game.format_move(e) for e in range(len(game.edges))] == [
        "1 2", "1 3", "2 3", "2 4", "2 5", "3 5", "3 6", "4 5", "4 7",
        "4 8", "5 6", "5 8", "5 9", "6 9", "6 10", "7 8", "8 9", "9 10",
    ]


def test_the_unit_triangles_of_the_classic_board() -> None:
    game = find_game("dots-and-triangles")
    triangles = {tuple(sorted({d for e in cell for d in game.edges[e]})) for cell in game.cells}
    assert triangles == {
        (1, 2, 3),
        (2, 4, 5), (2, 3, 5), (3, 5, 6),
        (4, 7, 8), (4, 5, 8), (5, 8, 9), (5, 6, 9), (6, 9, 10),
    }


def test_all_horizontals_and_no_slants_leave_12_moves_and_no_triangle() -> None:
    state = play(*HORIZONTALS)
    assert len(state.legal_moves()) == 12
    assert state.scores == [0, 0]
    assert state.owner == [-1] * 9
    assert state.current_player == 0  # six moves, none completing: the turn passed six times


def test_completing_a_triangle_scores_it_and_gives_another_move() -> None:
    state = play("2 3", "1 2")
    assert state.current_player == 0
    state.play("1 3")  # seat 0 closes triangle 1-2-3
    assert state.scores == [1, 0]
    assert state.current_player == 0
    state.play("7 8")  # completes nothing: the turn passes
    assert state.current_player == 1
    assert state.scores == [1, 0]


def test_one_edge_can_complete_two_triangles() -> None:
    state = play("2 4", "4 5", "2 3", "3 5")  # seats 0,1,0,1
    assert state.current_player == 0
    state.play("2 5")  # shared by triangles 2-4-5 and 2-3-5
    assert state.scores == [2, 0]
    assert state.current_player == 0


def test_only_unit_triangles_score() -> None:
    # The big triangle 1-4-6 has all its sides drawn (as six edges) but is not a cell.
    state = play("1 2", "2 4", "4 5", "5 6", "3 6", "1 3")
    assert state.scores == [0, 0]


def test_the_game_ends_when_every_edge_is_drawn_and_more_triangles_win() -> None:
    game = find_game("dots-and-triangles")
    state = game.new_state()
    for edge in range(len(game.edges)):
        assert not state.is_over()
        state.apply(edge)
    assert state.is_over()
    assert state.legal_moves() == []
    assert sum(state.scores) == 9
    assert state.winner() == (0 if state.scores[0] > state.scores[1] else 1)


def test_an_even_board_can_end_in_a_draw() -> None:
    state = play("1 2", "1 3", "2 3", rows=3)  # seats 0, 1, 0: seat 0 takes the apex
    for text in ["2 4", "4 5", "2 5", "5 6", "3 5", "3 6"]:
        state.play(text)
    assert state.is_over()
    assert state.scores == [2, 2]
    assert state.winner() is None


def test_the_larger_dot_first_is_accepted_and_normalized() -> None:
    game = find_game("dots-and-triangles")
    assert game.parse_move("4 2") == game.parse_move("2 4")
    assert game.format_move(game.parse_move("4 2")) == "2 4"
    assert game.format_move(game.parse_move("10 9")) == "9 10"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "expected two dot numbers"),
        ("2-4", "expected two dot numbers"),
        ("2  4", "expected two dot numbers"),
        (" 2 4", "expected two dot numbers"),
        ("2 4 ", "expected two dot numbers"),
        ("2 4\n", "expected two dot numbers"),
        ("2", "expected two dot numbers"),
        ("2 4 5", "expected two dot numbers"),
        ("+2 4", "expected two dot numbers"),
        ("\u0662 \u0664", "expected two dot numbers"),  # Arabic-Indic digits are not ASCII
        ("1" * 5000 + " 2", "expected two dot numbers"),  # no huge int() conversions
        ("0 1", "there is no dot 0; dots are 1 to 10"),
        ("10 11", "there is no dot 11; dots are 1 to 10"),
        ("1 4", "dots 1 and 4 are not adjacent"),
        ("7 10", "dots 7 and 10 are not adjacent"),
        ("6 7", "dots 6 and 7 are not adjacent"),  # consecutive numbers, different rows
        ("3 3", "an edge joins two different dots"),
    ],
)
def test_text_that_names_no_edge_of_the_board_is_malformed(text: str, why: str) -> None:
    state = play()
    with pytest.raises(MalformedMove) as caught:
        state.play(text)
    assert caught.value.text == text
    assert repr(text) in str(caught.value)
    assert why in str(caught.value)
    assert state.history == [] and state.drawn == 0


def test_an_edge_already_drawn_is_illegal_in_either_spelling() -> None:
    state = play("2 4")
    for text in ("2 4", "4 2"):
        with pytest.raises(IllegalMove) as caught:
            state.play(text)
        assert caught.value.text == text
        assert str(caught.value) == f"illegal move {text!r}: that edge is already drawn"
    assert len(state.history) == 1
    assert state.current_player == 1


def test_nothing_is_legal_once_the_game_is_over() -> None:
    state = play("1 2", "1 3", "2 3", rows=2)
    assert state.is_over()
    with pytest.raises(IllegalMove, match="the game is over"):
        state.apply(0)


def test_applying_a_move_that_is_not_an_edge_is_illegal_and_changes_nothing() -> None:
    state = play()
    with pytest.raises(IllegalMove, match="there is no edge 18"):
        state.apply(18)
    with pytest.raises(IllegalMove, match="there is no edge -1"):
        state.apply(-1)
    assert state.drawn == 0 and state.history == []


def test_three_players_take_turns_in_seat_order_and_wrap_around() -> None:
    state = play(players=3)
    seats = []
    for text in HORIZONTALS:
        seats.append(state.current_player)
        state.play(text)
    assert seats == [0, 1, 2, 0, 1, 2]
    assert state.scores == [0, 0, 0]
    state.play("1 2")  # seat 0
    state.play("1 3")  # seat 1 closes the apex triangle and moves again
    assert state.scores == [0, 1, 0]
    assert state.current_player == 1
    assert "B" in state.render()


EMPTY = """\
      1
     . .
    2 . 3
   . . . .
  4 . 5 . 6
 . . . . . .
7 . 8 . 9 .10"""

# The pictures of the double-cross puzzle (all horizontals drawn, no slants), then play.
PUZZLE = """\
      1
     . .
    2---3
   . . . .
  4---5---6
 . . . . . .
7---8---9--10"""

APEX_GIVEN = """\
      1
     /B\\
    2---3
   / . . .
  4---5---6
 . . . . . .
7---8---9--10"""

FIVE_TAKEN = """\
      1
     /B\\
    2---3
   /A\\A/A\\
  4---5---6
 / . . . . .
7---8---9--10"""


def test_render_draws_the_puzzle_pictures() -> None:
    assert play().render() == EMPTY
    state = play(*HORIZONTALS)
    assert state.render() == PUZZLE
    state.play("1 2")  # seat 0 gives the apex triangle away
    state.play("1 3")  # seat 1 takes it ...
    state.play("2 4")  # ... and moves in the second row
    assert state.scores == [0, 1]
    assert state.render() == APEX_GIVEN
    for text in ["2 5", "3 5", "3 6", "4 7"]:  # seat 0 takes three triangles, then gives in
        state.play(text)
    assert state.scores == [3, 1]
    assert state.render() == FIVE_TAKEN


def test_render_keeps_three_digit_dots_apart() -> None:
    state = play("99 100", rows=14)  # dots 92..105 on the bottom row
    bottom = state.render().splitlines()[-1]
    assert bottom.replace("-", " ").replace(".", " ").split() == [str(d) for d in range(92, 106)]
    assert "99-----100   . 101" in bottom


def test_the_key_tells_apart_positions_with_the_same_edges() -> None:
    # Same edges and mover; the apex triangle went to a different seat.
    taken_by_b = play("1 2", "1 3", "7 8", "2 3")
    taken_by_a = play("1 2", "1 3", "2 3", "7 8")
    assert taken_by_b.drawn == taken_by_a.drawn
    assert taken_by_b.current_player == taken_by_a.current_player == 1
    assert (taken_by_b.scores, taken_by_a.scores) == ([0, 1], [1, 0])
    assert taken_by_b.key() != taken_by_a.key()
    # Same edges and scores; one move closing two triangles instead of two moves closing one.
    one_double = play("2 4", "4 5", "2 3", "3 5", "2 5", "7 8")
    two_singles = play("2 4", "4 5", "2 5", "2 3", "7 8", "3 5")
    assert one_double.drawn == two_singles.drawn
    assert one_double.scores == two_singles.scores == [2, 0]
    assert (one_double.current_player, two_singles.current_player) == (1, 0)
    assert one_double.key() != two_singles.key()


def test_the_key_is_the_same_whoever_drew_which_edge() -> None:
    first = play("2 3", "4 5", "7 8", "1 2", "1 3")
    second = play("7 8", "1 2", "2 3", "4 5", "1 3")
    assert first.history != second.history
    assert first.key() == second.key()
