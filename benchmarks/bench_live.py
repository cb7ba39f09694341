#!/usr/bin/env python3
"""What watching a game live costs the referee, per move, beside the same game unwatched in the same run.

- Game: `play_game` on limit-nim with P piles of 1000 stones, between two bots that answer at
  once by taking one stone from the first pile that has any (bench_referee.py's taker, over
  several piles so that a game lasts long enough to be watched: 20 piles, 20,000 moves, about
  a second), the sandbox off so that the box's start-up and noise stay out of it.
- Kinds, interleaved in every repeat so a load spike hits each alike:
  - unwatched: `on_turn` only takes a timestamp (the baseline);
  - watched: the live server of `arbiter run --serve` running in this process (its own
    thread, as in a run), the game's `on_turn` the worker's (`turn_news.TurnReporter`, its news
    handed straight to the runner's `RunFeed`, without the pipe between a worker and the
    arbiter: bench_forward.py measures that) plus the same timestamp, and an SSE client
    reading the page's event stream all game long (every update the server pushes: the
    running board, re-encoded and sent five times a second);
  - with `--browser`: the same, with headless chromium showing the live page instead of the
    bare SSE client (it redraws the board at every update, on the same two CPUs).
- Per move: the time between turns (from the `on_turn` timestamps) and the arbiter's own
  overhead = that minus the bot's recorded `wall_ms` (everything from a move's arrival to the
  next hand-over, where the callback runs). Medians of every move of every repeat; ratios
  are the median (and range) of each repeat's watched/unwatched ratio.
- The callback alone: nanoseconds per call of `RunFeed`'s `on_turn` (handed a turn's news) in a tight loop.

Run: python benchmarks/bench_live.py [--piles 20] [--repeats 5] [--browser]
"""
from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arbiter.games import find_game  # noqa: E402
from arbiter.referee import PlayerSpec, TimeControl, play_game  # noqa: E402
from arbiter.reports.live import LiveServer, RunFeed  # noqa: E402
from arbiter.tournament.schedule import ScheduledGame  # noqa: E402
from arbiter.tournament.turn_news import TurnNews, TurnReporter  # noqa: E402

# Takes one stone from the first pile that has any; follows the opponent's takes too.
TAKER = r"""
import os, sys
left = [1000] * int(os.environ["PILES"])
out = sys.stdout
for line in sys.stdin:
    if line == "Quit\n":
        break
    if line != "Start\n":
        words = line.split()
        if len(words) != 2 or not words[0].isdigit():
            continue
        left[int(words[0]) - 1] -= int(words[1])
    pile = next((p for p, n in enumerate(left) if n > 0), None)
    if pile is not None:
        out.write(f"{pile + 1} 1\n")
        out.flush()
        left[pile] -= 1
"""


class SseReader:
    """A browser stand-in: reads the event stream until closed, counting events."""

    def __init__(self, port: int) -> None:
        self.events = 0
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.connection.request("GET", "/events")
        self.response = self.connection.getresponse()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for line in self.response:
                if line.startswith(b"event:"):
                    self.events += 1
        except (OSError, ValueError, AttributeError):  # closed under the reading thread
            pass

    def close(self) -> None:
        self.connection.close()
        self.thread.join(5)


class Chromium:
    """Headless chromium showing the live page (Playwright, Debian's /usr/bin/chromium)."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright
        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                       args=["--headless", "--no-sandbox", "--disable-gpu"])
        self.page = self.browser.new_page()

    def watch(self, url: str) -> Callable[[], int]:
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready]")
        return lambda: int(self.page.evaluate("Number(document.body.dataset.updates || 0)"))

    def close(self) -> None:
        self.browser.close()
        self.playwright.stop()


def nim(piles: int) -> Any:
    return find_game("limit-nim", piles=",".join(["1000/1"] * piles))


def one_game(piles: int, on_turn: Callable[[Any], None]) -> list[Any]:
    taker = PlayerSpec(name="taker", command=(sys.executable, "-c", TAKER), env={"PILES": str(piles)}, sandbox=None)
    record = play_game(nim(piles), [taker, taker], time=TimeControl(time_ms=3_600_000), on_turn=on_turn)
    assert record.termination.value == "normal" and len(record.moves) == 1000 * piles, record.detail
    return record.moves


def measure(piles: int, watcher: str, folder: Path, browser: Chromium | None) -> tuple[list[float], list[float], int]:
    """Per move (turns 2..N): microseconds between turns and the arbiter's overhead; events seen."""
    stamps: list[float] = []
    stamp = stamps.append
    server = reader = None
    seen: Callable[[], int] = lambda: 0
    if watcher == "unwatched":
        def on_turn(state: Any) -> None:
            stamp(time.perf_counter())
    else:
        feed = RunFeed()
        server = LiveServer(folder, feed=feed)
        url = server.start()
        if watcher == "chromium":
            assert browser is not None
            seen = browser.watch(url)
        else:
            reader = SseReader(int(url.rsplit(":", 1)[1].strip("/")))
            seen = lambda: reader.events  # noqa: E731
        notes = feed.game_started(ScheduledGame(id="bench", round=1, seats=("taker", "taker"), opening=()),
                                  nim(piles), [TimeControl(time_ms=3_600_000)] * 2)
        report = TurnReporter(lambda *news: notes(TurnNews(*news)), nim(piles), ())

        def on_turn(state: Any) -> None:
            report(state)
            stamp(time.perf_counter())
    try:
        records = one_game(piles, on_turn)
        events = seen()
    finally:
        if reader is not None:
            reader.close()
        if server is not None:
            server.stop()
    between = [(b - a) * 1e6 for a, b in zip(stamps, stamps[1:])]
    overhead = [w - m.wall_ms * 1000 for w, m in zip(between, records[1:])]
    return between, overhead, events


def callback_ns(calls: int) -> tuple[float, float]:
    """Nanoseconds per call of the runner's on_turn (a turn's news of one move), and of a
    no-op callback timed the same way (the timer's own share)."""
    feed = RunFeed()
    game = find_game("limit-nim", piles="1000/1")
    notes = feed.game_started(ScheduledGame(id="bench", round=1, seats=("a", "b"), opening=()), game,
                              [TimeControl()] * 2)
    news = TurnNews(((0, "1 1"),), (0, 0), 1)
    results = []
    for callback in (notes, lambda news: None):
        elapsed = 0.0
        for call in range(calls):
            started = time.perf_counter()
            callback(news)
            elapsed += time.perf_counter() - started
            if call % 1000 == 999:  # the server thread takes the notes ten times a second
                feed.notes.clear()
        results.append(elapsed / calls * 1e9)
    return results[0], results[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--piles", type=int, default=20, help="piles of 1000 stones: 1000 moves each (at most 64)")
    parser.add_argument("--repeats", type=int, default=5, help="games of each kind; medians are reported")
    parser.add_argument("--browser", action="store_true", help="also watch with headless chromium")
    args = parser.parse_args()
    kinds = ["unwatched", "sse"] + (["chromium"] if args.browser else [])
    browser = Chromium() if args.browser else None
    between: dict[str, list[float]] = {k: [] for k in kinds}
    overhead: dict[str, list[float]] = {k: [] for k in kinds}
    medians: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    events: dict[str, list[int]] = {k: [] for k in kinds}
    with tempfile.TemporaryDirectory() as folder:
        try:
            for _ in range(args.repeats):
                for kind in kinds:
                    b, o, e = measure(args.piles, kind, Path(folder), browser)
                    between[kind] += b
                    overhead[kind] += o
                    medians[kind].append((statistics.median(b), statistics.median(o)))
                    events[kind].append(e)
        finally:
            if browser is not None:
                browser.close()
    print(f"limit-nim, {1000 * args.piles} moves per game, {args.repeats} games of each kind, sandbox off; medians")
    print(f"{'kind':<34}{'per move':>12}{'overhead':>12}{'per-move ratio':>26}{'overhead ratio':>26}  updates/game")
    labels = {"unwatched": "unwatched (baseline)", "sse": "--serve + SSE client", "chromium": "--serve + chromium"}
    for kind in kinds:
        per_move = [m[0] / base[0] for m, base in zip(medians[kind], medians["unwatched"])]
        own = [m[1] / base[1] for m, base in zip(medians[kind], medians["unwatched"])]
        ratio = lambda r: f"{statistics.median(r):.2f}x ({min(r):.2f} to {max(r):.2f})"  # noqa: E731
        print(f"{labels[kind]:<34}{statistics.median(between[kind]):>9.1f} us{statistics.median(overhead[kind]):>9.1f} us"
              f"{ratio(per_move):>26}{ratio(own):>26}  {statistics.median(events[kind]):>6.0f}")
    notes_ns, empty_ns = callback_ns(200_000)
    print(f"the on_turn callback alone: {notes_ns:.0f} ns per call (a no-op callback timed alike: {empty_ns:.0f} ns)")


if __name__ == "__main__":
    main()
