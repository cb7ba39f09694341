"""What must match for a resume, derived from the config's schema (schema.py).

A results folder's description (store.TournamentDescription) keeps what fixed its schedule and the
conditions its games were played under. Every key of the config says in its row of schema.py
which it is (`OnResume`): SCHEDULE (refused when changed), CONDITION (refused once games are
recorded), RECORDS (each record's points, audited when read back) or FREE.

Beside the config, each player's program: the records say which program played each seat
(its digest, tournament/programs.py), and a resume whose player is another program now is
refused (`refuse_changed_programs`); its command, its `cwd` and its box's paths may change
freely as long as the program they run is the same.

`schedule_identity` and `play_conditions` are computed from the top-level table's rows, so a
new config key is one row in schema.py; tests/test_config_schema.py fails while a key or a
record's field has no class. docs/config.md, Running and resuming, says the same for the user.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import UsageError
from .config import COMMAND_LINE, TournamentConfig
from .schedule import SEAT_ORDERS
from .schema import CONDITION, SCHEDULE, TOP, OnResume, sandboxed_players


def _entries(config: TournamentConfig, on_resume: OnResume) -> dict[str, Any]:
    """The description's entries of one class, computed by the rows that own them, in the table's order."""
    return {str(key.entry): key.value(config) for key in TOP if key.on_resume is on_resume and key.value is not None}


def schedule_identity(config: TournamentConfig) -> dict[str, Any]:
    """The config values that determine the schedule (the SCHEDULE rows), and with three or
    more seats the rule that seats each group (`schedule.SEAT_ORDERS`: a folder seated by
    another rule lacks it or differs); resuming requires them unchanged."""
    identity = _entries(config, SCHEDULE)
    if config.seats > 2:
        identity["seat_orders"] = SEAT_ORDERS
    return identity


def play_conditions(config: TournamentConfig) -> dict[str, Any]:
    """The config values that change how a game is played, not which games are played (the
    CONDITION rows): each player's time control and memory limit, the seed of the bots, and
    whether each runs sandboxed on this machine. Resuming requires them unchanged."""
    return _entries(config, CONDITION)


def start_over_advice(config: TournamentConfig, games: int) -> str:
    """The two ways out of a refused resume, in the words of where the run was described:
    the command line's flags, or the config's keys."""
    fresh = (f"run with --fresh to start over (its {games} recorded games are moved to a dated backup "
             "folder beside it; --fresh --no-backup deletes them)")
    if config.source == COMMAND_LINE:
        return f"To keep them, give the new run its own folder with --results DIR; or {fresh}."
    return (f"To keep them, give the new run its own folder: set another `name:` or `results:` in "
            f"{config.source}; or {fresh}.")


def _changes(before: Any, now: Any, prefix: str = "") -> list[str]:
    """`sprt.elo1 5.0 -> 10.0`: each changed value, mappings compared key by key."""
    if isinstance(before, dict) and isinstance(now, dict):
        return [change for key in dict.fromkeys([*before, *now])
                for change in _changes(before.get(key), now.get(key), f"{prefix}.{key}" if prefix else str(key))]
    return [] if before == now else [f"{prefix} {before!r} -> {now!r}"]


def refuse_changed_schedule(folder: Path, before: Mapping[str, Any], now: dict[str, Any], games: int,
                            advice: str) -> None:
    """UsageError naming each changed schedule entry with its old and new value (`before` is
    the description's; a missing entry counts as changed unless it is null now), ending in
    `advice` (start_over_advice)."""
    changed = [key for key in now if before.get(key) != now[key]]
    if not changed:
        return
    named = [change for key in changed for change in _changes(before.get(key), now[key], key)] or changed
    why = "Resuming would mix two tournaments"
    if changed == ["seat_orders"]:
        why = ("Its games were seated by an older rule; this arbiter balances who sits before whom "
               "(docs/config.md), and resuming would mix two tournaments")
    elif "sprt" in changed:
        why = ("A resumed SPRT keeps the hypotheses and error rates it started with: its statistics hold "
               "only for a test run to one plan, so other bounds are a new test")
    raise UsageError(f"{folder} holds a tournament with a different schedule (changed: {'; '.join(named)}). "
                     f"{why}. {advice}")


def _time_changes(before: Any, now: dict[str, Any]) -> list[str]:
    """`a's time_ms 5000 -> 100`: each player's changed time key; a key or player the
    earlier folder did not keep (from before `startup_ms` existed) is not compared."""
    return [f"{name}'s {key} {old!r} -> {limits.get(key)!r}"
            for name, limits in now.items()
            for key, old in (before if isinstance(before, dict) else {}).get(name, limits).items()
            if key in limits and limits[key] != old]


def _sandboxed_changes(before: Any, now: dict[str, bool]) -> list[str]:
    """`c sandboxed -> not sandboxed`, for each player in both runs."""
    boxed = {True: "sandboxed", False: "not sandboxed"}
    return [f"{name} {boxed[old]} -> {boxed[now[name]]}"
            for name, old in (before if isinstance(before, dict) else {}).items()
            if name in now and now[name] != old]


def _seed_changes(before: Any, now: Any) -> list[str]:
    """`seed 0 -> none set (...)`: an unset seed ("secret": the folder's secret keys the dice) said
    in words, with the way to go on as before (a folder from before issue 38 kept seed 0)."""
    if before == now:
        return []
    words = {"secret": "none set (the dice keyed by the folder's secret)"}
    change = f"seed {words.get(before, repr(before))} -> {words.get(now, repr(now))}"
    return [change + (f"; set `seed: {before}` to go on as before" if now == "secret" else "")]


# How a changed condition entry is named; any other entry is named by its value (`seed 1 -> 2`).
CONDITION_CHANGES: dict[str, Callable[[Any, Any], list[str]]] = {
    "time": _time_changes,
    "sandboxed": _sandboxed_changes,
    "seed": _seed_changes,
}


def _condition_changes(entry: str, before: Any, now: Any) -> list[str]:
    """Each change in one condition entry, named as CONDITION_CHANGES says or by its values."""
    named = CONDITION_CHANGES.get(entry)
    return named(before, now) if named is not None else _changes(before, now, entry)


def refuse_changed_conditions(folder: Path, before: Any, now: dict[str, Any], games: int, advice: str) -> None:
    """UsageError naming each changed value when `games` recorded games were played under
    other conditions, ending in `advice` (start_over_advice); a folder without games, or from
    before conditions were kept, is accepted, and so is an entry the folder did not keep."""
    if not isinstance(before, dict) or not games:
        return
    changed = [change for entry, value in now.items() if entry in before
               for change in _condition_changes(entry, before[entry], value)]
    if changed:
        raise UsageError(
            f"{folder} holds {games} games played under other conditions (changed: {'; '.join(changed)}). "
            "Resuming would mix games played two ways, and the records would not say which is which "
            f"(concurrency and output options may change freely). {advice}"
        )


def refuse_changed_programs(folder: Path, recorded: Mapping[str, Mapping[str, int]],
                            digests: Mapping[str, str | None], advice: str) -> None:
    """UsageError naming each player whose recorded games were played by another program than
    the one its files make now (`digests` by name; `recorded`: each name's digests in its
    records, with their games, as the tally keeps them), ending in `advice` (start_over_advice).
    A record without a digest (from before records kept it, or of a remote bot) proves nothing
    either way and is accepted."""
    changed: dict[str, tuple[str, int]] = {}  # name -> (the digest recorded first, games with another)
    for name, kept in recorded.items():
        now = digests.get(name)
        others = [(digest, games) for digest, games in kept.items() if now and digest != now]
        if others:
            changed[name] = (others[0][0], sum(games for _, games in others))
    if changed:
        what = "; ".join(f"{name} played {count} of them as another program (digest {old[:12]}, now "
                         f"{str(digests[name])[:12]})" for name, (old, count) in changed.items())
        raise UsageError(
            f"{folder} holds games of other programs under these names: {what}. The bot's files changed "
            "since (its program or its folder: docs/records.md, players[*].digest), and resuming would show "
            f"the old bot's games under the new one. {advice}"
        )


__all__ = ["OnResume", "play_conditions", "refuse_changed_conditions", "refuse_changed_programs",
           "refuse_changed_schedule", "sandboxed_players", "schedule_identity", "start_over_advice"]
