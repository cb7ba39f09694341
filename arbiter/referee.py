"""The referee: one game between bot programs, with clocks, suspension and fault adjudication.

`play_game` launches one bot per seat, speaks the protocol of docs/protocol.md with each,
times every move, and always returns a `GameRecord` saying who won and why, whatever the
bots do. A fault (timeout, crash, malformed or illegal move, output out of turn) ends the
game at once as a loss for the offender; faults are results, never exceptions.

The lines of the dialogue, and what a player's dialect changes in them, come from
`protocol.py`.

A player with `reuse` may play many games in one process: given the `KeptBots` of the
thread that plays its games (kept_bots.py), the referee takes that player's live bot from it
instead of launching one, sends it the new `Game` line, and after a game that ended normally
hands it back instead of sending `Quit` (docs/protocol.md, Many games per process).

It is thread-safe: a tournament runs several games at once, one per worker thread. It
installs no signal handlers, and the only state its games share is locked: the shortest
start-up each bot command has had (`_FastestStartups`, which paces the first look at a
starting bot) and the transport's guardian process.
"""
from __future__ import annotations

import re
import shlex
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any, Callable, Hashable, Literal, Mapping, NamedTuple, Sequence

from .chance import ChanceDice, fresh_seed
from .games import CHANCE, Game, GameError, MalformedMove, State
from .kept_bots import KeptBots, LiveBot
from .protocol import QUIT, START, Dialect, find_dialect, format_chance_line
from .records import GameRecord, MoveRecord, PlayerRef, Termination
from .transport import TIMEOUT, BadLine, Channel, Closed, ReadResult
from .transport.pipe import launch_pipe_bot, output_look
from .transport.priority import punctual
from .transport.process import BotProcess, LaunchError, end_all, launch_side_by_side
from .transport.sandbox import SandboxSpec
from .transport.shown import not_shown_hint
from .transport import write_cap
from .transport.endpoints import EndpointError, LeaseCancelled, SocketSpec, check_socket

QUIT_GRACE_S = 0.5  # after `Quit`, how long a bot may take to exit before SIGTERM
TERM_GRACE_S = 0.3  # after SIGTERM, before SIGKILL
WAKE_S = 0.05  # a waiting referee looks at `cancel` and the bot's exit this often
CRASH_WAIT_S = 0.2  # after a bot's output closes, how long to wait for its exit status
# ...and after its socket closes: a ZeroMQ bot's socket closes while its interpreter is still
# ending (its context's teardown), which on a busy machine can take longer than CRASH_WAIT_S.
SOCKET_CRASH_WAIT_S = 1.0
STARTUP_TIMEOUT = "did not finish starting within"  # the detail of a start-up timeout, before its limit
STARTUP_POLL_S = 0.001  # how often a starting bot's processes are looked at (and so its start-up's precision)
# A start-up's first look at a bot waits for this share of the shortest start-up its command
# has had in this process (a Python bot takes 20 ms or more, and every look costs the
# arbiter's CPU); from then on it is looked at every STARTUP_POLL_S.
FIRST_LOOK_SHARE = 0.8
LATE_LINES_READ = 1000  # after the game, at most this many lines a bot wrote are read (to note them)...
LATE_LINES_SHOWN = 3  # ...and this many quoted in its log
# Under `clock: cpu` a bot that blocks without using CPU would never run out of time:
# its wall time per turn (and per move, with move_ms) is capped at this multiple, not counting
# the time its processes waited for a CPU.
CPU_CLOCK_WALL_FACTOR = 4
MIN_CPU_CHECK_S = 0.005  # under `clock: cpu`, the shortest wait between two CPU readings
# After a game, how long a bot kept for its next game may take to read the last moves and
# wait for its input again; one still busy then is ended as after any game.
SETTLE_S = QUIT_GRACE_S


@dataclass(frozen=True)
class TimeControl:
    """A bot's clock for one game; see docs/protocol.md."""

    time_ms: int = 30000  # the whole game's budget
    move_ms: int | None = None  # optional cap per move
    clock: Literal["wall", "cpu"] = "wall"  # what the budget counts
    suspend_idle: bool = True  # SIGSTOP the bot while it is not its turn
    memory_mb: int | None = 2048  # RLIMIT_DATA per process; None: no limit
    startup_ms: int = 10000  # off the clock, how long a launched bot may take to start
    charge_startup: bool = False  # True: no start-up phase; starting counts in the first turn


@dataclass(frozen=True)
class PlayerSpec:
    """How to run one seat's bot."""

    name: str
    command: tuple[str, ...]  # already split
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # added to os.environ
    dialect: Literal["arbiter", "codecup"] = "arbiter"  # a name of protocol.DIALECTS (codecup: no `Game` line)
    time: TimeControl | None = None  # None: the game's TimeControl
    # pipe: stdin/stdout; zmq: launched, over a socket; remote: not launched (docs/protocol.md, Sockets)
    transport: Literal["pipe", "zmq", "remote"] = "pipe"
    socket: SocketSpec = field(default_factory=SocketSpec)  # zmq and remote: endpoint and keys
    # The bot's box (docs/security.md): what it may see beyond the defaults; None: unsandboxed.
    sandbox: SandboxSpec | None = field(default_factory=SandboxSpec)
    # Whether its bot may play game after game in one process (docs/protocol.md, Many games
    # per process): pipe bots of a dialect with a `Game` line only.
    reuse: bool = False

    def command_text(self) -> str:
        """The command as recorded: the shell-quoted words, or where a remote bot is."""
        return self.socket.describe() if self.transport == "remote" else shlex.join(self.command)

    def clock(self, default: TimeControl) -> TimeControl:
        """This seat's time control: its own, or else the game's `default`."""
        return self.time or default


class GameAborted(Exception):
    """`play_game` was cancelled; every bot process has already been ended."""


@dataclass(frozen=True)
class _Ending:
    termination: Termination
    offender: int | None
    detail: str


class _Seat:
    """One seat during a game: its bot's channel and process, pending relays, clock."""

    def __init__(self, index: int, spec: PlayerSpec, time_control: TimeControl, log_path: Path | None) -> None:
        self.index = index
        self.spec = spec
        self.dialect: Dialect = find_dialect(spec.dialect)
        self.time = time_control
        self.log_path = log_path
        self.channel: Channel | None = None
        self.process: BotProcess | None = None
        self.pending: list[str] = []  # lines to send when the seat is next handed the turn
        self.used_ms = 0.0  # clock used so far (wall or CPU ms, as `time.clock` says)
        self.cpu_mark_ms: float | None = None  # the bot's CPU time once it was last stopped
        self.suspended_cpu_ms = 0.0  # CPU time its bot used while stopped, charged to its clock
        # Its box's write folders, checked after its turns only where the kernel cannot cap them.
        self.write_capped = spec.sandbox is not None and bool(spec.sandbox.write) and write_cap.available() is not None
        self.launched_at = 0.0  # when its launch began (the referee's clock)
        self.startup_ms: float | None = None  # how long it took to start, when that was watched
        self.game_of_process: int | None = None  # which game of its process this is (1: launched for it)
        self.handed_back = False  # its bot was kept for its next game, alive, at the end of this one
        self.turn_plan: _TurnPlan | None = None  # made at its first turn, its bot launched

    @property
    def label(self) -> str:
        return f"seat {self.index} ({self.spec.name})"

    @property
    def suspends(self) -> bool:
        return self.time.suspend_idle and self.process is not None


def play_game(game: Game[Any], players: Sequence[PlayerSpec], *, time: TimeControl = TimeControl(),
              opening: Sequence[str] = (), log_dir: Path | None = None, log_prefix: str = "",
              cancel: threading.Event | None = None,
              on_turn: Callable[[State[Any]], None] | None = None, chance_seed: int | None = None,
              kept: KeptBots | None = None) -> GameRecord:
    """Play one game between launched bots and return its record.

    A game with chance nodes has their outcomes drawn from `chance_seed` (a fresh one when
    None), which its record keeps (docs/protocol.md, Chance). A seat whose player has `reuse`
    takes its bot from `kept` when one is kept there, and after a normal end gives it back
    alive; without `kept` every bot is launched for the game.

    Raises ValueError for bad arguments (wrong number of players, an illegal opening)
    before any process starts, and GameAborted when `cancel` is set (bots already ended).
    """
    state = _check_arguments(game, players, opening, time)
    seats = [
        _Seat(k, spec, spec.clock(time), _log_path(log_dir, log_prefix, k, spec.name))
        for k, spec in enumerate(players)
    ]
    if log_dir is not None:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
    started_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    started = _now()
    referee = _Referee(game, state, seats, list(opening), cancel, on_turn,
                       ChanceDice(fresh_seed() if chance_seed is None else chance_seed), kept)
    try:
        ending = referee.run()
        referee.shut_down(ending)
    except BaseException:
        referee.kill_all()
        raise
    return referee.record(ending, started_at, _now() - started)


_now = time.monotonic  # every clock of the referee (bound here: no extra call per reading)


class _TurnPlan(NamedTuple):
    """What a seat's every turn uses, worked out at its first turn of a game: its channel,
    process and clock, whether it is stopped between turns, and the calls that stop, resume
    and read the CPU time of its bot (`BotProcess.turn_calls`)."""

    channel: Channel
    process: BotProcess | None
    time: TimeControl
    suspends: bool
    cpu_clock: bool
    wall_factor: float  # the wall cap's share of the clock (CPU_CLOCK_WALL_FACTOR under `clock: cpu`)
    suspend: Callable[[], None] | None
    resume: Callable[[], None] | None
    cpu_ms: Callable[[], float]

    @classmethod
    def of(cls, seat: _Seat) -> _TurnPlan:
        channel, process, tc = seat.channel, seat.process, seat.time
        assert channel is not None
        cpu_clock = tc.clock == "cpu"
        factor = CPU_CLOCK_WALL_FACTOR if cpu_clock else 1
        if process is None:  # a remote bot: its CPU time is not known
            return cls(channel, None, tc, False, cpu_clock, factor, None, None, _no_cpu_ms)
        suspend, resume, cpu_ms = process.turn_calls()
        return cls(channel, process, tc, seat.suspends, cpu_clock, factor, suspend, resume, cpu_ms)


def _no_cpu_ms() -> float:
    return 0.0


def _startup_key(seat: _Seat) -> tuple[object, ...]:
    """What a bot's start-up time depends on: its command, folder, and whether it is boxed."""
    return seat.spec.command, seat.spec.cwd, seat.spec.sandbox is not None


class _FastestStartups:
    """The shortest start-up each bot command (`_startup_key`) has had in this process, shared
    by the games that tournament threads play side by side: hence the lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seconds: dict[tuple[object, ...], float] = {}

    def get(self, key: tuple[object, ...]) -> float:
        """The shortest start-up of `key` so far, in seconds; 0 before its first."""
        with self._lock:
            return self._seconds.get(key, 0.0)

    def note(self, key: tuple[object, ...], seconds: float) -> None:
        """Remember one start-up of `key` that took `seconds`, if it was its shortest."""
        with self._lock:
            self._seconds[key] = min(seconds, self._seconds.get(key, seconds))


_FASTEST_STARTUPS = _FastestStartups()


def _check_arguments(game: Game[Any], players: Sequence[PlayerSpec], opening: Sequence[str],
                     time: TimeControl) -> State[Any]:
    """The position after the opening; ValueError when the game cannot be played as asked."""
    if len(players) != game.num_players:
        raise ValueError(f"{game.describe()} has {game.num_players} seats, but {len(players)} players were given")
    for k, spec in enumerate(players):
        if not spec.command and spec.transport != "remote":
            raise ValueError(f"seat {k} ({spec.name}): the command is empty")
        try:
            check_socket(spec.transport, spec.socket)
        except EndpointError as exc:
            raise ValueError(f"seat {k} ({spec.name}): {exc}") from None
        if spec.transport == "zmq" and spec.sandbox is not None and spec.socket.bind:
            raise ValueError(f"seat {k} ({spec.name}): a sandboxed bot reaches its seat through a private socket "
                             "the arbiter makes; bind: needs the sandbox off for this player")
        if spec.transport == "remote" and spec.clock(time).clock != "wall":
            raise ValueError(f"seat {k} ({spec.name}): a remote bot's time can only be measured with clock: wall")
        try:
            dialect = find_dialect(spec.dialect)
        except ValueError as exc:
            raise ValueError(f"seat {k} ({spec.name}): {exc}") from None
        if spec.reuse and (spec.transport != "pipe" or not dialect.plays_many_games):
            raise ValueError(f"seat {k} ({spec.name}): only a pipe bot of a dialect with a Game line "
                             "can play many games in one process (reuse)")
        if opening and not dialect.takes_openings:
            raise ValueError(
                f"seat {k} ({spec.name}) uses the {dialect.name} dialect, which cannot be sent an opening "
                "(its seat is inferred from its first line)"
            )
    state = game.new_state()
    for number, text in enumerate(opening, 1):
        if state.current_player == CHANCE and not state.is_over():
            raise ValueError(f"opening move {number} of {len(opening)}: the game is at a chance node, "
                             "whose outcome the referee draws; an opening stops before one")
        try:
            state.play(text)
        except GameError as exc:
            raise ValueError(f"opening move {number} of {len(opening)}: {exc}") from None
    if opening and state.is_over():
        raise ValueError(f"the opening ({len(opening)} moves) already ends the game")
    return state


def seat_log_name(prefix: str, seat: int, name: str | None = None) -> str:
    """A seat's stderr log's file name: `prefix`, the seat, the player's name made safe for a
    file name, `.log`; without `name`, what every such name for that seat starts with (the
    results folder's store lists a game's logs by it)."""
    start = f"{prefix}seat{seat}-"
    return start if name is None else start + (re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip(".") or "bot") + ".log"


def _log_path(log_dir: Path | None, prefix: str, seat: int, name: str) -> Path | None:
    return None if log_dir is None else Path(log_dir) / seat_log_name(prefix, seat, name)


class _Referee:
    """The state of one game in progress; `run` is the game loop."""

    def __init__(self, game: Game[Any], state: State[Any], seats: list[_Seat], opening: list[str],
                 cancel: threading.Event | None, on_turn: Callable[[State[Any]], None] | None,
                 dice: ChanceDice, kept: KeptBots | None = None) -> None:
        self.game = game
        self.dice = dice
        self.kept = kept
        self.state = state
        self.seats = seats
        self.cancel = cancel
        self.on_turn = on_turn
        # Every move so far as (seat, text, wall_ms, cpu_ms, forced): the record's `MoveRecord`s
        # are made once the game is over (`record`), not between a move's arrival and the next
        # hand-over, where each would cost a few microseconds of every turn.
        self.moves: list[tuple[int, str, float, float, bool]] = []
        self.cleanup_problems: list[str] = []  # what the arbiter failed to tidy after the game: noted, blames no bot
        self.doubts: list[str] = []  # verdicts the arbiter's own lateness left open, given to the bot: noted
        self._output_look: Callable[[], list[int]] | None = None  # `_look`: made once every seat has its channel
        replay = game.new_state()
        for text in opening:
            seat = replay.current_player
            self.moves.append((seat, game.format_move(replay.play(text)), 0.0, 0.0, True))

    # --- the game loop ---------------------------------------------------------------
    def run(self) -> _Ending:
        """Launch the bots and play until the game ends or a bot faults."""
        fault = self._launch()
        if fault:
            return fault
        state = self.state
        self._draw_chance()
        if state.is_over():  # chance alone ended it (a game may: OpenSpiel's are not built to)
            return _Ending(Termination.NORMAL, None, self._normal_detail())
        # After the opening (if any), the seat to move is told to start.
        self.seats[state.current_player].pending.append(START)
        # The turns' looks at a bot's clock are made when its deadline falls (priority.py). Not
        # the start-up's: its looks cost CPU every millisecond, which would be the starting bots'.
        seats, cancel, on_turn = self.seats, self.cancel, self.on_turn
        check_quiet, play_turn, look = self._check_quiet, self._play_turn, self._look()
        with punctual():
            while not state.is_over():
                if cancel is not None and cancel.is_set():  # bots that answer at once never
                    raise GameAborted("the game was cancelled")  # leave the read loop's wake-ups
                # Before every hand-over, no bot may have written anything: one look at every
                # seat, and the check that reads what it found only when it found something.
                fault = (look() and check_quiet()) or play_turn(seats[state.current_player])
                if fault:
                    return fault
                if on_turn is not None:
                    on_turn(state)
        fault = self._check_quiet(game_over=True)
        if fault:
            return fault
        return _Ending(Termination.NORMAL, None, self._normal_detail())

    def _launch(self) -> _Ending | None:
        """Start every bot, send the `Game` line and opening, and stop it until its turn."""
        opening = [move[1] for move in self.moves]
        remote = [seat for seat in self.seats if seat.spec.transport == "remote"]
        if remote:  # all at once: they may wait for each other's bots to connect, or for other games
            from .transport.zmq import lease_remote_seats  # ZeroMQ is loaded by a game that uses it
            try:
                leases = lease_remote_seats([(f"remote player {s.spec.name}", s.spec.socket) for s in remote],
                                            cancel=self.cancel)
            except LeaseCancelled:
                raise GameAborted("the game was cancelled") from None
            for seat, channel in zip(remote, leases):
                seat.channel = channel
        kept = [seat for seat in self.seats if self._take_kept(seat)]
        if kept:  # first, so that a kept bot that ended after its last game is launched with the rest
            fault = self._welcome_kept(kept, opening)
            if fault:
                return fault
        launched = [seat for seat in self.seats if seat.spec.transport != "remote" and seat.process is None]
        outcomes = launch_side_by_side([partial(self._start_bot, seat) for seat in launched])
        for seat, outcome in zip(launched, outcomes):
            if not isinstance(outcome, BaseException):
                seat.channel, seat.process = outcome  # before any failure: ended with the rest
                seat.game_of_process = 1
        for seat, outcome in zip(launched, outcomes):
            if isinstance(outcome, LaunchError):
                return _Ending(Termination.CRASH, seat.index, f"{seat.label} could not be started: {outcome}")
            if isinstance(outcome, BaseException):
                raise outcome
        for seat in self.seats:
            if seat.game_of_process is not None and seat.game_of_process > 1:
                continue  # a kept bot: sent its first lines already
            first = seat.dialect.first_lines(self.game, seat.index, seat.time.time_ms, seat.time.move_ms, opening)
            if first:
                sent = seat.channel.send_lines(first, _now() + 1.0)  # a fresh pipe takes 64 KiB at once
                if sent is not None:
                    return self._send_fault(seat, sent)
            if seat.suspends and seat.time.charge_startup:
                assert seat.process is not None
                seat.process.suspend()  # at once: its start-up runs on its first turn's clock
        return self._start_up([seat for seat in launched if not seat.time.charge_startup])

    # --- many games per process (kept_bots.py) -----------------------------------------
    def _reuses(self, seat: _Seat) -> bool:
        """Whether the seat's bot may be taken from, and given back to, the kept bots."""
        return self.kept is not None and seat.spec.reuse

    @staticmethod
    def _kept_key(seat: _Seat) -> Hashable:
        """What a kept bot must have been launched with to play this seat (its player, command,
        folder, box and memory limit; not its environment, which holds the first game's seed)."""
        spec = seat.spec
        return spec.name, spec.command, spec.cwd, repr(spec.sandbox), seat.time.memory_mb

    def _take_kept(self, seat: _Seat) -> bool:
        """Give the seat the live bot kept for its player, if there is one."""
        if not self._reuses(seat):
            return False
        assert self.kept is not None
        bot = self.kept.take(self._kept_key(seat))
        if bot is None:
            return False
        seat.channel, seat.process = bot.channel, bot.process
        seat.game_of_process = bot.games + 1
        bot.process.drain.switch_log(seat.log_path, f"[arbiter: game {seat.game_of_process} of this bot's "
                                                    f"process {bot.process.pid}]\n")
        if bot.stopped and not (seat.suspends and seat.time.charge_startup):
            bot.process.resume()  # stopped between games; with charge_startup, until its first turn
        return True

    def _welcome_kept(self, kept: list[_Seat], opening: list[str]) -> _Ending | None:
        """Send each kept bot the new game's first lines and, off the clock as a start-up, let it
        take them in. One that ended after its last game anyway is launched afresh (said once)."""
        for seat in kept:
            assert seat.channel is not None
            seat.launched_at = _now()
            first = seat.dialect.first_lines(self.game, seat.index, seat.time.time_ms, seat.time.move_ms, opening)
            if seat.channel.send_lines(first, _now() + 1.0) is not None:
                self._let_go(seat)  # its input is closed (or full): it is not reading any more
        return self._start_up([seat for seat in kept if seat.process is not None and not seat.time.charge_startup],
                              kept=True)

    def _let_go(self, seat: _Seat) -> None:
        """A kept bot ended (or will not read) when sent a new game: end what is left of it and
        leave the seat to be launched afresh; from now on its player gets a process per game."""
        process, channel = seat.process, seat.channel
        assert process is not None and channel is not None and self.kept is not None
        channel.close_input()
        end_all([process], grace_s=0, term_grace_s=0)
        channel.close()
        assert seat.game_of_process is not None
        self._say_one_game_only(seat, process.pid, seat.game_of_process - 1)
        seat.process = seat.channel = None
        seat.game_of_process = None

    def _say_one_game_only(self, seat: _Seat, pid: int, games: int) -> None:
        """Tell the kept bots (and, once, the run) that the seat's player ends after each game."""
        assert self.kept is not None
        self.kept.one_game_only(self._kept_key(seat), f"{seat.spec.name} plays with reuse, but its process {pid} "
                                f"ended after game {games} of it instead of waiting for the next: it is started "
                                "afresh for each game from now on (docs/protocol.md, Many games per process)")

    @staticmethod
    def _start_bot(seat: _Seat) -> tuple[Channel, BotProcess]:
        """Launch the bot of a seat the arbiter starts (pipe or zmq); raises LaunchError."""
        spec = seat.spec
        seat.launched_at = _now()
        if spec.transport == "pipe":
            return launch_pipe_bot(spec.command, cwd=spec.cwd, env=spec.env, memory_mb=seat.time.memory_mb,
                                   log_path=seat.log_path, sandbox=spec.sandbox)
        from .transport.zmq import launch_zmq_bot  # ZeroMQ is loaded by a game that uses it
        return launch_zmq_bot(spec.command, label=seat.label, bind=spec.socket.bind, cwd=spec.cwd, env=spec.env,
                              memory_mb=seat.time.memory_mb, log_path=seat.log_path, sandbox=spec.sandbox)

    def _start_up(self, starting: list[_Seat], *, kept: bool = False) -> _Ending | None:
        """Off the clock, let every bot of `starting` finish starting, then stop it until its turn.

        A bot has finished when it waits for its input with nothing unread (docs/protocol.md,
        Start-up); one still starting at its `startup_ms` loses by timeout. They start side by
        side; none is asked for a move before all have finished. `kept` bots are not starting
        but taking in a new game's first lines: looked at from the first millisecond, and one
        that exits meanwhile is let go (`_let_go`), not a crash."""
        starting = list(starting)
        processes = {seat.index: seat.process for seat in starting if seat.process is not None}
        limit = {seat.index: seat.launched_at + seat.time.startup_ms / 1000 for seat in starting}
        # The first look is never after the limit, and no pause runs past a limit: a punctual
        # arbiter looks when a limit falls. Since a look finds only that a bot has finished,
        # not when, a bot is known to have been starting at its last look that found it so.
        first_look = {seat.index: min(seat.launched_at + (0.0 if kept else
                                                          FIRST_LOOK_SHARE * _FASTEST_STARTUPS.get(_startup_key(seat))),
                                      limit[seat.index]) for seat in starting}
        starting_at = {seat.index: seat.launched_at for seat in starting}
        exited = BotProcess.wait_any_exit(list(processes.values()), 0.0)
        while starting:
            now = _now()
            for seat in list(starting):
                process, channel = seat.process, seat.channel
                assert process is not None and channel is not None
                ready = now >= first_look[seat.index] and not channel.input_pending() and process.waits_for_input()
                if (ready or process in exited) and process.exit_status() is not None:
                    if kept:
                        starting.remove(seat)
                        self._let_go(seat)
                        continue
                    return self._check_quiet(game_over=False) or self._crash(seat)  # a line it wrote is its first fault
                if not ready and now >= first_look[seat.index]:
                    starting_at[seat.index] = now
                elif now > limit[seat.index]:  # the look before found it starting, and it came before the limit
                    self._note_doubt(seat, "finished starting", starting_at[seat.index], now, limit[seat.index],
                                     f"the end of its startup_ms ({seat.time.startup_ms} ms)")
                if ready:
                    seat.startup_ms = round((now - seat.launched_at) * 1000, 3)
                    if not kept:
                        _FASTEST_STARTUPS.note(_startup_key(seat), now - seat.launched_at)
                    starting.remove(seat)
                    if seat.suspends:
                        process.suspend()
                elif now - seat.launched_at >= seat.time.startup_ms / 1000:
                    return _Ending(Termination.TIMEOUT, seat.index,
                                   f"{seat.label} {STARTUP_TIMEOUT} {seat.time.startup_ms} ms "
                                   "(it never waited for its input)")
            if starting:
                if self.cancel is not None and self.cancel.is_set():
                    raise GameAborted("the game was cancelled")
                # No event says that a process fell asleep: look again after a pause (until the
                # first look that is due, at least STARTUP_POLL_S, at most WAKE_S for `cancel`,
                # and never past a limit still ahead), which a bot's exit cuts short.
                now = _now()
                pause = min(max(STARTUP_POLL_S, min(first_look[seat.index] for seat in starting) - now), WAKE_S)
                pause = min([pause, *(limit[seat.index] - now for seat in starting if limit[seat.index] > now)])
                exited = BotProcess.wait_any_exit([processes[seat.index] for seat in starting], pause)
        return None

    def _look(self) -> Callable[[], list[int]]:
        """The look at every seat's output at once (`pipe.output_look`): the seats that may
        have written something. Made once a game, every seat having its channel by then."""
        if self._output_look is None:
            self._output_look = output_look([seat.channel for seat in self.seats])  # type: ignore[misc]
        return self._output_look

    def _check_quiet(self, game_over: bool = False) -> _Ending | None:
        """Between turns, no bot may have written anything: a line found now is a protocol fault.

        Runs before every hand-off and after the game's last move. A bot whose output has
        closed by then has crashed, unless the game is over.
        """
        for index in self._look()():  # the seats that may have written something: usually none
            seat = self.seats[index]
            result = seat.channel.read_line(0.0)  # type: ignore[union-attr]
            if result is TIMEOUT:
                continue
            if isinstance(result, Closed):
                if game_over:
                    continue
                return self._crash(seat, result)
            shown = result.describe() if isinstance(result, BadLine) else repr(result)
            when = "after the game was over" if game_over else "when it was not its turn"
            return _Ending(Termination.PROTOCOL, seat.index, f"{seat.label} wrote {shown} {when}")
        return None

    def _play_turn(self, seat: _Seat) -> _Ending | None:
        """Hand the turn to `seat` and apply its moves until the turn passes; a fault, or None."""
        plan = seat.turn_plan
        if plan is None:
            plan = seat.turn_plan = _TurnPlan.of(seat)
        channel, process, tc, suspends, cpu_clock, factor, suspend, resume, cpu_ms = plan
        cpu_start = cpu_ms()
        mark = seat.cpu_mark_ms
        if suspends and mark is not None and cpu_start > mark:
            # A stopped bot runs nothing (docs/security.md, Suspension); CPU it used anyway is
            # its own, charged to its clock whichever the clock counts, never to its opponent's.
            stolen_ms = cpu_start - mark
            seat.suspended_cpu_ms += stolen_ms
            seat.used_ms += stolen_ms
        budget_ms = tc.time_ms - seat.used_ms
        if budget_ms < 0:
            budget_ms = 0.0
        turn_start = move_start = _now()  # the clock runs from the hand-over's first byte
        turn_deadline = turn_start + factor * budget_ms / 1000
        if seat.pending:
            lines, seat.pending = seat.pending, []
            # Written while the bot is still stopped, so that SIGCONT finds the lines waiting:
            # one wake-up instead of two (a stopped bot wakes, reads nothing, sleeps again).
            sent = channel.send_lines(lines, turn_deadline)
            if sent is not None:
                return self._send_fault(seat, sent)
        if suspends:
            assert resume is not None
            resume()
        cpu_move_start = cpu_start
        # A bot stopped between turns has its CPU time read once per move, after the move is
        # applied and, when its turn ends, once it is stopped: that one reading is both the
        # move's and the mark its next turn is compared with (`cpu_mark_ms`). Others' is read
        # as the move arrives, and under the CPU clock it must be: the verdict needs it.
        cpu_early = cpu_clock or not suspends
        cpu_now = cpu_start
        while True:
            wall_deadline = turn_deadline
            if tc.move_ms is not None:
                wall_deadline = min(wall_deadline, move_start + factor * tc.move_ms / 1000)
            result = self._await_line(seat, wall_deadline, cpu_start, cpu_move_start, budget_ms)
            if cpu_clock:
                arrived = _now()
                cpu_now = cpu_ms()
                turn_used_ms, move_used_ms = cpu_now - cpu_start, cpu_now - cpu_move_start
                # CPU time can only be read after the fact.
                late = turn_used_ms > budget_ms or (tc.move_ms is not None and move_used_ms > tc.move_ms)
            else:  # under the wall clock a line is in time if it arrived by the deadline
                late = False
                if result.__class__ is not str:
                    arrived = _now()
                else:
                    if cpu_early:
                        cpu_now = cpu_ms()
                    earliest, arrived = channel.arrival()
                    if arrived > wall_deadline:
                        late = earliest >= wall_deadline  # the arbiter looked at the deadline, and it was not there
                        if not late:
                            self._note_doubt(seat, f"move {len(self.moves) + 1} arrived", earliest, arrived,
                                             wall_deadline, "its deadline")
                            arrived = wall_deadline  # in doubt, in time: charged as if at the deadline
                turn_used_ms, move_used_ms = (arrived - turn_start) * 1000, (arrived - move_start) * 1000
            if result is TIMEOUT or late:
                seat.used_ms += turn_used_ms
                return self._timeout(seat, move_used_ms, turn_used_ms, budget_ms)
            if result.__class__ is not str:
                seat.used_ms += turn_used_ms
                if isinstance(result, Closed):
                    return self._crash(seat, result)
                assert isinstance(result, BadLine)
                return _Ending(Termination.MALFORMED, seat.index, f"{seat.label} sent {result.describe()}")
            played = self._play_move(seat, result)
            if played.__class__ is not str:  # malformed or illegal: an _Ending
                seat.used_ms += turn_used_ms
                if process is not None:
                    process.track_descendants()  # so that none escapes the end of the game
                return played  # type: ignore[return-value]
            state = self.state
            # The turn passes when the game is over or another is to move (chance too: its
            # outcome, sent to every seat, ends the turn even when the mover moves next).
            over = state.is_over()
            to_move = None if over else state.current_player
            passes = over or to_move != seat.index
            if passes and suspends:
                assert suspend is not None
                suspend()
                if cpu_clock:
                    seat.cpu_mark_ms = cpu_ms()  # read once stopped: any CPU after this was used suspended
            if not cpu_early:
                cpu_now = cpu_ms()
                if passes:
                    seat.cpu_mark_ms = cpu_now
            self.moves.append((seat.index, played, (arrived - move_start) * 1000, cpu_now - cpu_move_start, False))
            for other in self.seats:
                if other is not seat:
                    other.pending.append(played)
            if to_move == CHANCE:
                self._draw_chance()
            if passes:
                seat.used_ms += turn_used_ms
                if not suspends and process is not None:
                    process.track_descendants()  # so that none escapes the end of the game
                return self._check_write_cap(seat) if seat.write_capped else None
            move_start, cpu_move_start = arrived, cpu_now  # another move is due in the same turn

    def _note_doubt(self, seat: _Seat, what: str, earliest: float, latest: float, limit: float,
                    limit_text: str) -> None:
        """Note in the record a verdict the arbiter could not make because it looked late: the
        bot's `what` happened after `earliest` and by `latest`, and `limit` lies between. It is
        given to the bot (docs/protocol.md, Time)."""
        self.doubts.append(f"{seat.label} {what} between {(limit - earliest) * 1000:.1f} ms before and "
                           f"{(latest - limit) * 1000:.1f} ms after {limit_text}, the arbiter having looked "
                           "late: taken as in time")

    @staticmethod
    def _check_write_cap(seat: _Seat) -> _Ending | None:
        """After a boxed bot's turn (it is stopped: it writes only on its turn), its write
        folders must hold no more than their cap (docs/security.md); breaking it is its fault."""
        if seat.process is None or seat.process.box is None or not seat.write_capped:
            return None
        broken = seat.spec.sandbox.write_cap_broken()
        if broken is None:
            return None
        return _Ending(Termination.CRASH, seat.index, f"{seat.label} broke the limits of its sandbox: {broken}")

    def _await_line(self, seat: _Seat, wall_deadline: float, cpu_turn_start: float,
                    cpu_move_start: float, budget_ms: float) -> ReadResult:
        """The bot's next line, or TIMEOUT at the deadline; wakes now and then to look at
        `cancel`, the bot's exit and (under `clock: cpu`) its CPU time."""
        assert seat.channel is not None
        tc = seat.time
        granted_s = 0.0  # waiting for a CPU, added to the wall cap so far (under `clock: cpu`)
        while True:
            now = _now()
            wake = min(wall_deadline, now + WAKE_S)
            if tc.clock == "cpu" and seat.process is not None:
                cpu_now = seat.process.cpu_ms()
                left_ms = budget_ms - (cpu_now - cpu_turn_start)
                if tc.move_ms is not None:
                    left_ms = min(left_ms, tc.move_ms - (cpu_now - cpu_move_start))
                if left_ms <= 0:
                    return TIMEOUT
                # One thread cannot burn CPU faster than wall time, so look again then.
                wake = min(wake, now + max(left_ms / 1000, MIN_CPU_CHECK_S))
            result = seat.channel.read_line(wake)
            if result is not TIMEOUT:
                return result
            if self.cancel is not None and self.cancel.is_set():
                raise GameAborted("the game was cancelled")
            if seat.process is not None and seat.process.exit_status() is not None:
                return Closed("the bot exited")  # though a process it started holds its output open
            if _now() >= wall_deadline:
                if tc.clock == "cpu" and seat.process is not None:
                    # The wall cap is for a bot that waits without computing: time it spent
                    # waiting for a CPU that others held (more games than cores, a loaded
                    # machine) moves the cap back. Counted since its processes started, which
                    # errs towards the bot (benchmarks/bench_timeouts.py).
                    waited_ms, runnable = seat.process.waiting_for_cpu()
                    if waited_ms / 1000 > granted_s + 0.001 or runnable:
                        # A wait still going on is counted once it ends: meanwhile, look again.
                        wall_deadline = max(wall_deadline + waited_ms / 1000 - granted_s, _now() + MIN_CPU_CHECK_S)
                        granted_s = max(granted_s, waited_ms / 1000)
                        continue
                return TIMEOUT

    def _play_move(self, seat: _Seat, line: str) -> str | _Ending:
        """Parse and apply one move from the seat's bot: its canonical text, or a malformed or
        illegal fault."""
        text = line.strip()
        if not text:
            return _Ending(Termination.MALFORMED, seat.index, f"{seat.label} sent an empty line")
        try:
            move, canonical = self.game.read_move(text)
        except ValueError as exc:  # MalformedMove, or a game's own parse error on garbage
            why = getattr(exc, "why", str(exc))
            return _Ending(Termination.MALFORMED, seat.index, f"{seat.label} sent {text[:80]!r}, which is not a move: {why}")
        try:
            self.state.apply(move)
        except MalformedMove as exc:  # a text the game reads only once it sees the position
            return _Ending(Termination.MALFORMED, seat.index, f"{seat.label} sent {text[:80]!r}, which is not a move: "
                           f"{exc.why}")
        except GameError as exc:
            why = getattr(exc, "why", str(exc))
            return _Ending(Termination.ILLEGAL, seat.index, f"{seat.label} played {text[:80]!r}, which is illegal: {why}")
        return canonical

    def _draw_chance(self) -> None:
        """At a chance node, draw its outcome from the game's dice, apply it, record it (seat
        CHANCE, no time) and send every seat its `Chance` line with the moves; again until a
        seat is to move."""
        state = self.state
        while not state.is_over() and state.current_player == CHANCE:
            move = self.dice.draw(state)
            state.apply(move)
            text = self.game.format_move(move)
            self.moves.append((CHANCE, text, 0.0, 0.0, False))
            line = format_chance_line(text)
            for seat in self.seats:
                seat.pending.append(line)

    # --- faults ----------------------------------------------------------------------
    def _send_fault(self, seat: _Seat, result: object) -> _Ending:
        if result is TIMEOUT:
            return _Ending(Termination.TIMEOUT, seat.index,
                           f"{seat.label} did not read its input: the arbiter could not hand it the turn in time")
        return self._crash(seat, result if isinstance(result, Closed) else None)

    def _crash(self, seat: _Seat, closed: Closed | None = None) -> _Ending:
        """A crash fault, with how the bot ended if it did and its last words on stderr."""
        process = seat.process
        wait_s = CRASH_WAIT_S if seat.spec.transport == "pipe" else SOCKET_CRASH_WAIT_S
        status = process.wait_exit(wait_s) if process is not None else None
        if (process is None or status is None) and seat.spec.transport != "pipe" and closed is not None:
            return _Ending(Termination.CRASH, seat.index, f"{seat.label} {closed.why}")  # its socket's story
        if process is None or status is None:
            what = closed.why if closed is not None else "closed its standard output"
            return _Ending(Termination.CRASH, seat.index, f"{seat.label} {what} before the game ended "
                           "(the process was still running)")
        detail = f"{seat.label} {process.describe_exit(status)} before the game ended"
        process.drain.wait_eof(0.1)  # let its last words reach the drain
        last = process.drain.last_line()
        if last:
            detail += f" (last line on stderr: {last!r})"
        if process.box is not None and seat.spec.sandbox is not None:
            hint = not_shown_hint(process.drain.last_lines(), seat.spec.command, seat.spec.cwd, seat.spec.sandbox)
            detail += f"; {hint}" if hint else ""
        return _Ending(Termination.CRASH, seat.index, detail)

    def _timeout(self, seat: _Seat, move_used_ms: float, turn_used_ms: float, budget_ms: float) -> _Ending:
        """A timeout fault naming the limit that was hit first."""
        tc = seat.time
        unit = "ms of CPU time" if tc.clock == "cpu" else "ms"
        over_move = tc.move_ms is not None and move_used_ms >= tc.move_ms
        over_budget = turn_used_ms >= budget_ms
        # The per-move cap binds when it was shorter than what was left of the budget at the move's start.
        cap_binds = tc.move_ms is not None and tc.move_ms < budget_ms - (turn_used_ms - move_used_ms)
        if over_move and (cap_binds or not over_budget):
            detail = (f"{seat.label} took longer than its per-move cap of {tc.move_ms} {unit} "
                      f"(cut off after {move_used_ms:.1f} {unit})")
        elif over_budget:
            detail = (f"{seat.label} ran out of time: it had {tc.time_ms} {unit} for the game "
                      f"and was cut off after {seat.used_ms:.1f} {unit}")
        else:
            detail = (f"{seat.label} ran out of time: under the CPU clock its wall time reached "
                      f"{CPU_CLOCK_WALL_FACTOR}x its remaining budget without a move (it was blocked, not computing)")
        return _Ending(Termination.TIMEOUT, seat.index, detail)

    def _normal_detail(self) -> str:
        scores = self.state.scores
        text = ", ".join(f"{s.label} {scores[s.index]}" for s in self.seats)
        winner = self.state.winner()
        result = "a draw" if winner is None else f"{self.seats[winner].label} wins"
        outcome = self.state.outcome
        return f"the game ended: {text}; {result}" + (f" ({outcome})" if outcome else "")

    # --- the end ---------------------------------------------------------------------
    def shut_down(self, ending: _Ending) -> None:
        """Outstanding relays and `Quit` to every bot (SIGTERM to an offender), then the bounded
        shutdown; what a bot writes meanwhile is read, discarded and noted in its log. After a
        normal end, a bot kept for its player's next game gets no `Quit` (`_hand_back`)."""
        if ending.termination is Termination.NORMAL and self.kept is not None:
            kept = self.kept
            self._hand_back([seat for seat in self.seats if self._reuses(seat) and seat.process is not None
                             and kept.wants(self._kept_key(seat))])
        for seat in self.seats:
            if seat.handed_back:
                continue
            if seat.process is not None:
                seat.process.track_descendants()  # those it started this turn, before it can exit
            if seat.process is None:
                if seat.channel is not None:  # a remote bot: it stays up, ready for its next game
                    seat.channel.send_lines(seat.dialect.last_lines(seat.pending), _now() + 0.05)
                    seat.channel.close()
                continue
            assert seat.channel is not None
            if ending.termination.is_fault and seat.index == ending.offender:
                seat.process.terminate()
            else:
                seat.channel.send_lines(seat.dialect.last_lines(seat.pending), _now() + 0.05)
                if seat.suspends:
                    seat.process.resume()
            # End of file on its input; its output stays open through the grace, so that an
            # answer written after the end meets a pipe, not EPIPE or SIGPIPE.
            seat.channel.close_input()
        end_all([s.process for s in self.seats if s.process is not None and not s.handed_back],
                grace_s=QUIT_GRACE_S, term_grace_s=TERM_GRACE_S)
        for seat in self.seats:
            if seat.process is not None and seat.channel is not None and not seat.handed_back:
                self._discard_late_output(seat)
                try:
                    seat.channel.close()
                except (OSError, RecursionError) as exc:  # the game stands; the arbiter says what it left
                    self.cleanup_problems.append(f"the arbiter could not clean up after {seat.label}: {exc}")
            if seat.process is not None and seat.process.drain.problem is not None:
                self.cleanup_problems.append(f"the arbiter could not keep {seat.label}'s log: "
                                             f"{seat.process.drain.problem}")

    def _hand_back(self, seats: list[_Seat]) -> None:
        """After a normal end, keep each seat's bot alive for its player's next game: it is sent
        the game's last moves without `Quit`, and kept (stopped again, if it is stopped between
        turns) once it waits for its input again having written nothing, within SETTLE_S. One
        that writes or is still busy then ends as after any game; one that exits is noted as a
        bot that ends after each game."""
        assert self.kept is not None
        waiting: list[_Seat] = []
        for seat in seats:
            assert seat.channel is not None and seat.process is not None
            lines, seat.pending = seat.dialect.between_games_lines(seat.pending), []
            if lines and seat.channel.send_lines(lines, _now() + 0.05) is not None:
                continue  # its input is closed or full: not kept, ended below
            if seat.suspends:
                seat.process.resume()
            waiting.append(seat)
        deadline = _now() + SETTLE_S
        while waiting:
            for seat in list(waiting):
                process, channel = seat.process, seat.channel
                assert process is not None and channel is not None and seat.game_of_process is not None
                if process.exit_status() is not None:
                    waiting.remove(seat)
                    self._say_one_game_only(seat, process.pid, seat.game_of_process)
                    continue
                if channel.input_pending() or not process.waits_for_input():
                    continue
                waiting.remove(seat)
                first = channel.read_line(0.0)
                if first is not TIMEOUT:  # it wrote after the game (or closed its output): not kept
                    self._discard_late_output(seat, first)
                    continue
                if seat.suspends:
                    process.suspend()
                self.kept.keep(self._kept_key(seat), LiveBot(channel, process, seat.game_of_process, seat.suspends))
                seat.handed_back = True
            if waiting:
                if _now() >= deadline:
                    return  # still busy: ended with the rest
                BotProcess.wait_any_exit([seat.process for seat in waiting if seat.process is not None],
                                         STARTUP_POLL_S)

    def _discard_late_output(self, seat: _Seat, first: ReadResult = TIMEOUT) -> None:
        """Read what the bot wrote after the game's end (`first` already read, if any) and
        note it in its log."""
        assert seat.channel is not None
        late: list[str] = []
        while len(late) < LATE_LINES_READ:
            line = first if first is not TIMEOUT else seat.channel.read_line(0.0)
            first = TIMEOUT
            if line is TIMEOUT or isinstance(line, Closed):
                break
            late.append(line.describe() if isinstance(line, BadLine) else repr(line))
            if isinstance(line, BadLine):
                break
        if late and seat.log_path is not None:
            shown = ", ".join(late[:LATE_LINES_SHOWN]) + (", ..." if len(late) > LATE_LINES_SHOWN else "")
            try:
                with open(seat.log_path, "a", encoding="utf-8") as log:
                    log.write(f"\n[arbiter: after the game's end the bot wrote {len(late)} line(s) on its "
                              f"output, read and discarded: {shown}]\n")
            except OSError:
                pass  # the log is a courtesy; the record is already decided

    def kill_all(self) -> None:
        """End every bot at once (cancel, or the arbiter's own error); not one already kept for
        its next game, which belongs to the kept bots now."""
        for seat in self.seats:
            if seat.handed_back:
                seat.process = seat.channel = None
            if seat.channel is not None:
                if seat.process is None:  # a remote bot outlives the game: tell it the game is over
                    seat.channel.send_lines([QUIT], _now() + 0.05)
                seat.channel.close()
        end_all([s.process for s in self.seats if s.process is not None], grace_s=0, term_grace_s=0)

    def record(self, ending: _Ending, started_at: str, duration_s: float) -> GameRecord:
        """The game record for this ending."""
        state, game = self.state, self.game
        if ending.termination.is_fault:
            assert ending.offender is not None
            scores = state.fault_scores(ending.offender, ending.termination.value)
            winner = state.fault_winner(ending.offender)
            outcome = state.fault_outcome(ending.offender, ending.termination.value)
        else:
            scores, winner, outcome = state.scores, state.winner(), state.outcome
        return GameRecord(
            game=game.name,
            params=game.json_params(),
            players=[PlayerRef(s.spec.name, s.spec.command_text()) for s in self.seats],
            # To the microsecond: round(x * 1000) / 1000 is round(x, 3), four times faster.
            moves=[MoveRecord(seat, text, round(wall_ms * 1000) / 1000, round(cpu_ms * 1000) / 1000, forced)
                   for seat, text, wall_ms, cpu_ms, forced in self.moves],
            scores=list(scores),
            winner=winner,
            termination=ending.termination,
            offender=ending.offender,
            detail="; ".join([ending.detail, *self.doubts, *self.cleanup_problems]),
            started_at=started_at,
            duration_s=round(duration_s, 3),
            logs=[str(s.log_path) if s.log_path is not None else None for s in self.seats],
            outcome=outcome,
            time_used_ms=[round(s.used_ms, 3) for s in self.seats],
            time_controls=[asdict(s.time) for s in self.seats],
            startup_ms=[s.startup_ms for s in self.seats],
            sandboxed=[None if s.spec.transport == "remote" else s.process is not None and s.process.box is not None
                       for s in self.seats],
            suspended_cpu_ms=[round(s.suspended_cpu_ms, 3) for s in self.seats],
            chance_seed=self.dice.seed if self.dice.drawn else None,
            pids=[s.process.pid if s.process is not None else None for s in self.seats],
            game_of_process=[s.game_of_process for s in self.seats],
        )


__all__ = ["STARTUP_TIMEOUT", "GameAborted", "PlayerSpec", "TimeControl", "play_game"]
