"""Rules that fail are never a bot's fault (issue 37): whatever a game's rules raise during a
game, beyond their documented MalformedMove and IllegalMove, ends it VOID, no winner and no
offender, with a sentence naming the rules, the move and the exception; the bots are shut
down as after a normal end (a kept bot is not kept). `arbiter play` says so and exits 5;
`arbiter check` says so and blames no bot.

The test games are Limit Nim whose rules break on purpose (tests/broken_rules.py); their bots
play the real Limit Nim, so only the referee's rules break."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arbiter.check import CheckTarget, RulesFailure, run_check
from arbiter.cli import main
from arbiter.games import MalformedMove, find_game
from arbiter.kept_bots import KeptBots
from arbiter.protocol import format_game_line
from arbiter.records import Termination
from arbiter.referee import PlayerSpec, TimeControl, play_channels, play_game
from arbiter.transport.scripted import ScriptedChannel
from broken_rules import broken_nim
from referee_support import RANDOM_BOT, honest, live_marked, new_marker

CLOCK = TimeControl(time_ms=5000)
RANDOM = f"{sys.executable} {RANDOM_BOT}"


def scripted(game: object, moves: int, *, last_applied: bool = False) -> tuple[list[PlayerSpec], list[ScriptedChannel]]:
    """Two seats that answer `1 1` to the game's first `moves` hand-overs, then are told Quit,
    after the last move when the rules applied it (`last_applied`): a move the rules failed on
    is never relayed."""
    channels = [ScriptedChannel().expect(format_game_line(game, seat, CLOCK.time_ms)) for seat in range(2)]  # type: ignore[arg-type]
    channels[0].expect("Start", ["1 1"])
    for number in range(2, moves + 1):  # move `number` is seat (number - 1) % 2's answer to the one before
        channels[(number - 1) % 2].expect("1 1", ["1 1"])
    if last_applied:
        channels[moves % 2].expect("1 1")
    for channel in channels:
        channel.expect("Quit")
    return [PlayerSpec(name=name, command=(name,), sandbox=None) for name in ("a", "b")], channels


@pytest.mark.parametrize("where, at, moves, detail", [
    ("apply", 2, 3, "the rules of limit-nim failed at move 3: RulesBroke: apply broke after 2 moves"),
    ("parse", 0, 1, "the rules of limit-nim failed at move 1: RulesBroke: the parser broke on '1 1'"),
    ("is_over", 1, 1, "the rules of limit-nim failed at move 1: RulesBroke: is_over broke after 1 moves"),
    ("scores", 0, 3, "the rules of limit-nim failed scoring the game after move 3: RulesBroke: scores broke"),
])
def test_rules_that_raise_end_the_game_void_and_blame_no_bot(where: str, at: int, moves: int, detail: str) -> None:
    game = broken_nim(where, at)
    seats, channels = scripted(game, moves, last_applied=where == "scores")
    record = play_channels(game, seats, channels, time=CLOCK)
    assert (record.termination, record.winner, record.offender) == (Termination.VOID, None, None)
    assert record.detail.startswith(detail), record.detail
    assert record.scores == [0, 0]
    for channel in channels:
        channel.assert_done()  # every bot told Quit, as after a normal end


@pytest.mark.parametrize("at, where", [(0, "at move 1 (the opening's)"), (1, "at move 2 (the opening's)")])
def test_rules_that_fail_in_the_opening_void_the_game_before_any_bot_is_started(at: int, where: str) -> None:
    channels = [ScriptedChannel(), ScriptedChannel()]  # nothing may be sent to them
    record = play_channels(broken_nim("apply", at, piles="5/5"), [PlayerSpec(name=n, command=(n,)) for n in "ab"],
                           channels, time=CLOCK, opening=("1 1", "1 1"))
    assert (record.termination, record.winner, record.offender) == (Termination.VOID, None, None)
    assert record.detail.startswith(f"the rules of limit-nim failed {where}: RulesBroke"), record.detail
    assert record.moves == [] and record.scores == [0, 0]
    assert channels[0].sent == channels[1].sent == []


def test_a_legal_move_the_rules_write_but_cannot_read_is_not_the_bots_fault() -> None:
    # As OpenSpiel's quoridor writes a boxed-in player's only move `_14` and cannot parse it.
    game = broken_nim("parse", exc=lambda why: MalformedMove("1 1", why))  # type: ignore[arg-type]
    seats, channels = scripted(game, 1)
    record = play_channels(game, seats, channels, time=CLOCK)
    assert (record.termination, record.offender) == (Termination.VOID, None)
    assert record.detail.startswith("the rules of limit-nim failed at move 1: seat 0 (a) played '1 1', a legal "
                                    "move as the rules write it, which their own parser refuses"), record.detail


def test_a_malformed_move_stays_the_bots_fault_unless_the_rules_fail_to_list_the_legal_moves() -> None:
    for game, termination, offender in ((find_game("limit-nim", piles="3/1"), Termination.MALFORMED, 0),
                                        (broken_nim("legal"), Termination.VOID, None)):
        channels = [ScriptedChannel().expect(format_game_line(game, seat, CLOCK.time_ms)) for seat in range(2)]
        channels[0].expect("Start", ["2 1"]).expect("Quit")  # there is no pile 2
        channels[1].expect("Quit")
        record = play_channels(game, [PlayerSpec(name=n, command=(n,), sandbox=None) for n in "ab"], channels,
                               time=CLOCK)
        assert (record.termination, record.offender) == (termination, offender), record.detail


def test_a_void_game_with_real_bots_ends_them_as_a_normal_end_does_and_keeps_none(tmp_path: Path) -> None:
    marker = new_marker()
    kept = KeptBots()
    players = [replace(honest(marker, seed), reuse=True) for seed in (1, 2)]
    record = play_game(broken_nim("apply", 2), players, time=CLOCK, log_dir=tmp_path, kept=kept)
    assert (record.termination, record.offender, record.winner) == (Termination.VOID, None, None), record.detail
    assert "the rules of limit-nim failed at move 3" in record.detail
    assert len(kept) == 0  # not handed back: the bots are ended
    assert live_marked(marker) == []
    assert [m.move for m in record.moves] == ["1 1", "1 1"]


def test_arbiter_play_says_the_rules_failed_and_exits_5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import arbiter.cli.play as play
    monkeypatch.setattr(play, "command_line_game", lambda name, params: broken_nim("apply", 1))
    status = main(["play", "limit-nim", RANDOM, RANDOM, "--no-sandbox", "--log-dir", str(tmp_path), "--show"])
    out = capsys.readouterr()
    assert status == 5, out
    assert "result: void: the game could not be decided, and counts for no one" in out.out
    assert "reason: void: the rules of limit-nim failed at move 2: RulesBroke: apply broke after 1 moves" in out.out
    assert "internal error" not in out.out + out.err


def test_arbiter_check_blames_no_bot_for_rules_that_fail_in_its_games(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import arbiter.check.scenarios as scenarios
    monkeypatch.setattr(scenarios, "find_game", lambda name, **params: broken_nim("scores", **params))
    player = PlayerSpec(name="bot", command=(sys.executable, str(RANDOM_BOT)), sandbox=None)
    report = run_check(CheckTarget("limit-nim", {"piles": "3/1"}, player, time_ms=3000,
                                   duties=frozenset({"seat-0", "seat-1"})), log_dir=tmp_path)
    assert report.failed() == [] and report.passed
    assert report.void and all(sentence.startswith("the rules of limit-nim failed scoring the game")
                               for sentence in report.void)
    for duty in ("seat-0", "seat-1"):
        item = report.item(duty)
        assert item.status == "skip" and item.note.startswith("not checked: the rules of limit-nim failed")


def test_arbiter_check_says_the_rules_failed_before_any_game_and_exits_5(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import arbiter.check.scenarios as scenarios
    monkeypatch.setattr(scenarios, "find_game", lambda name, **params: broken_nim("is_over", **params))
    with pytest.raises(RulesFailure, match="the rules of limit-nim failed while the check built its scenarios"):
        run_check(CheckTarget("limit-nim", {}, PlayerSpec(name="bot", command=("true",))), log_dir=tmp_path)
    status = main(["check", "limit-nim", RANDOM, "--no-sandbox", "--log-dir", str(tmp_path)])
    out = capsys.readouterr()
    assert status == 5
    assert "not checked: the rules of limit-nim failed while the check built its scenarios: RulesBroke" in out.out
    assert "FAIL" not in out.out and "internal error" not in out.out + out.err


# Two games of OpenSpiel's 4-seat Quoridor on a 5x5 board, found by random play (issue 37):
# in the first, the last move is seat 2's only legal move, which OpenSpiel's own C++ refuses
# to apply (a SpielError); in the second, seat 1's only legal move is written `_-1`, which
# OpenSpiel's notation cannot read back.
QUORIDOR_NATIVE_FAILURE = ("d2h b3 d4v d1v b1v a3h c2 a2v b5 c4h d2 c1h d3h a4v c2 d3 c5 c3 d2 e3 b5 b3 c2 d3 c5 c3 "
                           "d2 b3 b5 c2 c3 d3 c5 d2 c2 c3 b5 h2").split()
QUORIDOR_UNREADABLE = ("c2h b3v b4h b1h c1v d3v c3h a3v b5 a4 d1h e4 c5 a5 b1 e3 b5 c5 a1 e2 a5 b5 a2 e3 a1v a4 "
                       "a1 e4 a3 a2 _-1").split()


def replayed(game: Any, moves: list[str]) -> list[ScriptedChannel]:
    """Each seat's script for a game whose moves are `moves`, the last of which the rules fail
    on (never applied nor relayed): each bot is sent what it has not seen and answers its move."""
    seats = game.num_players
    channels = [ScriptedChannel().expect(format_game_line(game, seat, CLOCK.time_ms)) for seat in range(seats)]
    state = game.new_state()
    pending: list[list[str]] = [[] for _ in range(seats)]
    pending[state.current_player].append("Start")
    for number, text in enumerate(moves, 1):
        mover = state.current_player
        lines, pending[mover] = pending[mover], []
        for line in lines[:-1]:
            channels[mover].expect(line)
        channels[mover].expect(lines[-1], [text])
        if number < len(moves):
            state.play(text)
            for other in range(seats):
                if other != mover:
                    pending[other].append(text)
    for seat, channel in enumerate(channels):
        for line in pending[seat]:
            channel.expect(line)
        channel.expect("Quit")
    return channels


@pytest.mark.parametrize("moves, detail", [
    (QUORIDOR_NATIVE_FAILURE, "the rules of openspiel:quoridor failed at move 38: SpielError: "),
    # The boxed-in seat's only legal move, `_-1`, is read back by the legal moves' own texts
    # (arbiter/games/openspiel.py): never malformed; OpenSpiel's own apply of it then fails.
    (QUORIDOR_UNREADABLE, "the rules of openspiel:quoridor failed at move 31: SpielError: "),
])
def test_openspiels_own_failures_in_quoridor_void_the_game(moves: list[str], detail: str) -> None:
    pytest.importorskip("pyspiel")
    from arbiter.games.openspiel import game_class
    quoridor = game_class("quoridor")
    # 4-seat quoridor is refused before any game (docs/games.md, Refused variants) for exactly
    # these failures; the referee is shown them here with the refusal table not asked.
    unrefused = type("UnrefusedQuoridor", (quoridor,), {"refused": lambda self: None})
    game = unrefused(players=4, board_size=5)
    channels = replayed(game, moves)
    record = play_channels(game, [PlayerSpec(name=f"p{k}", command=(f"p{k}",)) for k in range(4)], channels,
                           time=CLOCK)
    assert (record.termination, record.winner, record.offender) == (Termination.VOID, None, None)
    # OpenSpiel's message for the unreadable move quotes a board cell it never set: when that
    # byte is not UTF-8, pybind11 raises UnicodeDecodeError in place of the SpielError (seen
    # once in CI: `board_[move.xy] = \xe0`). Either is the rules' own failure, voiding the game.
    raised = [detail, detail.replace("SpielError: ", "UnicodeDecodeError: ")]
    assert any(record.detail.startswith(said) for said in raised), record.detail
    assert len(record.moves) == len(moves) - 1
    for channel in channels:
        channel.assert_done()
