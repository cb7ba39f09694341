"""How a game ends for the bots (docs/protocol.md, "What a bot is sent"; docs/codecup.md):
what each bot is sent after the last move, and that its output stays open meanwhile."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arbiter.games import find_game
from arbiter.records import Termination
from arbiter.referee import PlayerSpec, TimeControl, play_game
from arbiter.transport.sandbox import SandboxSpec

from referee_support import BOTS, ROOT, bot, new_marker

SUDOKU = find_game("codecup-sudoku")
NIM = find_game("limit-nim", piles="5/2")
CLOCK = TimeControl(time_ms=20_000)


def strict_entry(name: str, *args: str) -> PlayerSpec:
    """tests/bots/codecup_style_sudoku.py: fatal on any line the contest would not send."""
    return PlayerSpec(name=name, command=(sys.executable, str(BOTS / "codecup_style_sudoku.py"), *args),
                      dialect="codecup", sandbox=SandboxSpec(read=(str(BOTS),)))


# (seat 0's options, seat 1's options, the outcome: the seat whose move ended it and how).
# Each ending comes from each seat; the seeds are the ones that make that seat's move end it.
ENDINGS = [
    pytest.param(("--claim-at", "2"), (), "seat 0 LOSE", id="seat 0 claims"),
    pytest.param((), ("--claim-at", "2"), "seat 1 LOSE", id="seat 1 claims"),
    pytest.param(("--bare-claim-at", "2"), (), "seat 0 LOSE", id="seat 0 claims with a bare !"),
    pytest.param((), ("--bare-claim-at", "2"), "seat 1 LOSE", id="seat 1 claims with a bare !"),
    pytest.param(("--seed", "3"), ("--seed", "4"), "seat 0 NO_SOLUTIONS_LEFT", id="seat 0 leaves no solution"),
    pytest.param(("--seed", "1"), ("--seed", "2"), "seat 1 NO_SOLUTIONS_LEFT", id="seat 1 leaves no solution"),
    pytest.param(("--solution", "--seed", "1"), ("--solution", "--seed", "2"), "seat 0 NO_SOLUTION_DECREASED",
                 id="seat 0 does not reduce"),
    pytest.param(("--solution", "--seed", "3"), ("--solution", "--seed", "4"), "seat 1 NO_SOLUTION_DECREASED",
                 id="seat 1 does not reduce"),
    pytest.param(("--illegal-at", "2"), (), "seat 0 ILLEGAL", id="seat 0 faults"),
    pytest.param((), ("--illegal-at", "2"), "seat 1 ILLEGAL", id="seat 1 faults"),
]


@pytest.mark.parametrize("options_0, options_1, outcome", ENDINGS)
def test_a_contest_style_entry_meets_every_ending_without_an_unexpected_line(
        tmp_path: Path, options_0: tuple[str, ...], options_1: tuple[str, ...], outcome: str) -> None:
    players = [strict_entry("first", *options_0), strict_entry("second", *options_1)]
    record = play_game(SUDOKU, players, time=CLOCK, log_dir=tmp_path)
    assert record.outcome.startswith(outcome), record.detail
    if "--bare-claim-at" in options_0 + options_1:
        assert record.moves[-1].move == "!"
    for seat, log in enumerate(record.logs):
        text = Path(log).read_text()
        if record.termination.is_fault and seat == record.offender:
            continue  # SIGTERMed at once, as the contest ends a faulty entry
        # It exits on Quit, having been sent every move of the other seat but the one that
        # ended the game (an illegal move is not one: it was never played).
        ours = sum(1 for move in record.moves if move.seat == seat)
        theirs = len(record.moves) - ours
        if not record.termination.is_fault and record.moves[-1].seat != seat:
            theirs -= 1
        assert text == f"Quit after {ours} moves of ours, {theirs} of theirs\n", f"seat {seat}"


@pytest.mark.parametrize("dialect", ["arbiter", "codecup"])
def test_an_answer_after_the_end_is_read_and_noted_not_met_with_a_broken_pipe(tmp_path: Path, dialect: str) -> None:
    marker = new_marker()
    late = bot("late_answer_bot.py", "late", marker)
    other = bot(ROOT / "players" / "random_bot.py", "random", marker, "--seed", "1")
    if dialect == "codecup":
        late = PlayerSpec(**{**late.__dict__, "dialect": "codecup",
                             "command": (*late.command, "--game", NIM.name, "-p", "piles=5/2")})
        other = PlayerSpec(**{**other.__dict__, "dialect": "codecup",
                              "command": (*other.command, "--game", NIM.name, "-p", "piles=5/2")})
    record = play_game(NIM, [late, other], time=CLOCK, log_dir=tmp_path)
    assert record.termination is Termination.NORMAL, record.detail
    log = Path(record.logs[0]).read_text()
    # Killed by SIGPIPE, it would never have written its own line.
    assert "late answer written" in log
    assert "[arbiter: after the game's end the bot wrote 1 line(s) on its output, read and discarded: '1 1']" in log


# Each bundled bot, with an opponent that ends the game in each way that leaves it a bot to
# end: a normal end (its own last move or the other's) and the other's fault.
BUNDLED = [
    pytest.param("limit-nim", {"piles": "5/2"}, "nim_perfect.py", "arbiter", id="nim_perfect"),
    pytest.param("limit-nim", {"piles": "5/2"}, "nim_greedy.py", "arbiter", id="nim_greedy"),
    pytest.param("dots-and-triangles", {"rows": "3"}, "greedy.py", "arbiter", id="greedy"),
    pytest.param("dots-and-triangles", {"rows": "3"}, "double_cross.py", "arbiter", id="double_cross"),
    pytest.param("dots-and-boxes", {"rows": "2", "cols": "2"}, "perfect_dp.py", "arbiter", id="perfect_dp"),
    pytest.param("codecup-sudoku", {}, "sudoku_winner.py", "codecup", id="sudoku_winner"),
    pytest.param("codecup-sudoku", {}, "sudoku_claimer.py", "codecup", id="sudoku_claimer"),
    pytest.param("codecup-sudoku", {}, "sudoku_random.py", "codecup", id="sudoku_random"),
]


@pytest.mark.parametrize("game_name, params, player, dialect", BUNDLED)
def test_no_bundled_bot_meets_a_broken_pipe_at_any_ending(tmp_path: Path, game_name: str, params: dict[str, str],
                                                          player: str, dialect: str) -> None:
    game = find_game(game_name, **params)
    marker = new_marker()
    kit_args = ["--game", game_name] if dialect == "codecup" else []
    for key, value in params.items() if dialect == "codecup" else ():
        kit_args += ["-p", f"{key}={value}"]

    def seat(script: str | Path, name: str, *args: str, **env: str) -> PlayerSpec:
        spec = bot(script, name, marker, *kit_args, *args, **env)
        return PlayerSpec(**{**spec.__dict__, "dialect": dialect})

    bundled = seat(ROOT / "players" / player, "bundled")
    illegal = seat("illegal_bot.py", "illegal", MISBEHAVE_AT="2")
    opponents = [seat(ROOT / "players" / "random_bot.py", "random", "--seed", "3"), illegal]
    if game_name == "codecup-sudoku":  # the opponent's claim ends the game: never relayed
        opponents += [strict_entry("claimer", "--claim-at", "2"), strict_entry("bare-claimer", "--bare-claim-at", "2")]
    endings = set()
    for number, (opponent, bundled_seat) in enumerate((o, k) for o in opponents for k in (0, 1)):
        players = [bundled, opponent] if bundled_seat == 0 else [opponent, bundled]
        record = play_game(game, players, time=CLOCK, log_dir=tmp_path, log_prefix=f"{number}-")
        endings.add((record.termination, record.offender, record.outcome and record.outcome.split(" (")[0]))
        # Both bots' own logs (the random bot is a bundled bot too), but a faulty opponent's:
        # it was SIGTERMed at once.
        for k in [bundled_seat] if opponent is illegal else [0, 1]:
            log = Path(record.logs[k]).read_text()
            assert not any(word in log for word in ("Broken", "EPIPE", "Traceback", "ERROR")), (k, log)
            assert "after the game's end the bot wrote" not in log, (k, log)
    assert {termination.is_fault for termination, _, _ in endings} == {False, True}
    if game_name == "codecup-sudoku":
        assert {f"seat {1 - k} LOSE" for k in (0, 1)} <= {outcome for _, _, outcome in endings}, endings
