"""OpenSpiel's perfect-information games behind our `Game`/`State` interface.

`find_game("openspiel:connect_four", rows=5)` plays OpenSpiel's `connect_four` with its own
parameter `rows=5`: the referee, tournaments, records, audits and the bot kit need no change.
Only sequential games of perfect information for two or more players are played. A game
with chance nodes (dice) stops at each: its `current_player` is `CHANCE` and its
`chance_outcomes()` are OpenSpiel's, and the outcome is drawn outside the game (by the
referee, from the game's seed) and applied like a move (docs/games.md, "OpenSpiel's games").

A move is the text OpenSpiel writes for an action (`state.action_to_string(player, action)`:
`x3` in Connect Four, `Nf3` in chess, `roll` in Pig, `Roll 4` for chance's die in Pig),
exactly: it is the canonical form, relayed and recorded as sent. A bot's text is read by the
legal moves' own texts, so a move the rules write is never the bot's fault; legal moves the
rules write so that they cannot be told apart or sent (two with one text) are the rules'
failure (`NotationError`), never a bot's. Variants whose native rules crash or hang are refused
by name (`REFUSED_VARIANTS`). `pyspiel` is imported by the first OpenSpiel game found, never by
the registry itself (a bot's start-up is on its clock).
"""
from __future__ import annotations

import math
import re

from .base import CHANCE, Game, GameParamError, MalformedMove, Param, State, unique_best

TYPE_CHECKING = False  # `typing` is for type checkers: bots import this module (see base.py)
if TYPE_CHECKING:
    from typing import Any, Callable, Hashable

PREFIX = "openspiel:"  # the registry's family prefix: `openspiel:NAME` is OpenSpiel's game NAME
MAX_MOVE_CHARS = 200  # longer text is no action of any game (backgammon's longest is ~40)
MOVES_SHOWN = 5  # an illegal move's reason quotes this many of the legal ones
MAX_SENDABLE = 100_000  # legal moves' texts a game object keeps as checked (backgammon's run to thousands)
# A text that no action of the game is written as is malformed; the text of an action that
# is not legal now is illegal. A legal move's text is always legal, whatever these say (the
# bot's text is first looked up among the legal moves': `OpenSpielState.apply`); the rest is
# told apart by these, which need no position:
# - Games whose action text depends only on the player and the action, never on the position:
#   the text of every action of every player, from the initial state, is the vocabulary.
#   tests/test_games_openspiel.py checks each over random games.
POSITION_FREE_NOTATION = frozenset({
    "breakthrough", "checkers", "clobber", "connect_four", "cursor_go", "dots_and_boxes", "go", "gomoku",
    "havannah", "hex", "hive", "lines_of_action", "maedn", "mancala", "mnk", "nim", "nine_mens_morris",
    "othello", "oware", "pentago", "pig", "tic_tac_toe", "twixt", "y", "yacht",
})
# - Games whose text depends on the position (chess's `Nxe5`, backgammon's hits, Chinese
#   checkers' jumps): the shape of their notation, as OpenSpiel writes it. (Asking OpenSpiel
#   for the text of an action that is not legal is no way out: chess crashes the process.)
_SAN = r"(O-O(-O)?|[A-Z][a-h]?[1-8]?x?[a-h][1-8]|[a-h](x[a-h])?[1-8](=[A-Z])?|[A-Z]@[a-h][1-8])[+#]?"
_GAMMON_STEP = r"(Bar|[0-9]{1,2})(/([0-9]{1,2}|Off)\*?)+(\([0-9]\))?|Pass"
_SQUARE = r"\([0-9]{1,2},[0-9]{1,2}\)"
NOTATION_SHAPES: dict[str, str] = {
    "amazons": r"[XO] (From|To|Shoot:) \([0-9]{1,2}, [0-9]{1,2}\)",
    "antichess": _SAN,
    "backgammon": rf"Pass|[0-9]{{1,4}} - ({_GAMMON_STEP})( ({_GAMMON_STEP}))*",
    "banqi": rf"Flip{_SQUARE}|[A-Za-z]{_SQUARE}[-x]{_SQUARE}",
    "chess": _SAN,
    "chinese_checkers": r"Pass|[0-9]{1,3}(->|=>)[0-9]{1,3}",
    "crazyhouse": _SAN,
    "einstein_wurfelt_nicht": r"[BW][1-6]-(up|down|left|right|diag)\*?",
    "quoridor": r"[a-z][0-9]{1,2}[hv]?",
    "shogi": r"[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i]",
    "ultimate_tic_tac_toe": r"Choose local board [0-8]|Local board [0-8]: [xo]\([0-2],[0-2]\)",
    "xiangqi": rf"[A-Za-z]{_SQUARE}-{_SQUARE}",
}


def _quoridor_seats(params: dict[str, Any]) -> bool:
    return params["players"] > 2


def _hex_swap_not_square(params: dict[str, Any]) -> bool:
    return bool(params["swap"]) and params["num_rows"] != params["num_cols"]


# Variants whose native rules crash the process or hang in random play, refused before any
# game by the name, the parameters as OpenSpiel settled them and the reason (docs/games.md,
# "Refused variants", has how each was found: benchmarks/fuzz_openspiel.py and its counts).
# Each entry: OpenSpiel's game name, which settled parameters it refuses, those parameters in
# words, and why.
REFUSED_VARIANTS: tuple[tuple[str, Callable[[dict[str, Any]], bool], str, str], ...] = (
    ("quoridor", _quoridor_seats, "players=3 or players=4",
     "OpenSpiel's rules fail in games of three or four seats: they list a move off the board as "
     "legal (a boxed-in player's only move, written `_14`, which OpenSpiel's parser cannot read), "
     "playing it fails a CHECK (quoridor.cc:619 or :623), and their legal-move list can loop forever"),
    ("hex", _hex_swap_not_square, "swap=true with num_rows != num_cols",
     "the swap's mirror square falls off a board that is not square: a stone vanishes, a cell is "
     "played twice, and the process dies of a segmentation fault"),
)


class NotationError(RuntimeError):
    """The rules wrote a position's legal moves so that a bot cannot name each one (two share a
    text, or one cannot travel as a line): the rules' failure, never a bot's. Not a GameError,
    so the referee never takes it for a bot's illegal or malformed move."""


_classes: dict[str, type[OpenSpielGame]] = {}


def _pyspiel() -> Any:
    """The `pyspiel` module, or a GameParamError saying how to install it."""
    try:
        import pyspiel
    except ImportError:
        raise GameParamError(
            "OpenSpiel's games need the open_spiel package: pip install 'arbiter[openspiel]'"
        ) from None
    return pyspiel


def supported_names() -> list[str]:
    """OpenSpiel's games this adapter plays: sequential, perfect information, two or more seats,
    and chance (if any) as explicit chance nodes."""
    pyspiel = _pyspiel()
    return sorted(t.short_name for t in pyspiel.registered_games() if _refusal(pyspiel, t) is None)


def _refusal(pyspiel: Any, game_type: Any) -> str | None:
    """Why a game of this type cannot be played here, or None."""
    kinds = pyspiel.GameType
    if game_type.information != kinds.Information.PERFECT_INFORMATION:
        return "it is not a game of perfect information"
    if game_type.dynamics != kinds.Dynamics.SEQUENTIAL:
        return "its players do not move one at a time"
    if game_type.chance_mode == kinds.ChanceMode.SAMPLED_STOCHASTIC:
        return "it draws its chance inside the game, where the arbiter cannot seed or record it"
    if game_type.max_num_players < 2:
        return "it is a game for one player"
    if any(not isinstance(v, (bool, int, float, str)) for v in game_type.parameter_specification.values()):
        return "it takes another game as a parameter"
    return None


def game_class(spiel_name: str) -> type[OpenSpielGame]:
    """The Game class of OpenSpiel's game `spiel_name` (made once, then kept); GameParamError
    naming the game when it is unknown or not one this adapter plays."""
    if spiel_name in _classes:
        return _classes[spiel_name]
    pyspiel = _pyspiel()
    types = {t.short_name: t for t in pyspiel.registered_games()}
    game_type = types.get(spiel_name)
    problem = "OpenSpiel has no such game" if game_type is None else _refusal(pyspiel, game_type)
    if problem is not None:
        raise GameParamError(f"{PREFIX}{spiel_name} cannot be played: {problem}; OpenSpiel's games that can are: "
                             f"{', '.join(PREFIX + n for n in supported_names())}")
    spec = dict(game_type.parameter_specification)
    parameters = [_param(name, default) for name, default in sorted(spec.items())]
    cls = type(f"OpenSpiel_{spiel_name}", (OpenSpielGame,), {
        "name": PREFIX + spiel_name, "spiel_name": spiel_name, "parameters": tuple(parameters),
        "__doc__": f"OpenSpiel's {spiel_name}.",
    })
    _classes[spiel_name] = cls
    return cls


def _param(name: str, default: bool | int | float | str) -> Param:
    """One of OpenSpiel's parameters as ours: read by the type of its default."""
    if isinstance(default, bool):
        return Param(name, default, "true or false", parse=_parse_bool, check=_is(bool, "true or false"))
    if isinstance(default, int):
        return Param(name, default, "an integer")
    if isinstance(default, float):
        return Param(name, default, "a number", parse=_parse_float, check=_is_number)
    return Param(name, default, "a word without blanks", parse=str, check=_is_word)


def _parse_bool(text: str) -> bool:
    # Python's own spelling is read too: `str(value)` of a record's parameter is `False`.
    if text not in ("true", "false", "True", "False"):
        raise ValueError(f"not true or false: {text!r}")
    return text in ("true", "True")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text!r}")
    return value


def _is(kind: type, what: str) -> Callable[[Any], str | None]:
    return lambda value: None if isinstance(value, kind) else f"must be {what}"


def _is_number(value: Any) -> str | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return None if ok else "must be a number"


def _is_word(value: Any) -> str | None:
    # The Game line sends parameters as key=value words, so a value cannot hold a blank; it
    # may be empty (`fen=`: antichess's and efg_game's defaults).
    ok = isinstance(value, str) and value.isprintable() and not any(c.isspace() for c in value)
    return None if ok else "must be a word without blanks (it is sent as key=value on the Game line)"


class OpenSpielGame(Game[str]):
    """An OpenSpiel game with fixed parameters; moves are OpenSpiel's action texts.

    Made per OpenSpiel game by `game_class`, with its `name`, `spiel_name` and `parameters`."""

    spiel_name: str

    def __init__(self, **params: Any) -> None:
        # Only the parameters given go to OpenSpiel: a default can depend on another parameter
        # (hex's num_rows is its board_size unless given), so passing every default would change
        # the game. `params` then holds the values OpenSpiel settled on, all of them.
        self._given = frozenset(params)
        super().__init__(**params)

    def _setup(self) -> None:
        pyspiel = _pyspiel()
        for p in self.parameters:
            if isinstance(p.default, float):  # a whole number given for a real parameter
                self.params[p.name] = float(self.params[p.name])
        spiel_params = {k: v for k, v in self.params.items() if k in self._given}
        try:
            self.spiel_game = pyspiel.load_game(self.spiel_name, spiel_params)
        except (pyspiel.SpielError, ValueError) as exc:
            raise GameParamError(f"{self.name}: OpenSpiel refuses the parameters: {_one_line(exc)}") from None
        settled = self.spiel_game.get_parameters()
        self.params.update({k: v for k, v in settled.items() if k in self.params})
        refusal = self.refused()  # before a state is made: making one may be what crashes
        if refusal is not None:
            raise GameParamError(refusal)
        try:
            start = self.spiel_game.new_initial_state()  # some games check their parameters only here
        except (pyspiel.SpielError, ValueError) as exc:
            raise GameParamError(f"{self.name}: OpenSpiel refuses the parameters: {_one_line(exc)}") from None
        if self.spiel_game.num_players() < 2:
            raise GameParamError(f"{self.name}: {self.spiel_game.num_players()} player(s); "
                                 "the arbiter plays games of two or more")
        self._sendable: set[str] = set()  # legal moves' texts found sendable (`named`)
        self.vocabulary: frozenset[str] | None = None
        shape = NOTATION_SHAPES.get(self.spiel_name)
        self.notation: re.Pattern[str] | None = re.compile(shape) if shape is not None else None
        if self.spiel_name in POSITION_FREE_NOTATION:
            while start.is_chance_node():  # the players' texts are the same after any outcome
                start.apply_action(start.chance_outcomes()[0][0])
            self.vocabulary = frozenset(start.action_to_string(player, action)
                                        for player in range(self.spiel_game.num_players())
                                        for action in range(self.spiel_game.num_distinct_actions()))

    def refused(self) -> str | None:
        """Why these parameters (as OpenSpiel settled them) are a refused variant, in one line
        naming the game, the parameters and the reason; None when they are not."""
        for spiel_name, refuses, which, why in REFUSED_VARIANTS:
            if spiel_name == self.spiel_name and refuses(self.params):
                return f"{self.describe()} is refused ({which}): {why} (docs/games.md, Refused variants)"
        return None

    @property
    def num_players(self) -> int:
        return self.spiel_game.num_players()

    def format_param(self, name: str) -> str:
        value = self.params[name]
        return ("true" if value else "false") if isinstance(value, bool) else str(value)

    def new_state(self) -> OpenSpielState:
        return OpenSpielState(self, self.spiel_game.new_initial_state())

    def parse_move(self, text: str) -> str:
        # Only what no legal move's text can be (`OpenSpielState._legal` holds the rules to it):
        # the vocabulary and the notation's shape are judged with the position, in `apply`.
        problem = _unsendable(text)
        if problem is not None:
            raise MalformedMove(text[:MAX_MOVE_CHARS], problem)
        return text

    def named(self, texts: list[str], actions: list[int]) -> dict[str, int]:
        """A position's legal actions by their texts (in their order); NotationError when the
        rules wrote two alike, or one that cannot travel as a line: no bot could name it."""
        named = dict(zip(texts, actions))
        # Texts once found sendable are not looked at again: a position's are mostly those of
        # the last (go's 361 would double the cost of listing them).
        if len(named) != len(actions) or not self._sendable.issuperset(named):
            seen: dict[str, int] = {}
            for text, action in zip(texts, actions):
                # The same action listed twice (4-seat quoridor does) is still named by its text.
                twin = seen.get(text, action)
                problem = _unsendable(text) or (f"so is action {twin}" if twin != action else None)
                if problem is not None:
                    raise NotationError(f"the rules of {self.name} wrote legal action {action} as "
                                        f"{text[:MAX_MOVE_CHARS]!r}, which no bot can name ({problem})")
                seen[text] = action
            if len(self._sendable) < MAX_SENDABLE:
                self._sendable.update(named)
        return named

    def misspelt(self, text: str) -> str | None:
        """Why `text` is no move of the game in any position (outside its vocabulary or the
        shape of its notation), or None. Asked only of a text that is not legal now."""
        if self.vocabulary is not None and text not in self.vocabulary:
            return f"no move of {self.name} is written so"
        if self.notation is not None and self.notation.fullmatch(text) is None:
            return f"no move of {self.name} is written so (not in OpenSpiel's notation of it)"
        return None

    def format_move(self, move: str) -> str:
        return move


class OpenSpielState(State[str]):
    """A position of an OpenSpiel game: its `pyspiel` state (`spiel_state`, for bots that search
    with OpenSpiel's own algorithms). At a chance node `current_player` is `CHANCE` (OpenSpiel's
    own -1) and the legal moves are chance's outcomes."""

    def __init__(self, game: OpenSpielGame, spiel_state: Any) -> None:
        super().__init__(game)
        self.spiel_state = spiel_state
        self._actions: dict[str, int] | None = None  # the legal moves' texts, made when first asked

    @property
    def current_player(self) -> int:
        return self.spiel_state.current_player()

    def _legal(self) -> dict[str, int]:
        """Each legal move's text and its action; NotationError when the rules write two legal
        moves with one text, or one that cannot travel as a line (a bot could not name it)."""
        if self._actions is None:
            state, player = self.spiel_state, self.spiel_state.current_player()
            actions = [] if state.is_terminal() else state.legal_actions()
            to_text = state.action_to_string
            self._actions = self.game.named([to_text(player, action) for action in actions], actions)  # type: ignore[attr-defined]
        return self._actions

    def legal_moves(self) -> list[str]:
        return list(self._legal())

    def illegal_reason(self, move: str) -> str | None:
        legal = self._legal()
        if move in legal:
            return None
        shown = ", ".join(list(legal)[:MOVES_SHOWN]) + (", ..." if len(legal) > MOVES_SHOWN else "")
        return f"it is not a legal move of seat {self.current_player} now ({len(legal)} are: {shown})"

    def apply(self, move: str, text: str | None = None) -> None:
        """As `State.apply`, but a text that is neither legal now nor a move of the game in any
        position is a MalformedMove (the referee records it so); a legal move's text is legal
        whatever the game's notation says."""
        if not self.is_over() and move not in self._legal():
            why = self.game.misspelt(move)  # type: ignore[attr-defined]
            if why is not None:
                raise MalformedMove(move, why)
        super().apply(move, text)

    def _apply(self, move: str) -> None:
        self.spiel_state.apply_action(self._legal()[move])
        self._actions = None

    def chance_outcomes(self) -> list[tuple[str, float]]:
        state = self.spiel_state
        if not state.is_chance_node():
            return []
        outcomes = [(action, state.action_to_string(CHANCE, action), probability)
                    for action, probability in state.chance_outcomes()]
        if self._actions is None:  # the texts are the legal moves' too: made once (yacht's 5 dice have 7,776)
            self._actions = self.game.named([text for _, text, _ in outcomes],  # type: ignore[attr-defined]
                                            [action for action, _, _ in outcomes])
        return [(text, probability) for _, text, probability in outcomes]

    @property
    def scores(self) -> list[int]:
        return [_points(r) for r in self.spiel_state.returns()]

    def winner(self) -> int | None:
        """The seat with the strictly highest return (not rounded), or None."""
        return unique_best(self.spiel_state.returns()) if self.is_over() else None

    @property
    def outcome(self) -> str | None:
        returns = self.spiel_state.returns()
        if self.is_over() and any(r != _points(r) for r in returns):
            return f"returns {', '.join(f'{r:g}' for r in returns)}"
        return None

    def is_over(self) -> bool:
        return self.spiel_state.is_terminal()

    def key(self) -> Hashable:
        return (str(self.spiel_state), self.spiel_state.current_player())

    def render(self) -> str:
        return str(self.spiel_state)

    def clone(self) -> OpenSpielState:
        copy = OpenSpielState(self.game, self.spiel_state.clone())  # type: ignore[arg-type]
        copy.history = list(self.history)
        return copy


def _unsendable(text: str) -> str | None:
    """Why `text` cannot travel as a move line (the transport strips blanks at a line's ends),
    or None."""
    if not text or len(text) > MAX_MOVE_CHARS or not text.isascii() or not text.isprintable():
        return f"a move is printable ASCII, 1 to {MAX_MOVE_CHARS} characters"
    if text != text.strip():
        return "a move neither starts nor ends with a blank"
    return None


def _points(value: float) -> int:
    """A return as the record's whole points: the return itself when whole (OpenSpiel's
    perfect-information games return -1, 0 and 1, backgammon up to 3), else rounded, with
    the exact returns kept in the outcome."""
    return int(round(value))


def _one_line(exc: BaseException) -> str:
    """OpenSpiel's message on one line, without its `OpenSpiel exception: ` prefix."""
    text = " ".join(str(exc).split())
    return text.removeprefix("OpenSpiel exception: ")


__all__ = ["NotationError", "OpenSpielGame", "OpenSpielState", "REFUSED_VARIANTS", "game_class", "supported_names"]
