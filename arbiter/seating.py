"""Bringing bots to their seats for one game, and taking them away after it.

The referee (referee.py) plays a game between bots that are already started; this is the
part of a game before its first turn and after its last: launching each seat's bot, leasing
a remote bot's socket, or taking the bot its player kept from its last game (kept_bots.py);
the start-up watch, off the clock (docs/protocol.md, Start-up); and after the game the
bounded shut-down (`Quit`, grace, SIGTERM, SIGKILL), or handing a bot back to the kept bots.
`Seating` is the referee's base class: its faults are judged by the referee's own checks
(`_check_quiet`, `_crash`, `_send_fault`), worded in verdicts.py.
"""
from __future__ import annotations

import shlex
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Hashable, Literal, Mapping, NamedTuple

from . import verdicts
from .games import Game
from .kept_bots import KeptBots, LiveBot
from .protocol import QUIT, Dialect, find_dialect
from .records import Termination
from .seat_clock import SeatClock, TimeControl
from .transport import TIMEOUT, BadLine, Channel, Closed, ReadResult
from .transport.pipe import launch_pipe_bot
from .transport.process import BotProcess, LaunchError, end_all, launch_side_by_side
from .transport.endpoints import LeaseCancelled, SocketSpec
from .transport.sandbox import SandboxSpec
from .transport import write_cap
from .verdicts import Verdict


QUIT_GRACE_S = 0.5  # after `Quit`, how long a bot may take to exit before SIGTERM
TERM_GRACE_S = 0.3  # after SIGTERM, before SIGKILL
WAKE_S = 0.05  # a waiting referee looks at `cancel` and the bot's exit this often
STARTUP_POLL_S = 0.001  # how often a starting bot's processes are looked at (and so its start-up's precision)
# A start-up's first look at a bot waits for this share of the shortest start-up its command
# has had in this process (a Python bot takes 20 ms or more, and every look costs the
# arbiter's CPU); from then on it is looked at every STARTUP_POLL_S.
FIRST_LOOK_SHARE = 0.8
LATE_LINES_READ = 1000  # after the game, at most this many lines a bot wrote are read (to note them)...
LATE_LINES_SHOWN = 3  # ...and this many quoted in its log
# After a game, how long a bot kept for its next game may take to read the last moves and
# wait for its input again; one still busy then is ended as after any game.
SETTLE_S = QUIT_GRACE_S

_now = time.monotonic


class GameAborted(Exception):
    """`play_game` was cancelled; every bot process has already been ended."""


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


class TurnPlan(NamedTuple):
    """What a seat's every turn uses, worked out at its first turn of a game: its channel,
    process and clock, whether it is stopped between turns, and the calls that stop, resume
    and read the CPU time of its bot (`BotProcess.turn_calls`)."""

    channel: Channel
    process: BotProcess | None
    clock: SeatClock
    suspends: bool
    suspend: Callable[[], None] | None
    resume: Callable[[], None] | None
    cpu_ms: Callable[[], float]

    @classmethod
    def of(cls, seat: Seat) -> TurnPlan:
        channel, process = seat.channel, seat.process
        assert channel is not None
        if process is None:  # a remote bot (or a channel given): its CPU time is not known
            return cls(channel, None, seat.clock, False, None, None, _no_cpu_ms)
        suspend, resume, cpu_ms = process.turn_calls()
        return cls(channel, process, seat.clock, seat.suspends, suspend, resume, cpu_ms)


def _no_cpu_ms() -> float:
    return 0.0


class Seat:
    """One seat during a game: its bot's channel and process, pending relays, clock."""

    def __init__(self, index: int, spec: PlayerSpec, time_control: TimeControl, log_path: Path | None) -> None:
        self.index = index
        self.spec = spec
        self.dialect: Dialect = find_dialect(spec.dialect)
        self.time = time_control
        self.clock = SeatClock(time_control)
        self.log_path = log_path
        self.channel: Channel | None = None
        self.process: BotProcess | None = None
        self.pending: list[str] = []  # lines to send when the seat is next handed the turn
        # Its box's write folders, checked after its turns only where the kernel cannot cap them.
        self.write_capped = spec.sandbox is not None and bool(spec.sandbox.write) and write_cap.available() is not None
        self.launched_at = 0.0  # when its launch began (the referee's clock)
        self.startup_ms: float | None = None  # how long it took to start, when that was watched
        self.game_of_process: int | None = None  # which game of its process this is (1: launched for it)
        self.handed_back = False  # its bot was kept for its next game, alive, at the end of this one
        self.turn_plan: TurnPlan | None = None  # made at its first turn, its bot launched

    @property
    def label(self) -> str:
        return f"seat {self.index} ({self.spec.name})"

    @property
    def suspends(self) -> bool:
        return self.time.suspend_idle and self.process is not None


def _startup_key(seat: Seat) -> tuple[object, ...]:
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


class Seating:
    """The seats of one game in progress, their bots brought in and taken away; the referee
    (`referee._Referee`) is one, and adds the game itself."""

    game: Game[Any]
    seats: list[Seat]
    kept: KeptBots | None
    cancel: threading.Event | None
    moves: list[tuple[int, str, float, float, bool]]
    doubts: list[str]
    cleanup_problems: list[str]

    def _check_quiet(self, game_over: bool = False) -> Verdict | None:
        raise NotImplementedError  # the referee's

    def _crash(self, seat: Seat, closed: Closed | None = None) -> Verdict:
        raise NotImplementedError  # the referee's

    def _send_fault(self, seat: Seat, result: object) -> Verdict:
        raise NotImplementedError  # the referee's

    # --- bringing the bots in -----------------------------------------------------------
    def _launch(self) -> Verdict | None:
        """Start every bot, send the `Game` line and opening, and stop it until its turn."""
        opening = [move[1] for move in self.moves]
        remote = [seat for seat in self.seats if seat.spec.transport == "remote" and seat.channel is None]
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
        launched = [seat for seat in self.seats if seat.channel is None]
        outcomes = launch_side_by_side([partial(self._start_bot, seat) for seat in launched])
        for seat, outcome in zip(launched, outcomes):
            if not isinstance(outcome, BaseException):
                seat.channel, seat.process = outcome  # before any failure: ended with the rest
                seat.game_of_process = 1
        for seat, outcome in zip(launched, outcomes):
            if isinstance(outcome, LaunchError):
                return verdicts.could_not_start(seat.index, seat.label, outcome)
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
    def _reuses(self, seat: Seat) -> bool:
        """Whether the seat's bot may be taken from, and given back to, the kept bots."""
        return self.kept is not None and seat.spec.reuse

    @staticmethod
    def _kept_key(seat: Seat) -> Hashable:
        """What a kept bot must have been launched with to play this seat (its player, command,
        folder, box and memory limit; not its environment, which holds the first game's seed)."""
        spec = seat.spec
        return spec.name, spec.command, spec.cwd, repr(spec.sandbox), seat.time.memory_mb

    def _take_kept(self, seat: Seat) -> bool:
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

    def _welcome_kept(self, kept: list[Seat], opening: list[str]) -> Verdict | None:
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

    def _let_go(self, seat: Seat) -> None:
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

    def _say_one_game_only(self, seat: Seat, pid: int, games: int) -> None:
        """Tell the kept bots (and, once, the run) that the seat's player ends after each game."""
        assert self.kept is not None
        self.kept.one_game_only(self._kept_key(seat), f"{seat.spec.name} plays with reuse, but its process {pid} "
                                f"ended after game {games} of it instead of waiting for the next: it is started "
                                "afresh for each game from now on (docs/protocol.md, Many games per process)")

    @staticmethod
    def _start_bot(seat: Seat) -> tuple[Channel, BotProcess]:
        """Launch the bot of a seat the arbiter starts (pipe or zmq); raises LaunchError."""
        spec = seat.spec
        seat.launched_at = _now()
        if spec.transport == "pipe":
            return launch_pipe_bot(spec.command, cwd=spec.cwd, env=spec.env, memory_mb=seat.time.memory_mb,
                                   log_path=seat.log_path, sandbox=spec.sandbox)
        from .transport.zmq import launch_zmq_bot  # ZeroMQ is loaded by a game that uses it
        return launch_zmq_bot(spec.command, label=seat.label, bind=spec.socket.bind, cwd=spec.cwd, env=spec.env,
                              memory_mb=seat.time.memory_mb, log_path=seat.log_path, sandbox=spec.sandbox)

    # --- the start-up watch, off the clock ----------------------------------------------
    def _start_up(self, starting: list[Seat], *, kept: bool = False) -> Verdict | None:
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
                    self.doubts.append(verdicts.doubt(seat.label, "finished starting", starting_at[seat.index], now,
                                                      limit[seat.index],
                                                      f"the end of its startup_ms ({seat.time.startup_ms} ms)"))
                if ready:
                    seat.startup_ms = round((now - seat.launched_at) * 1000, 3)
                    if not kept:
                        _FASTEST_STARTUPS.note(_startup_key(seat), now - seat.launched_at)
                    starting.remove(seat)
                    if seat.suspends:
                        process.suspend()
                elif now - seat.launched_at >= seat.time.startup_ms / 1000:
                    return verdicts.startup_timeout(seat.index, seat.label, seat.time.startup_ms)
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

    # --- taking the bots away ---------------------------------------------------------
    def shut_down(self, ending: Verdict) -> None:
        """Outstanding relays and `Quit` to every bot (SIGTERM to an offender), then the bounded
        shutdown; what a bot writes meanwhile is read, discarded and noted in its log. After a
        normal end, a bot kept for its player's next game gets no `Quit` (`_hand_back`); after
        any other (a fault, a void game) every bot is ended."""
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

    def _hand_back(self, seats: list[Seat]) -> None:
        """After a normal end, keep each seat's bot alive for its player's next game: it is sent
        the game's last moves without `Quit`, and kept (stopped again, if it is stopped between
        turns) once it waits for its input again having written nothing, within SETTLE_S. One
        that writes or is still busy then ends as after any game; one that exits is noted as a
        bot that ends after each game."""
        assert self.kept is not None
        waiting: list[Seat] = []
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

    def _discard_late_output(self, seat: Seat, first: ReadResult = TIMEOUT) -> None:
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


__all__ = ["FIRST_LOOK_SHARE", "QUIT_GRACE_S", "TERM_GRACE_S", "GameAborted", "Seat", "Seating"]
