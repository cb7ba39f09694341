"""Tournament configs: a YAML file validated at the edge into immutable records.

Every key is a row of schema.py and is documented in docs/config.md. The file is read
first schema.py's checks, and the checks between keys here, then what it asks of this
machine is answered in one pass probe.py; the whole file is checked before any game
starts, and all problems are reported together with their key path and line.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

from ..games import Game, GameError, find_game
from ..protocol import find_dialect
from ..referee import PlayerSpec, TimeControl
from ..transport.sandbox import SandboxSpec, box_here
from ..transport.shown import ShownPaths, shown_path_problems
from .build import BuildSpec, outside_the_box
from .game_probe import parameter_problem
from .plan import OpeningError, group_count, opening_problems, random_opening
from .rules_host import RulesFailed
from .probe import PathThere, Sandboxing, ThisMachine, loopback, not_this_machine, probe
from .players import (COMMAND_LINE, box_for_run, check_name_clashes, check_shown_paths, read_arbiter_keys,
                      read_entrants, read_player, read_players, read_time, with_covers)
from .schema import (BUILD_LIMITS, CLUSTER, FINAL, GAUNTLET, MAX_CONCURRENCY, MAX_NAME_BYTES, MAX_PLANNED_GAMES, OPENINGS,
                     SANDBOX_MODES, SCORING, SPRT, TOP)
from .validate import ConfigError, KeyPath, Mapping, Problems, integer, load_yaml, number, one_of, text

Format = Literal["round-robin", "gauntlet", "swiss", "sprt"]


@dataclass(frozen=True)
class Scoring:
    """Points per game result, or (`game_points`) each seat's own score in the game, as
    CodeCup totals its game points. `places`, when given, are the points per place (1st,
    2nd, ...); without it a two-seat game scores win/draw/loss and a game of more seats
    gives `win` to the first place and `loss` to every other (docs/config.md, scoring)."""

    win: float = SCORING["win"].default
    draw: float = SCORING["draw"].default
    loss: float = SCORING["loss"].default
    game_points: bool = False
    places: tuple[float, ...] = ()

    def points(self, places: list[int], scores: list[int]) -> list[float]:
        """Each seat's tournament points from its place (1-based; tied seats share the best
        place) and, with `game_points`, its own score. Tied seats share the points of the
        places they span equally: two tied for first of three with places [3, 1, 0] get 2 each."""
        if self.game_points:
            return [float(score) for score in scores]
        seats = len(places)
        if not self.places and seats == 2:
            return [self.draw if places[0] == places[1] else self.win if place == 1 else self.loss
                    for place in places]
        table = self.places or (self.win,) + (self.loss,) * (seats - 1)
        points = []
        for place in places:
            tied = places.count(place)
            points.append(sum(table[place - 1:place - 1 + tied]) / tied)
        return points


@dataclass(frozen=True)
class Openings:
    """Forced opening moves: `random_moves` random legal moves from `seed`, or lines of a file."""

    random_moves: int = 0
    seed: int = 0
    lines: tuple[tuple[str, ...], ...] = ()  # from `file:`, already checked against the rules
    file: str | None = None


@dataclass(frozen=True)
class SprtSettings:
    """A sequential test of `candidate` against `baseline` (format: sprt); see docs/release-checking.md.

    H0: nElo = elo0 against H1: nElo = elo1, with error rates alpha and beta, over at most
    `max_games` games; `log_pattern` is a case-insensitive regex ("" checks no logs).
    """

    elo0: float = SPRT["elo0"].default
    elo1: float = SPRT["elo1"].default
    alpha: float = SPRT["alpha"].default
    beta: float = SPRT["beta"].default
    max_games: int = SPRT["max_games"].default
    fail_on_fault: bool = SPRT["fail_on_fault"].default
    log_pattern: str = SPRT["log_pattern"].default


@dataclass(frozen=True)
class ClusterSpec:
    """A Dask scheduler to play the games on (docs/cluster.md): its address (tcp:// on this
    machine only, else tls://) and, for TLS, the CA and this client's certificate and key
    files (None: Dask's own configuration gives them)."""

    address: str
    ca_file: str | None = None
    cert: str | None = None
    key: str | None = None


@dataclass(frozen=True)
class FinalStage:
    """A Swiss tournament's final (docs/config.md, final): after the Swiss rounds, the `top`
    players by the Swiss ranking play a round robin of `games_per_pairing` games a group
    among themselves, and the final ranking puts them first (tournament/stages.py)."""

    top: int
    games_per_pairing: int = 2


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament. Paths are absolute."""

    name: str
    source: Path
    results_dir: Path
    game_name: str
    params: dict[str, Any]
    format: Format
    games_per_pairing: int  # games per group of `seats` players (`games_per_group`); a multiple of seats
    rounds: int | None
    openings: Openings
    time: TimeControl
    concurrency: int
    scoring: Scoring
    players: tuple[PlayerSpec, ...]
    candidate: str | None = None
    sprt: SprtSettings | None = None  # format: sprt only; players are then (candidate, baseline)
    check: bool = False  # check every launched player (`arbiter check`) before the first game
    sandbox: str = "on"  # on, off or required (docs/security.md); players' own `sandbox: off` aside
    # The organiser's seed of the dice (reproducible, so public to whoever knows it); None: the
    # results folder's secret keys them (chance.RunSeeds). Never the bots' $ARBITER_SEED.
    seed: int | None = None
    seats: int = 2  # players per game: the game's `players` parameter
    final: FinalStage | None = None  # format: swiss only: the top players' round robin after the rounds
    cluster: ClusterSpec | None = None  # games on a Dask cluster (docs/cluster.md); None: here
    entrants: tuple[str, ...] = ()  # the players from `entries:` (kept out, not refused, when they fail)
    builds: tuple[BuildSpec, ...] = ()  # how each player with a `build` is built (tournament/build.py)
    raw: dict[str, Any] = field(default_factory=dict, compare=False)  # the file as read, for the copy and diffs

    def make_game(self) -> Game[Any]:
        """A fresh game object with this tournament's parameters."""
        return find_game(self.game_name, **self.params)

    def player(self, name: str) -> PlayerSpec:
        """The player called `name`."""
        return self._player_named[name]

    @functools.cached_property
    def _player_named(self) -> dict[str, PlayerSpec]:
        """Every player by its name, built on the first look (a runner looks for each game's seats)."""
        return {p.name: p for p in self.players}


def load_config(path: str | Path, *, concurrency: int | None = None, cluster: str | None = None) -> TournamentConfig:
    """Read and validate a tournament config; raises ConfigError listing every problem.
    `concurrency` and `cluster` (an address) are the command line's overrides."""
    source = Path(path).resolve()
    data, problems = load_yaml(source)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a tournament config must be a YAML mapping of keys ({', '.join(TOP.names)})")
    config = _read_config(data, source, problems)
    problems.raise_if_any()
    assert config is not None
    if concurrency is not None:
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise ConfigError(f"--concurrency {concurrency} is not allowed: must be >= 1 and <= {MAX_CONCURRENCY}")
        config = replace(config, concurrency=concurrency)
    if cluster is not None:
        config = with_cluster(config, cluster)
    return config


def with_cluster(config: TournamentConfig, address: str) -> TournamentConfig:
    """The config played on the Dask scheduler at `address` (`--cluster`), keeping the
    config's TLS files; ConfigError naming the flag if the address is refused."""
    problem = cluster_address_problem(address)
    if problem:
        raise ConfigError(f"--cluster {address} is not allowed: {problem}")
    reused = [p.name for p in config.players if p.reuse]
    if reused:
        raise ConfigError(f"--cluster {address} is not allowed with reuse (players {', '.join(reused)}): games on "
                          "a cluster launch their bots for each game (docs/cluster.md)")
    remote = [p.name for p in config.players if p.transport == "remote"]
    if remote:
        raise ConfigError(f"--cluster {address} is not allowed: {', '.join(remote)} "
                          f"{'is a remote bot' if len(remote) == 1 else 'are remote bots'} "
                          "(transport: remote), which only the arbiter's machine reaches")
    return replace(config, cluster=replace(config.cluster or ClusterSpec(address), address=address))


def cluster_address_problem(address: str) -> str | None:
    """Why a scheduler address is refused, or None: it must be tcp://HOST:PORT on this
    machine (loopback), or tls://HOST:PORT anywhere; a plain connection across a network
    would let anybody on the way play or read the games."""
    parts = _address_parts(address)
    if parts is None:
        return ADDRESS_FORM
    scheme, host = parts
    return not_this_machine(host) if scheme == "tcp" and not loopback(host) else None


ADDRESS_FORM = "give the Dask scheduler as tls://HOST:PORT (or tcp://127.0.0.1:PORT on this machine)"


def _address_parts(address: str) -> tuple[str, str] | None:
    """The scheme and host of tcp://HOST:PORT or tls://HOST:PORT; None if it is neither."""
    scheme, sep, rest = address.partition("://")
    host, colon, port = rest.rpartition(":")
    host = host.strip("[]")
    if not sep or scheme not in ("tcp", "tls") or not colon or not host or not port.isdigit():
        return None
    return scheme, host




def config_from_data(data: dict[str, Any], source: Path,
                     flags: Callable[[KeyPath], str | None] | None = None) -> TournamentConfig:
    """Validate a config given as data (e.g. built from command-line flags) as if read from
    `source`; `flags` names a key path as the flag that gave it (validate.Problems)."""
    problems = Problems(source, {}, [], flags)
    config = _read_config(data, source, problems)
    problems.raise_if_any()
    assert config is not None
    return config


def _read_config(data: dict[str, Any], source: Path, problems: Problems) -> TournamentConfig | None:
    top = Mapping(problems, (), data, TOP.names)
    # A command line's paths are the user's, from where they stand (absolute, for the workers).
    folder = Path.cwd() if source == COMMAND_LINE else source.parent
    name = TOP.read(top, "name", default=source.stem)
    if isinstance(name, str) and ("/" in name or name.startswith(".") or not name.isprintable()
                                  or len(name.encode("utf-8")) > MAX_NAME_BYTES):
        problems.add(("name",), f"{name!r} is not allowed: must be a plain name of at most {MAX_NAME_BYTES} bytes, "
                                "without '/' (it names the results folder)")
    game_name = TOP.read(top, "game")
    params_map = top.raw("params") or {}
    game: Game[Any] | None = None
    if not isinstance(params_map, dict):
        problems.add(("params",), f"{params_map!r} is not allowed: must be a mapping of game parameters")
        params_map = {}
    elif game_name:
        crash = parameter_problem(game_name, params_map)  # first: a board too big grows whoever makes the game
        if crash is not None:
            key, message = crash
            problems.add(("params", key) if key is not None else ("params",), message)
        else:
            try:
                game = find_game(game_name, **params_map)
            except GameError as exc:
                problems.add(("params",), str(exc))
    seats = game.num_players if game is not None else 2
    fmt = TOP.read(top, "format")
    if fmt == "sprt" and seats != 2:
        problems.add(("params", "players"), f"{seats} is not allowed: the SPRT compares a candidate with a baseline "
                                            "in two-seat games (players: 2)")
    if fmt == "sprt":
        for key in ("players", "games_per_pairing", "gauntlet", "entries"):
            if top.has(key):
                problems.add((key,), "does not apply to format: sprt (give candidate:, baseline: and sprt:)")
    else:
        for key in ("candidate", "baseline", "sprt"):
            if top.has(key):
                problems.add((key,), f"only applies to format: sprt, not {fmt}")
    per_pairing = _games_per_group(problems, top, seats)
    rounds = TOP.read(top, "rounds")
    if fmt == "swiss" and top.raw("rounds") is None:  # a bad value is reported by its check
        problems.add(("rounds",), "is required for format: swiss (the number of Swiss rounds)")
    if fmt != "swiss" and top.has("rounds"):
        problems.add(("rounds",), f"only applies to format: swiss, not {fmt}")
    final = _read_final(problems, top, seats) if top.has("final") else None
    if final is not None and fmt != "swiss":
        problems.add(("final",), f"only applies to format: swiss, not {fmt} (the final is played after the Swiss rounds)")
    concurrency = TOP.read(top, "concurrency")  # its default needs the clocks
    seed = TOP.read(top, "seed")
    check = TOP.read(top, "check")
    sandbox_mode = _sandbox_mode(top.raw("sandbox"))
    if sandbox_mode is None:
        problems.add(("sandbox",), f"{top.raw('sandbox')!r} is not allowed: must be one of: on, off, required")
    elif sandbox_mode == "required":
        problems.asks.append(Sandboxing(("sandbox",)))
    time = read_time(problems, ("time",), top.raw("time"), TimeControl())
    reuse = TOP.read(top, "reuse")  # every launched player's default (docs/config.md)
    limits = Mapping(problems, ("build_limits",), top.raw("build_limits"), BUILD_LIMITS.names)
    builds: list[BuildSpec] = []
    build_keys = {"time_ms": BUILD_LIMITS.read(limits, "time_ms"), "memory_mb": BUILD_LIMITS.read(limits, "memory_mb")}
    arbiter_keys = read_arbiter_keys(problems, TOP.read(top, "arbiter_keys"), folder)
    scoring = _read_scoring(problems, top.raw("scoring"), seats)
    sprt = None
    entrants: list[PlayerSpec] = []  # from `entries:`
    if fmt == "sprt":
        players = [player for player in (
            read_player(problems, (role,), top.raw(role), folder, time, default_name=role,
                         arbiter_keys=arbiter_keys, reuse=bool(reuse), builds=(builds, build_keys))
            for role in ("candidate", "baseline")) if player]
        if len(players) == 2 and players[0].name == players[1].name:
            problems.add(("baseline", "name"), f"{players[1].name!r} is not allowed: "
                                               "the candidate and the baseline need different names")
        else:
            check_name_clashes(problems, [((role, "name"), p.name)
                                          for role, p in zip(("candidate", "baseline"), players)])
        sprt = _read_sprt(problems, top.raw("sprt"))
    else:
        entries = TOP.read(top, "entries")
        players = read_players(problems, top.raw("players"), folder, time, arbiter_keys, reuse=bool(reuse),
                                builds=(builds, build_keys), entries=entries is not None)
        if entries is not None:
            entrants = read_entrants(problems, entries, folder, time, bool(reuse), (builds, build_keys))
            named = [(("players", index, "name"), p.name) for index, p in enumerate(players)]
            check_name_clashes(problems, [*named, *((("entries", p.name), p.name) for p in entrants)])
        players = [*players, *entrants]
    names = [p.name for p in players]
    candidate = players[0].name if fmt == "sprt" and players else None
    if fmt == "gauntlet":
        g = Mapping(problems, ("gauntlet",), top.raw("gauntlet"), GAUNTLET.names)
        candidate = GAUNTLET.read(g, "candidate", check=one_of(names) if names else text)
    elif top.has("gauntlet") and fmt != "sprt":
        problems.add(("gauntlet",), f"only applies to format: gauntlet, not {fmt}")
    given = top.raw("players")  # entries, not the players read: a bad entry is reported once, as itself
    given_count = (len(given) if isinstance(given, list) else 0) + len(entrants)
    if fmt != "sprt" and players and given_count < seats:
        key = "entries" if top.has("entries") else "players"
        problems.add((key,), f"{given_count} players cannot fill the {seats} seats of {game_name} "
                             f"players={seats}: give at least {seats} players")
    if final is not None and names and not seats <= final.top <= len(names):
        problems.add(("final", "top"), f"{final.top} is not allowed: the final takes from {seats} players (a game's "
                                       f"seats) to all {len(names)} players")
    groups = group_count(str(fmt), len(names), seats, rounds or 0) if len(names) >= seats else 0
    if groups * per_pairing > MAX_PLANNED_GAMES:
        key = "games_per_group" if top.has("games_per_group") else "games_per_pairing"
        problems.add((key,), f"{per_pairing} is not allowed: {len(names)} players would play "
                             f"{groups * per_pairing} games; at most {MAX_PLANNED_GAMES} fit in one tournament")
    openings = _read_openings(problems, top.raw("openings"), folder, game)
    dialects = {p.dialect: find_dialect(p.dialect) for p in players}
    if (openings.random_moves or openings.lines) and not all(d.takes_openings for d in dialects.values()):
        problems.add(("openings",), "openings cannot be used with dialect: codecup players "
                                    "(codecup bots learn their seat from `Start`)")
    for index, player in enumerate(players):
        allowed = dialects[player.dialect].seats
        if allowed is not None and allowed != seats:
            problems.add(("players", index, "dialect"), f"{player.dialect} plays games of {allowed} seats, and "
                                                        f"this game has {seats} (docs/protocol.md)")
    if concurrency is None:
        concurrency = default_concurrency(time, players)
    results = TOP.read(top, "results")
    # An explicit `results:` moves with the config; the default is where the user stands, as
    # for `arbiter match` and `sprt` (docs/config.md, results).
    results_dir = (folder / results) if results else (Path.cwd() / "results" / str(name))
    cluster = _read_cluster(problems, top.raw("cluster"), folder, players)
    entries_dir = (folder / str(TOP.read(top, "entries"))).resolve() if entrants else None
    if entries_dir is not None and _holds(str(entries_dir), str(results_dir.resolve())):
        problems.add(("results",) if results else ("entries",),
                     f"{results_dir.resolve()} is not allowed as the results folder: it is inside the entries folder "
                     f"{entries_dir}, where every folder is an entrant (set results: to a folder beside it)")
    hidden = (str(source.resolve()), str(results_dir.resolve()))
    probe(problems)  # what the config asks of this machine, now that it is read
    if sandbox_mode != "off":
        secrets = [path for path in (arbiter_keys, cluster and cluster.key) if path]
        at: list[KeyPath] = ([(role,) for role in ("candidate", "baseline")] if fmt == "sprt"
                             else [*(("players", index) for index in range(len(players) - len(entrants))),
                                   *(("entries", p.name) for p in entrants)])
        check_shown_paths(problems, players, at, hidden=hidden, secrets=secrets)
        boxed = {p.name: key for p, key in zip(players, at) if box_here(p.sandbox) is not None}
        for spec in builds:  # a build is boxed as its player is (build.py)
            outside = outside_the_box(spec.command) if spec.player in boxed else None
            if outside is not None:
                problems.add(boxed[spec.player] + ("build",), f"player {spec.player!r} cannot be built in its box: "
                                                              f"{outside}")
    if problems.messages or game is None:
        return None
    return TournamentConfig(
        name=str(name), source=source, results_dir=results_dir.resolve(), game_name=game.name,
        params=dict(game.params), format=fmt, games_per_pairing=per_pairing, rounds=rounds,
        openings=openings, time=time, concurrency=concurrency, scoring=scoring,
        players=tuple(box_for_run(p, sandbox_mode, spread=cluster is not None) for p in with_covers(players, hidden)),
        candidate=candidate, sprt=sprt, check=check, sandbox=str(sandbox_mode), seed=seed, seats=seats,
        final=final if fmt == "swiss" else None, cluster=cluster, raw=data,
        entrants=tuple(p.name for p in entrants), builds=tuple(builds),
    )


def default_concurrency(time: TimeControl, players: Sequence[PlayerSpec]) -> int:
    """Games at once when a config does not say: the CPU cores, or half of them (at least one)
    when a seat's clock is the wall clock, whose bots would otherwise lose on time while they
    wait for a CPU (docs/config.md, `concurrency`)."""
    cores = os.cpu_count() or 1
    wall = not players or any(player.clock(time).clock == "wall" for player in players)
    return max(1, cores // 2) if wall else cores


def _games_per_group(problems: Problems, top: Mapping, seats: int) -> int:
    """`games_per_group` (or its two-seat name `games_per_pairing`): a multiple of the seats,
    so that every player sits in every seat equally often; default one rotation."""
    if top.has("games_per_group") and top.has("games_per_pairing"):
        problems.add(("games_per_group",), "give games_per_group or games_per_pairing (the same key), not both")
    key = "games_per_group" if top.has("games_per_group") else "games_per_pairing"
    if seats == 2:
        return int(top.get(key, 2, integer(2, MAX_PLANNED_GAMES, even=True)))
    value = top.get(key, seats, integer(seats, MAX_PLANNED_GAMES))
    if value % seats:
        problems.add((key,), f"{value!r} is not allowed: must be a multiple of the {seats} seats "
                             "(each opening is played once in each seat rotation)")
        return seats
    return int(value)


def _read_final(problems: Problems, top: Mapping, seats: int) -> FinalStage:
    """`final:`: how many of the Swiss ranking's top players play the final round robin, and
    its games a group (default 2: CodeCup's double round robin; a multiple of the seats)."""
    m = Mapping(problems, ("final",), top.raw("final"), FINAL.names)
    top_players = FINAL.read(m, "top")
    per_group = m.get("games_per_pairing", max(2, seats), integer(seats, MAX_PLANNED_GAMES))
    if per_group % seats:
        problems.add(("final", "games_per_pairing"), f"{per_group!r} is not allowed: must be a multiple of the "
                                                     f"{seats} seats (each opening is played once in each seat rotation)")
        per_group = seats
    return FinalStage(top=int(top_players or seats), games_per_pairing=int(per_group))


def _read_scoring(problems: Problems, value: Any, seats: int) -> Scoring:
    """`scoring:` game, or a mapping of win/draw/loss (two seats) or places (any seats)."""
    if value == "game":
        return Scoring(game_points=True)
    scoring_map = Mapping(problems, ("scoring",), value, SCORING.names)
    if seats != 2:
        for key in ("win", "draw", "loss"):
            if scoring_map.has(key):
                problems.add(("scoring", key), f"applies to two-seat games; with {seats} seats give "
                                               f"places: a list of {seats} points, for 1st to last")
    table = scoring_map.raw("places")
    places: tuple[float, ...] = ()
    if table is not None:
        if (not isinstance(table, list) or len(table) != seats
                or any(number()(points) is not None for points in table)):
            problems.add(("scoring", "places"), f"{table!r} is not allowed: must be a list of {seats} finite "
                                                "numbers, the points for 1st to last place")
        else:
            places = tuple(float(points) for points in table)
    return Scoring(
        win=SCORING.read(scoring_map, "win"),
        draw=SCORING.read(scoring_map, "draw"),
        loss=SCORING.read(scoring_map, "loss"),
        places=places,
    )


def _read_cluster(problems: Problems, value: Any, folder: Path, players: list[PlayerSpec]) -> ClusterSpec | None:
    """`cluster:` as an address, or {address, ca_file, cert, key} with files from the config's folder."""
    if value is None:
        return None
    m = Mapping(problems, ("cluster",), {"address": value} if isinstance(value, str) else value, CLUSTER.names)
    path: KeyPath = ("cluster",) if isinstance(value, str) else ("cluster", "address")
    address = CLUSTER.read(m, "address")
    if not isinstance(address, str):
        return None
    parts = _address_parts(address)
    if parts is None:
        problems.add(path, f"{address!r} is not allowed: {ADDRESS_FORM}")
    elif parts[0] == "tcp":
        problems.asks.append(ThisMachine(path, address, parts[1]))
    files: dict[str, str | None] = {}
    for key in CLUSTER.names[1:]:
        given = CLUSTER.read(m, key)
        files[key] = str((folder / given).resolve()) if isinstance(given, str) else None
        if files[key] is not None:
            problems.asks.append(PathThere(("cluster", key), given, str(files[key]), file=True))
    if any(files.values()) and not address.startswith("tls://"):
        problems.add(path, f"{address!r} is not allowed: ca_file, cert and key are for a tls:// address")
    for player in players:
        if player.transport == "remote":
            problems.add(("cluster",), f"does not apply with the remote bot {player.name!r} (transport: remote): "
                                       "only the arbiter's machine reaches it")
    reused = [player.name for player in players if player.reuse]
    if reused:
        problems.add(("cluster",), f"does not apply with reuse (players {', '.join(map(repr, reused))}): games on a "
                                   "cluster launch their bots for each game (docs/cluster.md)")
    return ClusterSpec(address, files["ca_file"], files["cert"], files["key"])


def _sandbox_mode(value: Any) -> str | None:
    """The run's sandbox mode from YAML (which reads on/off as true/false); None if unknown."""
    if value is None or value is True:
        return "on"
    if value is False:
        return "off"
    return value if value in SANDBOX_MODES else None


def without_sandbox(config: TournamentConfig) -> TournamentConfig:
    """The config with every player unsandboxed (`--no-sandbox`: trusted bots only)."""
    return replace(config, sandbox="off", players=tuple(replace(p, sandbox=None) for p in config.players))


def with_builds(config: TournamentConfig, built: dict[str, Path],
                digests: dict[str, str]) -> tuple[TournamentConfig, dict[str, str]]:
    """The config with each `built` player running from its build's folder (its cwd, which its
    box shows whole), each build's digest kept in its BuildSpec, and every box's covers worked
    out again (the sources a build came from are nobody's folder now: covered for everyone; the
    results folder, which holds the builds, is not covered in a box that shows one of them);
    and the built players whose folder a box must not show, with why (the build made a link
    out of it), to be kept out."""
    source_of = {spec.player: spec.sources for spec in config.builds}
    players = [p if p.name not in built else replace(
        p, cwd=str(built[p.name]), sandbox=None if p.sandbox is None else replace(
            p.sandbox, read=tuple(str(built[p.name]) if path == source_of[p.name] else path
                                  for path in p.sandbox.read))) for p in config.players]
    sources = tuple(source_of[name] for name in built)
    hidden = (str(config.source), str(config.results_dir), *sources)
    shown = [ShownPaths(p.command, p.cwd, p.sandbox or SandboxSpec()) for p in players]
    unsafe = {players[index].name: f"was refused after its build: {key}: {message}"
              for index, key, message in shown_path_problems(shown, hidden=hidden[:1] + sources)
              if players[index].name in built and players[index].sandbox is not None}
    for index, player in enumerate(players):  # a link the build made into the results, beyond its own folder
        for _, word, path in shown[index].named() if player.name in built and player.sandbox is not None else ():
            target = os.path.realpath(path)
            if _holds(str(config.results_dir), target) and not _holds(str(built[player.name]), target):
                unsafe.setdefault(player.name, f"was refused after its build: {word} leads to {target}, in the "
                                               "results folder, which no box may show")
    covered = with_covers(players, hidden)
    players = [p if p.name not in built or p.sandbox is None else replace(p, sandbox=replace(
        p.sandbox, hide=tuple(h for h in p.sandbox.hide if not _holds(h, str(built[p.name]))))) for p in covered]
    builds = tuple(replace(spec, digest=digests.get(spec.player)) for spec in config.builds)
    return replace(config, players=tuple(players), builds=builds), unsafe


def _holds(folder: str, path: str) -> bool:
    """Whether `folder` is `path` or holds it."""
    return Path(folder) == Path(path) or Path(folder) in Path(path).parents


def _read_sprt(problems: Problems, value: Any) -> SprtSettings:
    """The `sprt:` section: hypotheses, error rates, the game cap and the fault and log gates."""
    m = Mapping(problems, ("sprt",), value, SPRT.names)
    elo0 = SPRT.read(m, "elo0")
    elo1 = SPRT.read(m, "elo1")
    if elo1 <= elo0:
        problems.add(("sprt", "elo1"), f"{elo1!r} is not allowed: must be greater than elo0 ({elo0})")
    alpha = SPRT.read(m, "alpha")
    beta = SPRT.read(m, "beta")
    if alpha + beta >= 1:
        problems.add(("sprt", "beta"), f"{beta!r} is not allowed: alpha + beta must be below 1")
    return SprtSettings(
        elo0=float(elo0), elo1=float(elo1), alpha=float(alpha), beta=float(beta),
        max_games=SPRT.read(m, "max_games"), fail_on_fault=SPRT.read(m, "fail_on_fault"),
        log_pattern=SPRT.read(m, "log_pattern"),
    )


def _read_openings(problems: Problems, value: Any, folder: Path, game: Game[Any] | None) -> Openings:
    if value is None:
        return Openings()
    m = Mapping(problems, ("openings",), value, OPENINGS.names)
    if m.has("file") and m.has("random_moves"):
        problems.add(("openings",), "give either random_moves (with seed) or file, not both")
    if not m.has("file"):
        openings = Openings(random_moves=OPENINGS.read(m, "random_moves"), seed=OPENINGS.read(m, "seed"))
        if openings.random_moves and game is not None:
            try:
                random_opening(game, openings.random_moves, openings.seed, 0)
            except OpeningError as exc:
                problems.add(("openings", "random_moves"), f"{openings.random_moves} is not allowed: {exc}")
            except RulesFailed as exc:  # drawn before anything is recorded: the config's problem, said once
                problems.add(("openings", "random_moves"), f"{openings.random_moves} is not allowed: {exc}; "
                                                           "these rules cannot draw random openings")
        return openings
    file_text = OPENINGS.read(m, "file")
    if file_text is None:
        return Openings()
    path = (folder / file_text).resolve()
    try:
        content = path.read_text(encoding="utf-8")
    except OSError as exc:
        problems.add(("openings", "file"), f"{file_text!r} is not allowed: cannot read {path} ({exc.strerror})")
        return Openings()
    except UnicodeDecodeError as exc:
        problems.add(("openings", "file"), f"{file_text!r} is not allowed: {path} is not UTF-8 text "
                                           f"(byte {exc.object[exc.start]:#04x} at offset {exc.start})")
        return Openings()
    lines: list[tuple[str, ...]] = []
    numbers: list[int] = []
    for number_, line in enumerate(content.splitlines(), 1):
        stripped = line.split("#", 1)[0].strip()
        if not stripped:
            continue
        lines.append(tuple(move.strip() for move in stripped.split(";") if move.strip()))
        numbers.append(number_)
    if game is not None and lines:
        try:  # played by the rules: in the rules host unless they are the arbiter's own
            for number_, problem in zip(numbers, opening_problems(game, lines)):
                if problem is not None:
                    problems.add(("openings", "file"), f"{path}:{number_}: {problem}")
        except RulesFailed as exc:
            problems.add(("openings", "file"), f"{path}: {exc}; these rules cannot play its openings")
    if not lines:
        problems.add(("openings", "file"), f"{path} has no openings (one per line, moves separated by ';')")
    return Openings(lines=tuple(lines), file=str(path), seed=OPENINGS.read(m, "seed"))


__all__ = ["COMMAND_LINE", "ClusterSpec", "ConfigError", "FinalStage", "Openings", "Scoring", "SprtSettings",
           "TournamentConfig", "config_from_data", "load_config", "with_builds"]
