"""Progress while a tournament runs: a bar with ETA and leader board on a terminal,
plain log lines otherwise, nothing but notes with --quiet."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from ..records import GameRecord, score_text
from .tally import Tally


class TolerantStream:
    """A text stream whose write errors stop the output, not the run: progress written into
    a closed pipe (`arbiter run x.yaml 2>&1 | head -3`) must not cost the games in flight."""

    def __init__(self, stream: TextIO) -> None:
        self.stream: TextIO | None = stream

    def isatty(self) -> bool:
        return self.stream is not None and self.stream.isatty()

    def write(self, text: str) -> int:
        return self._do(lambda stream: stream.write(text)) or 0

    def flush(self) -> None:
        self._do(lambda stream: stream.flush())

    def _do(self, action: Any) -> Any:
        if self.stream is None:
            return None
        try:
            return action(self.stream)
        except (OSError, ValueError):  # a broken pipe, or a stream closed under us
            self.stream = None
            return None


class Progress:
    """Reports games done / planned. The runner calls start, game_done, tick, finish, note."""

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False, tty: bool | None = None) -> None:
        self.stream: TextIO = TolerantStream(stream or sys.stderr)  # type: ignore[assignment]
        self.quiet = quiet
        self.tty = self.stream.isatty() if tty is None else tty
        self.planned = 0
        self.done_before = 0
        self.done = 0
        self.points: dict[str, float] = {}
        self.started = time.monotonic()
        self._line_shown = False

    def start(self, planned: int, tally: Tally) -> None:
        """Begin; `tally` holds the games already on disk (a resumed run)."""
        self.planned = planned
        self.done_before = self.done = tally.records
        self.points = tally.points_by_name()
        self.started = time.monotonic()
        if self.done_before:
            self.note(f"resuming: {self.done_before} of {planned} games already recorded")
        self._draw()

    def _count(self, record: GameRecord) -> None:
        for name, gained in zip(record.seat_names(), record.points or ()):
            self.points[name] = self.points.get(name, 0.0) + gained

    def game_done(self, record: GameRecord, tally: Tally) -> None:
        """One more game is on disk (`tally` counts it already)."""
        self.done += 1
        self._count(record)
        if self.quiet:
            return
        if self.tty:
            self._draw()
        else:
            print(f"[{self.done}/{self.planned}] {describe_result(record)}", file=self.stream, flush=True)

    def tick(self) -> None:
        """Refresh the ETA on a terminal (called about twice a second)."""
        if self.tty and not self.quiet:
            self._draw()

    def _eta(self) -> str:
        played = self.done - self.done_before
        if not played:
            return "ETA --"
        elapsed = time.monotonic() - self.started
        remaining = max(0.0, elapsed / played * (self.planned - self.done))
        return f"ETA {int(remaining // 60)}:{int(remaining % 60):02d}"

    def _draw(self) -> None:
        if not self.tty or self.quiet:
            return
        width = 24
        filled = int(width * self.done / self.planned) if self.planned else width
        leaders = sorted(self.points.items(), key=lambda item: -item[1])[:3]
        board = "  ".join(f"{name} {points:g}" for name, points in leaders)
        line = f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.planned} {self._eta()}  {board}"
        self.stream.write("\r\x1b[K" + line[:160])
        self.stream.flush()
        self._line_shown = True

    def finish(self, tally: Tally) -> None:
        """The run is over (complete or not)."""
        if self._line_shown:
            self.stream.write("\n")
            self.stream.flush()
            self._line_shown = False

    def note(self, message: str) -> None:
        """A message that is always shown, on its own line."""
        if self._line_shown:
            self.stream.write("\n")
            self._line_shown = False
        print(message, file=self.stream, flush=True)


def describe_result(record: GameRecord) -> str:
    """`001-greedy-random: greedy beat random 6-3` (+ the fault, if any); the scores are
    in the order of the names before them, the winner's first. More seats list the ranking:
    `001-a-b-c: a 1st 5, c 2nd 3, b 3rd 1`. A void game: `001-a-b: a vs b void, counted for
    no one (why)`."""
    names, scores, places = record.seat_names(), record.scores, record.places
    if record.termination.is_void:  # no result: it counts for no one (docs/records.md)
        return f"{record.id}: {' vs '.join(names)} void, counted for no one ({record.detail})"
    if len(names) > 2 and places is not None:
        ranking = sorted(range(len(names)), key=lambda seat: (places[seat], seat))
        text = ", ".join(f"{names[seat]} {ordinal(places[seat])} {scores[seat]}" for seat in ranking)
    elif record.winner is None:
        text = f"{names[0]} drew {names[1]} {score_text(scores)}"
    else:
        win = record.winner
        winner = names[win]
        loser = names[1 - win] if len(names) == 2 else "the field"
        others = [s for seat, s in enumerate(scores) if seat != win]
        text = f"{winner} beat {loser} {score_text([scores[win], *others])}"
    if record.termination.is_fault:
        text += f" ({record.termination.value}: {record.detail})"
    return f"{record.id}: {text}"


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, ... (a game has at most a few seats: 11th and 12th are not needed)."""
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th')}"
