"""The config's schema as data: one table per YAML mapping, one row per key.

A row says how the key is checked and its default (for `config.py`'s readers), which field of
the typed record it fills, and what a resumed run requires of it (`OnResume`). The readers
take checks and defaults from here, unknown keys are refused against the same table, and
`resume.schedule_identity` and `resume.play_conditions` are computed from the rows, so a new
key is one row here (and its reading), never a list to remember elsewhere.

Nothing here touches the machine: whether a command starts, a folder exists or the sandbox
works is asked afterwards, in one pass (probe.py). Keys are documented in the page each table names;
tests/test_config_schema.py checks that every row is classified and documented.
"""
from __future__ import annotations

import enum
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator, Mapping as MappingType

from ..games import FAMILIES, GameError, game_class, game_names
from ..protocol import DIALECTS
from ..referee import TimeControl
from ..transport.endpoints import DEFAULT_CONNECT_WAIT_MS
from ..transport.sandbox import CPU_CORES, MIN_CPU_CORES, WRITE_FILES, WRITE_MB
from .build import BUILD_MEMORY_MB, BUILD_TIME_MS
from .validate import Check, Mapping, boolean, integer, number, one_of, text

FORMATS: tuple[str, ...] = ("round-robin", "gauntlet", "swiss", "sprt")
TRANSPORTS: tuple[str, ...] = ("pipe", "zmq", "remote")
SANDBOX_MODES = ("on", "off", "required")  # the run's `sandbox:` (docs/security.md)
DEFAULT_LOG_PATTERN = "warn|error|exception|traceback|assert"
MAX_CONCURRENCY = 256
MAX_PLANNED_GAMES = 10_000_000  # the schedule is gone through lazily; the records are read in bounded memory
MAX_ROUNDS = 10_000
MAX_PLAYERS = 10_000  # a final's `top` at most
MAX_MEMORY_MB = 1 << 30  # 1 PiB: above it the limit in bytes no longer fits the kernel's rlimit
MAX_NAME_BYTES = 64  # a log file's name holds the game id (two names) and a name again: 3 x 64 + 19 < 255
MAX_OPENING_MOVES = 64


class OnResume(enum.Enum):
    """What a resumed run requires of one config value (resume.py says how each is refused).

    SCHEDULE: which games are played; a resume with another value is refused.
    CONDITION: how each game is played; refused once games are recorded, since one tournament
    would hold games played two ways and the standings would not say which is which.
    RECORDS: kept in every record (the scoring: each game's points), and reading the records
    back refuses points another value gives.
    FREE: may change between a run and its resume (concurrency, output, a bot's command).
    """

    SCHEDULE = "schedule"
    CONDITION = "condition"
    RECORDS = "records"
    FREE = "free"


SCHEDULE, CONDITION, RECORDS, FREE = OnResume.SCHEDULE, OnResume.CONDITION, OnResume.RECORDS, OnResume.FREE
SAME = "="  # a row's `field` when the record's field has the key's name
_ROW = object()  # Table.read's default: the row's own


@dataclass(frozen=True)
class Key:
    """One key of a mapping.

    `check` says what a value must be (validate.py's checks); None when the key's reader in
    config.py checks it against other keys or reads it into a record of its own. `default` is
    the value an absent key takes (None also where the reader works it out from other keys).
    `launched` keys apply only to a bot the arbiter launches (not to `transport: remote`).
    `field` is the record's field the key fills (None: it fills fields of other records, said
    in a comment). `entry` names the entry of the results folder's description
    (store.TournamentDescription) that keeps it, for SCHEDULE and CONDITION keys, and `value`
    computes that entry from the config on the one row that owns it."""

    name: str
    on_resume: OnResume
    check: Check | None = None
    default: Any = None
    required: bool = False
    launched: bool = False
    field: str | None = SAME
    entry: str | None = None
    value: Callable[[Any], Any] | None = None

    @property
    def fills(self) -> str | None:
        """The record field this key fills."""
        return self.name if self.field == SAME else self.field


@dataclass(frozen=True)
class Table:
    """The keys of one mapping, in the order messages list them; `page` documents them, and
    `derived` says what a resume requires of the record's fields that no key fills."""

    page: str
    keys: tuple[Key, ...]
    derived: MappingType[str, OnResume] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """The keys' names: what the mapping may hold."""
        return tuple(key.name for key in self.keys)

    def __getitem__(self, name: str) -> Key:
        return next(key for key in self.keys if key.name == name)

    def __iter__(self) -> Iterator[Key]:
        return iter(self.keys)

    def read(self, m: Mapping, name: str, default: Any = _ROW, check: Check | None = None) -> Any:
        """The value of key `name` in the mapping being read, checked by its row (or `check`),
        else its row's default (or `default`, where the reader knows better)."""
        key = self[name]
        chosen = check or key.check
        assert chosen is not None, f"{name} has no check: its reader checks it"
        return m.get(name, key.default if default is _ROW else default, chosen, required=key.required)


def game_name(value: Any) -> str | None:
    """A check for a game's name: one of the registry's, a family's (`openspiel:hex`), which
    the family itself judges (naming the games it has), or a user's `module:Class`."""
    if isinstance(value, str) and ":" in value:  # a family's game, or a user's module:Class
        try:
            game_class(value)
        except GameError as exc:
            family = any(value.startswith(prefix) for prefix, _ in FAMILIES)
            near = None if family else one_of(game_names() + [f"{prefix}NAME" for prefix, _ in FAMILIES])(value)
            return near if near and "did you mean" in near else str(exc)
        return None
    return one_of(game_names() + ["triangle-war"] + [f"{prefix}NAME" for prefix, _ in FAMILIES])(value)


def player_name(value: Any) -> str | None:
    """A check for a player name: it becomes part of game ids and log file names."""
    if value is None or isinstance(value, (bool, int, float)):
        return ("must be a string (YAML reads yes/no/true/null and numbers as other types: "
                "quote the name, e.g. name: \"yes\")")
    if not isinstance(value, str) or not value.strip():
        return "must be a non-empty string"
    if value != value.strip():
        return "must not start or end with a space"
    bad = sorted({char for char in value if char in "/\\" or not char.isprintable()})
    if bad:
        return (f"must not contain {', '.join(repr(char) for char in bad)} "
                "(player names are part of game ids and log file names)")
    if value.startswith("."):
        return "must not start with '.' (player names are part of log file names)"
    if len(value.encode("utf-8")) > MAX_NAME_BYTES:
        return f"must be at most {MAX_NAME_BYTES} bytes long in UTF-8 (it is part of log file names)"
    return None


def probability(value: Any) -> str | None:
    """A check for an error rate strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        return "must be a number between 0 and 1 (exclusive)"
    return None


def regex(value: Any) -> str | None:
    """A check for a regular expression ("" is allowed: it turns the log check off)."""
    if not isinstance(value, str):
        return "must be a regular expression (a string; \"\" turns the log check off)"
    try:
        re.compile(value)
    except re.error as exc:
        return f"must be a valid regular expression ({exc})"
    return None


def player_time_controls(config: Any) -> dict[str, dict[str, Any]]:
    """Each player's time control and memory limit (its own, or the config's `time`) by name."""
    return {p.name: asdict(p.clock(config.time)) for p in config.players}


def sandboxed_players(config: Any) -> dict[str, bool]:
    """Whether each launched player's bot runs sandboxed (remote players are not launched, so
    not listed), as decided when the config was read (`sandbox.box_here`)."""
    return {p.name: p.sandbox is not None for p in config.players if p.transport != "remote"}


def _plain(value: Any) -> Any:
    """A value as JSON keeps it: tuples as lists, all the way down."""
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    return value


def scheduled(record: Any, table: Table) -> dict[str, Any]:
    """The fields a sub-record's SCHEDULE keys fill (the openings, the SPRT's hypotheses) by name."""
    return {key.fills: _plain(getattr(record, str(key.fills))) for key in table if key.on_resume is SCHEDULE}


_TIME_DEFAULTS = TimeControl()

# The `time:` section, and each player's own time keys (PLAYER below).
TIME = Table("docs/config.md", (
    Key("time_ms", CONDITION, integer(1), _TIME_DEFAULTS.time_ms, entry="time"),
    Key("move_ms", CONDITION, integer(1), _TIME_DEFAULTS.move_ms, entry="time"),
    Key("clock", CONDITION, one_of(("wall", "cpu")), _TIME_DEFAULTS.clock, entry="time"),
    Key("suspend_idle", CONDITION, boolean, _TIME_DEFAULTS.suspend_idle, launched=True, entry="time"),
    Key("memory_mb", CONDITION, integer(16, MAX_MEMORY_MB), _TIME_DEFAULTS.memory_mb, launched=True, entry="time"),
    Key("startup_ms", CONDITION, integer(1), _TIME_DEFAULTS.startup_ms, launched=True, entry="time"),
    Key("charge_startup", CONDITION, boolean, _TIME_DEFAULTS.charge_startup, launched=True, entry="time"),
))

# A player's socket keys (docs/config.md, Players over sockets); all but `transport` fill its SocketSpec.
SOCKET = Table("docs/config.md", (
    Key("transport", FREE, one_of(TRANSPORTS), "pipe"),
    Key("bind", FREE, text, field="socket"),
    Key("connect", FREE, text, field="socket"),
    Key("public_key", FREE, text, field="socket"),  # its file is read by the reader
    Key("connect_wait_ms", FREE, integer(0), DEFAULT_CONNECT_WAIT_MS, field="socket"),
))

# An entry of `players:` (and `candidate:`, `baseline:` for format: sprt).
PLAYER = Table("docs/config.md", (
    Key("name", SCHEDULE, player_name, entry="players"),  # in seat-list order
    Key("command", FREE, launched=True),  # a string split like a shell would, or a list of words
    Key("cwd", FREE, text, launched=True),
    Key("env", FREE, launched=True),  # the game's seed, which is not free, is set by the runner, not here
    Key("dialect", FREE, one_of(tuple(DIALECTS)), "arbiter"),
    Key("sandbox", CONDITION, launched=True, entry="sandboxed"),  # off, on, or SANDBOX below
    # Many games per process: each game keeps its own clock and start-up, and each record says
    # which process and which game of it played (pids, game_of_process); a speed option, like
    # concurrency. Default: the run's `reuse`.
    Key("reuse", FREE, boolean, launched=True),
    # A preset's name or a command (docs/config.md, build); fills the config's `builds`. What was
    # built is in the program's digest, which a resume must match (programs.py).
    Key("build", FREE, text, launched=True, field=None),
    *(Key(key.name, key.on_resume, key.check, key.default, launched=key.launched, field="time", entry=key.entry)
      for key in TIME),
    *SOCKET.keys,
))

# A player's `sandbox:` mapping: what its box shows; only whether it has a box is a condition.
SANDBOX = Table("docs/config.md", (
    Key("read", FREE),
    Key("write", FREE),
    Key("write_mb", FREE, integer(1), WRITE_MB),
    Key("write_files", FREE, integer(1), WRITE_FILES),
    Key("cpu_cores", FREE, number(MIN_CPU_CORES), CPU_CORES),
))

OPENINGS = Table("docs/config.md", (
    Key("random_moves", SCHEDULE, integer(0, MAX_OPENING_MOVES), 0, entry="openings"),
    Key("seed", SCHEDULE, integer(0), 0, entry="openings"),
    # The openings the file holds, as read: the same lines from another file are the same openings.
    Key("file", SCHEDULE, text, field="lines", entry="openings"),
), derived={"file": FREE})  # where the lines were read from

# The SPRT's settings (docs/release-checking.md): the hypotheses fix what the games are for.
SPRT = Table("docs/release-checking.md", (
    Key("elo0", SCHEDULE, number(), 0.0, entry="sprt"),
    Key("elo1", SCHEDULE, number(), 5.0, entry="sprt"),
    Key("alpha", SCHEDULE, probability, 0.05, entry="sprt"),
    Key("beta", SCHEDULE, probability, 0.05, entry="sprt"),
    Key("max_games", FREE, integer(2, MAX_PLANNED_GAMES, even=True), 1000),  # may grow on resume
    Key("fail_on_fault", FREE, boolean, True),
    Key("log_pattern", FREE, regex, DEFAULT_LOG_PATTERN),
))

CLUSTER = Table("docs/cluster.md", (
    Key("address", FREE, text, required=True),
    Key("ca_file", FREE, text),
    Key("cert", FREE, text),
    Key("key", FREE, text),
))

# `scoring:` as a mapping (or `game`); the store's audit refuses recorded points another scoring gives.
SCORING = Table("docs/config.md", (
    Key("win", RECORDS, number(), 1.0),
    Key("draw", RECORDS, number(), 0.5),
    Key("loss", RECORDS, number(), 0.0),
    Key("places", RECORDS),  # a list of the seats' points, checked against the seats
), derived={"game_points": RECORDS})  # `scoring: game`

# `build_limits:`, for every player's build (docs/config.md, build); they fill each BuildSpec.
BUILD_LIMITS = Table("docs/config.md", (
    Key("time_ms", FREE, integer(1), BUILD_TIME_MS),  # CodeCup: 5 minutes
    Key("memory_mb", FREE, integer(16, MAX_MEMORY_MB), BUILD_MEMORY_MB),
))

GAUNTLET = Table("docs/config.md", (
    Key("candidate", SCHEDULE, required=True, entry="candidate"),  # one of the players' names
))

# `final:` of a Swiss tournament (CodeCup's stages): the top players after the Swiss rounds play a
# round robin among themselves for the final ranking (docs/config.md, final).
FINAL = Table("docs/config.md", (
    Key("top", SCHEDULE, integer(2, MAX_PLAYERS), required=True, entry="final"),
    Key("games_per_pairing", SCHEDULE, entry="final"),  # default 2 (a double round robin); a multiple of the seats
))

# The top level. The description's entries come in this order.
TOP = Table("docs/config.md", (
    Key("name", FREE, text),  # default: the file's name; it names the default results folder
    Key("game", SCHEDULE, game_name, required=True, field="game_name", entry="game", value=lambda c: c.game_name),
    Key("params", SCHEDULE, entry="params", value=lambda c: {k: str(v) for k, v in c.params.items()}),
    Key("format", SCHEDULE, one_of(FORMATS), "round-robin", entry="format", value=lambda c: c.format),
    # Default: one rotation of the seats; games_per_group is its name for any number of seats.
    Key("games_per_pairing", SCHEDULE, entry="games_per_pairing", value=lambda c: c.games_per_pairing),
    Key("games_per_group", SCHEDULE, field="games_per_pairing", entry="games_per_pairing"),
    Key("rounds", SCHEDULE, integer(1, MAX_ROUNDS), entry="rounds", value=lambda c: c.rounds),
    Key("final", SCHEDULE, entry="final", value=lambda c: None if c.final is None else scheduled(c.final, FINAL)),
    Key("openings", SCHEDULE, entry="openings", value=lambda c: scheduled(c.openings, OPENINGS)),
    # Every TimeControl field of every player, compared one by one.
    Key("time", CONDITION, entry="time", value=player_time_controls),
    Key("concurrency", FREE, integer(1, MAX_CONCURRENCY)),  # default: from the cores and the clocks
    Key("scoring", RECORDS),
    Key("players", SCHEDULE, entry="players", value=lambda c: [p.name for p in c.players]),  # the rest: PLAYER
    Key("gauntlet", SCHEDULE, field="candidate", entry="candidate", value=lambda c: c.candidate),
    Key("results", FREE, text, field="results_dir"),  # another folder is another tournament
    Key("candidate", SCHEDULE, field="players", entry="players"),  # format: sprt's two players
    Key("baseline", SCHEDULE, field="players", entry="players"),
    Key("sprt", SCHEDULE, entry="sprt", value=lambda c: None if c.sprt is None else scheduled(c.sprt, SPRT)),
    Key("arbiter_keys", FREE, text, field=None),  # fills the remote players' SocketSpec
    Key("check", FREE, boolean, False),
    # Unset, the dice are keyed by the results folder's secret ("secret" in the description).
    Key("seed", CONDITION, integer(0), None, entry="seed", value=lambda c: "secret" if c.seed is None else c.seed),
    # The run's `sandbox:` is folded into each player's own by the config.
    Key("sandbox", CONDITION, default="on", entry="sandboxed", value=sandboxed_players),
    Key("cluster", FREE),  # an address, or CLUSTER
    Key("reuse", FREE, boolean, False, field=None),  # every launched player's default `reuse`
    # A folder of entrants, one subfolder each (docs/config.md, entries); who they are is in `players`.
    Key("entries", FREE, text, field="entrants"),
    Key("build_limits", FREE, field=None),  # BUILD_LIMITS; fills each of `builds`
), derived={
    "builds": FREE,  # from the players' `build`: what was built is in each program's digest
    "source": FREE,
    "raw": FREE,  # the file as read, copied into config.yaml
    "seats": SCHEDULE,  # the game's `players` parameter: within `params`
})

# Which records the tables read into, for the test that every field is classified.
TABLES: dict[str, Table] = {"top": TOP, "player": PLAYER, "time": TIME, "socket": SOCKET, "sandbox": SANDBOX,
                            "openings": OPENINGS, "sprt": SPRT, "cluster": CLUSTER, "scoring": SCORING,
                            "gauntlet": GAUNTLET, "build_limits": BUILD_LIMITS}

__all__ = ["BUILD_LIMITS", "CLUSTER", "CONDITION", "FORMATS", "FREE", "GAUNTLET", "Key", "OPENINGS", "OnResume", "PLAYER", "RECORDS",
           "SANDBOX", "SCHEDULE", "SCORING", "SOCKET", "SPRT", "TABLES", "TIME", "TOP", "Table", "game_name",
           "player_name", "player_time_controls", "probability", "regex", "sandboxed_players", "scheduled"]
