#!/usr/bin/env python3
"""The HTML report at tournament scale: page size, generation time and load time in chromium.

    python benchmarks/bench_report.py [--games 10000] [--no-browser]

For each board it writes a results folder of `--games` random games (played in-process by
tests/report_samples.py, with made-up move times) and measures:
- generation: `write_tournament_report`, against a baseline in the same run: just reading
  games.jsonl into GameRecords, which any report must do;
- the page's size, raw and gzipped;
- in headless chromium (/usr/bin/chromium), timed inside the page: from navigation until
  the page has drawn its tables (DOMContentLoaded; the script is inline), against the same
  page built from the first 100 games; opening a game in the viewer; one step (the arrow
  key's handler: replay and redraw); and filtering the games list by a player.
Times are the best of `--repeat` runs.
"""
from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from arbiter.records import GameRecord  # noqa: E402
from arbiter.reports.html import write_tournament_report  # noqa: E402
from arbiter.tournament.store import GameStore  # noqa: E402
from report_samples import write_sample_tournament  # noqa: E402

PLAYERS = tuple(f"bot{n}" for n in range(1, 9))  # 8 players: 28 pairings
BOARDS = [("dots-and-triangles", {"rows": 4}), ("dots-and-boxes", {"rows": 5, "cols": 5})]
CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def best_seconds(action: Callable[[], Any], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """The best of `repeat` runs of `action`, by `clock` (wall time, or a process's CPU time)."""
    times = []
    for _ in range(repeat):
        started = clock()
        action()
        times.append(clock() - started)
    return min(times)


def make_results(folder: Path, game: str, params: dict[str, Any], games: int) -> Path:
    pairings = len(PLAYERS) * (len(PLAYERS) - 1) // 2
    per_pairing = -(-games // pairings)
    folder = write_sample_tournament(folder, players=PLAYERS, game_name=game, params=params,
                                     games_per_pairing=per_pairing, opening=2, timeouts=3, seed=5)
    lines = (folder / "games.jsonl").read_text().splitlines(keepends=True)[:games]
    (folder / "games.jsonl").write_text("".join(lines))
    return folder


def read_records(folder: Path) -> list[GameRecord]:
    return GameStore(folder / "games.jsonl").load()


def browser_figures(browser: Any, report: Path, small_report: Path, repeat: int) -> dict[str, float]:
    """Times measured inside the page (performance.now), so Playwright's own latency is left out."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})

    def load(path: Path) -> float:
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-ready]")
        # The page's script is inline at the end of <body>: it has drawn everything by DOMContentLoaded.
        return page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd") / 1000

    figures = {"load_small_s": min(load(small_report) for _ in range(repeat)),
               "load_s": min(load(report) for _ in range(repeat))}
    figures["heap_mb"] = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0") / 1e6
    # Open the first game (decode, build the board, draw the start) until the next frame is painted.
    open_game = """async () => {
        history.replaceState(null, '', location.pathname);
        const row = document.querySelector('#games-table tbody tr');
        const started = performance.now();
        row.click();
        await new Promise((done) => window.addEventListener('hashchange', done, { once: true }));
        await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
        return performance.now() - started;
    }"""
    figures["open_game_s"] = min(page.evaluate(open_game) for _ in range(repeat)) / 1000
    step_all = """() => {
        const moves = Number(document.getElementById('ply-slider').max);
        document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home' }));
        const started = performance.now();
        for (let i = 0; i < moves; i++) document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' }));
        return (performance.now() - started) / moves;
    }"""
    figures["step_s_per_move"] = min(page.evaluate(step_all) for _ in range(repeat)) / 1000
    page.keyboard.press("Escape")
    filter_games = """() => {
        const select = document.getElementById('filter-player');
        const started = performance.now();
        select.value = '2';
        select.dispatchEvent(new Event('change'));
        select.value = '';
        select.dispatchEvent(new Event('change'));
        return (performance.now() - started) / 2;
    }"""
    figures["filter_s"] = min(page.evaluate(filter_games) for _ in range(repeat)) / 1000
    page.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true", help="skip the chromium measurements")
    args = parser.parse_args()
    browser = playwright = None
    if not args.no_browser:
        from playwright.sync_api import sync_playwright
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game, params in BOARDS:
            label = f"{game} " + " ".join(f"{k}={v}" for k, v in params.items())
            folder = make_results(Path(tmp) / game, game, params, args.games)
            small = Path(tmp) / f"{game}-small"
            shutil.copytree(folder, small)
            (small / "games.jsonl").write_text("".join((folder / "games.jsonl").read_text().splitlines(True)[:100]))
            read_s = best_seconds(lambda: read_records(folder), args.repeat)
            write_s = best_seconds(lambda: write_tournament_report(folder), args.repeat)
            write_tournament_report(small)
            report = folder / "report.html"
            raw = report.read_bytes()
            jsonl_mb = (folder / "games.jsonl").stat().st_size / 1e6
            moves = sum(len(json.loads(line)["moves"]) for line in (folder / "games.jsonl").read_text().splitlines())
            row = {"board": label, "games": args.games, "moves": moves, "jsonl_mb": jsonl_mb,
                   "read_s": read_s, "write_s": write_s, "size_mb": len(raw) / 1e6,
                   "gzip_mb": len(gzip.compress(raw)) / 1e6}
            if browser is not None:
                row.update(browser_figures(browser, report, small / "report.html", args.repeat))
            rows.append(row)
    if browser is not None:
        browser.close()
        playwright.stop()
    for row in rows:
        print(f"{row['board']}: {row['games']} games, {row['moves']} moves (games.jsonl {row['jsonl_mb']:.1f} MB)")
        print(f"  generate report.html  {row['write_s']:.2f} s = {row['write_s'] / row['read_s']:.2f} x reading "
              f"the records alone ({row['read_s']:.2f} s)")
        print(f"  page size             {row['size_mb']:.2f} MB ({row['size_mb'] / row['jsonl_mb']:.2f} x games.jsonl), "
              f"{row['gzip_mb']:.2f} MB gzipped")
        if "load_s" in row:
            print(f"  load in chromium      {row['load_s'] * 1000:.0f} ms = {row['load_s'] / row['load_small_s']:.1f} x "
                  f"the 100-game page ({row['load_small_s'] * 1000:.0f} ms); JS heap {row['heap_mb']:.0f} MB")
            print(f"  open a game           {row['open_game_s'] * 1000:.0f} ms (to the next painted frame); one step "
                  f"{row['step_s_per_move'] * 1000:.2f} ms; filter by player {row['filter_s'] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
