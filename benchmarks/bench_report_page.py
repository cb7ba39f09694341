#!/usr/bin/env python3
"""The HTML report at up to a million games: writing it, in bounded memory, and opening it.

    python benchmarks/bench_report_page.py [--games 20000 100000 1000000] [--whole-up-to 100000]
                                           [--base DIR] [--keep DIR] [--no-browser]

For each N it makes a results folder of N games cheaply: a few hundred real random Triangle
War games of 8 players (tests/report_samples.py) copied with new ids, so that every line is a
valid record, and their summary.json. Then, each in a child process of its own, with its CPU
time, wall time and peak resident memory (the child's `ru_maxrss`):
- the baseline: `json.loads` of every line of the same games.jsonl, one line at a time;
- `write_tournament_report`: the HTML writer alone (report.html and its report-games/ folder);
- with N at most `--whole-up-to`: `arbiter report --html`, the whole command (the standings
  recomputed from games.jsonl, then the page); its memory is the standings' as much as the page's;
and in headless chromium (Debian's /usr/bin/chromium, driven by playwright, the page opened
from disk): the time from navigation until the page is interactive (its tables drawn and the
first page of the games list shown: `body[data-ready]`; the first of three navigations and the
best), then, timed inside the page, turning to the last page of the list, opening its last
game (cold), opening its first after the pointer rested on its row for 0.1 s (as a reader
opens one: the page reads a game's moves ahead when the pointer enters its row), and
filtering the list by a player.

`--base DIR` runs the same on another checkout of arbiter (its `arbiter` package is put first
on the child's PYTHONPATH): that is how the code before the games folder was measured.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

PLAYERS = tuple(f"bot{n}" for n in range(1, 9))  # 8 players: 28 pairings
SAMPLE_PER_PAIRING = 10  # 280 distinct games, copied round to N
CHROMIUM = Path("/usr/bin/chromium")
READY_TRIES = 3  # navigations to the page: the first (a cold browser) and the best
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def make_results(folder: Path, games: int) -> Path:
    """A results folder of `games` valid records: sample games with new ids, and a summary.json."""
    from report_samples import write_sample_tournament

    sample = write_sample_tournament(folder, players=PLAYERS, games_per_pairing=SAMPLE_PER_PAIRING,
                                     opening=2, timeouts=3, seed=5)
    lines = [json.loads(line) for line in (sample / "games.jsonl").read_text().splitlines()]
    with open(folder / "games.jsonl", "w", encoding="utf-8") as out:
        for number in range(games):
            record = lines[number % len(lines)]
            record["id"] = f"g{number + 1:07d}"
            record["round"] = number // len(lines) + 1
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
    summary = json.loads((folder / "summary.json").read_text())
    summary["totals"].update(planned=games, played=games)  # the sample's standings: only the count matters here
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def measure(argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    """Run `argv` as a child of a fresh measuring process and return its CPU s, wall s and peak MB."""
    probe = ("import resource, subprocess, sys, time, json; t = time.perf_counter(); "
             "done = subprocess.run(sys.argv[1:]); wall = time.perf_counter() - t; "
             "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
             "print(json.dumps({'rc': done.returncode, 'cpu_s': u.ru_utime + u.ru_stime, 'wall_s': wall, "
             "'peak_mb': u.ru_maxrss / 1024}))")
    # Run from the code's own root: `python -c` and `-m` put the current folder first on the path.
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=env, cwd=cwd)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    if figures["rc"] != 0:
        raise SystemExit(f"{argv} failed: {done.stderr[-2000:]}")
    return figures


def child_env(base: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    code = base or ROOT
    env["PYTHONPATH"] = os.pathsep.join([str(code), env.get("PYTHONPATH", "")])
    return env


JSON_BASELINE = "import json, sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"
WRITER = "import sys\nfrom arbiter.reports.html import write_tournament_report\nwrite_tournament_report(sys.argv[1])\n"


# Timed inside the page (performance.now), so that Playwright's polling is left out: an action,
# then until the games table is no longer aria-busy (the page before the games folder draws at
# once and has no such attribute) or the viewer is shown.
IN_PAGE = """async ([action, until]) => {
    const table = document.getElementById('games-table');
    const overlay = document.getElementById('viewer-overlay');
    const done = () => (until === 'viewer' ? !overlay.hidden : table.getAttribute('aria-busy') !== 'true');
    const started = performance.now();
    eval(action);
    await new Promise((resolve) => {
        if (done()) return resolve();
        const watch = new MutationObserver(() => { if (done()) { watch.disconnect(); resolve(); } });
        watch.observe(document.body, { attributes: true, subtree: true, attributeFilter: ['aria-busy', 'hidden'] });
    });
    return performance.now() - started;
}"""
LAST_PAGE = """document.getElementById('games-last') ? document.getElementById('games-last').click()
    : (() => { const next = [...document.querySelectorAll('.pager button')].pop(); while (!next.disabled) next.click(); })()"""
OPEN_LAST_ROW = "document.querySelector('#games-table tbody tr:last-child').click()"
FIRST_ROW = "#games-table tbody tr:first-child"
HOVER_S = 0.1  # the pointer on a row before it is clicked
FILTER = """(() => { const select = document.getElementById('filter-player');
    select.value = [...select.options].find((o) => o.text === PLAYER).value; select.dispatchEvent(new Event('change')); })()"""


def time_page(report: Path, player: str) -> dict[str, float]:
    """Interactive, the last list page, a game opened and a player's games, in headless chromium, in ms."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        ready_ms, in_page_ms = [], []
        for _ in range(READY_TRIES):
            started = time.perf_counter()
            page.goto(report.as_uri(), timeout=600_000)
            page.wait_for_selector("body[data-ready]", timeout=600_000)
            ready_ms.append((time.perf_counter() - started) * 1000)
            # The page's own clock counts from the navigation's start: an upper bound on when it was ready.
            in_page_ms.append(page.evaluate("() => performance.now()"))
        last_page_ms = page.evaluate(IN_PAGE, [LAST_PAGE, "list"])
        open_ms = page.evaluate(IN_PAGE, [OPEN_LAST_ROW, "viewer"])
        page.keyboard.press("Escape")
        # As a reader opens one: the pointer on its row a moment before the click (its moves read ahead).
        page.evaluate(f"() => document.querySelector('{FIRST_ROW}').dispatchEvent(new PointerEvent('pointerenter'))")
        time.sleep(HOVER_S)
        hovered_ms = page.evaluate(IN_PAGE, [f"document.querySelector('{FIRST_ROW}').click()", "viewer"])
        page.keyboard.press("Escape")
        player_ms = page.evaluate(IN_PAGE, [FILTER.replace("PLAYER", json.dumps(player)), "list"])
        heap_mb = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize / 2**20 : null")
        browser.close()
    return {"first_ready_ms": ready_ms[0], "ready_ms": min(ready_ms), "ready_in_page_ms": min(in_page_ms), "last_page_ms": last_page_ms,
            "open_game_ms": open_ms, "open_hovered_game_ms": hovered_ms, "player_filter_ms": player_ms, "js_heap_mb": heap_mb}


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--whole-up-to", type=int, default=100_000,
                        help="time `arbiter report --html` too for N up to this (it loads every record)")
    parser.add_argument("--base", type=Path, default=None, help="another checkout's root, to measure its code")
    parser.add_argument("--keep", type=Path, default=None, help="make the folders here and keep them")
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    env = child_env(args.base)
    code = (args.base or ROOT).resolve()
    where = Path(args.keep or tempfile.mkdtemp(prefix="bench-report-page-"))
    print(f"code: {code}; folders in {where}")
    rows = []
    try:
        for games in args.games:
            folder = (where / f"r{games}").resolve()
            if not (folder / "games.jsonl").exists():
                shutil.rmtree(folder, ignore_errors=True)
                make_results(folder, games)
            jsonl_mb = (folder / "games.jsonl").stat().st_size / 2**20
            row: dict[str, Any] = {"games": games, "games.jsonl MB": round(jsonl_mb, 1)}
            baseline = measure([sys.executable, "-c", JSON_BASELINE, str(folder / "games.jsonl")], env, code)
            shutil.rmtree(folder / "report-games", ignore_errors=True)  # an earlier run's (another code's)
            writer = measure([sys.executable, "-c", WRITER, str(folder)], env, code)
            row["json.loads"] = baseline
            row["write_tournament_report"] = writer
            row["writer / json.loads CPU"] = round(writer["cpu_s"] / baseline["cpu_s"], 2)
            report = folder / "report.html"
            row["report.html MB"] = round(report.stat().st_size / 2**20, 2)
            if (folder / "report-games").exists():
                row["report-games MB"] = round(folder_mb(folder / "report-games"), 1)
            if games <= args.whole_up_to:
                row["arbiter report --html"] = measure(
                    [sys.executable, "-m", "arbiter", "report", str(folder), "--html"], env, code)
            if not args.no_browser:
                row["chromium"] = time_page(report, PLAYERS[3])
            rows.append(row)
            print(json.dumps(row, indent=1), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(where, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
