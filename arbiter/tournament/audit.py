"""Tamper evidence for `games.jsonl`: a record's result must be what its moves give.

Every record carries its moves, and the rules library can replay them. `replay_problem`
replays one record and names the first thing that contradicts it: a move out of turn or
against the rules, chance's outcome other than the record's `chance_seed` draws (or, given the
run's seeds, a `chance_seed` other than the run's for that game id), a game said to have ended normally that is not over, or scores, winner
or named outcome other than the moves (and, after a fault, the offender) give. Reading a
results folder (`arbiter report`, the end of `arbiter run`, a resume) refuses such a record
with its file and line, so a results file edited by hand or by a bot cannot turn a loss
into a win unnoticed. It cannot tell a game that was never played from one that was: a
whole record forged with legal moves and the right result passes (docs/security.md). A void
record (its rules failed, or its worker died) is checked for counting for no one, its moves
not replayed; so a record turned into a void one by hand is not caught: the report lists
every void game with its reason.

The replay runs the rules, and rules that are not the arbiter's own (OpenSpiel's native code, a
user's `module:Class`) could crash or hang the process reading the folder, at every resume.
`RecordAudit`, the store's audit, runs them in the rules host (tournament/rules_host.py): a
record whose replay the rules cannot finish (they crash or hang twice, the second time in a
fresh host, or raise) is no evidence of tampering; it is accepted unverified, and said so in a
line naming the game and what happened (docs/records.md, A record not replayed).
"""
from __future__ import annotations

import json
import math
from dataclasses import fields
from typing import Any, Callable, NamedTuple

from ..chance import ChanceDice, RunSeeds
from ..games import CHANCE, GameError, State
from ..records import GameRecord, Termination, game_places
from .config import Scoring
from .rules_host import RULES_HOST, RulesFailed, hosted, made_game

NOTED_UNVERIFIED = 10  # records not replayed that are named one by one; the rest are counted


def replay_problem(record: GameRecord, scoring: Scoring | None = None, seeds: RunSeeds | None = None) -> str | None:
    """What in `record` contradicts its own moves under the rules (and, given the tournament's
    `scoring`, its places and points; given the run's `seeds`, the seed of its dice), or None
    when it holds."""
    label = f"game {record.id or '?'}"
    if record.termination.is_void:
        return _void_problem(record, label)
    try:
        game = made_game(record.game, json.dumps(record.params, sort_keys=True))
    except (TypeError, ValueError) as exc:  # GameError is a ValueError
        return f"{label}: its game cannot be rebuilt from the record ({exc})"
    termination = record.termination
    state = game.new_state()
    seed = record.chance_seed
    dice = ChanceDice(seed) if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else None
    # Dice that replay are not enough: a record given another seed (and the game it rolls) is
    # not one this run played, whose dice come from its own seeds alone.
    if seeds is not None and seed is not None and record.id is not None and seed != seeds.chance(record.id):
        return f"{label}: its chance_seed {seed!r} is not the seed this run draws game {record.id}'s dice from"
    for number, move in enumerate(record.moves, 1):
        text = move.move
        if state.is_over():
            return f"{label}: move {number} ({text!r}) comes after the game was over"
        if move.seat != state.current_player:
            turn = "chance's draw" if state.current_player == CHANCE else f"seat {state.current_player}'s turn"
            return f"{label}: move {number} ({text!r}) is recorded for seat {move.seat}, but it was {turn}"
        if state.current_player == CHANCE:  # the dice must be those of the recorded seed
            if dice is None:
                return f"{label}: move {number} ({text!r}) is chance's, but the record has no chance_seed " \
                       f"to draw it from ({seed!r})"
            drawn = game.format_move(dice.draw(state))
            if text != drawn:
                return f"{label}: move {number}, chance's outcome {text!r}, is not what its chance_seed draws ({drawn!r})"
        try:
            state.play(text)
        except (GameError, TypeError) as exc:
            return f"{label}: move {number} ({text!r}) does not replay: {exc}"
    expected = _result(state, termination, record.offender)
    if isinstance(expected, str):
        return f"{label}: {expected}"
    # Every record the arbiter wrote has its outcome; one written without (by hand) reads as none.
    recorded = _Result(list(record.scores), record.winner, record.outcome)
    if recorded != expected:
        shown = "; ".join(f"{name} {mine!r} where the moves give {theirs!r}"
                          for name, mine, theirs in zip(_Result._fields, recorded, expected) if mine != theirs)
        return f"{label}: the recorded result contradicts its moves ({shown})"
    if scoring is not None:
        offender = record.offender if termination.is_fault else None
        places = game_places(expected.scores, expected.winner, offender)
        for key, kept, value in (("places", record.places, places),
                                 ("points", record.points, scoring.points(places, expected.scores))):
            if kept is not None and not _same_numbers(kept, value):
                return f"{label}: its {key} {kept!r} are not what its result gives under the tournament's " \
                       f"scoring ({value!r})"
    return None


class RecordAudit:
    """The store's audit (`GameStore.audit`): each record's `replay_problem`, its rules run in
    the rules host unless they are the arbiter's own (`rules_host.hosted`). A record whose
    replay the rules cannot finish is accepted unverified: `unverified` counts them, and
    `note` is told of each (the first NOTED_UNVERIFIED by name), because a folder must not be
    refused, nor a resume stopped, for a failure of the rules."""

    def __init__(self, scoring: Scoring | None = None, seeds: RunSeeds | None = None,
                 note: Callable[[str], None] | None = None) -> None:
        self.scoring = scoring
        self.seeds = seeds
        self.note = note
        self.unverified = 0

    def __call__(self, record: GameRecord) -> str | None:
        """What contradicts `record` (`replay_problem`), or None: it holds, or its replay failed."""
        replayed_here = record.termination.is_void or not isinstance(record.game, str) or not hosted(record.game)
        if replayed_here:  # nothing of the rules is run (void), or they are our own
            return replay_problem(record, self.scoring, self.seeds)
        try:
            return RULES_HOST.call(f"{__name__}:{replay_problem.__name__}", record, self.scoring, self.seeds,
                                   game=record.game, doing=f"replaying game {record.id or '?'}")
        except RulesFailed as exc:
            self.unverified += 1
            if self.note is not None and self.unverified <= NOTED_UNVERIFIED:
                more = "" if self.unverified < NOTED_UNVERIFIED else \
                    " (further records not replayed are not listed one by one)"
                self.note(f"game {record.id or '?'} was accepted without its tamper check: {exc}{more}")
            return None

    def said_in_all(self) -> None:
        """Tell `note` how many records were accepted unverified in all, when it was not told of each."""
        if self.note is not None and self.unverified > NOTED_UNVERIFIED:
            self.note(f"{self.unverified} records in all were accepted without their tamper check")


def _void_problem(record: GameRecord, label: str) -> str | None:
    """What contradicts a void record: a winner, an offender, places or points. Its moves are
    not replayed: the rules failed (or the worker died) somewhere in them, and replaying them
    could fail this process the same way at every resume (docs/records.md, Void games)."""
    for key in ("winner", "offender", "places", "points"):
        if getattr(record, key) is not None:
            return f"{label}: it is recorded as void, which counts for no one, but has {key} {getattr(record, key)!r}"
    return None


def scoring_of(described: Any) -> Scoring | None:
    """The Scoring a results folder's description keeps (`asdict` of the config's), or None if it has none."""
    if not isinstance(described, dict):
        return None
    known = {f.name for f in fields(Scoring)}
    try:
        values = {k: tuple(v) if k == "places" else v for k, v in described.items() if k in known}
        return Scoring(**values)
    except (TypeError, ValueError):
        return None


def _same_numbers(recorded: Any, expected: list[Any]) -> bool:
    return (isinstance(recorded, list) and len(recorded) == len(expected)
            and all(isinstance(a, (int, float)) and not isinstance(a, bool) and math.isclose(a, b, abs_tol=1e-9)
                    for a, b in zip(recorded, expected)))


_MOVER_FAULTS = (Termination.MALFORMED, Termination.ILLEGAL)


class _Result(NamedTuple):
    """What a record says of how its game ended, and what its moves say."""

    scores: list[int]
    winner: int | None
    outcome: str | None


def _result(state: State[Any], termination: Termination, offender: Any) -> _Result | str:
    """The scores, winner and outcome the referee records for this ending of `state`, or why
    the ending cannot have happened there."""
    if termination is Termination.NORMAL:
        if not state.is_over():
            return f"it is recorded as ended normally, but after its {len(state.history)} moves the game is not over"
        return _Result(list(state.scores), state.winner(), state.outcome)
    if not isinstance(offender, int) or isinstance(offender, bool) or not 0 <= offender < state.game.num_players:
        return f"it is recorded as a fault ({termination.value}) without a seat as the offender ({offender!r})"
    # A move can only be malformed or illegal from the seat asked to move; a crash, output out
    # of turn or a timeout (at start-up, or handing over a line) can be anyone's.
    if termination in _MOVER_FAULTS and (state.is_over() or offender != state.current_player):
        turn = "the game was over" if state.is_over() else f"it was seat {state.current_player}'s turn"
        return f"it is recorded as a fault ({termination.value}) by seat {offender}, but {turn}"
    return _Result(list(state.fault_scores(offender, termination.value)), state.fault_winner(offender),
                   state.fault_outcome(offender, termination.value))


__all__ = ["RecordAudit", "replay_problem", "scoring_of"]
