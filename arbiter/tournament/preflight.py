"""Before the first game: every player with a build is built (tournament/build.py), and with
`check: true` every launched player goes through `arbiter check`. A `players:` player that
fails keeps the tournament from starting (rather than filling a column of its games with
faults); an entrant (`entries:`) that fails is kept out of it, with its reason and log, and
the schedule is made of the players admitted (`admit`).

Each check runs in a process of its own, forked by the workers' zygote (role `check`,
check_child.py), as a game does (docs/architecture.md, Where games run): a check plays
games, and a crash or a hang of the game's rules there costs that player's check (its
player not admitted, with the sentence saying what happened), never the arbiter's process.
"""
from __future__ import annotations

import json
import os
import shlex
import signal
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait as wait_for
from pathlib import Path
from typing import Any, Callable

from ..check import CheckReport, CheckTarget
from ..check.scenarios import SEAT_TIME
from ..errors import UsageError
from ..referee import CPU_CLOCK_WALL_FACTOR, QUIT_GRACE_S, TERM_GRACE_S, TimeControl
from ..transport import signal_name
from .build import Built, build
from .check_child import DONE, FAILED, RAISED, CheckTask
from .config import TournamentConfig, with_builds
from .resume import start_over_advice
from .store import ResultsFolder
from .workers import HANG_MARGIN_S, HANG_SHARE, STOP_GRACE_S, fork_worker
from .zygote import WorkerProcess

BUILDS_FOLDER = "builds"  # in the results folder: builds/NAME-DIGEST/ (docs/records.md)

# The protocol's duties, judged under the tournament's own clock: the timing scenarios
# (small clock, move cap, start-up), other parameters and other seat counts are not what
# this tournament will ask of the bot, so they are left to `arbiter check`.
PREFLIGHT_DUTIES = frozenset({
    "seat-0", "seat-1", "opening", "extra-move", "relayed-turn", "out-of-turn", "stdout", "quit",
    "processes", "stderr", "memory",
})
# The duties judged in the games of the others, with no game of their own (scenarios.py):
# the rest have one game each, and the check plays at most that many.
JUDGED_IN_EVERY_GAME = frozenset({"stdout", "processes", "start-up", "stderr", "memory"})
# The signals of a process that crashed: in the check's process, the game's rules (native
# code) are what can crash; the bot runs in a process of its own.
CRASH_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE})


@dataclass(frozen=True)
class Refusal:
    """Why a player cannot play: a sentence, and the log that shows it (None: no log)."""

    player: str
    reason: str
    log: str | None


def preflight(config: TournamentConfig, note: Callable[[str], None]) -> dict[str, Refusal]:
    """With `check: true`, check every launched player in turn (logs in `logs/check-<player>/`);
    the players that failed, with the first scenario each failed."""
    refused: dict[str, Refusal] = {}
    if not config.check:
        return refused
    for player in config.players:
        if player.transport == "remote":  # not launched by the arbiter: nothing to start for a check
            continue
        time = player.clock(config.time)
        note(f"checking {player.name} before the first game (check: true)")
        target = CheckTarget(config.game_name, dict(config.params), player, time_ms=time.time_ms,
                             memory_mb=time.memory_mb, duties=PREFLIGHT_DUTIES)
        log_dir = ResultsFolder(config.results_dir).check_logs(player.name)
        try:
            report = check_apart(target, log_dir, min(2, config.concurrency), config.seats)
        except ValueError as exc:
            refused[player.name] = Refusal(player.name, f"cannot be checked: {exc}", None)
            continue
        except CheckEnded as exc:
            refused[player.name] = Refusal(player.name, f"could not be checked: {exc}", None)
            continue
        failed = [item for item in report.items if item.status == "fail"]
        if failed:
            first = failed[0]
            others = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
            refused[player.name] = Refusal(
                player.name, f"failed the check {first.id!r} ({first.title}){others}: {first.hint}. Run "
                             "`arbiter check` on it for the whole checklist, or set check: false",
                str(first.log) if first.log else None)
            continue
        undecided = report.void + report.seat_failed  # not the bot's doing: it plays, and the organiser is told
        if undecided:
            note(f"{player.name} passed what its check could play ({report.games} games); the rest was not checked: "
                 f"{undecided[0]} (see logs/check-{player.name}/)")
            continue
        note(f"{player.name} passed the check ({report.games} games in {report.duration_s:.1f} s)")
    return refused


class CheckEnded(Exception):
    """A check that could not finish: its game's rules failed, or its process crashed or
    hung. The message says what happened, never blaming the bot."""


def check_deadline_s(target: CheckTarget, seats: int) -> float:
    """The longest a check may take before its process is taken for hung: its games played
    one after another, each with every seat's start-up and whole clock (the bot's, and the
    arbiter's own seats' SEAT_TIME; under `clock: cpu` the referee's wall cap) and shut-down
    graces, times HANG_SHARE, plus HANG_MARGIN_S, as `workers.game_deadline_s` does for a game.
    For PREFLIGHT_DUTIES' checks: `players-3` (three games) and `small-clock` (a clock from the
    first game's moves), not among them, are not counted."""
    duties = target.duties if target.duties is not None else PREFLIGHT_DUTIES
    games = len(duties - JUDGED_IN_EVERY_GAME)
    bot = TimeControl(time_ms=target.time_ms, clock=target.clock)
    game_s = _seat_s(bot) + (seats - 1) * _seat_s(SEAT_TIME)
    return games * game_s * HANG_SHARE + HANG_MARGIN_S


def _seat_s(time: TimeControl) -> float:
    """The longest one seat keeps a game going: its start-up, its whole clock and its graces."""
    factor = CPU_CLOCK_WALL_FACTOR if time.clock == "cpu" else 1
    return (time.startup_ms + factor * time.time_ms) / 1000 + QUIT_GRACE_S + TERM_GRACE_S


def check_apart(target: CheckTarget, log_dir: Path, concurrency: int, seats: int) -> CheckReport:
    """`run_check` of `target` in a child process (check_child.py) of a game of `seats`
    seats: its report. Raises what `run_check` raises for a check that cannot start as asked
    (ValueError), CheckEnded when the game's rules failed or the child crashed or hung (it is
    killed, its bots with it), and KeyboardInterrupt on Ctrl-C once the child has ended."""
    process, conn = fork_worker("check")
    try:
        try:
            conn.send(CheckTask(target, str(log_dir), concurrency, os.getcwd(), dict(os.environ)))
        except OSError:
            pass  # it died at once: its exit code says how
        limit_s = check_deadline_s(target, seats)
        if not wait_for([conn, process.sentinel], timeout=limit_s):
            _ended(process, 0)
            raise CheckEnded(f"its check was ended: it was still running after {limit_s:.0f} s, longer than its "
                             "games' clocks allow (its game's rules hung), and was killed")
        answer = _answer(conn)
        _ended(process, STOP_GRACE_S)
        if answer is None:
            raise CheckEnded(f"its check was ended: {_death_words(process.exitcode)}")
        if answer[0] == DONE:
            return answer[1]  # type: ignore[no-any-return]
        if answer[0] == RAISED:
            raise answer[1]
        if answer[0] == FAILED:
            raise CheckEnded(answer[1])
        raise CheckEnded("its check was interrupted (a SIGINT that reached the check's process alone)")
    except KeyboardInterrupt:
        _interrupt(process)
        raise
    finally:
        conn.close()


def _answer(conn: Connection) -> tuple[Any, ...] | None:
    """The child's answer, if it sent one before it ended."""
    try:
        return conn.recv() if conn.poll() else None  # type: ignore[no-any-return]
    except (EOFError, OSError):
        return None


def _death_words(code: int | None) -> str:
    """How the check's process ended (its exit code `code`), as the end of a sentence."""
    if code is None or code >= 0:
        return f"the process playing its games exited with status {code}"
    if -code in CRASH_SIGNALS:
        return f"its game's rules crashed ({signal_name(-code)}) in the check's own process, not in the bot's"
    if -code == signal.SIGABRT:
        return "the process playing its games aborted (SIGABRT: its game's rules or a library in it failed)"
    return f"the process playing its games was killed by {signal_name(-code)}"


def _interrupt(process: WorkerProcess) -> None:
    """Ctrl-C: the child ends its check's games (SIGINT, as `arbiter check` takes it), or is
    killed after STOP_GRACE_S (a second Ctrl-C: at once); then it is reaped."""
    try:
        if process.exitcode is None:
            os.kill(process.pid, signal.SIGINT)
        process.join(STOP_GRACE_S)
    except KeyboardInterrupt:
        pass
    finally:
        _ended(process, 0)


def _ended(process: WorkerProcess, grace_s: float) -> None:
    """The child ended and reaped: waited for up to `grace_s`, then killed (its bots die with
    it: their guardian is its own)."""
    process.join(grace_s)
    if process.exitcode is None:
        try:
            os.kill(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.join()


def admit(config: TournamentConfig, note: Callable[[str], None]) -> TournamentConfig:
    """Build every player that has a build (once per source digest, kept in `builds/`), then
    with `check: true` check every launched player: an entrant (from `entries:`) whose build
    or check fails is kept out, said on the terminal and in `entrants.json`; a `players:`
    player that fails stops the run (UsageError). The config of the admitted players."""
    folder = ResultsFolder(config.results_dir)
    builds = config.results_dir / BUILDS_FOLDER
    built: dict[str, Built] = {}
    for spec in config.builds:
        player = config.player(spec.player)
        done = build(spec, builds, player.command, boxed=player.sandbox is not None,
                     starting=lambda: note(f"building {spec.player}: {shlex.join(spec.command)}"))
        built[spec.player] = done
        if done.ok:
            how = "built by an earlier run" if done.cached else f"built in {done.seconds:.1f} s"
            note(f"{spec.player}: {how} ({done.folder})")
    failed = {name: Refusal(name, f"failed its build: {b.reason}", str(b.log)) for name, b in built.items() if not b.ok}
    config, unsafe = with_builds(config, {name: b.folder for name, b in built.items() if b.ok},
                                 digests={name: b.digest for name, b in built.items()})
    failed.update({name: Refusal(name, reason, None) for name, reason in unsafe.items()})
    refused = {**failed, **preflight(_without(config, failed), note)}
    for refusal in refused.values():
        if refusal.player not in config.entrants:
            log = f"; log: {refusal.log}" if refusal.log else ""
            raise UsageError(f"the tournament was not started: player {refusal.player} {refusal.reason}{log}")
        note(f"entrant {refusal.player} is kept out of the tournament: it {refusal.reason}"
             + (f"; log: {refusal.log}" if refusal.log else ""))
    admitted = _without(config, refused)
    _write_entrants(folder, admitted, refused, built)
    if len(admitted.players) < max(2, admitted.seats):
        raise UsageError(f"the tournament was not started: {len(admitted.players)} players were admitted "
                         f"({', '.join(p.name for p in admitted.players) or 'none'}), and a game of "
                         f"{config.game_name} needs {max(2, admitted.seats)} (see {folder.entrants_file})")
    if admitted.final is not None and admitted.final.top > len(admitted.players):
        raise UsageError(f"the tournament was not started: its final takes the top {admitted.final.top}, and only "
                         f"{len(admitted.players)} players were admitted (see {folder.entrants_file}); "
                         "lower final: top")
    if config.candidate is not None and config.candidate in refused:
        raise UsageError(f"the tournament was not started: the gauntlet's candidate {config.candidate} was kept out "
                         f"({refused[config.candidate].reason})")
    _refuse_new_entrants(folder, admitted)
    return admitted


def _without(config: TournamentConfig, refused: dict[str, Refusal]) -> TournamentConfig:
    """The config without the `refused` players."""
    if not refused:
        return config
    return replace(config, players=tuple(p for p in config.players if p.name not in refused),
                   builds=tuple(b for b in config.builds if b.player not in refused))


def _write_entrants(folder: ResultsFolder, admitted: TournamentConfig, refused: dict[str, Refusal],
                    built: dict[str, Built]) -> None:
    """`entrants.json`: who was admitted, who was kept out and why, and each build (docs/records.md)."""
    if not admitted.entrants and not built:
        return
    folder.path.mkdir(parents=True, exist_ok=True)
    folder.entrants_file.write_text(json.dumps({
        "admitted": [p.name for p in admitted.players],
        "kept_out": [{"name": r.player, "reason": r.reason, "log": r.log} for r in refused.values()],
        "builds": {name: {"ok": b.ok, "digest": b.digest, "folder": str(b.folder), "log": str(b.log),
                          "reason": b.reason, "seconds": b.seconds, "cached": b.cached} for name, b in built.items()},
    }, indent=2) + "\n")


def _refuse_new_entrants(folder: ResultsFolder, admitted: TournamentConfig) -> None:
    """A resume whose admitted players differ from the recorded tournament's is refused (as
    any changed schedule is: resume.py), naming the entrants that came or went."""
    before = folder.read_description()
    recorded = folder.count_records() if before is not None and folder.games.exists() else 0
    if not recorded:
        return
    was = list(before.schedule.get("players") or []) if before is not None else []
    now = [p.name for p in admitted.players]
    changes = [f"new entrant {name!r}" if name in admitted.entrants else f"new player {name!r}"
               for name in now if name not in was]
    changes += [f"{name!r} no longer plays" for name in was if name not in now]
    if changes:
        raise UsageError(f"{folder.path} holds a tournament of other players ({'; '.join(changes)}): who plays makes "
                         "every format's schedule, and resuming would mix two tournaments. "
                         + start_over_advice(admitted, recorded))


__all__ = ["PREFLIGHT_DUTIES", "CheckEnded", "Refusal", "admit", "check_apart", "check_deadline_s",
           "preflight"]
