"""The lines of the dialogue (docs/protocol.md, What a bot is sent) and what each dialect
changes in them: the `Game` line as written is the `Game` line as read, an opening is
framed, and the codecup dialect sends no `Game` line, takes no opening, has two seats and
never relays the move that ended the game."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.games import find_game, game_names
from arbiter.protocol import (ARBITER, CODECUP, DIALECTS, QUIT, START, ArbiterDialect, CodecupDialect, Dialect,
                              GameLine, GameLineError, find_dialect, format_chance_line, format_game_line,
                              opening_lines, parse_chance, parse_game_line, parse_opening)

ROOT = Path(__file__).resolve().parents[1]
NIM = find_game("limit-nim", piles="4/2")


# --- the Game line ---------------------------------------------------------------------

def test_the_game_line_is_the_game_its_parameters_the_seat_and_the_clock() -> None:
    # docs/protocol.md's own example.
    game = find_game("dots-and-triangles", rows=4)
    assert format_game_line(game, 1, 30000) == "Game dots-and-triangles rows=4 players=2 seat=1 time_ms=30000"


def test_move_ms_is_on_the_game_line_only_when_a_cap_is_set() -> None:
    assert format_game_line(NIM, 0, 3000) == "Game limit-nim piles=4/2 seat=0 time_ms=3000"
    assert format_game_line(NIM, 0, 3000, 1500) == "Game limit-nim piles=4/2 seat=0 time_ms=3000 move_ms=1500"


@pytest.mark.parametrize("name", game_names())
@given(seat=st.integers(0, 1), time_ms=st.integers(0, 10**9), move_ms=st.none() | st.integers(0, 10**9))
def test_the_game_line_as_written_is_the_game_line_as_read(name: str, seat: int, time_ms: int,
                                                           move_ms: int | None) -> None:
    game = find_game(name)
    read = parse_game_line(format_game_line(game, seat, time_ms, move_ms))
    params = {p.name: game.format_param(p.name) for p in game.parameters}
    assert read == GameLine(game.name, params, seat, time_ms, move_ms)
    assert find_game(read.game, **read.params).describe() == game.describe()  # the same game, parameters and all


def test_a_game_line_may_leave_out_its_own_keys_and_say_move_ms_null() -> None:
    assert parse_game_line("Game limit-nim") == GameLine("limit-nim")
    assert parse_game_line("Game limit-nim piles=3/1 seat=1 move_ms=null") == GameLine("limit-nim", {"piles": "3/1"}, 1)


def test_words_of_a_game_line_without_an_equals_sign_are_ignored() -> None:
    assert parse_game_line("Game limit-nim piles=3/1 hello seat=0") == GameLine("limit-nim", {"piles": "3/1"}, 0)


@pytest.mark.parametrize("line", ["", "Game", "Start", "game limit-nim", "Games limit-nim seat=0"])
def test_a_line_that_is_not_a_game_line_is_refused(line: str) -> None:
    with pytest.raises(GameLineError, match="not a Game line"):
        parse_game_line(line)


@pytest.mark.parametrize("word", ["seat=-1", "seat=one", "time_ms=1.5", "time_ms=", "move_ms=1e3", "seat=\u00b2"])
def test_seat_and_clock_must_be_whole_numbers(word: str) -> None:
    with pytest.raises(GameLineError, match=f"{word} in the Game line is not a whole number"):
        parse_game_line(f"Game limit-nim {word}")


def test_a_game_line_is_a_value_that_cannot_be_changed() -> None:
    line = parse_game_line("Game limit-nim piles=3/1 seat=1 time_ms=1000")
    assert line == GameLine("limit-nim", {"piles": "3/1"}, 1, 1000)
    assert line != GameLine("limit-nim", {"piles": "3/1"}, 0, 1000)
    with pytest.raises(AttributeError):
        line.seat = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        line.params["piles"] = "9/9"  # type: ignore[index]
    assert repr(line) == "GameLine(game='limit-nim', params={'piles': '3/1'}, seat=1, time_ms=1000, move_ms=None)"


# --- openings, Start and Quit ------------------------------------------------------------

def test_an_opening_is_framed_by_its_length_and_no_opening_is_no_line() -> None:
    assert opening_lines(["1 2", "1 1"]) == ["Opening 2", "1 2", "1 1"]
    assert opening_lines([]) == []
    assert parse_opening("Opening 2") == 2
    assert [parse_opening(line) for line in ("1 2", START, QUIT, "Game limit-nim")] == [None] * 4


def test_chances_draw_is_one_line_holding_the_outcome_as_the_game_writes_it() -> None:
    assert format_chance_line("Roll 4") == "Chance Roll 4"
    outcome = "chance outcome 3 O starts, (roll: 31)"  # backgammon's, blanks and all
    assert parse_chance(format_chance_line(outcome)) == outcome
    assert [parse_chance(line) for line in ("Roll 4", START, "Opening 2", "Chance")] == [None] * 4


# --- the dialects ------------------------------------------------------------------------

def test_a_dialect_is_found_by_the_name_a_config_gives_it() -> None:
    assert set(DIALECTS) == {"arbiter", "codecup"}
    assert isinstance(find_dialect("arbiter"), ArbiterDialect) and find_dialect("arbiter") is ARBITER
    assert isinstance(find_dialect("codecup"), CodecupDialect) and find_dialect("codecup") is CODECUP
    assert all(isinstance(d, Dialect) and d.name == name for name, d in DIALECTS.items())


def test_an_unknown_dialect_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown dialect 'uci'; dialects are arbiter, codecup"):
        find_dialect("uci")


def test_the_arbiter_dialect_sends_the_game_line_then_the_opening() -> None:
    # docs/protocol.md: with the opening `1 2` on piles=6/2, both seats first get
    # `Game ...`, `Opening 1`, `1 2`.
    game = find_game("limit-nim", piles="6/2")
    assert ARBITER.first_lines(game, 1, 3000, None, ["1 2"]) == [
        "Game limit-nim piles=6/2 seat=1 time_ms=3000", "Opening 1", "1 2"]
    assert ARBITER.first_lines(game, 0, 3000, 500, []) == ["Game limit-nim piles=6/2 seat=0 time_ms=3000 move_ms=500"]


def test_the_codecup_dialect_sends_nothing_before_the_game_begins() -> None:
    assert CODECUP.first_lines(NIM, 1, 3000, 500, []) == []


def test_at_the_end_the_arbiter_dialect_relays_what_a_bot_has_not_seen_and_codecup_only_quits() -> None:
    assert ARBITER.last_lines(["1 1", "2 1"]) == ["1 1", "2 1", QUIT]
    assert ARBITER.last_lines([]) == [QUIT]
    assert CODECUP.last_lines(["1 1"]) == [QUIT]  # the contest never relayed the move that ended the game


def test_a_bot_kept_for_its_next_game_gets_the_same_last_lines_without_quit() -> None:
    assert ARBITER.between_games_lines(["1 1", "2 1"]) == ["1 1", "2 1"]  # the next Game line takes Quit's place
    assert ARBITER.plays_many_games
    assert not CODECUP.plays_many_games  # no Game line could begin its next game


@pytest.mark.parametrize("dialect, game_line, openings, seats, ends_without_quit", [
    (ARBITER, True, True, None, False),
    (CODECUP, False, False, 2, True),
])
def test_what_each_dialect_allows(dialect: Dialect, game_line: bool, openings: bool, seats: int | None,
                                  ends_without_quit: bool) -> None:
    assert dialect.sends_game_line is game_line
    assert dialect.takes_openings is openings
    assert dialect.seats == seats
    assert dialect.ends_without_quit is ends_without_quit


def test_a_codecup_bot_learns_its_seat_from_its_first_line() -> None:
    assert CODECUP.seat_from_first_line(START) == 0
    assert CODECUP.seat_from_first_line("1 1") == 1  # the other seat's move


# --- cost --------------------------------------------------------------------------------

def test_the_protocol_module_loads_nothing_a_bot_would_pay_for() -> None:
    # Every bot imports it at start-up, on its clock (benchmarks/bench_startup.py).
    code = ("import sys; before = set(sys.modules); import arbiter.protocol; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.split() == ["arbiter", "arbiter.protocol"]
