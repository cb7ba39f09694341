"""Release checking: a sequential probability ratio test of a candidate against a baseline.

Games come in pairs: pair k plays opening k twice, the candidate moving first in the
first game and second in the other. The test runs over pairs in pair order (see
`SprtTest`), so its verdict is a function of the records on disk: a resumed run, or a
run at another concurrency, reaches the same verdict from the same games. The run
stops as soon as the verdict is known; games still running then are ended, and those
that finish anyway are recorded but not counted. The workflow is explained in
docs/release-checking.md.
"""
from __future__ import annotations

import re
import shutil
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, TextIO

from ..errors import ExitCode
from ..games import Game
from ..records import GameRecord
from ..referee import play_game
from ..stats import EloEstimate, SprtState, elo_from_pentanomial, nelo_from_pentanomial, sprt_status
from .config import SprtSettings, TournamentConfig
from .progress import Progress
from .runner import GameWatch, Interrupted, TournamentRunner, run_held
from .schedule import ScheduledGame, opening_for
from .store import GameStore

if TYPE_CHECKING:
    from .cluster import Cluster

Verdict = Literal["H1", "H0", "fault", "inconclusive"]
EXIT_CODES: dict[Verdict, int] = {"H1": ExitCode.DONE, "H0": ExitCode.CHECK_FAILED,
                                  "inconclusive": ExitCode.INCONCLUSIVE, "fault": ExitCode.FAULT_GATE}
LOG_PROBLEM_EXIT = ExitCode.FAULT_GATE
SHOWN_LOG_LINES = 5  # matching log lines quoted in the report
SHOWN_LINE_CHARS = 200


def sprt_pair(config: TournamentConfig, game: Game[Any], index: int) -> tuple[ScheduledGame, ScheduledGame]:
    """Pair `index` (1-based): opening `index - 1`, candidate first, then the seats swapped."""
    candidate, baseline = (p.name for p in config.players)
    opening, void = opening_for(config, game, index - 1)
    return tuple(  # type: ignore[return-value]
        ScheduledGame(id=f"{index:03d}-{seats[0]}-{seats[1]}", round=index, seats=seats, opening=opening, void=void)
        for seats in ((candidate, baseline), (baseline, candidate))
    )


def candidate_points(record: GameRecord, candidate: str) -> float:
    """The candidate's game score in a record: 1 win, 1/2 draw, 0 loss (the config's scoring aside)."""
    seat = record.seat_names().index(candidate)
    return 0.5 if record.winner is None else float(record.winner == seat)


def is_fault_by(record: GameRecord, name: str) -> bool:
    """Whether the game ended on a fault (timeout, crash, illegal...) by the player called `name`."""
    offender = record.offender
    return record.termination.is_fault and offender is not None and record.seat_names()[offender] == name


class FaultCount:
    """A player's faults in the test's games: how many, and the first (all a verdict quotes)."""

    def __init__(self) -> None:
        self.count = 0
        self.first: GameRecord | None = None

    def append(self, record: GameRecord) -> None:
        self.count += 1
        if self.first is None:
            self.first = replace(record, moves=[])  # its moves are not quoted: not kept

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> GameRecord:
        if index != 0 or self.first is None:
            raise IndexError("only the first fault is kept")
        return self.first


class SprtTest:
    """The sequential test's state, built from game records added in any order.

    Pair k counts once both its games are recorded and every pair before it has counted,
    so the state depends only on which records exist. The first pair after which the
    LLR reaches a bound decides: games recorded beyond it are kept but not counted. A
    fault by the candidate in any recorded game fails the test when `fail_on_fault` is on.
    A pair with a void game (docs/records.md) is left out whole, its other game too: a pair
    is the unit of the pentanomial, and a void game is no win, loss or draw.
    """

    def __init__(self, settings: SprtSettings, candidate: str, baseline: str) -> None:
        self.settings = settings
        self.candidate = candidate
        self.baseline = baseline
        self.max_pairs = settings.max_games // 2
        self.pentanomial = [0, 0, 0, 0, 0]  # pairs scoring 0, 1/4, 1/2, 3/4, 1 for the candidate
        self.wins = self.draws = self.losses = 0  # the candidate's, in the counted games
        self.pairs_counted = 0
        self.pairs_void = 0  # pairs left out because a game of theirs is void
        self.games_recorded = 0
        self.state: SprtState = sprt_status(self.pentanomial, settings.elo0, settings.elo1,
                                            settings.alpha, settings.beta)
        self.candidate_faults = FaultCount()
        self.baseline_faults = FaultCount()
        # pair -> {candidate moved first: its points; None: void}, for the pairs not yet taken in order
        self._games: dict[int, dict[bool, float | None]] = {}

    def add(self, record: GameRecord) -> None:
        """Take one game record into account."""
        names = record.seat_names()
        if sorted(names) != sorted((self.candidate, self.baseline)):
            raise ValueError(f"record {record.id} is a game of {names}, not of "
                             f"{self.candidate} against {self.baseline}")
        self.games_recorded += 1
        if is_fault_by(record, self.candidate):
            self.candidate_faults.append(record)
        if is_fault_by(record, self.baseline):
            self.baseline_faults.append(record)
        if record.round is None:
            raise ValueError(f"record {record.id} has no round: it is not an SPRT's game")
        self._games.setdefault(record.round, {})[names[0] == self.candidate] = \
            None if record.termination.is_void else candidate_points(record, self.candidate)
        self._count_ready_pairs()

    @property
    def pairs_done(self) -> int:
        """Pairs taken in order so far: counted, or left out for a void game."""
        return self.pairs_counted + self.pairs_void

    def _count_ready_pairs(self) -> None:
        s = self.settings
        while self.state.verdict is None and self.pairs_done < self.max_pairs:
            games = self._games.get(self.pairs_done + 1, {})
            if len(games) < 2:
                return
            del self._games[self.pairs_done + 1]  # taken: its counts hold all that is needed of it
            if None in games.values():
                self.pairs_void += 1
                continue
            for points in games.values():
                self.wins += points == 1
                self.draws += points == 0.5
                self.losses += points == 0
            self.pentanomial[round(2 * sum(games.values()))] += 1  # type: ignore[arg-type]
            self.pairs_counted += 1
            self.state = sprt_status(self.pentanomial, s.elo0, s.elo1, s.alpha, s.beta)

    @property
    def verdict(self) -> Verdict | None:
        """The outcome once known: the fault gate first, then the LLR, then max games; else None."""
        if self.settings.fail_on_fault and self.candidate_faults:
            return "fault"
        if self.state.verdict is not None:
            return self.state.verdict
        if self.pairs_done >= self.max_pairs:
            return "inconclusive"
        return None

    @property
    def games_counted(self) -> int:
        return 2 * self.pairs_counted

    def elo(self) -> EloEstimate:
        """The candidate's Elo over the baseline from the counted pairs, with 95% interval and LOS:
        the pairing's one figure, as the standings show it (`stats.pairing_elo` of pairs: the
        pentanomial's estimate)."""
        return elo_from_pentanomial(self.pentanomial)

    def nelo(self) -> tuple[float, float, float]:
        """The candidate's normalized Elo from the counted pairs: (nelo, low, high)."""
        return nelo_from_pentanomial(self.pentanomial)

    def status_line(self) -> str:
        """One line: counted pairs, pentanomial, Elo, nElo, LOS and the LLR with its bounds."""
        elo, (nelo, nlow, nhigh) = self.elo(), self.nelo()
        s = self.state
        void = f" ({self.pairs_void} void)" if self.pairs_void else ""
        return (f"pairs {self.pairs_counted}{void} [{' '.join(map(str, self.pentanomial))}]  "
                f"Elo {elo.text()}  "
                f"nElo {nelo:+.1f} [{nlow:+.1f}, {nhigh:+.1f}]  LOS {100 * elo.los:.1f}%  "
                f"LLR {s.llr:+.2f} [{s.lower:+.2f}, {s.upper:+.2f}]")


@dataclass(frozen=True)
class LogScan:
    """What the scan of the candidate's stderr logs found."""

    pattern: str
    logs_scanned: int
    logs_missing: int
    lines_matched: int
    logs_matched: int
    first_lines: tuple[str, ...]  # `path:line: text` of the first few matches

    @property
    def problem(self) -> bool:
        return self.lines_matched > 0


def scan_logs(records: Iterable[GameRecord], name: str, pattern: str, base: Path) -> LogScan:
    """Scan `name`'s stderr log of every record for lines matching `pattern` (case-insensitive).

    An empty pattern scans nothing. Relative log paths are taken from `base`. Games are
    scanned in schedule order, so the quoted lines are the same whatever order games finished in.
    """
    if not pattern:
        return LogScan(pattern, 0, 0, 0, 0, ())
    regex = re.compile(pattern, re.IGNORECASE)
    scanned = missing = lines = matched_logs = 0
    first: list[str] = []
    logs = sorted((r.round or 0, r.id or "", r.logs[r.seat_names().index(name)] if r.logs else None) for r in records)
    for _, _, log in logs:  # each game's log path alone is kept, not its record
        path = None if log is None else (Path(log) if Path(log).is_absolute() else base / log)
        if path is None or not path.is_file():
            missing += 1
            continue
        scanned += 1
        hits = 0
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                if regex.search(line):
                    hits += 1
                    if len(first) < SHOWN_LOG_LINES:
                        first.append(f"{path}:{number}: {line.rstrip()[:SHOWN_LINE_CHARS]}")
        lines += hits
        matched_logs += hits > 0
    return LogScan(pattern, scanned, missing, lines, matched_logs, tuple(first))


@dataclass(frozen=True)
class SprtOutcome:
    """A finished (or already decided) test: the test's state, the log scan, and this run's work."""

    test: SprtTest
    logs: LogScan
    played_now: int

    @property
    def exit_code(self) -> int:
        """0 H1 accepted, 1 H0 accepted, 3 a fault or a log problem, 4 inconclusive at max games."""
        assert self.test.verdict is not None
        return LOG_PROBLEM_EXIT if self.logs.problem else EXIT_CODES[self.test.verdict]


class SprtProgress(Progress):
    """Progress for an SPRT: the test's status as a live line on a terminal, plain lines otherwise."""

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False, tty: bool | None = None) -> None:
        super().__init__(stream, quiet=quiet, tty=tty)
        self.test: SprtTest | None = None
        self._pairs_shown = 0  # plain lines start with the first counted pair

    def status(self, test: SprtTest) -> None:
        """The test changed: redraw the live line, or print a plain line when more pairs counted."""
        self.test = test
        if self.quiet:
            return
        if self.tty:
            self._draw()
        elif test.pairs_counted != self._pairs_shown:
            self._pairs_shown = test.pairs_counted
            print(f"  {test.status_line()}", file=self.stream, flush=True)

    def _draw(self) -> None:
        if not self.tty or self.quiet:
            return
        status = self.test.status_line() if self.test else ""
        line = f"games {self.done}/{self.planned} {self._eta()}  {status}"
        width = shutil.get_terminal_size((200, 24)).columns - 1  # a wrapped line cannot be redrawn in place
        self.stream.write("\r\x1b[K" + line[:width])
        self.stream.flush()
        self._line_shown = True


class SprtRunner(TournamentRunner):
    """Plays game pairs with up to `concurrency` games at once until the test is decided."""

    RECORDS_DECIDE = True  # the verdict, from the records, decides whether another game starts

    def __init__(self, config: TournamentConfig, store: GameStore, progress: SprtProgress,
                 play: Callable[..., GameRecord] = play_game, cluster: Cluster | None = None) -> None:
        super().__init__(config, store, progress, play, cluster)
        assert config.sprt is not None and config.candidate is not None
        self.sprt_progress = progress
        self.test = SprtTest(config.sprt, *(p.name for p in config.players))
        for record in store.records(audit=False):  # checked by prepare_results' read; taken one at a time
            self.test.add(record)

    def run(self) -> SprtOutcome:  # type: ignore[override]
        """Play pairs until the verdict is known (nothing, if the records already decide it)."""
        assert self.config.sprt is not None
        self.progress.start(self.config.sprt.max_games, self.tally)
        self.sprt_progress.status(self.test)
        if self.test.verdict is None:
            self._play_until_decided()
        self.progress.finish(self.tally)
        logs = scan_logs(self.store.records(audit=False), self.test.candidate, self.config.sprt.log_pattern, self.config.results_dir)
        return SprtOutcome(self.test, logs, self.played_now)

    def _pending(self) -> Iterator[ScheduledGame]:
        for index in range(1, self.test.max_pairs + 1):
            for scheduled in sprt_pair(self.config, self.game, index):
                if scheduled.id not in self.done_ids:
                    yield scheduled

    def _play_until_decided(self) -> None:
        self._play(self._pending())

    def _finished(self, scheduled: ScheduledGame, future: Future[GameRecord]) -> None:
        """Record a finished game (durably, via the tournament's `_record`) and count it (a game
        the machinery failed has no record: nothing to count)."""
        recorded = self.tally.records
        super()._finished(scheduled, future)
        if self.tally.records > recorded and self.last_record is not None:
            self.test.add(self.last_record)
        self.sprt_progress.status(self.test)

    def _decided(self) -> bool:
        return self.test.verdict is not None


def run_sprt(config: TournamentConfig, progress: SprtProgress, *, fresh: bool = False, backup: bool = True,
             watch: GameWatch | None = None) -> SprtOutcome:
    """Prepare the results folder (`fresh`, `backup`: runner.prepare_results) and play pairs
    until the test is decided."""
    outcome: SprtOutcome = run_held(config, progress, SprtRunner, fresh=fresh, backup=backup, watch=watch)
    return outcome


__all__ = ["EXIT_CODES", "Interrupted", "LogScan", "SprtOutcome", "SprtProgress", "SprtRunner", "SprtTest",
           "run_sprt", "scan_logs", "sprt_pair"]
