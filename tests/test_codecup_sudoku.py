"""CodeCup Sudoku: the notation, the rules and every ending of the score table on
hand-built grids, full games between the sample players, the bot kit's claims and
endings, and a CodeCup-style entry (no bot kit) speaking the bare protocol.
"""
from __future__ import annotations

import random
import select
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

from arbiter.bot import BotContext, run_bot
from arbiter.games import GameError, IllegalMove, MalformedMove, find_game
from arbiter.games.codecup_sudoku import CLAIM, CodecupSudoku, CodecupSudokuState, SudokuMove
from arbiter.games.sudoku_solver import count_solutions, has_solution, solution_with_other_digit
from players.strategies.sudoku import choose_claimer, choose_random, choose_winner, reducing_move

ROOT = Path(__file__).resolve().parent.parent
GAME: CodecupSudoku = find_game("codecup-sudoku")  # type: ignore[assignment]

# A solved grid. Aa Ab / Ga Gb hold 8 7 / 7 8 and Ce Cf / Fe Ff hold 4 6 / 6 4: emptying
# either rectangle leaves two solutions (its digits swapped or not).
SOLVED = """
872 593 146
346 271 598
915 846 327
567 928 431
439 157 862
128 364 975
784 619 253
653 482 719
291 735 684
"""

# The rectangle Aa Ab Ga Gb emptied, and Gd (6) and Id (7) too: two solutions. Id must be
# 7 (the only digit row I lacks), so Gd must be 6; so every solution has 7 at Id and 6 at
# Gd. Gd7 is allowed by the rules (row G lacks 6 7 8) but leaves Gb (column b lacks 7 8,
# row G would lack 6 8) with no digit: no solution.
TWO_SOLUTIONS = """
..2 593 146
346 271 598
915 846 327
567 928 431
439 157 862
128 364 975
..4 .19 253
653 482 719
291 .35 684
"""

# Both rectangles emptied: four solutions.
FOUR_SOLUTIONS = """
..2 593 146
346 271 598
915 8.. 327
567 928 431
439 157 862
128 3.. 975
..4 619 253
653 482 719
291 735 684
"""


def position(grid: str, to_move: int = 0) -> CodecupSudokuState:
    return GAME.state_from_grid(grid, to_move=to_move)


# --- notation ------------------------------------------------------------------------


@pytest.mark.parametrize("text, move", [
    ("Aa1", SudokuMove(0, 1, False)),
    ("Dg7", SudokuMove(3 * 9 + 6, 7, False)),
    ("Hd7!", SudokuMove(7 * 9 + 3, 7, True)),
    ("Ii9", SudokuMove(80, 9, False)),
    ("!", CLAIM),
])
def test_moves_are_row_column_digit_with_an_optional_claim(text: str, move: SudokuMove) -> None:
    assert GAME.parse_move(text) == move
    assert GAME.format_move(move) == text


@pytest.mark.parametrize("text", [
    "", "dg7", "DG7", "Dg0", "Dj7", "Jg7", "Dg", "Dg77", "Dg7!!", "!!", " Dg7", "Dg7 !", "7gD", "D g7",
])
def test_unparsable_moves_are_malformed(text: str) -> None:
    with pytest.raises(MalformedMove):
        GAME.parse_move(text)


# --- rule-illegal placements (the referee's 0-2 faults) ------------------------------


@pytest.mark.parametrize("text, reason", [
    ("Aa2", "cell Aa already holds 1"),
    ("Ai1", "1 already stands in row A"),
    ("Ia1", "1 already stands in column a"),
    ("Cc1", "1 already stands in the box of Cc"),
])
def test_occupied_cells_and_repeated_digits_are_illegal(text: str, reason: str) -> None:
    state = GAME.new_state()
    state.play("Aa1")
    with pytest.raises(IllegalMove, match=reason):
        state.play(text)
    assert not state.is_over() and state.current_player == 1


def test_a_bare_claim_before_any_move_is_illegal() -> None:
    with pytest.raises(IllegalMove, match="no move has been made"):
        GAME.new_state().play("!")


@pytest.mark.parametrize("termination, scores, outcome", [
    ("timeout", [1, 2], "seat 0 TIMEOUT (time limit exceeded)"),
    ("crash", [0, 2], "seat 0 EXIT (crashed or exited early)"),
    ("malformed", [0, 2], "seat 0 ILLEGAL (unparsable move)"),
    ("illegal", [0, 2], "seat 0 ILLEGAL (occupied cell or digit already in its row, column or box)"),
    ("protocol", [0, 2], "seat 0 ILLEGAL (protocol violation)"),
])
def test_faults_score_like_the_contest(termination: str, scores: list[int], outcome: str) -> None:
    state = GAME.new_state()
    assert state.fault_scores(0, termination) == scores
    assert state.fault_scores(1, termination) == scores[::-1]
    assert state.fault_outcome(0, termination) == outcome
    assert state.fault_winner(0) == 1


def test_the_referee_termination_enum_is_understood_and_normal_is_no_fault() -> None:
    from arbiter.records import Termination

    state = GAME.new_state()
    assert state.fault_scores(1, Termination.TIMEOUT) == [2, 1]
    with pytest.raises(ValueError, match="not a fault"):
        state.fault_scores(0, Termination.NORMAL)


# --- the endings of a legal move -----------------------------------------------------


def assert_ended(state: CodecupSudokuState, scores: list[int], outcome: str, winner: int) -> None:
    assert state.is_over()
    assert state.scores == scores
    assert state.outcome == outcome
    assert state.winner() == winner
    assert state.legal_moves() == []
    with pytest.raises(IllegalMove, match="the game is over"):
        state.play("Ee5")


def test_a_correct_claim_with_a_move_wins_2_1() -> None:
    state = position(TWO_SOLUTIONS)
    state.play("Aa8!")
    assert_ended(state, [2, 1], "seat 0 WIN (correct claim)", winner=0)


def test_a_correct_bare_claim_wins_2_1_for_the_claimer() -> None:
    state = position(TWO_SOLUTIONS)
    state.play("Aa8")  # leaves one solution, unclaimed
    assert not state.is_over() and state.current_player == 1
    state.play("!")
    assert_ended(state, [1, 2], "seat 1 WIN (correct claim)", winner=1)


def test_a_wrong_claim_with_a_move_loses_0_2() -> None:
    state = position(FOUR_SOLUTIONS)
    state.play("Aa8!")  # the other rectangle still has two ways
    assert_ended(state, [0, 2], "seat 0 LOSE (wrong claim: more than one solution)", winner=1)


def test_a_wrong_bare_claim_loses_0_2() -> None:
    state = position(FOUR_SOLUTIONS, to_move=1)
    state.play("!")
    assert_ended(state, [2, 0], "seat 1 LOSE (wrong claim: more than one solution)", winner=0)


def test_a_move_that_leaves_no_solution_loses_1_2() -> None:
    state = position(TWO_SOLUTIONS)
    state.play("Gd7")
    assert_ended(state, [1, 2], "seat 0 NO_SOLUTIONS_LEFT (the move left no solution)", winner=1)


@pytest.mark.parametrize("text", ["Id7", "Gd6"])
def test_a_move_every_solution_already_has_loses_1_2(text: str) -> None:
    state = position(TWO_SOLUTIONS, to_move=1)
    state.play(text)
    assert_ended(state, [2, 1], "seat 1 NO_SOLUTION_DECREASED (every solution already had that digit there)",
                 winner=0)


def test_a_placement_is_judged_before_its_claim() -> None:
    state = position(TWO_SOLUTIONS)
    state.play("Gd7!")
    assert state.outcome is not None and "NO_SOLUTIONS_LEFT" in state.outcome
    state = position(TWO_SOLUTIONS)
    state.play("Id7!")  # the grid still has two solutions, and the move did not reduce them
    assert state.outcome is not None and "NO_SOLUTION_DECREASED" in state.outcome


def test_a_move_that_reduces_but_keeps_two_solutions_continues_the_game() -> None:
    state = position(FOUR_SOLUTIONS)
    state.play("Ce4")
    assert not state.is_over() and state.scores == [0, 0] and state.outcome is None
    assert count_solutions(state.grid, 10) == 2


@pytest.mark.parametrize("seed", range(6))
def test_each_placement_is_judged_by_the_two_solution_questions(seed: int) -> None:
    # Blind random placements (the rules allow them, solutions are ignored), each judged
    # by the game and, independently, by asking the solver the rules' two questions.
    rng = random.Random(seed)
    state = GAME.new_state()
    while not state.is_over():
        mover = state.current_player
        move = rng.choice(state.legal_moves())
        assert move.cell is not None
        before = bytes(state.grid)
        after = bytearray(before)
        after[move.cell] = move.digit
        state.apply(move)
        if not has_solution(after):
            assert state.outcome == f"seat {mover} NO_SOLUTIONS_LEFT (the move left no solution)"
        elif solution_with_other_digit(before, move.cell, move.digit) is None:
            assert state.outcome == (f"seat {mover} NO_SOLUTION_DECREASED "
                                     "(every solution already had that digit there)")
        else:
            assert not state.is_over() and state.current_player == 1 - mover


def test_the_grid_never_fills_without_an_ending() -> None:
    # The last empty cell has one solution digit: playing it does not reduce the
    # solutions, and every other digit repeats one in its row, column or box. So the
    # rules' "grid runs out with no claim, 1-1" cannot be reached.
    almost_full = SOLVED.replace("157", "1.7", 1)
    for digit in range(1, 10):
        state = position(almost_full)
        try:
            state.play(f"Ee{digit}")
        except IllegalMove:
            assert digit != 5
            continue
        assert digit == 5
        assert state.outcome is not None and "NO_SOLUTION_DECREASED" in state.outcome
        assert state.scores == [1, 2]


# --- positions -----------------------------------------------------------------------


def test_legal_moves_are_the_placements_the_sudoku_rules_allow() -> None:
    state = GAME.new_state()
    assert len(state.legal_moves()) == 81 * 9
    state.play("Ee5")
    moves = state.legal_moves()
    assert SudokuMove(41, 1, False) in moves and SudokuMove(41, 5, False) not in moves  # Ef, beside Ee
    assert SudokuMove(40, 1, False) not in moves and SudokuMove(0, 5, False) in moves
    assert all(not move.claim for move in moves)
    expected = [SudokuMove(c, d, False) for c in range(81) for d in range(1, 10)
                if state.is_legal(SudokuMove(c, d, False))]
    assert moves == expected
    assert len(moves) == 80 * 9 - 20  # the 20 peers of Ee lose the 5
    assert state.is_legal(SudokuMove(0, 1, True)) and state.is_legal(CLAIM)


def test_the_key_ignores_move_order_and_clones_are_independent() -> None:
    one, other = GAME.new_state(), GAME.new_state()
    for text in ("Aa1", "Ee5", "Ii9", "Bb2"):
        one.play(text)
    for text in ("Ii9", "Bb2", "Aa1", "Ee5"):
        other.play(text)
    assert one.key() == other.key()
    copy = one.clone()
    copy.play("Cc3")
    assert copy.key() != one.key() and one.grid[20] == 0 and len(one.history) == 4


def test_render_shows_the_grid_with_row_and_column_names() -> None:
    state = GAME.new_state()
    state.play("Aa1")
    state.play("Ii9")
    picture = state.render()
    assert picture.splitlines()[0].split() == list("abcdefghi")
    assert picture.splitlines()[1].startswith("A   1 . .")
    assert picture.splitlines()[-1].endswith(". . 9")


@pytest.mark.parametrize("grid, message", [
    ("123", "81 characters"),
    ("11" + "." * 79, "grid cell Ab: 1 already stands in row A"),
    (TWO_SOLUTIONS.replace("..4 .19", "..4 719"), "the grid has no solution"),  # Gd7, as above
])
def test_hand_built_grids_are_checked(grid: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        GAME.state_from_grid(grid)


# --- full games between the sample players --------------------------------------------


Strategy = Callable[[CodecupSudokuState, BotContext], SudokuMove]
STRATEGIES: dict[str, Strategy] = {
    "sudoku_random": choose_random, "sudoku_claimer": choose_claimer, "sudoku_winner": choose_winner,
}
PLAYERS = list(STRATEGIES)


def play_game(seat0: str, seat1: str, seed: int) -> tuple[CodecupSudokuState, list[bool]]:
    """One in-process game; also which moves were played on a grid with one solution left."""
    bots = [STRATEGIES[seat0], STRATEGIES[seat1]]
    contexts = [BotContext(game=GAME, seat=seat, rng=random.Random(seed * 2 + seat)) for seat in (0, 1)]
    state = GAME.new_state()
    unique_before: list[bool] = []
    while not state.is_over():
        seat = state.current_player
        unique_before.append(count_solutions(state.grid, 2) == 1)
        state.apply(bots[seat](state, contexts[seat]))
    return state, unique_before




@pytest.mark.parametrize("seat0, seat1", [(a, b) for a in PLAYERS for b in PLAYERS if a != b or a == "sudoku_random"])
def test_sample_players_play_full_games_to_a_scored_ending(seat0: str, seat1: str) -> None:
    state, unique_before = play_game(seat0, seat1, seed=3)
    names = [seat0, seat1]
    assert state.is_over() and sorted(state.scores) in ([1, 2], [0, 2])
    ender = int(state.outcome.split()[1])  # type: ignore[union-attr]
    assert state.outcome.startswith(f"seat {ender} ")  # type: ignore[union-attr]
    assert ender == (len(state.history) - 1) % 2  # the last mover ended it
    # The notation round-trips: replaying the texts gives the same ending.
    replay = GAME.new_state()
    for move in state.history:
        replay.play(GAME.format_move(move))
    assert replay.key() == state.key() and replay.scores == state.scores
    for index, move in enumerate(state.history):
        player = names[index % 2]
        if player == "sudoku_random":
            assert not move.claim
    if names[ender] == "sudoku_random":
        # It loses only on a grid with one solution left, where every placement loses.
        assert unique_before[-1] and state.scores[ender] == 1
    else:
        # The claiming players end games only by a correct claim.
        assert state.outcome == f"seat {ender} WIN (correct claim)"
    if "sudoku_random" in names and names[0] != names[1]:
        assert state.winner() == 1 - names.index("sudoku_random")


# --- the bot kit with the codecup dialect -----------------------------------------------


class ContestLikeChannel:
    """The bot's side of a CodeCup game: `Start` (or the opponent's first move), then the
    opponent's moves; after the bot's game-ending move the input just closes, without
    `Quit`, as the contest server did after a winning claim."""

    def __init__(self, bot_seat: int, opponent: Strategy) -> None:
        self.state = GAME.new_state()
        self.bot_seat = bot_seat
        self.opponent = opponent
        self.context = BotContext(game=GAME, seat=1 - bot_seat, rng=random.Random(5))
        self.sent: list[str] = []

    def lines(self) -> Iterator[str]:
        if self.bot_seat == 0:
            yield "Start"
        while not self.state.is_over():
            assert self.state.current_player != self.bot_seat, "the bot did not answer"
            move = self.opponent(self.state, self.context)
            self.state.apply(move)
            yield GAME.format_move(move)

    def send(self, line: str) -> None:
        self.sent.append(line)
        self.state.play(line)


@pytest.mark.parametrize("bot_seat", [0, 1])
def test_the_kit_claims_and_exits_when_the_input_closes_after_its_win(bot_seat: int) -> None:
    channel = ContestLikeChannel(bot_seat, choose_random)
    assert run_bot(choose_claimer, argv=["--game", "codecup-sudoku", "--seed", "1"], channel=channel) == 0
    assert channel.sent[-1].endswith("!")
    assert channel.state.outcome == f"seat {bot_seat} WIN (correct claim)"


class ScriptedChannel:
    """Fixed incoming lines; what the bot sends is kept."""

    def __init__(self, incoming: list[str]) -> None:
        self.incoming = incoming
        self.sent: list[str] = []

    def lines(self) -> Iterator[str]:
        yield from self.incoming

    def send(self, line: str) -> None:
        self.sent.append(line)


def test_the_kit_stops_at_quit() -> None:
    channel = ScriptedChannel(["", "Start", "Quit", "Ee5"])
    assert run_bot(choose_random, argv=["--game", "codecup-sudoku"], channel=channel) == 0
    assert len(channel.sent) == 1
    GAME.new_state().play(channel.sent[0])


def test_the_kit_takes_a_relayed_game_ending_claim_without_answering() -> None:
    # Another referee may relay the move that ended the game (here the opponent's wrong claim)
    # before Quit (this arbiter does not, in the codecup dialect): the kit does not answer it.
    channel = ScriptedChannel(["Ee5", "!"])
    assert run_bot(choose_random, argv=["--game", "codecup-sudoku"], channel=channel) == 0
    assert len(channel.sent) == 1


# --- programs on pipes: the sample players and a CodeCup-style entry --------------------


class LineProcess:
    """A bot program on pipes, read one line at a time with a deadline; killed on exit
    from its `with` block if it is still running."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, cwd=ROOT)

    def __enter__(self) -> LineProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def receive(self, timeout_s: float = 20.0) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout_s)
        assert ready, f"no line from {self.proc.args} within {timeout_s} s (not flushed?)"
        return self.proc.stdout.readline().rstrip("\n")

    def exit_status(self, timeout_s: float = 10.0) -> int:
        """Wait for the program to exit by itself; its exit status."""
        return self.proc.wait(timeout=timeout_s)


CODECUP_STYLE_BOT = [sys.executable, str(ROOT / "tests" / "bots" / "codecup_style_sudoku.py")]


def test_a_codecup_style_entry_moves_first_on_start_and_exits_on_quit() -> None:
    with LineProcess(CODECUP_STYLE_BOT) as bot:
        state = GAME.new_state()
        bot.send("")  # the contest server has sent empty lines
        bot.send("Start")
        state.play(bot.receive())  # well-formed and allowed, or this raises
        reply = reducing_move(state.grid, random.Random(0))
        state.apply(reply)
        bot.send(GAME.format_move(reply))
        state.play(bot.receive())
        bot.send("Quit")
        assert bot.exit_status() == 0
        assert bot.proc.stdout.read() == ""  # type: ignore[union-attr]  # nothing after Quit


def test_a_codecup_style_entry_answers_a_first_move_as_the_second_player() -> None:
    with LineProcess(CODECUP_STYLE_BOT) as bot:
        state = GAME.new_state()
        state.play("Ee5")
        bot.send("Ee5")
        state.play(bot.receive())
        bot.send("Quit")
        assert bot.exit_status() == 0


@pytest.mark.parametrize("player", PLAYERS)
def test_each_sample_player_runs_as_a_codecup_dialect_program(player: str) -> None:
    argv = [sys.executable, str(ROOT / "players" / f"{player}.py"), "--game", "codecup-sudoku"]
    with LineProcess(argv) as bot:
        state = GAME.new_state()
        bot.send("Start")
        state.play(bot.receive())
        bot.send("Quit")
        assert bot.exit_status() == 0


def test_a_sample_player_refuses_another_game_with_a_clear_message() -> None:
    argv = [sys.executable, str(ROOT / "players" / "sudoku_winner.py")]
    with LineProcess(argv) as bot:
        bot.send("Game limit-nim piles=3/2 seat=0 time_ms=1000")
        bot.send("Start")
        assert bot.exit_status() == 2
        assert "sudoku_winner: cannot play limit-nim; this bot plays codecup-sudoku" in bot.proc.stderr.read()  # type: ignore[union-attr]


def test_the_winner_stops_listing_solutions_once_an_eighth_of_its_clock_went_on_them(monkeypatch) -> None:
    import players.strategies.sudoku as strategies

    listed = []
    monkeypatch.setattr(strategies, "winning_moves", lambda grid: listed.append(grid) or [])
    game = CodecupSudoku()

    def ctx(time_ms: int | None, spent_s: float) -> BotContext:
        context = BotContext(game=game, seat=0, rng=random.Random(1), time_ms=time_ms)
        context.memory["enumeration_s"] = spent_s
        return context

    choose_winner(game.new_state(), ctx(None, 100.0))  # no clock given: it always looks
    choose_winner(game.new_state(), ctx(8000, 0.99))  # under 1 s of 8 s: it looks
    assert len(listed) == 2
    choose_winner(game.new_state(), ctx(8000, 1.0))  # an eighth used: it plays as the claimer
    assert len(listed) == 2
