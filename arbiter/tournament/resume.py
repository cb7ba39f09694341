"""What must match for a resume, read from one table per config record.

A results folder's description (store.TournamentDescription) keeps what fixed its schedule and the
conditions its games were played under. Every field of the config's records says here which
it is:

- SCHEDULE: which games are played; a resume with another value is refused.
- CONDITION: how each game is played; refused once games are recorded, since one tournament
  would hold games played two ways and the standings would not say which is which.
- RECORDS: kept in every record (the scoring: each game's points), and reading the records
  back refuses points another value gives.
- FREE: may change between a run and its resume (concurrency, output, a bot's command).

Beside the config, each player's program: the records say which program played each seat
(its digest, tournament/programs.py), and a resume whose player is another program now is
refused (`refuse_changed_programs`); its command, its `cwd` and its box's paths may change
freely as long as the program they run is the same.

`schedule_identity` and `play_conditions` are derived from the tables, so a new config key is
one row here; tests/test_tournament_config.py fails while a field has no row. docs/config.md,
Running and resuming, says the same for the user.
"""
from __future__ import annotations

import enum
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..errors import UsageError
from .config import COMMAND_LINE, TournamentConfig
from .schedule import SEAT_ORDERS


class OnResume(enum.Enum):
    """What a resumed run requires of one config value (the module's docstring)."""

    SCHEDULE = "schedule"
    CONDITION = "condition"
    RECORDS = "records"
    FREE = "free"


SCHEDULE, CONDITION, RECORDS, FREE = OnResume.SCHEDULE, OnResume.CONDITION, OnResume.RECORDS, OnResume.FREE


@dataclass(frozen=True)
class Rule:
    """One field's row: what a resume requires of it and, when the description keeps it under
    a name of its own, that entry's name and how it is computed from the config. A field
    without an entry is kept within another field's entry (its comment says which)."""

    on_resume: OnResume
    entry: str | None = None
    value: Callable[[TournamentConfig], Any] | None = None


def _plain(value: Any) -> Any:
    """A value as JSON keeps it: tuples as lists, all the way down."""
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    return value


def _scheduled(record: Any, rules: Mapping[str, Rule]) -> dict[str, Any]:
    """The SCHEDULE fields of a sub-record (openings, the SPRT's settings) by name."""
    return {name: _plain(getattr(record, name)) for name, rule in rules.items() if rule.on_resume is SCHEDULE}


def player_time_controls(config: TournamentConfig) -> dict[str, dict[str, Any]]:
    """Each player's time control and memory limit (its own, or the config's `time`) by name."""
    return {p.name: asdict(p.clock(config.time)) for p in config.players}


def sandboxed_players(config: TournamentConfig) -> dict[str, bool]:
    """Whether each launched player's bot runs sandboxed (remote players are not launched, so
    not listed), as decided when the config was read (`sandbox.box_here`)."""
    return {p.name: p.sandbox is not None for p in config.players if p.transport != "remote"}


# TournamentConfig's fields. The order of the entries is their order in the description.
CONFIG_RULES: dict[str, Rule] = {
    "game_name": Rule(SCHEDULE, "game", lambda c: c.game_name),
    "params": Rule(SCHEDULE, "params", lambda c: {k: str(v) for k, v in c.params.items()}),
    "seats": Rule(SCHEDULE),  # the game's `players` parameter: within `params`
    "format": Rule(SCHEDULE, "format", lambda c: c.format),
    "games_per_pairing": Rule(SCHEDULE, "games_per_pairing", lambda c: c.games_per_pairing),
    "rounds": Rule(SCHEDULE, "rounds", lambda c: c.rounds),
    "openings": Rule(SCHEDULE, "openings", lambda c: _scheduled(c.openings, OPENINGS_RULES)),
    "players": Rule(SCHEDULE, "players", lambda c: [p.name for p in c.players]),  # the rest: PLAYER_RULES
    "candidate": Rule(SCHEDULE, "candidate", lambda c: c.candidate),
    "sprt": Rule(SCHEDULE, "sprt", lambda c: None if c.sprt is None else _scheduled(c.sprt, SPRT_RULES)),
    "time": Rule(CONDITION, "time", player_time_controls),  # every TimeControl field, compared one by one
    "seed": Rule(CONDITION, "seed", lambda c: c.seed),
    # The run's `sandbox:` is folded into each player's own by the config.
    "sandbox": Rule(CONDITION, "sandboxed", sandboxed_players),
    "scoring": Rule(RECORDS),  # each record's points; the store's audit refuses points another scoring gives
    "name": Rule(FREE),  # it names the default results folder: another name is another folder
    "source": Rule(FREE),
    "results_dir": Rule(FREE),  # another folder is another tournament
    "concurrency": Rule(FREE),
    "check": Rule(FREE),
    "cluster": Rule(FREE),
    "raw": Rule(FREE),  # the file as read, copied into config.yaml
}

# PlayerSpec's fields, for each entry of `players`.
PLAYER_RULES: dict[str, Rule] = {
    "name": Rule(SCHEDULE),  # within `players`, in seat-list order
    "time": Rule(CONDITION),  # within `time`
    "sandbox": Rule(CONDITION),  # within `sandboxed`
    "command": Rule(FREE),
    "cwd": Rule(FREE),
    "env": Rule(FREE),  # the game's seed, which is not free, is set by the runner, not here
    "dialect": Rule(FREE),
    "transport": Rule(FREE),
    "socket": Rule(FREE),
    # Many games per process: each game keeps its own clock and start-up, and each record says
    # which process and which game of it played (pids, game_of_process); a speed option, like concurrency.
    "reuse": Rule(FREE),
}

# Openings' fields, within `openings`.
OPENINGS_RULES: dict[str, Rule] = {
    "random_moves": Rule(SCHEDULE),
    "seed": Rule(SCHEDULE),
    "lines": Rule(SCHEDULE),  # the openings a file holds, as read
    "file": Rule(FREE),  # where they were read from: the same lines from another file are the same openings
}

# SprtSettings' fields, within `sprt`: the hypotheses fix what the games are for.
SPRT_RULES: dict[str, Rule] = {
    "elo0": Rule(SCHEDULE),
    "elo1": Rule(SCHEDULE),
    "alpha": Rule(SCHEDULE),
    "beta": Rule(SCHEDULE),
    "max_games": Rule(FREE),  # may grow on resume
    "fail_on_fault": Rule(FREE),
    "log_pattern": Rule(FREE),
}


def _entries(config: TournamentConfig, on_resume: OnResume) -> dict[str, Any]:
    return {rule.entry: rule.value(config) for rule in CONFIG_RULES.values()
            if rule.on_resume is on_resume and rule.entry is not None and rule.value is not None}


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


def refuse_changed_conditions(folder: Path, before: Any, now: dict[str, Any], games: int, advice: str) -> None:
    """UsageError naming each changed value when `games` recorded games were played under
    other conditions, ending in `advice` (start_over_advice); a folder without games, or from
    before conditions were kept, is accepted."""
    if not isinstance(before, dict) or not games:
        return
    changed = [f"{name}'s {key} {old!r} -> {limits.get(key)!r}"
               for name, limits in now["time"].items()
               for key, old in before.get("time", {}).get(name, limits).items()
               if key in limits and limits[key] != old]
    if before.get("seed", now["seed"]) != now["seed"]:
        changed.append(f"seed {before['seed']!r} -> {now['seed']!r}")
    boxed = {True: "sandboxed", False: "not sandboxed"}
    changed += [f"{name} {boxed[old]} -> {boxed[now['sandboxed'][name]]}"
                for name, old in before.get("sandboxed", {}).items()
                if name in now["sandboxed"] and now["sandboxed"][name] != old]
    if changed:
        raise UsageError(
            f"{folder} holds {games} games played under other conditions (changed: {'; '.join(changed)}). "
            "Resuming would mix games played two ways, and the records would not say which is which "
            f"(concurrency and output options may change freely). {advice}"
        )


def refuse_changed_programs(folder: Path, records: Sequence[Mapping[str, Any]],
                            digests: Mapping[str, str | None], advice: str) -> None:
    """UsageError naming each player whose recorded games were played by another program than
    the one its files make now (`digests` by name), ending in `advice` (start_over_advice). A
    record without a digest (from before records kept it, or of a remote bot) proves nothing
    either way and is accepted."""
    changed: dict[str, tuple[str, int]] = {}  # name -> (the digest recorded first, games with another)
    for record in records:
        for name, player in zip(record.get("names", ()), record.get("players", ())):
            recorded = player.get("digest") if isinstance(player, Mapping) else None
            now = digests.get(name)
            if recorded and now and recorded != now:
                first, count = changed.get(name, (recorded, 0))
                changed[name] = (first, count + 1)
    if changed:
        what = "; ".join(f"{name} played {count} of them as another program (digest {old[:12]}, now "
                         f"{str(digests[name])[:12]})" for name, (old, count) in changed.items())
        raise UsageError(
            f"{folder} holds games of other programs under these names: {what}. The bot's files changed "
            "since (its program or its folder: docs/records.md, players[*].digest), and resuming would show "
            f"the old bot's games under the new one. {advice}"
        )


__all__ = ["CONFIG_RULES", "OPENINGS_RULES", "OnResume", "PLAYER_RULES", "Rule", "SPRT_RULES", "play_conditions",
           "refuse_changed_conditions", "refuse_changed_programs", "refuse_changed_schedule", "sandboxed_players",
           "schedule_identity", "start_over_advice"]
