"""The interface every game module implements.

A game is pure data plus pure functions: no processes, clocks or files.
`Game` holds the validated parameters and the notation; `State` is one
position, mutable, with `clone()` for search. The public `play`/`apply`
check turn and legality once, here; each game implements only its rule.
"""
from __future__ import annotations

import re
from abc import ABC, abstractmethod

# Every bot start imports this module (through arbiter/bot.py), and a bot's start-up is paid
# in every game it plays: `typing` (about 2 ms to import) and `dataclasses` (about 5 ms) are
# left to type checkers, so `Param` is a plain class (benchmarks/bench_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, ClassVar, Generic, Hashable, TypeVar

    Move = TypeVar("Move", bound=Hashable)
else:
    class Generic:
        """`typing.Generic` as far as the running program needs it: `Game[int]` is `Game`."""

        def __class_getitem__(cls, item: object) -> type:
            return cls

    Move = "Move"  # the type variable, for type checkers only


CHANCE = -1  # the seat of chance: `current_player` at a chance node, and a chance outcome's seat in a record
# At most this many move texts a game object keeps read (`Game.read_move`): every text of a
# board's moves, not every string a hostile bot can make up.
MAX_READINGS = 10_000


class GameError(ValueError):
    """Base class of every error the rules library raises."""


class GameParamError(GameError):
    """An unknown game name or a bad game parameter."""


class MalformedMove(GameError):
    """The text cannot be parsed as a move of this game at all."""

    def __init__(self, text: str, why: str) -> None:
        super().__init__(f"malformed move {text!r}: {why}")
        self.text = text
        self.why = why


class IllegalMove(GameError):
    """A well-formed move that is not allowed in the current position."""

    def __init__(self, text: str, why: str) -> None:
        super().__init__(f"illegal move {text!r}: {why}")
        self.text = text
        self.why = why


_INTEGER = re.compile(r"[-+]?[0-9]+")


def parse_int(text: str) -> int:
    """An integer written in ASCII digits with an optional sign; no blanks, no `_`, no
    other scripts' digits (which `int` alone would accept: `int("1_0") == 10`)."""
    if not _INTEGER.fullmatch(text):
        raise ValueError(f"not an integer: {text!r}")
    return int(text)


def _always_fine(value: Any) -> str | None:
    """The default `Param.check`: every value parse accepts is allowed."""
    return None


class Param:
    """One named game parameter: its default, how to read it from text, and its check."""

    __slots__ = ("name", "default", "description", "parse", "check")

    def __init__(self, name: str, default: Any, description: str, parse: Callable[[str], Any] = parse_int,
                 check: Callable[[Any], str | None] = _always_fine) -> None:
        self.name = name
        self.default = default
        self.description = description
        self.parse = parse
        # Returns None when the value is fine, else a sentence saying what is allowed.
        self.check = check

    def __repr__(self) -> str:
        return f"Param({self.name!r}, default={self.default!r})"

    def read(self, game: str, raw: Any) -> Any:
        """Convert and validate one raw value (text or already typed)."""
        try:
            value = self.parse(raw) if isinstance(raw, str) else raw
            if self.parse is parse_int and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"not an integer: {raw!r}")
            problem = self.check(value)
        except (TypeError, ValueError) as exc:
            raise GameParamError(
                f"{game}: parameter {self.name}={raw!r} is not valid ({exc}); {self.description}"
            ) from None
        if problem:
            raise GameParamError(f"{game}: parameter {self.name}={raw!r} is out of range: {problem}")
        return value


def int_range(low: int, high: int | None = None) -> Callable[[Any], str | None]:
    """A `Param.check` for an integer in [low, high] (no upper bound when high is None)."""

    def check(value: Any) -> str | None:
        if value < low or (high is not None and value > high):
            return f"must be >= {low}" if high is None else f"must be between {low} and {high}"
        return None

    return check


class Game(ABC, Generic[Move]):
    """A game with fixed parameters: the factory of states and the owner of the notation."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[tuple[Param, ...]] = ()

    def __init__(self, **params: Any) -> None:
        known = {p.name: p for p in self.parameters}
        unknown = sorted(set(params) - set(known))
        if unknown:
            choices = ", ".join(known) or "none"
            raise GameParamError(
                f"{self.name}: unknown parameter {unknown[0]!r}; parameters are: {choices}"
            )
        self.params: dict[str, Any] = {
            p.name: p.read(self.name, params.get(p.name, p.default)) for p in self.parameters
        }
        self._readings: dict[str, tuple[Move, str]] = {}  # `read_move`'s texts
        self._setup()

    def _setup(self) -> None:
        """Precompute whatever the parameters determine (geometry, tables)."""

    @property
    def num_players(self) -> int:
        """How many seats the game has."""
        return int(self.params.get("players", 2))

    def param_text(self) -> str:
        """The parameters as `key=value` words, as sent on the `Game` line."""
        return " ".join(f"{p.name}={self.format_param(p.name)}" for p in self.parameters)

    def format_param(self, name: str) -> str:
        """One parameter's value in the same text form `Param.parse` reads."""
        return str(self.params[name])

    def json_params(self) -> dict[str, Any]:
        """Every parameter as a game record keeps it (docs/records.md, `params`): numbers and
        text as they are, anything else in the text form `format_param` gives and `-p` takes."""
        return {name: value if isinstance(value, (bool, int, float, str)) else self.format_param(name)
                for name, value in self.params.items()}

    def describe(self) -> str:
        """The game name with its parameters, e.g. `dots-and-triangles rows=4 players=2`."""
        text = self.param_text()
        return f"{self.name} {text}" if text else self.name

    @abstractmethod
    def new_state(self) -> State[Move]:
        """The initial position."""

    @abstractmethod
    def parse_move(self, text: str) -> Move:
        """Text to move; raises MalformedMove. Does not look at any position, and the move is
        a value never changed once made (`read_move` reads each text once per game object and
        hands out the same move when the text comes again)."""

    @abstractmethod
    def format_move(self, move: Move) -> str:
        """Move to its canonical text: `format_move(parse_move(t))` is canonical."""

    def read_move(self, text: str) -> tuple[Move, str]:
        """`parse_move(text)` and the move's canonical text; raises as `parse_move` does.
        Neither looks at a position, so each text is read once per game object (up to
        MAX_READINGS texts) and the same move handed out again: a referee reads every line
        a bot sends, a replay every move of every record."""
        reading = self._readings.get(text)
        if reading is None:
            move = self.parse_move(text)
            reading = (move, self.format_move(move))
            if len(self._readings) < MAX_READINGS:
                self._readings[text] = reading
        return reading


class State(ABC, Generic[Move]):
    """One position of a game. Mutable; `clone()` gives an independent copy."""

    def __init__(self, game: Game[Move]) -> None:
        self.game = game
        self.history: list[Move] = []

    # --- what each game implements -------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int:
        """Seat index (0-based) of the player to move; meaningless once the game is over."""

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every move allowed now, in a stable order; empty when the game is over."""

    @abstractmethod
    def illegal_reason(self, move: Move) -> str | None:
        """None if the move is allowed now, else why not."""

    @abstractmethod
    def _apply(self, move: Move) -> None:
        """Apply an already validated move."""

    @property
    @abstractmethod
    def scores(self) -> list[int]:
        """Points per seat so far."""

    @abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def key(self) -> Hashable:
        """A compact hashable key: equal for equal positions, whatever the move order."""

    @abstractmethod
    def render(self) -> str:
        """An ASCII picture of the position."""

    @abstractmethod
    def clone(self) -> State[Move]:
        """An independent copy."""

    # --- shared behaviour ----------------------------------------------------------
    @property
    def outcome(self) -> str | None:
        """A game-specific name for how the game ended (e.g. a claim), if any."""
        return None

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        """At a chance node (`current_player == CHANCE`), each possible outcome with its
        probability, in a stable order; elsewhere none. The outcome is drawn outside the game
        (the referee's dice, docs/protocol.md, Chance) and applied like a move, with `play`."""
        return []

    def winner(self) -> int | None:
        """The seat with the strictly highest score, or None for a draw (or not over)."""
        if not self.is_over():
            return None
        return unique_best(self.scores)

    def is_legal(self, move: Move) -> bool:
        """Whether the move is allowed now."""
        return self.illegal_reason(move) is None

    def apply(self, move: Move, text: str | None = None) -> None:
        """Validate then apply a move; raises IllegalMove (naming the move, as `text` when
        given) if not allowed. The one place a move is checked, applied and recorded."""
        reason = "the game is over" if self.is_over() else self.illegal_reason(move)
        if reason is not None:
            raise IllegalMove(self._text_of(move) if text is None else text, reason)
        self._apply(move)
        self.history.append(move)

    def play(self, text: str) -> Move:
        """Parse, validate and apply a move given as text; returns the parsed move.

        Raises MalformedMove when the text is not a move of this game at all, and
        IllegalMove when it is one but not allowed now; both name the text. At a chance node
        the text names one of chance's outcomes (`chance_outcomes`), as the referee drew it."""
        outcomes = self.chance_outcomes()
        if outcomes:
            move = self._chance_move(text, outcomes)
        else:
            move = self.game.read_move(text)[0]
        self.apply(move, text)
        return move

    def _chance_move(self, text: str, outcomes: list[tuple[Move, float]]) -> Move:
        """The outcome of chance written `text`; IllegalMove when chance has none written so."""
        for move, _ in outcomes:
            if self.game.format_move(move) == text:
                return move
        shown = ", ".join(self.game.format_move(m) for m, _ in outcomes[:3])
        raise IllegalMove(text, f"it is not an outcome of chance here ({len(outcomes)} are: {shown}, ...)")

    def _text_of(self, move: Move) -> str:
        """The move's notation, or its repr when it is not even a move of this game."""
        try:
            return self.game.format_move(move)
        except (IndexError, KeyError, TypeError, ValueError):
            return repr(move)

    def fault_scores(self, offender: int, termination: str) -> list[int]:
        """Scores to record when `offender` loses by a fault; by default, the scores so far."""
        return list(self.scores)

    def fault_outcome(self, offender: int, termination: str) -> str | None:
        """A game-specific name for a fault ending (e.g. TIMEOUT), if the game has such names."""
        return None

    def fault_winner(self, offender: int) -> int | None:
        """Who wins when `offender` faults: the other seat in a two-seat game, else the
        best-scoring other seat (None on a tie)."""
        if self.game.num_players == 2:
            return 1 - offender
        others = [s if seat != offender else float("-inf") for seat, s in enumerate(self.scores)]
        return unique_best(others)


def unique_best(values: list[Any]) -> int | None:
    """Index of the strictly largest value, or None when it is shared."""
    best = max(values)
    leaders = [i for i, v in enumerate(values) if v == best]
    return leaders[0] if len(leaders) == 1 else None
