"""The pre-flight of a tournament with `check: true`: every player the arbiter launches goes
through `arbiter check` before the first game, and a bot that fails keeps the tournament from
starting (rather than filling a column of its games with faults)."""
from __future__ import annotations

from typing import Callable

from ..check import CheckTarget, run_check
from ..errors import UsageError
from .config import TournamentConfig
from .store import ResultsFolder

# The protocol's duties, judged under the tournament's own clock: the timing scenarios
# (small clock, move cap, start-up), other parameters and other seat counts are not what
# this tournament will ask of the bot, so they are left to `arbiter check`.
PREFLIGHT_DUTIES = frozenset({
    "seat-0", "seat-1", "opening", "extra-move", "relayed-turn", "out-of-turn", "stdout", "quit",
    "processes", "stderr", "memory",
})


def preflight(config: TournamentConfig, note: Callable[[str], None]) -> None:
    """With `check: true`, check every launched player in turn; UsageError naming the first
    player that fails and the scenario it failed. Logs go to `logs/check-<player>/`."""
    if not config.check:
        return
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
            raise UsageError(f"player {player.name}: cannot be checked: {exc}") from None
        failed = [item for item in report.items if item.status == "fail"]
        if failed:
            first = failed[0]
            others = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
            log = f"; log: {first.log}" if first.log else ""
            raise UsageError(
                f"the tournament was not started: player {player.name} failed the check "
                f"{first.id!r} ({first.title}){others}: {first.hint}{log}. Run `arbiter check` on it for "
                "the whole checklist, or set check: false")
        note(f"{player.name} passed the check ({report.games} games in {report.duration_s:.1f} s)")


__all__ = ["PREFLIGHT_DUTIES", "preflight"]
