"""The registry and the shared interface: finding games, parameters, winners and faults."""
from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import arbiter.games
from arbiter.games import GameError, GameParamError, IllegalMove, MalformedMove, find_game, game_names

DOCS = Path(__file__).resolve().parents[1] / "docs" / "games.md"


def test_games_are_found_by_name_or_alias() -> None:
    assert {"dots-and-triangles", "dots-and-boxes", "limit-nim"} <= set(game_names())
    assert type(find_game("triangle-war")) is type(find_game("dots-and-triangles"))
    assert find_game("triangle-war").name == "dots-and-triangles"


def test_an_unknown_game_lists_the_choices() -> None:
    with pytest.raises(GameParamError) as caught:
        find_game("chess")
    message = str(caught.value)
    assert "unknown game 'chess'" in message
    for name in ("dots-and-triangles", "triangle-war", "dots-and-boxes", "limit-nim"):
        assert name in message


@pytest.mark.parametrize("name", [None, 5, ["dots-and-boxes"], ("limit-nim",)])
def test_a_game_name_that_is_not_text_is_an_unknown_game(name: object) -> None:
    with pytest.raises(GameParamError, match="unknown game"):
        find_game(name)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("dots-and-triangles", {"rows": 1}, "rows=1 is out of range: must be between 2 and 40"),
        ("dots-and-triangles", {"rows": 41}, "rows=41 is out of range: must be between 2 and 40"),
        ("dots-and-triangles", {"rows": "four"}, "rows='four' is not valid"),
        ("dots-and-triangles", {"rows": 4.0}, "rows=4.0 is not valid"),
        ("dots-and-triangles", {"rows": True}, "rows=True is not valid"),
        ("dots-and-triangles", {"players": 1}, "players=1 is out of range: must be between 2 and 26"),
        ("dots-and-boxes", {"cols": 0}, "cols=0 is out of range: must be between 1 and 30"),
        ("dots-and-boxes", {"players": "27"}, "players='27' is out of range: must be between 2 and 26"),
        ("dots-and-boxes", {"size": 3}, "unknown parameter 'size'; parameters are: rows, cols, players"),
        ("limit-nim", {"players": 3}, "unknown parameter 'players'; parameters are: piles"),
        # Text is ASCII digits with an optional sign, nothing else `int()` would also read.
        ("dots-and-boxes", {"rows": "1_0"}, "rows='1_0' is not valid (not an integer: '1_0')"),
        ("dots-and-boxes", {"rows": " 3"}, "rows=' 3' is not valid"),
        ("dots-and-boxes", {"rows": "\u0663"}, "is not valid"),
        ("dots-and-boxes", {"rows": "-1"}, "rows='-1' is out of range"),
    ],
)
def test_a_bad_parameter_names_itself_and_the_valid_range(
    name: str, params: dict[str, object], expected: str
) -> None:
    with pytest.raises(GameParamError) as caught:
        find_game(name, **params)
    assert str(caught.value).startswith(f"{name}: ")
    assert expected in str(caught.value)


def test_parameters_may_be_text_and_describe_round_trips() -> None:
    game = find_game("dots-and-boxes", rows="2", cols="5", players="3")
    assert game.params == {"rows": 2, "cols": 5, "players": 3}
    assert game.num_players == 3
    assert game.describe() == "dots-and-boxes rows=2 cols=5 players=3"
    name, *words = game.describe().split()
    again = find_game(name, **dict(word.split("=") for word in words))
    assert again.params == game.params


def test_every_error_is_a_game_error_and_a_value_error() -> None:
    for error in (GameParamError, MalformedMove, IllegalMove):
        assert issubclass(error, GameError) and issubclass(error, ValueError)


def test_the_winner_is_the_unique_best_score_once_over() -> None:
    state = find_game("dots-and-triangles", rows=2, players=3).new_state()
    assert state.winner() is None  # not over
    state.play("1 2")
    state.play("2 3")
    state.play("1 3")  # seat 2 completes the only triangle
    assert state.is_over() and state.scores == [0, 0, 1]
    assert state.winner() == 2


def test_a_fault_gives_the_game_to_the_other_seat_of_two() -> None:
    state = find_game("dots-and-boxes").new_state()
    state.play("1 1 h")
    assert state.fault_winner(0) == 1
    assert state.fault_winner(1) == 0
    assert state.fault_scores(0, "timeout") == [0, 0]
    assert state.fault_outcome(0, "timeout") is None


def test_with_three_seats_a_fault_gives_the_game_to_the_best_other_seat() -> None:
    state = find_game("dots-and-boxes", players=3).new_state()
    for text in ["1 1 h", "2 1 h", "1 1 v", "3 3 h", "1 2 v"]:  # seat 1 completes box 1
        state.play(text)
    assert state.scores == [0, 1, 0]
    assert state.fault_winner(0) == 1
    assert state.fault_winner(1) is None  # seats 0 and 2 tie on 0
    assert state.fault_scores(1, "crash") == [0, 1, 0]


def test_scores_are_a_copy() -> None:
    state = find_game("dots-and-triangles").new_state()
    state.scores.append(99)
    state.scores[0] = 5
    assert state.scores == [0, 0]


def test_a_clone_is_independent() -> None:
    state = find_game("dots-and-triangles").new_state()
    state.play("2 3")
    copy = state.clone()
    assert copy.key() == state.key() and copy.history == state.history
    copy.play("1 2")
    copy.play("1 3")
    assert state.key() != copy.key()
    assert state.history == [state.game.parse_move("2 3")]
    assert state.owner == [-1] * 9 and state.scores == [0, 0]


def test_the_package_docstring_example_runs() -> None:
    result = doctest.testmod(arbiter.games, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_the_examples_in_docs_games_md_run() -> None:
    result = doctest.testfile(str(DOCS), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_each_registry_line_names_its_class_and_the_class_agrees() -> None:
    for name, aliases, _ in arbiter.games.REGISTRY:
        cls = arbiter.games.game_class(name)
        assert (cls.name, cls.aliases) == (name, aliases)
        for alias in aliases:
            assert arbiter.games.game_class(alias) is cls
    assert [cls.name for cls in arbiter.games.GAMES] == game_names()


def test_a_game_s_module_is_imported_only_when_that_game_is_found() -> None:
    # A fresh interpreter: this one has imported every game already.
    code = ("import sys; from arbiter.games import find_game; find_game('limit-nim'); "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('arbiter.games.'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=Path(__file__).resolve().parents[1]).stdout.split()
    assert loaded == ["arbiter.games.base", "arbiter.games.limit_nim"]
