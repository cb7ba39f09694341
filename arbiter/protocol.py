"""The dialogue of docs/protocol.md, line by line: what the arbiter writes to a bot, how a bot
reads it, and the dialects that change it.

Every line of the protocol is written and parsed here, and only here: the referee writes
them, `arbiter check` rebuilds them for its transcripts, and the bot kit (`bot.py`) reads
them. A bot writes nothing but moves, which are the game's business (`Game.parse_move`).

    Game NAME KEY=VALUE ... seat=K time_ms=N [move_ms=N]   format_game_line / parse_game_line
    Opening N, then N moves                                 opening_lines / parse_opening
    Start                                                   START
    the other seats' moves, one a line
    Chance OUTCOME, chance's draw, to every seat            format_chance_line / parse_chance
    Quit                                                    QUIT
    (or, to a bot that plays many games in one process, the next game's Game line instead)

A dialect (`Dialect`) says which of these a bot is sent and when: `ArbiterDialect`, the
default, and `CodecupDialect`, for entries written for one fixed game as in the contest.
A player's config names its dialect; `find_dialect` turns the name into the dialect.

It belongs to the transport layer (which turns bytes into lines; this module says what the
lines mean) and imports nothing of the layers above. It sits at the top of the package
rather than in `transport/` because every bot imports it at start-up, on its clock, and the
transport package loads `dataclasses` and `typing`, which cost a bot milliseconds
(benchmarks/bench_startup.py). For the same reason it imports nothing at run time but
`types` (which `site`, and the bot kit, load anyway), and `GameLine` is a plain class
rather than a frozen dataclass.
"""
from __future__ import annotations

from types import MappingProxyType

TYPE_CHECKING = False  # `typing` only for type checkers: see the module's docstring
if TYPE_CHECKING:
    from typing import Mapping, Sequence

    from .games import Game

START = "Start"  # to the seat to move first, once the game (or its opening) has begun
QUIT = "Quit"  # the game is over; then the bot's input is closed
GAME_WORD = "Game"  # the first word of the `Game` line
OPENING_WORD = "Opening"  # the first word of the line that frames an opening's moves
CHANCE_WORD = "Chance"  # the first word of the line that says the outcome the referee drew at a chance node
GAME_LINE_KEYS = ("seat", "time_ms", "move_ms")  # the `Game` line's own keys, not game parameters


class GameLineError(ValueError):
    """A `Game` line that cannot be read, or (in the bot kit) a game a bot cannot play."""


class GameLine:
    """What a `Game` line says. Immutable and compared by value, like a frozen dataclass.

    A line from elsewhere may leave out its own keys: a reader then gets None for them."""

    __slots__ = ("game", "params", "seat", "time_ms", "move_ms")
    game: str  # the game's name, as `find_game` takes it
    params: Mapping[str, str]  # every game parameter in its text form (as `-p` takes it), in order; read-only
    seat: int | None  # the bot's seat, 0-based
    time_ms: int | None  # the bot's budget for the whole game
    move_ms: int | None  # the cap on each move; None: no cap

    def __init__(self, game: str, params: Mapping[str, str] | None = None, seat: int | None = None,
                 time_ms: int | None = None, move_ms: int | None = None) -> None:
        init = object.__setattr__
        init(self, "game", game)
        init(self, "params", MappingProxyType(dict(params or {})))
        init(self, "seat", seat)
        init(self, "time_ms", time_ms)
        init(self, "move_ms", move_ms)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a GameLine cannot be changed (its {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a GameLine cannot be changed (its {name!r})")

    def _fields(self) -> tuple[object, ...]:
        return self.game, dict(self.params), self.seat, self.time_ms, self.move_ms

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not GameLine:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # its params are a mapping, as a frozen dataclass's would be

    def __repr__(self) -> str:
        return (f"GameLine(game={self.game!r}, params={dict(self.params)!r}, seat={self.seat!r}, "
                f"time_ms={self.time_ms!r}, move_ms={self.move_ms!r})")


def format_game_line(game: Game[object], seat: int, time_ms: int, move_ms: int | None = None) -> str:
    """The `Game` line a bot in `seat` of `game` is sent first, e.g.
    `Game dots-and-triangles rows=4 players=2 seat=1 time_ms=30000` (`move_ms` only when set)."""
    words = [GAME_WORD, game.name, game.param_text(), f"seat={seat}", f"time_ms={time_ms}"]
    if move_ms is not None:
        words.append(f"move_ms={move_ms}")
    return " ".join(w for w in words if w)


def parse_game_line(line: str) -> GameLine:
    """What a `Game NAME KEY=VALUE ...` line says; GameLineError when it is not one, or when
    `seat`, `time_ms` or `move_ms` is not a whole number (`move_ms=null` is no cap).

    Whether the game exists and takes these parameters is the rules' to say (`find_game`)."""
    words = line.split()
    if len(words) < 2 or words[0] != GAME_WORD:
        raise GameLineError(f"not a Game line: {line!r}")
    params = dict(word.split("=", 1) for word in words[2:] if "=" in word)  # other words are ignored
    own: dict[str, int | None] = {}
    for key in GAME_LINE_KEYS:
        value = params.pop(key, None)
        if value is None or (key == "move_ms" and value == "null"):
            continue
        if not (value.isascii() and value.isdigit()):
            raise GameLineError(f"{key}={value} in the Game line is not a whole number")
        own[key] = int(value)
    return GameLine(words[1], params, own.get("seat"), own.get("time_ms"), own.get("move_ms"))


def opening_lines(moves: Sequence[str]) -> list[str]:
    """An opening as every seat is sent it: `Opening N`, then its N moves; none for no opening.

    Framed, so that a bot knows which moves are forced and answers none of them."""
    return [f"{OPENING_WORD} {len(moves)}", *moves] if moves else []


def parse_opening(line: str) -> int | None:
    """N for an `Opening N` line (the N lines after it are the opening's moves); None for any
    other line. ValueError when N is not a number."""
    if not line.startswith(OPENING_WORD + " "):
        return None
    return int(line.split()[1])


def format_chance_line(outcome: str) -> str:
    """The line every seat is sent when the referee has drawn chance's outcome (its text, as the
    game writes it: `Chance Roll 4` in Pig), in the game's order among the moves."""
    return f"{CHANCE_WORD} {outcome}"


def parse_chance(line: str) -> str | None:
    """The outcome a `Chance OUTCOME` line says (all after the first blank); None for any other line."""
    if not line.startswith(CHANCE_WORD + " "):
        return None
    return line[len(CHANCE_WORD) + 1:]


class Dialect:
    """What a bot's dialect changes in the dialogue (docs/protocol.md, What a bot is sent).

    A dialect is a type: one subclass per dialect, each a set of answers to the questions
    below, and one instance of each in `DIALECTS`."""

    name = ""  # as a config's `dialect:` and `--dialect` name it
    sends_game_line = True  # whether a bot is first sent the `Game` line
    takes_openings = True  # whether a game in this dialect may start from an opening
    seats: int | None = None  # how many seats a game must have (None: any number)
    relays_final_moves = True  # whether the moves a bot has not seen are sent before `Quit`
    # Whether a bot must also take the end of its input, with no `Quit`, as the end of the
    # game (the arbiter always sends `Quit`; the contest's own arbiter did not after a winning move).
    ends_without_quit = False

    def first_lines(self, game: Game[object], seat: int, time_ms: int, move_ms: int | None,
                    opening: Sequence[str]) -> list[str]:
        """What a bot in `seat` is sent before the game begins: its `Game` line if the dialect
        has one, then the opening (the referee refuses an opening where `takes_openings` is false)."""
        first = [format_game_line(game, seat, time_ms, move_ms)] if self.sends_game_line else []
        return first + opening_lines(opening)

    def last_lines(self, unsent: Sequence[str]) -> list[str]:
        """What a bot is sent after the game's last move, `unsent` being the moves it has not
        been sent yet (the one that ended the game among them): those, as the dialect has them,
        then `Quit`."""
        return [*self.between_games_lines(unsent), QUIT]

    def between_games_lines(self, unsent: Sequence[str]) -> list[str]:
        """What a bot that plays many games in one process is sent after a game's last move:
        its last lines without `Quit`, which the next game's `Game` line takes the place of
        (docs/protocol.md, Many games per process)."""
        return list(unsent) if self.relays_final_moves else []

    @property
    def plays_many_games(self) -> bool:
        """Whether a bot in this dialect can be told that a next game begins: only a `Game`
        line can say so, and only a dialect that sends one."""
        return self.sends_game_line

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class ArbiterDialect(Dialect):
    """The default: the `Game` line tells the bot its game, seat and clock; openings allowed;
    any number of seats; at the end every seat sees the final position, then `Quit`."""

    name = "arbiter"


class CodecupDialect(Dialect):
    """For bots written for one fixed game, as CodeCup entries are: no `Game` line (a bot knows
    its game by itself and learns its seat from its first line), two seats, no openings, and,
    as in the contest, the move that ended the game is never relayed."""

    name = "codecup"
    sends_game_line = False
    takes_openings = False  # an opening would make the first line something other than Start or a move
    seats = 2
    relays_final_moves = False  # what is unsent at the end is the move that ended the game, or the turn that held it
    ends_without_quit = True

    @staticmethod
    def seat_from_first_line(line: str) -> int:
        """A bot's seat from the first line it is sent: `Start` for the first seat; the other
        seat's move for the second."""
        return 0 if line == START else 1


ARBITER = ArbiterDialect()
CODECUP = CodecupDialect()
DIALECTS: dict[str, Dialect] = {dialect.name: dialect for dialect in (ARBITER, CODECUP)}


def find_dialect(name: str) -> Dialect:
    """The dialect a config names; ValueError for an unknown name."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise ValueError(f"unknown dialect {name!r}; dialects are {', '.join(DIALECTS)}") from None


__all__ = ["ARBITER", "CHANCE_WORD", "CODECUP", "DIALECTS", "GAME_LINE_KEYS", "QUIT", "START", "ArbiterDialect",
           "CodecupDialect", "Dialect", "GameLine", "GameLineError", "find_dialect", "format_chance_line",
           "format_game_line", "opening_lines", "parse_chance", "parse_game_line", "parse_opening"]
