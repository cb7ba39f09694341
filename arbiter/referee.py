"""The referee: one game between bots, with clocks, suspension and fault adjudication.

`play_game` launches one bot per seat, speaks the protocol of docs/protocol.md with each,
times every move, and always returns a `GameRecord` saying who won and why, whatever the
bots do. A fault (timeout, crash, malformed or illegal move, output out of turn) ends the
game at once as a loss for the offender; faults are results, never exceptions. So is a
failure of the game's own rules (any exception they raise): the game is void, no bot blamed.

The referee's parts live beside it: the lines of the dialogue in `protocol.py`, a seat's
clock arithmetic in `seat_clock.py`, every verdict's wording in `verdicts.py`, and bringing
the bots to their seats and away (launch, start-up, shut-down) in `seating.py`, where a
player with `reuse` takes its live bot from the caller's `KeptBots` and gives it back after
a normal end (docs/protocol.md, Many games per process). `play_channels` plays over channels
already open (`transport/scripted.py` in tests), without processes.

It is thread-safe: a tournament runs several games at once, one per worker thread. It
installs no signal handlers, and the only state its games share is locked: the shortest
start-up each bot command has had (`seating._FastestStartups`, which paces the first look at
a starting bot) and the transport's guardian process.
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from . import verdicts
from .chance import ChanceDice, fresh_seed
from .games import CHANCE, Game, GameError, MalformedMove, State
from .kept_bots import KeptBots
from .protocol import START, find_dialect, format_chance_line
from .records import GameRecord, MoveRecord, PlayerRef, Termination
from .seat_clock import CPU_CLOCK_WALL_FACTOR, TimeControl
from .transport import TIMEOUT, BadLine, Channel, Closed, ReadResult
from .transport.pipe import output_look
from .transport.priority import punctual
from .transport.shown import not_shown_hint
from .transport.endpoints import EndpointError, check_socket
# Re-exported: the tournament and the tests find the shut-down's graces and the start-up's pace here.
from .seating import (FIRST_LOOK_SHARE, QUIT_GRACE_S, TERM_GRACE_S, WAKE_S, GameAborted, PlayerSpec,  # noqa: F401
                      Seat, Seating, TurnPlan, _FastestStartups)
from .verdicts import STARTUP_TIMEOUT, Verdict

CRASH_WAIT_S = 0.2  # after a bot's output closes, how long to wait for its exit status
# ...and after its socket closes: a ZeroMQ bot's socket closes while its interpreter is still
# ending (its context's teardown), which on a busy machine can take longer than CRASH_WAIT_S.
SOCKET_CRASH_WAIT_S = 1.0
MIN_CPU_CHECK_S = 0.005  # under `clock: cpu`, the shortest wait between two CPU readings


class _RulesFailed(Exception):
    """The game's rules raised: raised where they were called, caught once by `_Referee.run`."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.detail)
        self.verdict = verdict


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
    void, state = _start(game, players, opening, time)
    seats = [
        Seat(k, spec, spec.clock(time), _log_path(log_dir, log_prefix, k, spec.name))
        for k, spec in enumerate(players)
    ]
    if log_dir is not None:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
    return _referee(_Referee(game, state, seats, [] if void else list(opening), cancel, on_turn,
                             ChanceDice(fresh_seed() if chance_seed is None else chance_seed), kept), void)


def play_channels(game: Game[Any], players: Sequence[PlayerSpec], channels: Sequence[Channel], *,
                  time: TimeControl = TimeControl(), opening: Sequence[str] = (),
                  cancel: threading.Event | None = None, on_turn: Callable[[State[Any]], None] | None = None,
                  chance_seed: int | None = None) -> GameRecord:
    """Play one game over channels already open, one per seat, with no process behind them
    (a `ScriptedChannel`, or bots the caller runs), and return its record as `play_game` does.

    Each seat is timed on the wall clock (no CPU time is known), never stopped and not watched
    starting; at the end it is sent its last lines and `Quit` and its channel is closed.
    `players` give the names, dialects and clocks; their commands are only recorded.
    Raises as `play_game` does.
    """
    if len(channels) != len(players):
        raise ValueError(f"{len(players)} players but {len(channels)} channels")
    void, state = _start(game, players, opening, time, launched=False)
    seats = [Seat(k, spec, spec.clock(time), None) for k, spec in enumerate(players)]
    for seat, channel in zip(seats, channels):
        seat.channel = channel
    return _referee(_Referee(game, state, seats, [] if void else list(opening), cancel, on_turn,
                             ChanceDice(fresh_seed() if chance_seed is None else chance_seed), None), void)


def _start(game: Game[Any], players: Sequence[PlayerSpec], opening: Sequence[str], time: TimeControl, *,
           launched: bool = True) -> tuple[Verdict | None, State[Any]]:
    """The position after the opening (`_check_arguments`), or, when the rules fail before the
    first move, the void verdict (and a position never used: no bot is started)."""
    try:
        return None, _check_arguments(game, players, opening, time, launched=launched)
    except _RulesFailed as failed:
        return failed.verdict, None  # type: ignore[return-value]


def _referee(referee: _Referee, void: Verdict | None = None) -> GameRecord:
    """Run the game, shut it down and make its record; every bot ended if anything escapes.
    A game `void` before its first move is recorded at once, no bot started."""
    started_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    started = _now()
    if void is not None:
        return referee.record(void, started_at, _now() - started)
    try:
        ending = referee.run()
        referee.shut_down(ending)
    except BaseException:
        referee.kill_all()
        raise
    return referee.record(ending, started_at, _now() - started)


_now = time.monotonic  # every clock of the referee (bound here: no extra call per reading)


def _check_arguments(game: Game[Any], players: Sequence[PlayerSpec], opening: Sequence[str],
                     time: TimeControl, *, launched: bool = True) -> State[Any]:
    """The position after the opening; ValueError when the game cannot be played as asked
    (`launched`: by bots the referee launches or leases, not over channels given)."""
    if len(players) != game.num_players:
        raise ValueError(f"{game.describe()} has {game.num_players} seats, but {len(players)} players were given")
    for k, spec in enumerate(players):
        if not launched and (spec.clock(time).clock != "wall" or spec.reuse):
            raise ValueError(f"seat {k} ({spec.name}): a bot behind a given channel is timed with clock: wall "
                             "and plays one game (no reuse)")
        if launched:
            _check_launch(k, spec)
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
    number = 0
    try:
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
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the rules raise is theirs: the game is void
        where = f"at move {number} (the opening's)" if number else "setting up the first position"
        raise _RulesFailed(verdicts.rules_failed(game.name, where, exc)) from None
    return state


def _check_launch(k: int, spec: PlayerSpec) -> None:
    """ValueError when seat `k`'s bot cannot be launched (or leased) as its spec says."""
    if not spec.command and spec.transport != "remote":
        raise ValueError(f"seat {k} ({spec.name}): the command is empty")
    try:
        check_socket(spec.transport, spec.socket)
    except EndpointError as exc:
        raise ValueError(f"seat {k} ({spec.name}): {exc}") from None
    if spec.transport == "zmq" and spec.sandbox is not None and spec.socket.bind:
        raise ValueError(f"seat {k} ({spec.name}): a sandboxed bot reaches its seat through a private socket "
                         "the arbiter makes; bind: needs the sandbox off for this player")


def seat_log_name(prefix: str, seat: int, name: str | None = None) -> str:
    """A seat's stderr log's file name: `prefix`, the seat, the player's name made safe for a
    file name, `.log`; without `name`, what every such name for that seat starts with (the
    results folder's store lists a game's logs by it)."""
    start = f"{prefix}seat{seat}-"
    return start if name is None else start + (re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip(".") or "bot") + ".log"


def _log_path(log_dir: Path | None, prefix: str, seat: int, name: str) -> Path | None:
    return None if log_dir is None else Path(log_dir) / seat_log_name(prefix, seat, name)


class _Referee(Seating):
    """One game in progress: `run` is the game loop; the bots are brought in and taken away
    by its base (seating.py)."""

    def __init__(self, game: Game[Any], state: State[Any], seats: list[Seat], opening: list[str],
                 cancel: threading.Event | None, on_turn: Callable[[State[Any]], None] | None,
                 dice: ChanceDice, kept: KeptBots | None = None) -> None:
        self.game = game
        self.dice = dice
        self.kept = kept
        self.state = state
        self.seats = seats
        self.cancel = cancel
        self.on_turn = on_turn
        self.to_move: int | None = None  # the seat to move (CHANCE at a chance node); None once over
        # Every move so far as (seat, text, wall_ms, cpu_ms, forced): the record's `MoveRecord`s
        # are made once the game is over (`record`), not between a move's arrival and the next
        # hand-over, where each would cost a few microseconds of every turn.
        self.moves: list[tuple[int, str, float, float, bool]] = []
        self.cleanup_problems: list[str] = []  # what the arbiter failed to tidy after the game: noted, blames no bot
        self.doubts: list[str] = []  # verdicts the arbiter's own lateness left open, given to the bot: noted
        self._output_look: Callable[[], list[int]] | None = None  # `_look`: made once every seat has its channel
        replay = game.new_state() if opening else None  # played once already (`_check_arguments`)
        for text in opening:
            seat = replay.current_player  # type: ignore[union-attr]
            self.moves.append((seat, game.format_move(replay.play(text)), 0.0, 0.0, True))  # type: ignore[union-attr]

    # --- the game loop ---------------------------------------------------------------
    def run(self) -> Verdict:
        """Launch the bots and play until the game ends, a bot faults or the rules fail."""
        try:
            fault = self._launch() or self._draw_chance()
            if fault:
                return fault
            # After the opening (if any), the seat to move is told to start.
            if self.to_move is not None:
                self.seats[self.to_move].pending.append(START)
            # The turns' looks at a bot's clock are made when its deadline falls (priority.py). Not
            # the start-up's: its looks cost CPU every millisecond, which would be the starting bots'.
            seats, cancel, on_turn, state = self.seats, self.cancel, self.on_turn, self.state
            check_quiet, play_turn, look = self._check_quiet, self._play_turn, self._look()
            with punctual():
                while self.to_move is not None:
                    if cancel is not None and cancel.is_set():  # bots that answer at once never
                        raise GameAborted("the game was cancelled")  # leave the read loop's wake-ups
                    # Before every hand-over, no bot may have written anything: one look at every
                    # seat, and the check that reads what it found only when it found something.
                    fault = (look() and check_quiet()) or play_turn(seats[self.to_move])
                    if fault:
                        return fault
                    if on_turn is not None:
                        on_turn(state)
            return self._check_quiet(game_over=True) or self._game_over()
        except _RulesFailed as failed:
            return failed.verdict

    def _look(self) -> Callable[[], list[int]]:
        """The look at every seat's output at once (`pipe.output_look`): the seats that may
        have written something. Made once a game, every seat having its channel by then."""
        if self._output_look is None:
            self._output_look = output_look([seat.channel for seat in self.seats])  # type: ignore[misc]
        return self._output_look

    def _check_quiet(self, game_over: bool = False) -> Verdict | None:
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
            return verdicts.out_of_turn(seat.index, seat.label, shown, game_over,
                                        before_its_first_move=self._moves_by(seat) == 0 and seat.dialect.sends_game_line,
                                        a_move=isinstance(result, str) and self._reads_as_move(result))
        return None


    def _reads_as_move(self, text: str) -> bool:
        """Whether `text` reads as a move of the game (in any position): what a bot wrote out of
        turn is then a move too early, else text meant for stderr. Only for the fault's hint: a
        failure of the rules here is no answer, never the game's end."""
        try:
            self.game.read_move(text)
        except Exception:  # noqa: BLE001 - MalformedMove, or the rules' own failure: not a move we can read
            return False
        return True

    # --- a turn ------------------------------------------------------------------------
    def _play_turn(self, seat: Seat) -> Verdict | None:
        """Hand the turn to `seat` and apply its moves until the turn passes; a fault, or None."""
        plan = seat.turn_plan
        if plan is None:
            plan = seat.turn_plan = TurnPlan.of(seat)
        channel, process, clock, suspends, suspend, resume, cpu_ms = plan
        cpu_clock = clock.cpu
        cpu_start = cpu_now = cpu_move_start = cpu_ms()
        if suspends:
            clock.charge_suspended(cpu_start)
        budget_ms = clock.budget_ms()
        turn_start = move_start = _now()  # the clock runs from the hand-over's first byte
        turn_deadline = clock.turn_deadline(turn_start, budget_ms)
        if seat.pending:
            lines, seat.pending = seat.pending, []
            # Written while the bot is still stopped, so that SIGCONT finds the lines waiting:
            # one wake-up instead of two (a stopped bot wakes, reads nothing, sleeps again).
            sent = channel.send_lines(lines, turn_deadline)
            if sent is not None:
                return self._send_fault(seat, sent)
        if suspends:
            resume()  # type: ignore[misc]
        # A bot stopped between turns has its CPU time read once per move, after the move is
        # applied and, when its turn ends, once it is stopped: that one reading is both the
        # move's and the mark its next turn is compared with (`cpu_mark_ms`). Others' is read
        # as the move arrives, and under the CPU clock it must be: the verdict needs it.
        cpu_early = cpu_clock or not suspends
        while True:
            wall_deadline = clock.move_deadline(turn_deadline, move_start)
            result = self._await_line(seat, wall_deadline, cpu_start, cpu_move_start, budget_ms)
            if cpu_clock:  # CPU time can only be read after the fact
                arrived, cpu_now = _now(), cpu_ms()
                turn_used_ms, move_used_ms = cpu_now - cpu_start, cpu_now - cpu_move_start
                late = clock.overran(turn_used_ms, move_used_ms, budget_ms)
            else:  # under the wall clock a line is in time if it arrived by the deadline
                if cpu_early and result.__class__ is str:
                    cpu_now = cpu_ms()
                arrived, late = self._arrived(seat, result, wall_deadline)
                turn_used_ms, move_used_ms = (arrived - turn_start) * 1000, (arrived - move_start) * 1000
            if late or result.__class__ is not str:
                clock.charge(turn_used_ms)
                return self._no_move(seat, result, late, move_used_ms, turn_used_ms, budget_ms)
            played = self._play_move(seat, result)  # type: ignore[arg-type]
            if played.__class__ is not str:  # malformed or illegal: a Verdict
                clock.charge(turn_used_ms)
                if process is not None:
                    process.track_descendants()  # so that none escapes the end of the game
                return played  # type: ignore[return-value]
            # The turn passes when the game is over or another is to move (chance too: its
            # outcome, sent to every seat, ends the turn even when the mover moves next).
            to_move = self.to_move
            passes = to_move != seat.index
            if passes and suspends:
                suspend()  # type: ignore[misc]
                if cpu_clock:
                    clock.cpu_mark_ms = cpu_ms()  # read once stopped: any CPU after this was used suspended
            if not cpu_early:
                cpu_now = cpu_ms()
                if passes:
                    clock.cpu_mark_ms = cpu_now
            self.moves.append((seat.index, played, (arrived - move_start) * 1000, cpu_now - cpu_move_start, False))
            for other in self.seats:
                if other is not seat:
                    other.pending.append(played)  # type: ignore[arg-type]
            if to_move == CHANCE:
                self._draw_chance()
            if passes:
                clock.charge(turn_used_ms)
                if not suspends and process is not None:
                    process.track_descendants()  # so that none escapes the end of the game
                return self._check_write_cap(seat) if seat.write_capped else None
            move_start, cpu_move_start = arrived, cpu_now  # another move is due in the same turn

    def _arrived(self, seat: Seat, result: ReadResult, wall_deadline: float) -> tuple[float, bool]:
        """Under the wall clock: when `result` came, and whether a line came too late. A line
        found after its deadline that may have arrived by it (the arbiter looked late) is
        taken as in time, charged as if at the deadline, and the doubt noted."""
        if result.__class__ is not str:
            return _now(), False
        earliest, arrived = seat.channel.arrival()  # type: ignore[union-attr]
        if arrived <= wall_deadline:
            return arrived, False
        if earliest >= wall_deadline:  # the arbiter looked at the deadline, and it was not there
            return arrived, True
        self.doubts.append(verdicts.doubt(seat.label, f"move {len(self.moves) + 1} arrived", earliest, arrived,
                                          wall_deadline, "its deadline"))
        return wall_deadline, False

    def _moves_by(self, seat: Seat) -> int:
        """How many moves the seat's bot has made this game (forced opening moves aside)."""
        return sum(1 for index, *_, forced in self.moves if index == seat.index and not forced)

    def _no_move(self, seat: Seat, result: ReadResult, late: bool, move_used_ms: float, turn_used_ms: float,
                 budget_ms: float) -> Verdict:
        """The verdict on a turn that brought no move in time: a timeout, a crash or a bad line."""
        if result is TIMEOUT or late:
            limit = seat.clock.limit_broken(move_used_ms, turn_used_ms, budget_ms)
            return verdicts.timeout(seat.index, seat.label, limit, seat.time, move_used_ms, seat.clock.used_ms,
                                    silent=result is TIMEOUT and self._moves_by(seat) == 0)
        if isinstance(result, Closed):
            return self._crash(seat, result)
        assert isinstance(result, BadLine)
        return verdicts.bad_line(seat.index, seat.label, result.describe())

    @staticmethod
    def _check_write_cap(seat: Seat) -> Verdict | None:
        """After a boxed bot's turn (it is stopped: it writes only on its turn), its write
        folders must hold no more than their cap (docs/security.md); breaking it is its fault."""
        if seat.process is None or seat.process.box is None or not seat.write_capped:
            return None
        broken = seat.spec.sandbox.write_cap_broken()  # type: ignore[union-attr]
        return None if broken is None else verdicts.sandbox_broken(seat.index, seat.label, broken)

    def _await_line(self, seat: Seat, wall_deadline: float, cpu_turn_start: float,
                    cpu_move_start: float, budget_ms: float) -> ReadResult:
        """The bot's next line, or TIMEOUT at the deadline; wakes now and then to look at
        `cancel`, the bot's exit and (under `clock: cpu`) its CPU time."""
        assert seat.channel is not None
        cpu_clock = seat.clock.cpu and seat.process is not None
        granted_s = 0.0  # waiting for a CPU, added to the wall cap so far (under `clock: cpu`)
        while True:
            now = _now()
            wake = min(wall_deadline, now + WAKE_S)
            if cpu_clock:
                cpu_now = seat.process.cpu_ms()  # type: ignore[union-attr]
                left_ms = seat.clock.cpu_left_ms(cpu_now - cpu_turn_start, cpu_now - cpu_move_start, budget_ms)
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
                if cpu_clock:
                    # The wall cap is for a bot that waits without computing: time it spent
                    # waiting for a CPU that others held (more games than cores, a loaded
                    # machine) moves the cap back. Counted since its processes started, which
                    # errs towards the bot (benchmarks/bench_timeouts.py).
                    waited_ms, runnable = seat.process.waiting_for_cpu()  # type: ignore[union-attr]
                    if waited_ms / 1000 > granted_s + 0.001 or runnable:
                        # A wait still going on is counted once it ends: meanwhile, look again.
                        wall_deadline = max(wall_deadline + waited_ms / 1000 - granted_s, _now() + MIN_CPU_CHECK_S)
                        granted_s = max(granted_s, waited_ms / 1000)
                        continue
                return TIMEOUT

    # --- the rules: every call guarded, their failure is no bot's ------------------------
    def _play_move(self, seat: Seat, line: str) -> str | Verdict:
        """Parse and apply one move from the seat's bot and note who is to move next: its
        canonical text, or a malformed or illegal fault. The rules' own documented errors
        (MalformedMove, IllegalMove) are the bot's; anything else they raise is theirs."""
        text = line.strip()
        if not text:
            return verdicts.empty_line(seat.index, seat.label)
        state = self.state
        try:
            move, canonical = self.game.read_move(text)
            state.apply(move)
            self.to_move = None if state.is_over() else state.current_player
        except MalformedMove as exc:  # from the parser, or a text the game reads only in a position
            return self._malformed(seat, text, exc.why)
        except GameError as exc:
            return verdicts.illegal(seat.index, seat.label, text, getattr(exc, "why", str(exc)))
        except Exception as exc:  # noqa: BLE001 - whatever the rules raise is theirs, not the bot's
            raise self._rules_failed(exc) from None
        return canonical

    def _malformed(self, seat: Seat, text: str, why: str) -> Verdict:
        """A move the parser refused: the bot's fault, unless the rules write one of the legal
        moves so (a notation they cannot read back, which no bot can be blamed for)."""
        try:
            written = any(self.game.format_move(move) == text for move in self.state.legal_moves())
        except Exception as exc:  # noqa: BLE001 - the rules' failure, not the bot's
            raise self._rules_failed(exc) from None
        if written:
            return verdicts.unreadable_notation(self.game.name, f"at move {len(self.moves) + 1}", seat.label,
                                                text, why)
        return verdicts.not_a_move(seat.index, seat.label, text, why)

    def _draw_chance(self) -> None:
        """Note who is to move; at a chance node, draw its outcome from the game's dice, apply
        it, record it (seat CHANCE, no time) and send every seat its `Chance` line with the
        moves; again until a seat is to move or the game is over."""
        state = self.state
        try:
            while not state.is_over() and state.current_player == CHANCE:
                move = self.dice.draw(state)
                state.apply(move)
                text = self.game.format_move(move)
                self.moves.append((CHANCE, text, 0.0, 0.0, False))
                line = format_chance_line(text)
                for seat in self.seats:
                    seat.pending.append(line)
            self.to_move = None if state.is_over() else state.current_player
        except Exception as exc:  # noqa: BLE001 - whatever the rules raise is theirs
            raise self._rules_failed(exc) from None

    def _rules_failed(self, exc: BaseException, where: str | None = None) -> _RulesFailed:
        """The game's rules raised `exc` (at the move being played, unless `where` says): void."""
        return _RulesFailed(verdicts.rules_failed(self.game.name, where or f"at move {len(self.moves) + 1}", exc))

    def _game_over(self) -> Verdict:
        """The verdict of a game its rules ended."""
        state = self.state
        try:
            scores, winner, outcome = state.scores, state.winner(), state.outcome
        except Exception as exc:  # noqa: BLE001 - whatever the rules raise is theirs
            raise self._rules_failed(exc, f"scoring the game after move {len(self.moves)}") from None
        return verdicts.game_over([seat.label for seat in self.seats], scores, winner, outcome)

    # --- faults ----------------------------------------------------------------------
    def _send_fault(self, seat: Seat, result: object) -> Verdict:
        if result is TIMEOUT:
            return verdicts.not_reading(seat.index, seat.label)
        return self._crash(seat, result if isinstance(result, Closed) else None)

    def _crash(self, seat: Seat, closed: Closed | None = None) -> Verdict:
        """A crash fault, with how the bot ended if it did and its last words on stderr."""
        process = seat.process
        wait_s = CRASH_WAIT_S if seat.spec.transport == "pipe" else SOCKET_CRASH_WAIT_S
        status = process.wait_exit(wait_s) if process is not None else None
        if process is None or status is None:
            if seat.spec.transport != "pipe" and closed is not None:
                return verdicts.socket_closed(seat.index, seat.label, closed.why)
            return verdicts.output_closed(seat.index, seat.label,
                                          closed.why if closed is not None else "closed its standard output")
        process.drain.wait_eof(0.1)  # let its last words reach the drain
        hint = None
        if process.box is not None and seat.spec.sandbox is not None:
            hint = not_shown_hint(process.drain.last_lines(), seat.spec.command, seat.spec.cwd, seat.spec.sandbox)
        return verdicts.crashed(seat.index, seat.label, process.describe_exit(status),
                                last_line=process.drain.last_line(), hint=hint)

    # --- the record -------------------------------------------------------------------
    def record(self, ending: Verdict, started_at: str, duration_s: float) -> GameRecord:
        """The game record for this ending (void, should the rules fail to score it)."""
        state, game = self.state, self.game
        try:
            if ending.termination.is_void:  # counted for no one
                scores, winner, outcome = [0] * len(self.seats), None, None
            elif ending.termination.is_fault:
                assert ending.offender is not None
                scores = state.fault_scores(ending.offender, ending.termination.value)
                winner = state.fault_winner(ending.offender)
                outcome = state.fault_outcome(ending.offender, ending.termination.value)
            else:
                scores, winner, outcome = state.scores, state.winner(), state.outcome
        except Exception as exc:  # noqa: BLE001 - whatever the rules raise is theirs
            failed = verdicts.rules_failed(game.name, f"scoring the game after move {len(self.moves)}", exc)
            ending = Verdict(Termination.VOID, None, f"{failed.detail}; {ending.detail}")
            scores, winner, outcome = [0] * len(self.seats), None, None
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
            time_used_ms=[round(s.clock.used_ms, 3) for s in self.seats],
            time_controls=[asdict(s.time) for s in self.seats],
            startup_ms=[s.startup_ms for s in self.seats],
            sandboxed=[None if s.spec.transport == "remote" else s.process is not None and s.process.box is not None
                       for s in self.seats],
            suspended_cpu_ms=[round(s.clock.suspended_cpu_ms, 3) for s in self.seats],
            chance_seed=self.dice.seed if self.dice.drawn else None,
            pids=[s.process.pid if s.process is not None else None for s in self.seats],
            game_of_process=[s.game_of_process for s in self.seats],
        )


__all__ = ["CPU_CLOCK_WALL_FACTOR", "STARTUP_TIMEOUT", "GameAborted", "PlayerSpec", "TimeControl", "play_channels",
           "play_game"]
