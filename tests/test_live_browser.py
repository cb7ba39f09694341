"""The live page in a real browser (Debian's chromium, headless, driven by Playwright), served by
the real commands: a tournament watched from start to finish, and a page that reconnects by
itself after the server restarts. With ARBITER_UPDATE_SCREENSHOTS=1 the screenshots are also
copied to docs/img/ (the pictures in docs/live.md)."""
from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from arbiter.reports.html import write_tournament_report
from report_samples import write_sample_sprt, write_sample_tournament
from test_report_browser import browser, save_screenshot  # noqa: F401 - `browser` is a fixture
from tournament_helpers import ROOT, write_config

SLOW_BOT = ROOT / "tests" / "bots" / "slow_random_bot.py"
WAIT_MS = 60_000  # generous: the machine may be busy; every wait ends as soon as its event happens


class Served:
    """An `arbiter` command that serves the live page, and the address it printed."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "arbiter", *args], cwd=cwd, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.url = ""
        stream = self.process.stderr if args[0] == "run" else self.process.stdout
        assert stream is not None
        for line in stream:
            match = re.search(r"live page: (\S+)", line)
            if match:
                self.url = match.group(1)
                break
        assert self.url, f"no address printed; stderr: {self.process.stderr.read() if self.process.stderr else ''}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        self.process.communicate(timeout=60)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:  # noqa: F811 - the imported fixture
    """A fresh page that fails the test on a script error or a request to anywhere but the server."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    elsewhere: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{error}; stack: {getattr(error, 'stack', None)}"))
    page.on("request", lambda request: None if request.url.startswith("http://127.0.0.1:") else elsewhere.append(request.url))
    yield page
    context.close()
    assert errors == [], f"script errors on the page: {errors}"
    assert elsewhere == [], f"the page tried to load: {elsewhere}"


def standings_txt_rows(path: Path) -> list[list[str]]:
    """The standings table's rows as standings.txt prints them (columns set apart by 2+ spaces)."""
    lines = path.read_text().split("\n\n")[0].splitlines()[2:]
    return [re.split(r"\s{2,}", line.strip()) for line in lines]


def page_standings_rows(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all("#standings-table tbody tr",
                                     "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => td.textContent.trim()))")


def test_a_tournament_is_watched_live_from_start_to_finish(page, tmp_path):
    players = "\n".join(f"  - {{name: {name}, command: python {SLOW_BOT} --seed {seed}, env: {{SLOW_MS: '60'}}}}"
                        for name, seed in (("ann", 1), ("bob", 2), ("cyd", 3)))
    config = write_config(tmp_path, "game: dots-and-triangles\nparams: {rows: 4}\ngames_per_pairing: 2\n"
                                    f"concurrency: 2\nopenings: {{random_moves: 2, seed: 5}}\nplayers:\n{players}\n",
                          name="club-night")
    run = Served("run", str(config), "--serve", cwd=tmp_path)
    try:
        page.goto(run.url)
        page.wait_for_selector("body[data-ready]")
        # Every count of games the standings show, as the page shows it (never reloaded).
        games_played = "() => [...document.querySelectorAll('#standings-table td[data-key=games]')]" \
                       ".reduce((n, td) => n + Number(td.textContent), 0)"
        page.evaluate(f"""() => {{ window.notReloaded = true; window.gameCounts = [];
            const count = {games_played};
            setInterval(() => {{ const n = count(); if (window.gameCounts.at(-1) !== n) window.gameCounts.push(n); }}, 20);
        }}""")
        # A running game's board advances move by move, without a reload.
        # (Any game: under load the first one seen may end before its next update.)
        page.wait_for_function(r"""() => {
            const seen = window.movesSeen || (window.movesSeen = {});
            let advanced = false;
            for (const card of document.querySelectorAll('#now-playing .now-game')) {
              const id = card.dataset.game, moves = Number(card.dataset.moves);
              // The board shows the moves in seat colours and the clocks run in seconds.
              if (id in seen && moves > seen[id] && card.querySelector('svg line.edge.drawn')
                  && /^\d+\.\d s$/.test(card.querySelector('.clock').textContent)) advanced = true;
              seen[id] = Math.max(seen[id] ?? moves, moves);
            }
            return advanced;
        }""", timeout=WAIT_MS)
        save_screenshot(page, tmp_path, "live.png")
        # A recorded game opens in the viewer while the run goes on (its moves read from the server).
        page.wait_for_selector('#games-table[aria-busy="false"] tbody tr', timeout=WAIT_MS)
        page.locator("#games-table tbody tr >> nth=0").click()
        page.wait_for_selector("#viewer-overlay:not([hidden])")
        # The viewer opens on the final position, as in the report.
        assert page.locator("svg#board line.edge.drawn").count() == page.locator("#move-list li[data-ply]").count() > 0
        page.click("#btn-first")
        assert page.locator("svg#board line.edge.drawn").count() == 0
        page.keyboard.press("Escape")
        page.wait_for_function("document.getElementById('live-status').textContent.includes('finished')",
                               timeout=WAIT_MS)
        # The standings changed as records landed: the page saw the count grow to all 6 games.
        # (The sampler runs every 20 ms: let it see the last state before reading what it saw.)
        page.wait_for_function(f"window.gameCounts.at(-1) === ({games_played})()", timeout=WAIT_MS)
        counts = page.evaluate("window.gameCounts")
        assert page.evaluate("window.notReloaded") is True
        assert counts == sorted(counts) and counts[-1] == 6 * 2 and len(counts) >= 2, counts
        out, err = run.process.communicate(timeout=60)
    finally:
        run.stop()
    assert run.process.returncode == 0
    # The server closed every stream the browser held: nothing of asyncio's or aiohttp's on the terminal.
    assert "Task was destroyed" not in err and "Traceback" not in err and "aiohttp" not in err, err
    # The page's final standings are standings.txt's, cell for cell; its server has gone, and the
    # games list still shows the games it had read (the last copy of each chunk).
    assert page_standings_rows(page) == standings_txt_rows(tmp_path / "results" / "standings.txt")
    assert page.inner_text("#progress-text") == "6 of 6 games recorded"
    page.wait_for_selector('#games-table[aria-busy="false"]')
    assert page.locator("#games-table tbody tr").count() >= 1


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def player_colours(page: Any, names: list[str]) -> dict[str, str]:
    """Each player's swatch colour in the standings, as the browser computes it."""
    return {name: page.eval_on_selector(f'#standings-table tr[data-player="{name}"] .swatch',
                                        "n => getComputedStyle(n).backgroundColor") for name in names}


def test_the_page_reconnects_by_itself_after_the_server_restarts(page, browser, tmp_path):  # noqa: F811
    folder = write_sample_tournament(tmp_path / "ladder", players=("alpha", "beta", "gamma"), games_per_pairing=2,
                                     timeouts=0, seed=5)
    listed = ["gamma", "alpha", "beta"]  # the config's order, not the ranks'
    (folder / "tournament.json").write_text(json.dumps({
        "name": "ladder", "planned": 6, "schedule": {"format": "round-robin", "players": listed}}))
    games = folder / "games.jsonl"
    lines = games.read_text().splitlines(keepends=True)
    games.write_text("".join(lines[:3]))
    address = f"127.0.0.1:{free_port()}"
    server = Served("serve", str(folder), "--address", address, cwd=tmp_path)
    page.goto(server.url)
    page.wait_for_function("document.getElementById('live-status').textContent.includes('watching')", timeout=WAIT_MS)
    assert page.inner_text("#progress-text").startswith("3 of 6 games recorded")
    page.evaluate("window.notReloaded = true")
    server.stop()
    page.wait_for_function("document.getElementById('live-status').textContent.includes('reconnecting')",
                           timeout=WAIT_MS)
    save_screenshot(page, tmp_path, "live-reconnecting.png")
    games.write_text("".join(lines))  # the run went on while the server was down
    server = Served("serve", str(folder), "--address", address, cwd=tmp_path)
    try:
        page.wait_for_function("document.getElementById('progress-text').textContent.startsWith('6 of 6')",
                               timeout=WAIT_MS)
        assert page.evaluate("window.notReloaded") is True
        assert "watching" in page.inner_text("#live-status")
        summary = json.loads((folder / "summary.json").read_text())
        assert [row[1] for row in page_standings_rows(page)] == [p["name"] for p in summary["players"]]
        assert [row[2] for row in page_standings_rows(page)] == [str(p["games"]) for p in summary["players"]]
        live_colours = player_colours(page, listed)
    finally:
        server.stop()
    # The report of the same folder gives every player the colour the live page gave it.
    assert [p["name"] for p in summary["players"]] != listed  # ranks and config order differ
    report = browser.new_page()
    try:
        report.goto(write_tournament_report(folder).as_uri())
        report.wait_for_selector("body[data-ready]")
        assert player_colours(report, listed) == live_colours and len(set(live_colours.values())) == 3
    finally:
        report.close()


def test_an_sprt_shows_its_llr_between_its_bounds(page, tmp_path):
    folder = write_sample_sprt(tmp_path / "release-check", pairs=6, planned=200)
    server = Served("serve", str(folder), cwd=tmp_path)
    try:
        page.goto(server.url)
        page.wait_for_selector("#live-sprt")
        text = page.inner_text("#sprt-llr")
        llr, lower, upper = (float(x) for x in re.search(r"LLR ([-+.\d]+) between ([-+.\d]+) \(H0\) and ([-+.\d]+)", text).groups())
        assert lower < 0 < upper and lower <= llr <= upper
        # The mark sits where the LLR is between the bounds.
        # Both boxes measured in one go: the panel is redrawn as updates arrive, and a mark
        # looked up between two redraws can be gone.
        share = page.evaluate("""() => {
            const bar = document.querySelector('#live-sprt .llr-bar').getBoundingClientRect();
            const mark = document.querySelector('#live-sprt .llr-mark').getBoundingClientRect();
            return (mark.x + mark.width / 2 - bar.x) / bar.width;
        }""")
        assert abs(share - (llr - lower) / (upper - lower)) < 0.02
        assert "12 of at most 200 games recorded" in page.inner_text("#progress-text")
        save_screenshot(page, tmp_path, "live-sprt.png")
    finally:
        server.stop()
