"""Dots and Boxes: the rules, the line notation and the picture, case by case."""
from __future__ import annotations

import pytest

from arbiter.games import IllegalMove, MalformedMove, find_game
from arbiter.games.dots import DotsState


def play(*texts: str, rows: int = 3, cols: int = 3, players: int = 2) -> DotsState:
    """The position after playing `texts` from the start."""
    state = find_game("dots-and-boxes", rows=rows, cols=cols, players=players).new_state()
    for text in texts:
        state.play(text)
    assert isinstance(state, DotsState)
    return state


@pytest.mark.parametrize(("rows", "cols", "lines"), [(3, 3, 24), (1, 1, 4), (2, 5, 27), (30, 30, 1860)])
def test_a_board_of_boxes_has_its_lines(rows: int, cols: int, lines: int) -> None:
    game = find_game("dots-and-boxes", rows=rows, cols=cols)
    assert len(game.edges) == lines == (rows + 1) * cols + rows * (cols + 1)
    assert len(game.cells) == rows * cols
    assert all(len(cell) == 4 for cell in game.cells)


def test_the_default_board_is_3_by_3_boxes_for_two() -> None:
    assert find_game("dots-and-boxes").params == {"rows": 3, "cols": 3, "players": 2}


def test_a_line_is_named_by_its_top_left_dot_and_direction() -> None:
    game = find_game("dots-and-boxes", rows=1, cols=2)
    names = sorted(game.format_move(m) for m in range(len(game.edges)))
    assert names == ["1 1 h", "1 1 v", "1 2 h", "1 2 v", "1 3 v", "2 1 h", "2 2 h"]
    # the box at row 1, column 2 is bounded by these four lines
    box = {game.format_move(e) for e in game.cells[1]}
    assert box == {"1 2 h", "2 2 h", "1 2 v", "1 3 v"}


def test_completing_a_box_scores_it_and_gives_another_move() -> None:
    state = play("1 1 h", "2 1 h", "1 1 v")  # seats 0, 1, 0
    assert state.current_player == 1
    state.play("1 2 v")
    assert state.scores == [0, 1]
    assert state.owner[0] == 1
    assert state.current_player == 1
    state.play("3 3 h")  # completes nothing
    assert state.current_player == 0


def test_one_line_can_complete_two_boxes() -> None:
    state = play("1 1 h", "2 1 h", "1 1 v", "1 2 h", "2 2 h", "1 3 v")  # seats 0,1,0,1,0,1
    assert state.current_player == 0
    state.play("1 2 v")
    assert state.scores == [2, 0]
    assert state.owner[:2] == [0, 0]
    assert state.current_player == 0


def test_the_game_ends_when_every_line_is_drawn() -> None:
    state = play("1 1 h", "2 1 h", "1 1 v", rows=1, cols=1)
    assert not state.is_over() and state.legal_moves() == [state.game.parse_move("1 2 v")]
    state.play("1 2 v")
    assert state.is_over()
    assert state.scores == [0, 1]
    assert state.winner() == 1
    with pytest.raises(IllegalMove, match="the game is over"):
        state.play("1 1 h")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "expected 'row col h' or 'row col v', like '1 2 h'"),
        ("1 1", "expected 'row col h' or 'row col v', like '1 2 h'"),
        ("1 1 H", "expected 'row col h' or 'row col v', like '1 2 h'"),
        ("1 1 x", "expected 'row col h' or 'row col v', like '1 2 h'"),
        ("1 1 h ", "expected 'row col h' or 'row col v', like '1 2 h'"),
        ("1,1,h", "expected 'row col h' or 'row col v', like '1 2 h'"),
        ("-1 1 h", "expected 'row col h' or 'row col v', like '1 2 h'"),
        ("0 1 h", "no such line on a 3x3 board (h lines start at rows 1-4, cols 1-3)"),
        ("1 4 h", "no such line on a 3x3 board (h lines start at rows 1-4, cols 1-3)"),
        ("4 1 v", "no such line on a 3x3 board (v lines start at rows 1-3, cols 1-4)"),
        ("1 5 v", "no such line on a 3x3 board (v lines start at rows 1-3, cols 1-4)"),
    ],
)
def test_text_that_names_no_line_of_the_board_is_malformed(text: str, why: str) -> None:
    state = play()
    with pytest.raises(MalformedMove) as caught:
        state.play(text)
    assert caught.value.text == text
    assert str(caught.value) == f"malformed move {text!r}: {why}"
    assert state.history == []


def test_the_edge_lines_of_the_board_are_real_moves() -> None:
    state = play("4 3 h", "3 4 v", "1 4 v")
    assert state.scores == [0, 0]


def test_a_line_already_drawn_is_illegal() -> None:
    state = play("2 2 v")
    with pytest.raises(IllegalMove) as caught:
        state.play("2 2 v")
    assert str(caught.value) == "illegal move '2 2 v': that edge is already drawn"
    assert state.current_player == 1


def test_three_players_wrap_around_and_only_the_completer_moves_again() -> None:
    state = play(players=3)
    seats = []
    for text in ["1 1 h", "2 1 h", "1 1 v", "3 3 h"]:
        seats.append(state.current_player)
        state.play(text)
    assert seats == [0, 1, 2, 0]
    assert state.current_player == 1
    state.play("1 2 v")
    assert state.scores == [0, 1, 0]
    assert state.current_player == 1


def test_render_shows_lines_and_owners() -> None:
    state = play("1 1 h", "2 1 h", "1 1 v", "1 2 v", "3 3 h", "2 4 v", rows=2, cols=3)
    assert state.render() == "\n".join(
        [
            "+---+   +   +",
            "| B |",
            "+---+   +   +",
            "            |",
            "+   +   +---+",
        ]
    )
