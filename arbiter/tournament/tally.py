"""A results folder's aggregates, updated one record at a time: what every reader needs of the
records without holding them.

`Tally.add` takes one game record; what it keeps grows with the players, never with the games
(but for a few bytes a game where a reader must tell one game from another: `IdSet`, the
head-to-head's groups, a Swiss tournament's results). The standings, ratings and crosstable
(reports/standings.py), the sandbox line and the Swiss tables (reports/results.py,
reports/ranking.py), the program-digest check of a resume (resume.py) and the progress line
come from it. A tally is plain JSON (`to_json`, `from_json`), so the store keeps one in its
checkpoint beside `games.jsonl` (store.py) and a resume or a report reads only the records
after it. docs/records.md says what the checkpoint holds and how it is checked.
"""
from __future__ import annotations

import base64
import hashlib
import json
from array import array
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..games import CHANCE
from ..records import GameRecord, Termination, game_places

FAULT_KINDS = ("timeout", "crash", "malformed", "illegal", "protocol")
DEFAULT_SCORING = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def key_hash(text: str) -> int:
    """A 64-bit hash of a key (a game id, a head-to-head group), the same in every process."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


class HashList:
    """64-bit hashes of keys, 8 bytes each, kept as added (a key added twice is kept twice), with
    the repeats found by sorting them once asked: the head-to-head's closed groups. (`IdSet` keeps
    the game ids, where a repeat is refused as it comes.)"""

    def __init__(self, hashes: Iterable[int] = ()) -> None:
        self.hashes = array("Q", hashes)
        self._sorted: Any = None  # a sorted numpy copy, made on demand, dropped on change

    def add(self, key: str) -> None:
        """Keep one more key's hash."""
        self.hashes.append(key_hash(key))
        self._sorted = None

    def __len__(self) -> int:
        return len(self.hashes)

    def sorted(self) -> Any:
        """The hashes sorted (numpy), kept until the next `add`."""
        if self._sorted is None:
            import numpy as np
            self._sorted = np.sort(np.frombuffer(self.hashes, dtype=np.uint64)) if self.hashes else np.zeros(0, np.uint64)
        return self._sorted

    def holds(self, key: str) -> bool:
        """Whether a key with this key's hash was kept (a false yes is a 64-bit collision)."""
        import numpy as np
        ordered = self.sorted()
        value = np.uint64(key_hash(key))
        at = int(np.searchsorted(ordered, value))
        return at < len(ordered) and ordered[at] == value

    def repeats(self) -> bool:
        """Whether some hash was kept twice."""
        import numpy as np
        ordered = self.sorted()
        return bool(len(ordered) > 1 and np.any(ordered[1:] == ordered[:-1]))

    def to_text(self) -> str:
        return base64.b64encode(self.hashes.tobytes()).decode("ascii")

    @classmethod
    def from_text(cls, text: str) -> HashList:
        hashes = array("Q")
        hashes.frombytes(base64.b64decode(text))
        made = cls()
        made.hashes = hashes
        return made


class IdSet:
    """The game ids recorded so far, as `in` asks it (`scheduled.id in done`): the latest
    (up to RECENT_IDS) as strings, the others as their 64-bit hashes in one sorted array (8
    bytes a game; a checkpoint's are loaded from its file only once asked)."""

    RECENT_IDS = 50_000

    def __init__(self, load: Callable[[], Any] | None = None) -> None:
        self._load = load  # the checkpoint's hashes, sorted (numpy uint64), read on first use
        self._checked: Any = None
        self.recent: set[str] = set()

    @property
    def checked(self) -> Any:
        """Every id but the recent ones, hashed, sorted (numpy uint64)."""
        if self._checked is None:
            import numpy as np
            self._checked = self._load() if self._load is not None else np.zeros(0, np.uint64)
            self._load = None
        return self._checked

    def add(self, game_id: str) -> None:
        self.recent.add(game_id)
        if len(self.recent) >= self.RECENT_IDS:  # 8 bytes each from now on, not a string's hundred
            self._checked = self.folded()
            self.recent = set()

    def __contains__(self, game_id: object) -> bool:
        if not isinstance(game_id, str):
            return False
        if game_id in self.recent:
            return True
        import numpy as np
        checked, value = self.checked, np.uint64(key_hash(game_id))
        at = int(np.searchsorted(checked, value))
        return at < len(checked) and checked[at] == value

    def __len__(self) -> int:
        return len(self.checked) + len(self.recent)

    def holds_each(self, game_ids: Sequence[str]) -> list[bool]:
        """`in` for many ids at once (a schedule's: much faster than one at a time)."""
        import numpy as np
        checked = self.checked
        if not len(checked) or not game_ids:
            return [game_id in self.recent for game_id in game_ids]
        values = np.fromiter((key_hash(game_id) for game_id in game_ids), dtype=np.uint64, count=len(game_ids))
        at = np.minimum(np.searchsorted(checked, values), len(checked) - 1)
        return [found or game_id in self.recent for found, game_id in zip((checked[at] == values).tolist(), game_ids)]

    def folded(self) -> Any:
        """Every id as a hash, sorted (numpy uint64): what a checkpoint keeps."""
        import numpy as np
        recent = np.fromiter((key_hash(game_id) for game_id in self.recent), dtype=np.uint64, count=len(self.recent))
        merged = np.concatenate((self.checked, recent))
        merged.sort()
        return merged


@dataclass
class PlayerTally:
    """One player's sums over its games (reports/standings.py `PlayerStanding` is made from it)."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    places: list[int] = field(default_factory=list)  # 1st, 2nd, ... (grown to the most seats seen)
    points: float = 0.0
    points_in_games: float = 0.0
    faults: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in FAULT_KINDS})
    move_count: int = 0
    move_ms_total: float = 0.0
    max_move_ms: float = 0.0
    max_startup_ms: float | None = None
    void: int = 0


@dataclass(frozen=True)
class ResultLine:
    """A game's result without its moves, for the few readers that must see games one by one
    (a Swiss tournament's pairing and ranking: tournament/stages.py reads these as records)."""

    id: str | None
    round: int | None
    names: tuple[str, ...]
    points: tuple[float, ...] | None
    termination: Termination

    def seat_names(self) -> list[str]:
        return list(self.names)


class HeadToHead:
    """The Elo of one player over the other when a folder holds two players' two-seat games:
    their games grouped by round and opening (stats.pairing_elo), kept as a pentanomial of the
    closed pairs, the win/draw/loss counts and the groups still open, from the side of the
    player whose name sorts first."""

    def __init__(self) -> None:
        self.names: tuple[str, str] | None = None
        self.off = False  # a third player, or a game of other than two seats: no head-to-head
        self.wdl = [0, 0, 0]
        self.pentanomial = [0, 0, 0, 0, 0]
        self.open: dict[str, list[float]] = {}  # group -> the scores of its games so far (one)
        self.closed = HashList()  # groups that reached two games (a third one reopens it: not a pair)
        self.ungrouped = False  # a record without a round: a group of its own, never a pair

    def add(self, record: GameRecord, names: list[str]) -> None:
        if self.off:
            return
        if len(names) != 2 or names[0] == names[1]:
            self._stop()
            return
        pair = tuple(sorted(names))
        if self.names is None:
            self.names = pair  # type: ignore[assignment]
        elif pair != self.names:
            self._stop()
            return
        score = 0.5 if record.winner is None else float(names[record.winner] == pair[0])
        self.wdl[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
        if record.round is None:
            self.ungrouped = True
            return
        group = json.dumps([record.round, record.opening or []], separators=(",", ":"))
        scores = self.open.pop(group, None)
        if scores is None:
            self.open[group] = [score]
            return
        self.pentanomial[round(2 * (scores[0] + score))] += 1
        self.closed.add(group)

    def _stop(self) -> None:
        self.off, self.open, self.closed = True, {}, HashList()

    def all_pairs(self) -> bool:
        """Whether every group holds exactly two games (then the pentanomial is the estimate's)."""
        if self.ungrouped or self.open and any(self.closed.holds(group) for group in self.open):
            return False
        return not self.open and not self.closed.repeats()

    def counts_for(self, first: str) -> tuple[list[int], list[int], bool]:
        """(win/draw/loss, pentanomial, every group a pair) from `first`'s side."""
        wdl, pentanomial = list(self.wdl), list(self.pentanomial)
        if self.names is not None and first != self.names[0]:
            wdl, pentanomial = wdl[::-1], pentanomial[::-1]
        return wdl, pentanomial, self.all_pairs()

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names) if self.names else None, "off": self.off, "wdl": self.wdl,
                "pentanomial": self.pentanomial, "open": self.open, "closed": self.closed.to_text(),
                "ungrouped": self.ungrouped}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HeadToHead:
        made = cls()
        made.names = tuple(data["names"]) if data["names"] else None  # type: ignore[assignment]
        made.off, made.wdl, made.pentanomial = bool(data["off"]), list(data["wdl"]), list(data["pentanomial"])
        made.open = {str(k): list(v) for k, v in data["open"].items()}
        made.closed = HashList.from_text(data["closed"])
        made.ungrouped = bool(data["ungrouped"])
        return made


class Tally:
    """Every aggregate of a folder's records, updated by `add` one record at a time.

    `scoring` gives a record's points when it has none stored (a record written by hand);
    `keep_results` keeps each game's `ResultLine` (a Swiss tournament's readers need them)."""

    VERSION = 1

    def __init__(self, scoring: Mapping[str, float] | None = None, *, keep_results: bool = False) -> None:
        self.scoring = dict(scoring or DEFAULT_SCORING)
        self.keep_results = keep_results
        self.records = 0
        self.void = 0
        self.faults = 0
        self.seats = 0  # the most seats of any game
        self.players: dict[str, PlayerTally] = {}
        self.cross_points: dict[str, dict[str, float]] = {}  # two seats: the row's points against the column
        self.cross_places: dict[str, dict[str, float]] = {}  # more: finished ahead (1) or tied (1/2)
        self.rankings: dict[str, int] = {}  # a game's ranking (JSON of its [name, place] pairs) -> games
        self.head_to_head = HeadToHead()
        self.sandbox_games: dict[str, int] = {}  # launched bots' games, by name
        self.sandbox_loose: dict[str, int] = {}  # of them, played unboxed
        self.sandbox_unknown = 0  # records that do not say
        self.digests: dict[str, dict[str, int]] = {}  # name -> each program digest recorded -> its games
        self.first: dict[str, Any] | None = None  # the first record's game and params
        self.results: list[ResultLine] = []  # with keep_results only

    # ---- taking a record in ------------------------------------------------------------------

    def add(self, record: GameRecord) -> None:
        """Count one record."""
        names = record.seat_names()
        self.records += 1
        if self.first is None:
            self.first = {"game": record.game, "params": record.params}
        if len(names) > self.seats:
            self.seats = len(names)
            for row in self.players.values():
                row.places.extend([0] * (self.seats - len(row.places)))
        for name in names:
            if name not in self.players:
                self.players[name] = PlayerTally(places=[0] * self.seats)
        for name, player in zip(names, record.players):
            if player.digest:
                mine = self.digests.setdefault(name, {})
                mine[player.digest] = mine.get(player.digest, 0) + 1
        self._sandbox(record, names)
        if self.keep_results:
            self.results.append(ResultLine(record.id, record.round, tuple(names),
                                           None if record.points is None else tuple(record.points), record.termination))
        if record.termination.is_void:
            self.void += 1
            for name in names:
                self.players[name].void += 1
            return
        self._result(record, names)
        self.head_to_head.add(record, names)

    def _result(self, record: GameRecord, names: list[str]) -> None:
        # From the result the tamper check replays (tournament/audit.py), not the stored `places`.
        places = game_places(record.scores, record.winner, record.offender)
        ranking = json.dumps([[name, place] for name, place in zip(names, places)], separators=(",", ":"))
        self.rankings[ranking] = self.rankings.get(ranking, 0) + 1
        if record.termination.is_fault:
            self.faults += 1
        points = [self._points(record, seat) for seat in range(len(names))]
        total = sum(points)
        for seat, name in enumerate(names):
            row = self.players[name]
            row.games += 1
            if places[seat] > len(row.places):  # a place past the seats (a hand-written record): kept
                row.places.extend([0] * (places[seat] - len(row.places)))
            row.places[places[seat] - 1] += 1
            if places[seat] > 1:
                row.losses += 1
            elif places.count(1) > 1:
                row.draws += 1
            else:
                row.wins += 1
            row.points += points[seat]
            row.points_in_games += total
            for other_seat, other in enumerate(names):
                if other_seat == seat:
                    continue
                ahead = 1.0 if places[seat] < places[other_seat] else 0.5 if places[seat] == places[other_seat] else 0.0
                by_points = self.cross_points.setdefault(name, {})
                by_points[other] = by_points.get(other, 0.0) + points[seat]
                by_places = self.cross_places.setdefault(name, {})
                by_places[other] = by_places.get(other, 0.0) + ahead
            if record.offender == seat and record.termination.value in row.faults:
                row.faults[record.termination.value] += 1
            startup = (record.startup_ms or [None] * len(names))[seat]
            if startup is not None:
                row.max_startup_ms = max(row.max_startup_ms or 0.0, startup)
        for move in record.moves:
            if move.forced or move.seat == CHANCE:  # the arbiter's moves, not a player's
                continue
            row = self.players[names[move.seat]]
            row.move_count += 1
            row.move_ms_total += move.wall_ms
            row.max_move_ms = max(row.max_move_ms, move.wall_ms)

    def _points(self, record: GameRecord, seat: int) -> float:
        """Points a seat earned: stored `points` if present, else from the winner and the scoring."""
        if record.points is not None:
            return float(record.points[seat])
        if record.winner is None:
            return self.scoring["draw"]
        return self.scoring["win"] if record.winner == seat else self.scoring["loss"]

    def _sandbox(self, record: GameRecord, names: list[str]) -> None:
        flags = record.sandboxed
        if record.termination.is_void and not flags:  # its worker died with what it knew of the boxes
            return
        if len(flags) != len(names):
            self.sandbox_unknown += 1  # recorded before records said
            return
        for name, boxed in zip(names, flags):
            if boxed is not None:  # None: a remote bot, outside any box by nature
                self.sandbox_games[name] = self.sandbox_games.get(name, 0) + 1
                if not boxed:
                    self.sandbox_loose[name] = self.sandbox_loose.get(name, 0) + 1

    # ---- what readers ask ---------------------------------------------------------------------

    def crosstable(self) -> dict[str, dict[str, float]]:
        """Two seats: points against each other player; more: finished ahead (a tie one half)."""
        return self.cross_points if self.seats <= 2 else self.cross_places

    def ranking_counts(self) -> tuple[list[dict[str, int]], list[int]]:
        """Each distinct ranking (name -> place, in seat order) and how many games had it."""
        rankings = [{name: place for name, place in json.loads(key)} for key in self.rankings]
        return rankings, list(self.rankings.values())

    def points_by_name(self) -> dict[str, float]:
        """Each player's points so far (the progress line's leaders)."""
        return {name: row.points for name, row in self.players.items()}

    # ---- kept as JSON --------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.VERSION, "scoring": self.scoring, "keep_results": self.keep_results,
            "records": self.records, "void": self.void, "faults": self.faults, "seats": self.seats,
            "players": {name: vars(row) for name, row in self.players.items()},
            "cross_points": self.cross_points, "cross_places": self.cross_places, "rankings": self.rankings,
            "head_to_head": self.head_to_head.to_json(),
            "sandbox": {"games": self.sandbox_games, "loose": self.sandbox_loose, "unknown": self.sandbox_unknown},
            "digests": self.digests, "first": self.first,
            "results": [[r.id, r.round, list(r.names), None if r.points is None else list(r.points), r.termination.value]
                        for r in self.results],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tally:
        """The tally `to_json` wrote; ValueError (KeyError, TypeError) for anything else."""
        if data.get("version") != cls.VERSION:
            raise ValueError(f"tally version {data.get('version')!r}, expected {cls.VERSION}")
        made = cls(data["scoring"], keep_results=bool(data["keep_results"]))
        made.records, made.void, made.faults, made.seats = (int(data[k]) for k in ("records", "void", "faults", "seats"))
        made.players = {name: PlayerTally(**row) for name, row in data["players"].items()}
        made.cross_points = {k: dict(v) for k, v in data["cross_points"].items()}
        made.cross_places = {k: dict(v) for k, v in data["cross_places"].items()}
        made.rankings = {str(k): int(v) for k, v in data["rankings"].items()}
        made.head_to_head = HeadToHead.from_json(data["head_to_head"])
        sandbox = data["sandbox"]
        made.sandbox_games, made.sandbox_loose = dict(sandbox["games"]), dict(sandbox["loose"])
        made.sandbox_unknown = int(sandbox["unknown"])
        made.digests = {name: dict(kept) for name, kept in data["digests"].items()}
        made.first = data["first"]
        made.results = [ResultLine(i, r, tuple(n), None if p is None else tuple(p), Termination(t))
                        for i, r, n, p, t in data["results"]]
        return made


def tally_of(records: Iterable[GameRecord], scoring: Mapping[str, float] | None = None, *,
             keep_results: bool = False) -> Tally:
    """The tally of these records."""
    tally = Tally(scoring, keep_results=keep_results)
    for record in records:
        tally.add(record)
    return tally


__all__ = ["FAULT_KINDS", "HashList", "IdSet", "PlayerTally", "ResultLine", "Tally", "key_hash", "tally_of"]
