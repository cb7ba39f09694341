"""The Python bot kit: a bot is a function from the current position to a move.

    from arbiter.bot import run_bot

    def choose(state, ctx):
        return ctx.rng.choice(state.legal_moves())

    if __name__ == "__main__":
        run_bot(choose)

The kit speaks the wire protocol of docs/protocol.md, its lines read by `protocol.py`
(where the referee writes them): it reads the `Game` line (or,
for the codecup dialect, is told the game with `--game NAME -p KEY=VALUE`), tracks the
position with the rules library (chance's outcomes included, from `Chance` lines), answers
`Start`, relayed moves and chance whenever it is its turn (extra moves included), flushes
every line, and exits on `Quit`. A `Game` line after a game has ended begins the next game in
the same process (docs/protocol.md, Many games per process): a fresh position and context
(`ctx.memory` included), the same `ctx.rng`.
"""
from __future__ import annotations

import os
import random
import sys
import time
from types import SimpleNamespace

from . import protocol
from .games import CHANCE, Game, GameError, State, find_game
from .protocol import GameLine, GameLineError  # GameLineError: the kit's, too

# Every bot start imports this module, and a bot's start-up is paid in every game it plays:
# names used only in annotations come from `typing` for type checkers alone (importing it,
# like `dataclasses`, costs milliseconds; benchmarks/bench_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, Callable, Iterator, Protocol

    from .transport.zmq_bot import ZmqBotChannel

    class LineChannel(Protocol):
        """Where a bot's protocol lines come from and go to (pipes or a socket)."""

        def lines(self) -> Iterator[str]:
            """Incoming lines without their line ending, until the peer closes."""
            ...

        def send(self, line: str) -> None:
            """Send one line (no line ending) and flush it."""
            ...

    Chooser = Callable[[State[Any], "BotContext"], Any]

class StdioChannel:
    """The protocol over the bot's own stdin and stdout."""

    def lines(self) -> Iterator[str]:
        for raw in sys.stdin:
            yield raw.rstrip("\r\n")

    def send(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def close(self) -> None:
        """Nothing to release: the standard streams belong to the process."""


class BotContext:
    """What a bot's choose function may use besides the position.

    A plain class, not a dataclass: see TYPE_CHECKING above."""

    def __init__(self, game: Game[Any], seat: int, rng: random.Random, time_ms: int | None = None,
                 move_ms: int | None = None, started: float | None = None,
                 memory: dict[str, Any] | None = None) -> None:
        self.game = game
        self.seat = seat
        self.rng = rng
        self.time_ms = time_ms  # the whole game's budget, if the arbiter said
        self.move_ms = move_ms
        self.started = time.monotonic() if started is None else started
        self.memory: dict[str, Any] = {} if memory is None else memory  # kept across moves of one game

    def __repr__(self) -> str:
        return (f"BotContext(game={self.game.describe()!r}, seat={self.seat}, time_ms={self.time_ms}, "
                f"move_ms={self.move_ms})")

    def log(self, message: str) -> None:
        """Write a debug line to stderr (the arbiter saves it to the game's log)."""
        print(message, file=sys.stderr, flush=True)


def parse_game_line(line: str) -> tuple[Game[Any], GameLine]:
    """`Game NAME k=v ...` -> the game it names, ready to play, and what the line says
    (`protocol.parse_game_line`); GameLineError for a game the bot cannot play: an unknown
    game, a bad parameter, or a seat the game does not have."""
    said = protocol.parse_game_line(line)
    try:
        game = find_game(said.game, **said.params)
    except GameError as exc:
        raise GameLineError(str(exc)) from None
    if said.seat is not None and said.seat >= game.num_players:
        raise GameLineError(f"seat={said.seat} but {game.describe()} has seats 0 to {game.num_players - 1}")
    return game, said


def bot_arguments(description: str) -> argparse.ArgumentParser:
    """The options every kit bot understands; a bot may add its own."""
    import argparse  # not at the top: see read_kit_options

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--game", help="the game, for bots run without a Game line (codecup dialect)")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a game parameter, with --game")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed the random choices (default: $ARBITER_SEED, which a tournament sets per game; "
                             "without either, a fresh random seed)")
    sockets = parser.add_argument_group("sockets", "playing over ZeroMQ (docs/remote-bots.md)")
    where = sockets.add_mutually_exclusive_group()
    where.add_argument("--connect", default=None, metavar="ENDPOINT",
                       help="speak over a ZeroMQ socket connected to ENDPOINT instead of stdin/stdout "
                            "(default: $ARBITER_ENDPOINT if set)")
    where.add_argument("--bind", default=None, metavar="ENDPOINT",
                       help="bind ENDPOINT and wait for the arbiter to connect (a bot on a server)")
    sockets.add_argument("--keys", default=None, metavar="FILE",
                         help="this bot's CURVE key pair file, from `arbiter keys NAME` (default: $ARBITER_KEYS)")
    sockets.add_argument("--server-key", default=None, metavar="KEY",
                         help="the arbiter's CURVE public key, as text or a .key file (default: $ARBITER_SERVER_KEY)")
    parser.add_argument("--serve", action="store_true",
                        help="keep playing game after game on one channel (remote bots)")
    return parser


def run_bot(choose: Chooser, *, description: str = "an arbiter bot",
            parser: argparse.ArgumentParser | None = None,
            argv: list[str] | None = None, channel: LineChannel | None = None) -> int:
    """Run a bot on the protocol until `Quit` (or, with --serve, until the channel closes)."""
    args = read_kit_options(sys.argv[1:] if argv is None else argv) if parser is None else None
    if args is None:
        args = (parser or bot_arguments(description)).parse_args(argv)
    opened = None  # a channel the kit opens, the kit closes
    if channel is None:
        channel = opened = open_channel(args)
    try:
        fixed_game = None
        if args.game:
            pairs = [p.split("=", 1) for p in args.param]
            if any(len(pair) != 2 for pair in pairs):
                raise GameLineError(f"-p takes KEY=VALUE, got {args.param}")
            try:
                fixed_game = find_game(args.game, **dict(pairs))
            except GameError as exc:
                raise GameLineError(str(exc)) from None
        rng = random.Random(args.seed if args.seed is not None else _environment_seed())
        session = _Session(choose, channel, rng, fixed_game)
        for line in channel.lines():
            line = line.strip()
            if not line:
                continue  # CodeCup's arbiter has been seen to send empty lines
            if not session.handle(line):
                if not args.serve:
                    break
                session = _Session(choose, channel, rng, fixed_game)
    except GameLineError as exc:
        print(f"{_program_name()}: cannot play: {exc}", file=sys.stderr, flush=True)
        return 2
    finally:
        if opened is not None:
            opened.close()  # a socket lets the last move leave before the bot exits
    return 0


def exit_now(status: int) -> None:
    """End the bot process with `status` at once, as `sys.exit` would, less the interpreter's
    teardown: the exit handlers run (`atexit`) and the standard streams are flushed, then the
    process ends without unloading its modules or joining its threads.

    Python's own teardown takes about 5 ms even for a bot of a few imports (1 ms with this),
    in every game the bot plays, after its `Quit`: the arbiter waits for that exit before it
    starts the next game. `sys.exit(run_bot(choose))` stays right for a bot that keeps
    threads or files it expects the interpreter to close."""
    import atexit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120  # as Python's own exit does when it cannot flush
    os._exit(status)


# The kit's options (bot_arguments) as read_kit_options reads them: option -> (attribute, kind).
_KIT_OPTIONS: dict[str, tuple[str, str]] = {
    "--game": ("game", "text"), "-p": ("param", "list"), "--param": ("param", "list"),
    "--seed": ("seed", "int"), "--connect": ("connect", "text"), "--bind": ("bind", "text"),
    "--keys": ("keys", "text"), "--server-key": ("server_key", "text"), "--serve": ("serve", "flag"),
}


def read_kit_options(argv: list[str]) -> SimpleNamespace | None:
    """The kit's options in `argv` as `bot_arguments(...).parse_args(argv)` reads them, or None
    when `argv` holds anything else (help, a mistake, an abbreviation, `--`, a value that
    looks like an option), which only argparse can answer.

    Building the argparse parser costs a bot about 5 ms (the import, gettext lookups, and
    shutil with zlib, bz2 and lzma for the terminal's width), a sixth of a bare interpreter's
    start, in every game; a tournament's bot command is `bot.py --seed 1` at most.
    """
    values: dict[str, Any] = {"game": None, "param": [], "seed": None, "connect": None, "bind": None,
                              "keys": None, "server_key": None, "serve": False}
    words = iter(argv)
    for word in words:
        option, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        attribute, kind = _KIT_OPTIONS.get(option, ("", ""))
        if not attribute or (kind == "flag" and equals):
            return None
        if kind == "flag":
            values[attribute] = True
            continue
        if not equals:
            value = next(words, "-")
            if value.startswith("-"):  # a missing value, or one argparse may read as an option
                return None
        if kind == "int":
            try:
                values[attribute] = int(value)  # as argparse's type=int
            except ValueError:
                return None
        elif kind == "list":
            values[attribute].append(value)
        else:
            values[attribute] = value
    if values["connect"] is not None and values["bind"] is not None:
        return None  # argparse refuses the two together
    return SimpleNamespace(**values)


def _program_name() -> str:
    """The bot's file name without its suffix, for its messages."""
    return os.path.splitext(os.path.basename(sys.argv[0]))[0] or "bot"


def _environment_seed() -> int | None:
    """$ARBITER_SEED (docs/protocol.md) as a number, or None when it is unset or not one."""
    text = os.environ.get("ARBITER_SEED", "")
    return int(text) if text.isdigit() else None


def open_channel(args: argparse.Namespace) -> StdioChannel | ZmqBotChannel:
    """stdin/stdout, or a ZeroMQ channel for --connect/--bind or $ARBITER_ENDPOINT."""
    endpoint = args.bind or args.connect or os.environ.get("ARBITER_ENDPOINT")
    if not endpoint:
        return StdioChannel()
    from .transport.zmq_bot import ZmqBotChannel  # only bots on sockets need pyzmq loaded

    return ZmqBotChannel.from_environment(endpoint, bind=bool(args.bind), keys_file=args.keys,
                                          server_key=args.server_key)


class _Session:
    """One game as seen by a bot."""

    def __init__(self, choose: Chooser, channel: LineChannel, rng: random.Random,
                 game: Game[Any] | None) -> None:
        self.choose = choose
        self.channel = channel
        self.rng = rng
        self.ctx: BotContext | None = None
        self.state: State[Any] | None = None
        self.seat: int | None = None
        self.forced_left = 0  # opening moves still to come after an `Opening N` line
        if game is not None:  # told by --game: no seat and no clock until a line says them
            self._begin(game, GameLine(game.name))

    def _begin(self, game: Game[Any], said: GameLine) -> None:
        """A new game: what an earlier game in this process left (its position, its opening
        still to come, its context and memory) is forgotten."""
        self.state = game.new_state()
        self.forced_left = 0
        self.seat = said.seat
        self.ctx = BotContext(game=game, seat=-1 if said.seat is None else said.seat, rng=self.rng,
                              time_ms=said.time_ms, move_ms=said.move_ms)

    def handle(self, line: str) -> bool:
        """Process one incoming line; False when the game is finished (`Quit`)."""
        if line == protocol.QUIT:
            return False
        if line.startswith(protocol.GAME_WORD + " "):
            self._begin(*parse_game_line(line))
            return True
        if self.state is None or self.ctx is None:
            raise SystemExit(f"bot: got {line!r} before knowing the game; pass --game or send a Game line")
        if self.forced_left:  # a move of the opening: apply it, never answer it
            self.forced_left -= 1
            self._apply_relayed(line)
            return True
        forced = protocol.parse_opening(line)
        if forced is not None:
            self.forced_left = forced
            return True
        outcome = protocol.parse_chance(line)
        if outcome is not None:  # the referee's dice: applied, then answered if it is our turn
            if self.state.current_player != CHANCE or self.state.is_over():
                self.ctx.log(f"bot: got {line!r}, but the game is not at a chance node")
                raise SystemExit(1)
            self._apply_relayed(outcome)
            if self.seat is not None:
                self._move_while_our_turn()
            return True
        if self.seat is None:  # no Game line said it: learnt as the codecup dialect has it
            self.seat = self.ctx.seat = protocol.CODECUP.seat_from_first_line(line)
        if line != protocol.START:
            self._apply_relayed(line)
        self._move_while_our_turn()
        return True

    def _apply_relayed(self, line: str) -> None:
        assert self.state is not None and self.ctx is not None
        try:
            self.state.play(line)
        except GameError as exc:
            self.ctx.log(f"bot: cannot apply relayed move: {exc}")
            raise SystemExit(1) from None

    def _move_while_our_turn(self) -> None:
        state, ctx = self.state, self.ctx
        assert state is not None and ctx is not None
        while not state.is_over() and state.current_player == self.seat:
            move = self.choose(state, ctx)
            text = move if isinstance(move, str) else ctx.game.format_move(move)
            self.channel.send(text)
            state.play(text)
