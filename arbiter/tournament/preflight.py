"""Before the first game: every player with a build is built (tournament/build.py), and with
`check: true` every launched player goes through `arbiter check`. A `players:` player that
fails keeps the tournament from starting (rather than filling a column of its games with
faults); an entrant (`entries:`) that fails is kept out of it, with its reason and log, and
the schedule is made of the players admitted (`admit`)."""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, replace
from typing import Callable

from ..check import CheckTarget, run_check
from ..errors import UsageError
from .build import Built, build
from .config import TournamentConfig, with_builds
from .resume import start_over_advice
from .store import ResultsFolder

BUILDS_FOLDER = "builds"  # in the results folder: builds/NAME-DIGEST/ (docs/records.md)
ENTRANTS_FILE = "entrants.json"

# The protocol's duties, judged under the tournament's own clock: the timing scenarios
# (small clock, move cap, start-up), other parameters and other seat counts are not what
# this tournament will ask of the bot, so they are left to `arbiter check`.
PREFLIGHT_DUTIES = frozenset({
    "seat-0", "seat-1", "opening", "extra-move", "relayed-turn", "out-of-turn", "stdout", "quit",
    "processes", "stderr", "memory",
})


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
            report = run_check(target, log_dir=log_dir, concurrency=min(2, config.concurrency))
        except ValueError as exc:
            refused[player.name] = Refusal(player.name, f"cannot be checked: {exc}", None)
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
        note(f"{player.name} passed the check ({report.games} games in {report.duration_s:.1f} s)")
    return refused


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
                         f"{config.game_name} needs {max(2, admitted.seats)} (see {folder.path / ENTRANTS_FILE})")
    if admitted.final is not None and admitted.final.top > len(admitted.players):
        raise UsageError(f"the tournament was not started: its final takes the top {admitted.final.top}, and only "
                         f"{len(admitted.players)} players were admitted (see {folder.path / ENTRANTS_FILE}); "
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
    (folder.path / ENTRANTS_FILE).write_text(json.dumps({
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


__all__ = ["ENTRANTS_FILE", "PREFLIGHT_DUTIES", "Refusal", "admit", "preflight"]
