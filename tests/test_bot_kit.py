"""The Python bot kit speaks the protocol: it reads the Game line, answers Start and relays
whenever the rules say it is its turn (extra moves included), never answers an opening,
infers its seat in the codecup dialect, and exits on Quit. Driven by an in-memory referee."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bot import BotContext, bot_arguments, read_kit_options, run_bot
from arbiter.games import Game, State, find_game


def first_legal(state: State[Any]) -> Any:
    return state.legal_moves()[0]


def greedy(state: State[Any], ctx: BotContext) -> Any:
    """Complete a cell when possible (so the kit must move again), else the first legal move."""
    completing = [e for e in state.legal_moves() if state.game.completed_by(state.drawn, e)]  # type: ignore[attr-defined]
    return (completing or state.legal_moves())[0]


class MiniReferee:
    """An in-memory channel that plays the other seats with their first legal move."""

    def __init__(self, game: Game[Any], bot_seat: int, *, header: list[str], opening: list[str] = ()) -> None:
        self.game = game
        self.bot_seat = bot_seat
        self.state = game.new_state()
        self.header = header
        self.opening = list(opening)
        self.traffic: list[tuple[str, str]] = []  # ("to bot" | "from bot", line)

    def send(self, line: str) -> None:
        assert self.state.current_player == self.bot_seat, f"the bot spoke out of turn: {line!r}"
        self.traffic.append(("from bot", line))
        self.state.play(line)

    def lines(self) -> Iterator[str]:
        for text in self.opening:
            self.state.play(text)
        start = ["Start"] if self.state.current_player == self.bot_seat else []
        yield from self._to_bot([*self.header, *start])
        while not self.state.is_over():
            assert self.state.current_player != self.bot_seat, "the bot did not play all of its turn"
            relays = []
            while not self.state.is_over() and self.state.current_player != self.bot_seat:
                move = first_legal(self.state)
                self.state.apply(move)
                relays.append(self.game.format_move(move))
            yield from self._to_bot(relays)
        yield from self._to_bot(["Quit"])

    def _to_bot(self, lines: list[str]) -> Iterator[str]:
        for line in lines:
            self.traffic.append(("to bot", line))
            yield line


def play(referee: MiniReferee, choose: Callable[[State[Any], BotContext], Any], argv: list[str] = ()) -> None:
    assert run_bot(choose, argv=list(argv), channel=referee) == 0
    assert referee.state.is_over()
    assert referee.traffic[-1] == ("to bot", "Quit")


def test_the_bot_answers_start_and_every_relay_and_moves_again_after_completing_a_cell() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=2)
    referee = MiniReferee(game, 0, header=[f"Game {game.describe()} seat=0 time_ms=1000"])
    play(referee, greedy)
    bot_moves = [line for who, line in referee.traffic if who == "from bot"]
    assert bot_moves  # and every one was legal and in turn (MiniReferee.send checks)
    pairs = zip(referee.traffic, referee.traffic[1:])
    assert any(a[0] == b[0] == "from bot" for a, b in pairs), "never moved twice in a row"


def test_a_bot_in_seat_2_of_3_waits_for_both_other_seats() -> None:
    game = find_game("dots-and-triangles", rows=3, players=3)
    referee = MiniReferee(game, 2, header=[f"Game {game.describe()} seat=2 time_ms=1000"])
    play(referee, greedy)


def test_the_game_line_tells_the_seat_and_the_clock() -> None:
    game = find_game("limit-nim", piles="3/1")
    seen: list[tuple[int, int | None, int | None]] = []

    def choose(state: State[Any], ctx: BotContext) -> Any:
        seen.append((ctx.seat, ctx.time_ms, ctx.move_ms))
        return first_legal(state)

    play(MiniReferee(game, 1, header=["Game limit-nim piles=3/1 seat=1 time_ms=2500 move_ms=700"]), choose)
    assert seen == [(1, 2500, 700)]  # three stones: seat 1 takes the second


def test_an_opening_is_applied_without_answering_then_start_hands_over_the_turn() -> None:
    game = find_game("limit-nim", piles="6/2")
    referee = MiniReferee(game, 0, header=["Game limit-nim piles=6/2 seat=0 time_ms=1000", "Opening 2", "1 2", "1 1"],
                          opening=["1 2", "1 1"])
    play(referee, lambda state, ctx: first_legal(state))
    assert referee.traffic[:6] == [("to bot", "Game limit-nim piles=6/2 seat=0 time_ms=1000"),
                                   ("to bot", "Opening 2"), ("to bot", "1 2"), ("to bot", "1 1"),
                                   ("to bot", "Start"), ("from bot", "1 1")]


class GameAfterGame:
    """Two in-memory games on one channel, the second's `Game` line in place of the first's `Quit`
    (docs/protocol.md, Many games per process)."""

    def __init__(self, first: MiniReferee, second: MiniReferee) -> None:
        self.games = [first, second]
        self.playing = first

    def send(self, line: str) -> None:
        self.playing.send(line)

    def lines(self) -> Iterator[str]:
        yield from (line for line in self.games[0].lines() if line != "Quit")
        self.playing = self.games[1]
        yield from self.games[1].lines()


def test_a_game_line_after_a_game_begins_the_next_with_a_fresh_context_and_the_same_rng() -> None:
    first = MiniReferee(find_game("limit-nim", piles="3/1"), 1, header=["Game limit-nim piles=3/1 seat=1 time_ms=2500"])
    second = MiniReferee(find_game("dots-and-boxes", rows=2, cols=2), 0,
                         header=["Game dots-and-boxes rows=2 cols=2 players=2 seat=0 time_ms=900", "Opening 1", "1 1 h"],
                         opening=["1 1 h"])
    seen: list[tuple[str, int, int | None, int, int]] = []

    def choose(state: State[Any], ctx: BotContext) -> Any:
        ctx.memory["moves"] = ctx.memory.get("moves", 0) + 1
        seen.append((ctx.game.name, ctx.seat, ctx.time_ms, ctx.memory["moves"], id(ctx.rng)))
        return first_legal(state)

    assert run_bot(choose, argv=[], channel=GameAfterGame(first, second)) == 0
    assert first.state.is_over() and second.state.is_over()
    assert seen[0][:4] == ("limit-nim", 1, 2500, 1)
    assert seen[1][:4] == ("dots-and-boxes", 0, 900, 1)  # its memory began afresh with its game
    assert len({rng for *_, rng in seen}) == 1


def test_codecup_dialect_learns_the_game_from_options_and_the_seat_from_its_first_line() -> None:
    game = find_game("limit-nim", piles="4/4")
    for seat in (0, 1):
        seen: list[int] = []

        def choose(state: State[Any], ctx: BotContext) -> Any:
            seen.append(ctx.seat)
            return first_legal(state)

        referee = MiniReferee(game, seat, header=[])
        play(referee, choose, ["--game", "limit-nim", "-p", "piles=4/4"])
        assert referee.traffic[0] == ("to bot", "Start" if seat == 0 else "1 1")  # no Game line
        assert seen and set(seen) == {seat}


class Script:
    """A channel that only delivers fixed lines, and records what the bot sends."""

    def __init__(self, *lines: str) -> None:
        self.incoming = list(lines)
        self.sent: list[str] = []

    def lines(self) -> Iterator[str]:
        yield from self.incoming

    def send(self, line: str) -> None:
        self.sent.append(line)



@pytest.mark.parametrize("game_line, message", [
    ("Game nosuch rows=4", "unknown game 'nosuch'"),
    ("Game dots-and-triangles rows=4 time_ms=abc", "time_ms=abc in the Game line is not a whole number"),
    ("Game dots-and-triangles rows=4 seat=5", "seat=5 but dots-and-triangles rows=4 players=2 has seats 0 to 1"),
    ("Game dots-and-triangles rows=1", "parameter rows='1' is out of range"),
])
def test_a_game_line_the_bot_cannot_play_is_a_clear_message_and_exit_2(game_line: str, message: str,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    channel = Script(game_line, "Start")
    assert run_bot(lambda state, ctx: first_legal(state), argv=[], channel=channel) == 2
    assert channel.sent == []
    err = capsys.readouterr().err
    assert "cannot play: " in err and message in err


def test_an_unknown_game_option_is_a_clear_message_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_bot(lambda state, ctx: first_legal(state), argv=["--game", "wrong"], channel=Script("Start")) == 2
    assert "cannot play: unknown game 'wrong'" in capsys.readouterr().err


# Words a bot's command line might hold: the kit's options, values, and what only argparse answers.
ARGV_WORDS = st.sampled_from([
    "--game", "-p", "--param", "--seed", "--connect", "--bind", "--keys", "--server-key", "--serve",
    "--seed=7", "--game=limit-nim", "--param=rows=3", "--serve=1", "--se", "--help", "-h", "--", "-pX=1",
    "1", "-1", " 2", "1_0", "x", "rows=5", "", "-", "tcp://127.0.0.1:5555", "--unknown",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(ARGV_WORDS, max_size=6))
def test_the_kit_s_own_reading_of_a_command_line_is_argparse_s_whenever_it_answers(argv: list[str]) -> None:
    fast = read_kit_options(argv)
    if fast is None:
        return  # left to argparse
    assert vars(fast) == vars(bot_arguments("a bot").parse_args(argv))


@pytest.mark.parametrize("argv", [[], ["--seed", "1"], ["--seed=5", "--serve"], ["--connect", "tcp://h:1"],
                                  ["--game", "limit-nim", "-p", "piles=3/2", "--param", "x=1"]])
def test_a_tournament_s_bot_command_line_is_read_without_argparse(argv: list[str]) -> None:
    assert read_kit_options(argv) is not None


def test_a_bot_s_start_imports_only_its_game_and_none_of_the_slow_modules() -> None:
    # Start-up is on the clock of every game a bot plays (benchmarks/bench_startup.py):
    # typing, dataclasses and argparse cost milliseconds each; other games' modules more.
    code = ("import sys; from arbiter.bot import run_bot; "
            "run_bot(lambda state, ctx: ctx.rng.choice(state.legal_moves()), argv=['--seed', '1']); "
            "print(' '.join(sorted(m for m in sys.modules if m in ('typing', 'dataclasses', 'argparse') "
            "or m.startswith('arbiter.games.'))))")
    done = subprocess.run([sys.executable, "-c", code], input="Game limit-nim seat=0 time_ms=1000\nStart\nQuit\n",
                          capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1])
    move, loaded = done.stdout.splitlines()
    assert find_game("limit-nim").new_state().play(move) is not None
    assert loaded.split() == ["arbiter.games.base", "arbiter.games.limit_nim"]


def test_exit_now_ends_the_bot_with_its_status_after_the_exit_handlers_and_a_flush() -> None:
    # The bundled bots end through exit_now after Quit: no interpreter teardown (about 5 ms a
    # game), but nothing a bot wrote or registered to run at exit is lost.
    code = ("import atexit, sys, threading, time; from arbiter.bot import exit_now, run_bot\n"
            "atexit.register(lambda: sys.stdout.write('handler ran\\n'))\n"
            "threading.Thread(target=time.sleep, args=(30,)).start()  # not joined: exit_now does not wait\n"
            "sys.stdout.write('buffered, not flushed\\n')\n"
            "exit_now(run_bot(lambda state, ctx: state.legal_moves()[0], argv=[]) + 3)\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], input="Game limit-nim seat=0 time_ms=1000\nStart\nQuit\n",
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], timeout=20)
    assert time.monotonic() - started < 20
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "buffered, not flushed" and lines[-1] == "handler ran" and len(lines) == 3


@pytest.mark.parametrize("bot", ["random_bot.py", "greedy.py", "double_cross.py", "perfect_dp.py", "nim_greedy.py",
                                 "nim_perfect.py", "sudoku_random.py", "sudoku_claimer.py", "sudoku_winner.py"])
def test_every_bundled_bot_ends_through_exit_now(bot: str) -> None:
    text = (Path(__file__).resolve().parents[1] / "players" / bot).read_text()
    assert "\n    exit_now(" in text and "sys.exit(" not in text
