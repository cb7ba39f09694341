"""The HTML report in a real browser: Debian's chromium, headless, driven by Playwright.

One browser for the whole module. Reports are generated from games played in-process
(tests/report_samples.py). With ARBITER_UPDATE_SCREENSHOTS=1 the screenshots the tests take
are also copied to docs/img/ (that is how the pictures in docs/report.md are made).
"""
from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from arbiter.games import find_game
from arbiter.records import GameRecord
from arbiter.reports.html import overview_rows, write_game_page, write_tournament_report
from arbiter.stats import elo_text
from report_samples import play_random_game, write_sample_tournament

CHROMIUM = Path(os.environ.get("ARBITER_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
DOCS_IMG = Path(__file__).resolve().parent.parent / "docs" / "img"
PLAYERS = ("alpha", "beta", "gamma", "<b>delta</b>")  # a name with markup must show as text


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The system chromium; missing is a failure with instructions, never a skip."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: the report's browser tests need Debian's chromium "
                    "(apt-get install chromium; .ci/run installs it)", pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package playwright is missing: pip install -e '.[test]'", pytrace=False)
    with sync_playwright() as playwright:
        # Playwright gives every launch a fresh temporary profile (user data dir).
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A 4-player round robin on the 4-row triangle board with one timeout, and its report."""
    folder = write_sample_tournament(tmp_path_factory.mktemp("results") / "ladder", players=PLAYERS,
                                     games_per_pairing=2, opening=2, timeouts=1, seed=11)
    # Exact ties in the last digit: the page must round them as Python does (to even).
    summary = json.loads((folder / "summary.json").read_text())
    summary["players"][-1].update({"avg_move_ms": 2.25, "max_move_ms": 12.5, "rating": -12.5, "rating_low": -0.5})
    (folder / "summary.json").write_text(json.dumps(summary))
    # The config's order of the players, which the colours follow (the standings' order differs).
    (folder / "tournament.json").write_text(json.dumps({"name": "ladder", "schedule": {"players": list(PLAYERS)}}))
    records = [GameRecord.from_json(json.loads(line)) for line in (folder / "games.jsonl").read_text().splitlines()]
    return {"folder": folder, "report": write_tournament_report(folder), "summary": summary, "records": records}


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that fails the test on any script error or any request leaving the file."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    outside: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: outside.append(request.url) if not request.url.startswith("file:") else None)
    yield page
    context.close()
    assert errors == [], f"script errors on the page: {errors}"
    assert outside == [], f"the page tried to load: {outside}"


def open_file(page: Any, path: Path, fragment: str = "") -> Any:
    page.goto(path.as_uri() + fragment)
    page.wait_for_selector("body[data-ready]")
    return page


def list_drawn(page: Any) -> Any:
    """Wait until the games list has drawn the page of rows last asked for (it loads them from
    the report's games folder: the table is aria-busy meanwhile)."""
    page.wait_for_selector('#games-table[aria-busy="false"]')
    return page


def save_screenshot(page: Any, tmp_path: Path, name: str, *, full_page: bool = False) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 10_000
    if os.environ.get("ARBITER_UPDATE_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_IMG / name)
    return path


def cell_texts(page: Any, row_selector: str) -> dict[str, str]:
    return page.eval_on_selector(row_selector, "row => Object.fromEntries([...row.querySelectorAll('td[data-key]')]"
                                               ".map(td => [td.dataset.key, td.textContent]))")


def seat_scores(page: Any) -> list[int]:
    return [int(text) for text in page.locator("#viewer-seats .seat-score").all_text_contents()]


def drawn_edges(page: Any) -> int:
    return page.locator("svg#board line.edge.drawn").count()


def replay(record: GameRecord, moves: int) -> Any:
    """The position after the record's first `moves` moves, by the rules library."""
    state = find_game(record.game, **record.params).new_state()
    for move in record.moves[:moves]:
        state.play(move.move)
    return state


# --- the tournament page -------------------------------------------------------------------

def test_standings_table_shows_summary_json_in_standings_txt_formats(page, tournament, tmp_path):
    open_file(page, tournament["report"])
    players = tournament["summary"]["players"]
    assert page.locator("#standings-table tbody tr").count() == len(players)
    for player in players:
        shown = cell_texts(page, f'#standings-table tr[data-player="{player["name"]}"]')
        faults = ", ".join(f"{n} {kind}" for kind, n in player["faults"].items() if n) or "-"
        assert shown == {
            "rank": str(player["rank"]), "name": player["name"], "games": str(player["games"]),
            "wins": str(player["wins"]), "draws": str(player["draws"]), "losses": str(player["losses"]),
            "points": f"{player['points']:g}", "score_pct": f"{player['score_pct']:.1f}",
            "rating": elo_text(player["rating"], player["rating_low"], player["rating_high"]),
            "faults": faults, "avg_move_ms": f"{player['avg_move_ms']:.1f}", "max_move_ms": f"{player['max_move_ms']:.0f}",
            "max_startup_ms": "-" if player["max_startup_ms"] is None else f"{player['max_startup_ms']:.0f}",
        }
    assert "1 timeout" in page.locator("#standings-table").inner_text()
    save_screenshot(page, tmp_path, "report.png", full_page=True)


def test_the_tournament_card_reads_as_sentences(page, tournament):
    open_file(page, tournament["report"])
    shown = page.eval_on_selector_all("#overview dd", "dds => dds.map(dd => dd.textContent)")
    labels = page.eval_on_selector_all("#overview dt", "dts => dts.map(dt => dt.textContent)")
    assert [[k, v] for k, v in zip(labels, shown)] == overview_rows(tournament["summary"])
    assert labels[:2] == ["Game", "Format"] and "Openings" in labels and "Time" in labels
    for sentence in shown:
        # No raw keys or placeholders: `lines=`, `game_points –`, a doubled `Sandbox: ... (... (...))`.
        assert "=" not in sentence and "–" not in sentence and "Sandbox:" not in sentence, sentence
        assert sentence.endswith("."), sentence
    assert shown[0] == "dots-and-triangles with rows 4."  # the game's name as the registry spells it
    assert all(sentence[0].isupper() or sentence[0].isdigit() for sentence in shown[1:]), shown
    assert "Each opening is 2 random moves (seed 11), played twice with the seats swapped." in shown


# The page's palette (page.js), as the browser computes the swatches' colours.
PALETTE_RGB = ["rgb(37, 99, 235)", "rgb(220, 38, 38)", "rgb(22, 163, 74)", "rgb(147, 51, 234)"]


def test_a_players_colour_follows_the_configs_order_not_the_ranks(page, tournament):
    # The live page lists players in the config's order too (live.py): one colour on both pages.
    open_file(page, tournament["report"])
    ranked = [p["name"] for p in tournament["summary"]["players"]]
    assert ranked != list(PLAYERS)  # else this test could not tell the two orders apart
    for index, name in enumerate(PLAYERS):
        assert swatch_colors(page, f'#standings-table tr[data-player="{name}"]') == [PALETTE_RGB[index]]


def test_crosstable_shows_each_players_points_against_each_other(page, tournament):
    open_file(page, tournament["report"])
    cross = tournament["summary"]["crosstable"]
    for row in tournament["summary"]["players"]:
        for other in tournament["summary"]["players"]:
            if other is row:
                continue
            cell = page.locator(f'#crosstable-table tr[data-player="{row["name"]}"] td[data-opponent="{other["name"]}"]')
            assert cell.inner_text() == f"{cross[row['name']].get(other['name'], 0):g}"


def test_rating_chart_draws_every_player_with_an_interval(page, tournament):
    open_file(page, tournament["report"])
    assert page.locator("#score-chart g.chart-row").count() == len(PLAYERS)
    assert page.locator("#score-chart line.interval").count() == len(PLAYERS)
    assert page.locator("#score-chart g.chart-row", has_text="<b>delta</b>").count() == 1


def test_stepping_through_a_game_draws_one_edge_per_move_with_the_running_score(page, tournament, tmp_path):
    record = tournament["records"][0]
    open_file(page, tournament["report"])
    page.click(f'#games-table tr[data-game="{record.id}"]')
    page.locator("#viewer-overlay").wait_for(state="visible", timeout=10_000)  # opens on the next frame
    # It opens on the final position: every edge drawn, the recorded scores.
    assert drawn_edges(page) == len(record.moves) and seat_scores(page) == record.scores
    assert page.locator("#ply-slider").input_value() == str(len(record.moves))
    page.keyboard.press("Home")
    assert drawn_edges(page) == 0 and seat_scores(page) == [0, 0]
    # Far enough that some triangle has been completed.
    moves = next(n for n in range(1, len(record.moves)) if sum(replay(record, n).scores) >= 2)
    for step in range(moves):
        if step % 2:
            page.keyboard.press("ArrowRight")
        else:
            page.click("#btn-next")
    assert drawn_edges(page) == moves
    assert seat_scores(page) == replay(record, moves).scores
    assert page.locator("#ply-slider").input_value() == str(moves)
    last = page.locator("svg#board line.edge.last")
    assert last.count() == 1 and last.get_attribute("data-move") == str(moves)
    assert page.locator("svg#board polygon.cell.owned").count() == sum(replay(record, moves).scores)
    assert page.locator("svg#board line.edge.forced").count() == 2  # the opening
    assert page.locator("#move-list li.forced").count() == 2
    save_screenshot(page, tmp_path, "report-viewer.png")
    page.keyboard.press("ArrowLeft")
    assert drawn_edges(page) == moves - 1
    page.keyboard.press("End")
    assert drawn_edges(page) == len(record.moves) and seat_scores(page) == record.scores
    page.click("#btn-first")
    assert drawn_edges(page) == 0
    page.keyboard.press("Escape")
    assert page.locator("#viewer-overlay").is_hidden()


def test_the_slider_and_the_move_list_jump_to_a_move(page, tournament):
    record = tournament["records"][1]
    open_file(page, tournament["report"], f'#game={record.id}')  # a link straight to a game
    page.focus("#ply-slider")
    page.keyboard.press("End")  # the range input's own key handling
    assert drawn_edges(page) == len(record.moves)
    page.keyboard.press("ArrowLeft")
    assert drawn_edges(page) == len(record.moves) - 1
    page.click('#move-list li[data-ply="5"]')
    assert drawn_edges(page) == 5 and page.locator("#ply-slider").input_value() == "5"
    assert "Move 5:" in page.inner_text("#move-info")


def test_a_timeout_game_shows_its_termination(page, tournament):
    timeout = next(r for r in tournament["records"] if r.termination.value == "timeout")
    offender = timeout.players[timeout.offender].name
    open_file(page, tournament["report"])
    page.select_option("#filter-termination", "timeout")
    list_drawn(page)
    assert page.locator("#games-table tbody tr").count() == 1
    assert f"timeout ({offender})" in page.inner_text("#games-table tbody tr")
    page.click("#games-table tbody tr")
    termination = page.inner_text("#viewer-termination")
    assert f"Timeout by {offender}" in termination and timeout.detail in termination
    page.keyboard.press("End")
    assert page.text_content("svg#board text.banner") == f"timeout by {offender}".upper()
    assert seat_scores(page) == timeout.scores


def test_filtering_by_player_lists_only_their_games(page, tournament):
    open_file(page, tournament["report"])
    name = "<b>delta</b>"
    page.select_option("#filter-player", label=name)
    list_drawn(page)
    rows = page.locator("#games-table tbody tr")
    expected = [r.id for r in tournament["records"] if name in [p.name for p in r.players]]
    assert [rows.nth(i).get_attribute("data-game") for i in range(rows.count())] == expected
    assert all(name in text for text in rows.all_inner_texts())
    assert page.inner_text("#games-count") == f"{len(expected)} of {len(tournament['records'])} games"


# --- single-game pages, one per board kind ---------------------------------------------------

@pytest.mark.parametrize("game_name, params, shot", [
    ("dots-and-boxes", {"rows": 3, "cols": 3}, "report-viewer-boxes.png"),
    ("limit-nim", {"piles": "10/9,10/9,10/9"}, "report-viewer-nim.png"),
    ("codecup-sudoku", {}, "report-viewer-sudoku.png"),
])
def test_a_single_game_page_replays_its_game(page, tmp_path, game_name, params, shot):
    record = play_random_game(game_name, params, ["ann", "bob"], random.Random(4), typical_ms=[4, 30])
    open_file(page, write_game_page(record, tmp_path / "game.html"))
    assert page.locator("#viewer-overlay").count() == 0  # the viewer is the page
    page.keyboard.press("Home")
    moves = min(len(record.moves), 5)
    for _ in range(moves):
        page.keyboard.press("ArrowRight")
    state = replay(record, moves)
    if game_name == "dots-and-boxes":
        assert drawn_edges(page) == moves and seat_scores(page) == state.scores
    elif game_name == "limit-nim":
        labels = page.locator("svg#board text.pile-text").all_text_contents()[:len(state.piles)]
        assert labels == [f"{stones}/{limit}" for stones, limit in state.piles]
    else:
        digits = page.locator("svg#board text.digit.placed").all_text_contents()
        assert sorted(digits) == sorted(str(d) for d in state.grid if d)
    save_screenshot(page, tmp_path, shot)
    page.keyboard.press("End")
    assert seat_scores(page) == record.scores



def test_a_game_whose_pictures_crash_the_rules_shows_why_in_their_place(page, tmp_path):
    """Rules of a game of the user's own that crash drawing its positions (in the rules host,
    tests/hosted_failures.py): the page is written, and the viewer says why there are no pictures."""
    from dataclasses import replace

    record = play_random_game("hosted_failures:CrashingNim", {"piles": "3/1", "at": 99}, ["ann", "bob"],
                              random.Random(4))
    record = replace(record, params={**record.params, "failure": "segfault", "at": 2})
    open_file(page, write_game_page(record, tmp_path / "game.html"))
    for _ in range(2):
        page.keyboard.press("ArrowRight")
        assert page.inner_text("#board-text").startswith(
            "No pictures of this game's positions: the rules of hosted_failures:CrashingNim crashed (SIGSEGV) "
            "drawing the positions of game game")

# --- three seats ----------------------------------------------------------------------------

TRIO = ("north", "east", "south", "west")


@pytest.fixture(scope="module")
def three_seats(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A 4-player round robin of 3-seat games on 2 x 3 boxes (every trio, each seat order once
    per rotation), one ending by a timeout, and its report."""
    folder = write_sample_tournament(tmp_path_factory.mktemp("results") / "trio", players=TRIO,
                                     game_name="dots-and-boxes", params={"rows": 2, "cols": 3},
                                     games_per_pairing=3, opening=2, timeouts=1, seed=5, seats=3)
    summary = json.loads((folder / "summary.json").read_text())
    records = [GameRecord.from_json(json.loads(line)) for line in (folder / "games.jsonl").read_text().splitlines()]
    return {"folder": folder, "report": write_tournament_report(folder), "summary": summary, "records": records}


def swatch_colors(page: Any, selector: str) -> list[str]:
    """The computed background colour of each swatch under `selector`, in page order."""
    return page.eval_on_selector_all(f"{selector} .swatch", "nodes => nodes.map(n => getComputedStyle(n).backgroundColor)")


def test_a_three_seat_report_gives_each_player_one_colour_everywhere(page, three_seats, tmp_path):
    open_file(page, three_seats["report"])
    summary = three_seats["summary"]
    assert summary["seats"] == 3
    # The standings: one colour per player, all distinct, and the places column.
    colour = {}
    for player in summary["players"]:
        row = f'#standings-table tr[data-player="{player["name"]}"]'
        colour[player["name"]] = swatch_colors(page, row)[0]
        assert cell_texts(page, row)["places"] == "-".join(str(n) for n in player["places"])
    assert len(set(colour.values())) == len(TRIO)
    assert "1st-2nd-3rd" in page.inner_text("#standings-table thead")
    # The crosstable's rows and the chart use the same colours.
    for name, expected in colour.items():
        assert swatch_colors(page, f'#crosstable-table tr[data-player="{name}"]') == [expected]
        assert page.eval_on_selector(f'#score-chart g.chart-row[data-player="{name}"] circle',
                                     "c => getComputedStyle(c).fill") == expected
    assert "finished ahead" in page.inner_text("#crosstable")
    # The games list colours each player by the player, whatever seat it sits in.
    ties = 0
    for record in three_seats["records"]:
        names = [p.name for p in record.players]
        row = f'#games-table tr[data-game="{record.id}"]'
        assert swatch_colors(page, row) == [colour[n] for n in names]
        if record.winner is None:  # a tie for first: the page names the seats placed first
            ties += 1
            firsts = [name for name, place in zip(names, record.places) if place == 1]
            assert f"tie for first: {', '.join(firsts)}" in page.inner_text(row)
    assert ties
    save_screenshot(page, tmp_path, "report-3players.png", full_page=True)


def test_the_viewer_steps_through_a_three_seat_game_in_its_players_colours(page, three_seats, tmp_path):
    record = next(r for r in three_seats["records"] if r.termination.value == "normal")
    names = [p.name for p in record.players]
    open_file(page, three_seats["report"])
    colour = {n: swatch_colors(page, f'#standings-table tr[data-player="{n}"]')[0] for n in TRIO}
    page.click(f'#games-table tr[data-game="{record.id}"]')
    page.locator("#viewer-overlay").wait_for(state="visible", timeout=10_000)
    assert page.locator("#viewer-seats .seat").count() == 3
    assert swatch_colors(page, "#viewer-seats") == [colour[n] for n in names]
    assert drawn_edges(page) == len(record.moves) and seat_scores(page) == record.scores  # the final position
    page.keyboard.press("Home")
    assert seat_scores(page) == [0, 0, 0]
    for moves in range(1, len(record.moves) + 1):
        page.keyboard.press("ArrowRight")
        state = replay(record, moves)
        assert drawn_edges(page) == moves
        assert seat_scores(page) == state.scores
        mover = record.moves[moves - 1].seat
        assert page.eval_on_selector(f'svg#board line.edge[data-move="{moves}"]',
                                     "l => getComputedStyle(l).stroke") == colour[names[mover]]
        if moves == len(record.moves) // 2:
            save_screenshot(page, tmp_path, "report-viewer-3players.png")
    # At the end every box is owned, filled in its owner's colour: three seats, their colours.
    fills = page.eval_on_selector_all("svg#board polygon.cell.owned", "ps => ps.map(p => getComputedStyle(p).fill)")
    owners = {colour[names[seat]] for seat, score in enumerate(record.scores) if score}
    assert len(fills) == sum(record.scores) and set(fills) == owners
    assert seat_scores(page) == record.scores


def test_a_swiss_report_with_a_final_shows_the_staged_ranking_and_every_rounds_groups(page, tmp_path):
    from arbiter.reports.results import report_results
    from arbiter.tournament.config import load_config
    from arbiter.tournament.progress import Progress
    from arbiter.tournament.runner import TournamentRunner, prepare_results
    from tournament_helpers import fake_play, write_config

    players = "".join(f'  - {{name: {name}, command: "true"}}\n' for name in ("a", "b", "c", "d", "e"))
    config = load_config(write_config(tmp_path, f"game: limit-nim\nformat: swiss\nrounds: 2\nfinal: {{top: 3}}\n"
                                                f"players:\n{players}"))
    TournamentRunner(config, prepare_results(config, fresh=False), Progress(quiet=True, tty=False), play=fake_play).run()
    report_results(config.results_dir)
    summary = json.loads((config.results_dir / "summary.json").read_text())
    open_file(page, write_tournament_report(config.results_dir))
    rows = page.locator("#ranking-table tbody tr")
    assert rows.count() == 5
    for index, line in enumerate(summary["ranking"]):
        shown = cell_texts(page, f"#ranking-table tbody tr:nth-child({index + 1})")
        assert (shown["rank"], shown["name"], shown["stage"], shown["points"]) == (
            str(line["rank"]), line["name"], line["stage"], f"{line['points']:g}")
    rounds = page.locator("#rounds-list li").all_text_contents()
    assert [text.split(":")[0] for text in rounds] == ["Round 1", "Round 2", "Final"]
    assert "(out: " in rounds[0]  # five players: one sits out each Swiss round
    overview = page.eval_on_selector_all("#overview dd", "dds => dds.map(dd => dd.textContent)")
    assert any("Then the top 3 of the Swiss ranking play a round robin" in text for text in overview)


def test_a_position_drawn_as_text_is_set_as_large_as_the_board_area_allows(page, tmp_path):
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    bot = f"{sys.executable} {root / 'examples' / 'bots' / 'openspiel_starter.py'}"
    done = subprocess.run([sys.executable, "-m", "arbiter", "play", "openspiel:tic_tac_toe", bot, bot,
                           "--html", str(tmp_path / "g.html"), "--log-dir", str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    open_file(page, tmp_path / "g.html")
    size = page.eval_on_selector("#board-text", "pre => parseFloat(getComputedStyle(pre).fontSize)")
    assert size >= 24  # a 3 x 3 picture fills the area, not the page's 15 px text


# --- a report whose games are in many chunks ---------------------------------------------------

CHUNKED = ("ann", "bob", "cid", "dan")


@pytest.fixture(scope="module")
def chunked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """60 games in chunks of 7 rows and 3 games, some ids with a space, a slash and letters
    beyond ASCII (the page finds a game's ids file by a hash of its UTF-8 bytes, as Python does)."""
    from unittest import mock

    from arbiter.reports import html

    folder = write_sample_tournament(tmp_path_factory.mktemp("results") / "chunked", players=CHUNKED,
                                     games_per_pairing=10, opening=2, timeouts=3, seed=3)
    lines = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
    for number in (5, 52, 58):
        lines[number]["id"] = f"Spiel {number}/ü·ß"
    (folder / "games.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with mock.patch.object(html, "ROWS_PER_CHUNK", 7), mock.patch.object(html, "GAMES_PER_CHUNK", 3):
        report = write_tournament_report(folder)
    records = [GameRecord.from_json(line) for line in lines]
    return {"folder": folder, "report": report, "records": records}


def listed_ids(page: Any) -> list[str]:
    rows = page.locator("#games-table tbody tr")
    return [rows.nth(i).get_attribute("data-game") for i in range(rows.count())]


def chunk_requests(page: Any) -> list[str]:
    """The names of the games folder's files the page asks for, as it asks."""
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url.rsplit("/", 1)[1]) if "/report-games/" in request.url else None)
    return asked


def test_the_games_list_pages_through_chunks_and_loads_no_moves_until_a_game_is_opened(page, chunked):
    records = chunked["records"]
    asked = chunk_requests(page)
    list_drawn(open_file(page, chunked["report"]))
    assert listed_ids(page) == [r.id for r in records[:50]]
    assert page.inner_text("#games-count") == "60 of 60 games" and page.inner_text("#games-pages") == "of 2"
    assert not any(name.startswith("games-") for name in asked)  # the list needs no moves
    page.click("#games-next")
    list_drawn(page)
    assert listed_ids(page) == [r.id for r in records[50:]]
    assert page.input_value("#games-page") == "2" and page.is_disabled("#games-last")
    # A game of a late chunk: its moves arrive when it is opened, and only its chunk is read.
    record = records[58]
    page.click(f'#games-table tr[data-game="{record.id}"]')
    page.locator("#viewer-overlay").wait_for(state="visible")
    assert [name for name in asked if name.startswith("games-")] == [f"games-{58 // 3}.js"]
    assert page.inner_text("#viewer h2") == f"Game {record.id}"
    texts = page.eval_on_selector_all("#move-list li[data-ply] > span:nth-child(2)",
                                      "items => items.map(i => i.firstChild.nextSibling.textContent)")
    assert texts == [m.move for m in record.moves]
    assert drawn_edges(page) == len(record.moves) and seat_scores(page) == record.scores


def test_filters_across_chunks_list_a_players_games_of_one_ending(page, chunked):
    records = chunked["records"]
    list_drawn(open_file(page, chunked["report"]))
    page.select_option("#filter-player", label="cid")
    list_drawn(page)
    mine = [r.id for r in records if "cid" in r.seat_names()]
    assert listed_ids(page) == mine and page.inner_text("#games-count") == f"{len(mine)} of 60 games"
    page.select_option("#filter-termination", "timeout")
    list_drawn(page)
    expected = [r.id for r in records if "cid" in r.seat_names() and r.termination.value == "timeout"]
    assert expected and listed_ids(page) == expected
    page.select_option("#filter-player", "")
    list_drawn(page)
    assert listed_ids(page) == [r.id for r in records if r.termination.value == "timeout"]


def test_a_game_opens_by_its_id_typed_or_in_the_address_and_an_unknown_id_says_so(page, chunked):
    record = chunked["records"][52]
    open_file(page, chunked["report"], f"#game={record.id}")  # an id with a space, a slash and ü·ß
    assert page.locator("#viewer-overlay").is_visible()
    assert page.inner_text("#viewer h2") == f"Game {record.id}" and drawn_edges(page) == len(record.moves)
    page.keyboard.press("Escape")
    other = chunked["records"][5]
    page.fill("#goto-game", other.id)
    page.press("#goto-game", "Enter")
    page.locator("#viewer-overlay").wait_for(state="visible")
    assert page.inner_text("#viewer h2") == f"Game {other.id}" and seat_scores(page) == other.scores
    page.keyboard.press("Escape")
    page.fill("#goto-game", "g99999")
    page.press("#goto-game", "Enter")
    page.locator("#games-problem").wait_for(state="visible")
    assert page.inner_text("#games-problem") == "No game has the id g99999."
    assert page.locator("#viewer-overlay").is_hidden()


def test_a_page_without_its_games_folder_says_what_is_missing(page, chunked, tmp_path):
    alone = tmp_path / "report.html"
    shutil.copyfile(chunked["report"], alone)  # copied without report-games/
    list_drawn(open_file(page, alone))
    assert page.locator("#games-table tbody tr").count() == 0
    assert "report-games folder" in page.inner_text("#games-problem")
    assert page.locator("#standings-table tbody tr").count() == len(CHUNKED)  # the tables are in the page
