"""The data the HTML report is drawn from: board geometry, the move table, encoded games, the page."""
from __future__ import annotations

import json
import math
import random
import re
from dataclasses import replace

import pytest

from arbiter.errors import UsageError
from arbiter.games import find_game
from arbiter.records import GameRecord, Termination
from arbiter.reports.board_geometry import board_for, text_board
from arbiter.reports import html
from arbiter.reports.html import (
    GAME_FIELDS,
    LIST_FIELDS,
    ReportError,
    game_page_data,
    id_bucket,
    overview_rows,
    write_game_page,
    write_report_page,
    write_tournament_report,
)
from report_samples import play_random_game, write_sample_tournament


def segment_length(geometry: dict, edge: list[int]) -> float:
    (ax, ay), (bx, by) = (geometry["dots"][d] for d in edge)
    return math.hypot(ax - bx, ay - by)


# --- board geometry ---------------------------------------------------------------------

@pytest.mark.parametrize("game_name, params, dots, edges, cells, corners", [
    ("dots-and-triangles", {"rows": 4}, 10, 18, 9, 3),
    ("dots-and-triangles", {"rows": 7}, 28, 63, 36, 3),
    ("dots-and-boxes", {"rows": 3, "cols": 3}, 16, 24, 9, 4),
    ("dots-and-boxes", {"rows": 2, "cols": 5}, 18, 27, 10, 4),
])
def test_dots_boards_have_the_games_dots_edges_and_cells(game_name, params, dots, edges, cells, corners):
    board = board_for(game_name, params)
    geometry = board.geometry
    assert board.kind == "dots"
    assert (len(geometry["dots"]), len(geometry["edges"]), len(geometry["cells"])) == (dots, edges, cells)
    assert all(len(polygon) == corners for polygon in geometry["polygons"])


@pytest.mark.parametrize("game_name, params", [
    ("dots-and-triangles", {"rows": 5}), ("dots-and-boxes", {"rows": 3, "cols": 4}),
])
def test_every_edge_joins_neighbouring_dots_one_unit_apart(game_name, params):
    game = find_game(game_name, **params)
    geometry = board_for(game_name, params).geometry
    assert geometry["edges"] == [[a - 1, b - 1] for a, b in game.edges]
    for edge in geometry["edges"]:
        assert segment_length(geometry, edge) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("game_name, params", [
    ("dots-and-triangles", {"rows": 5}), ("dots-and-boxes", {"rows": 3, "cols": 4}),
])
def test_each_cell_polygon_goes_round_the_cells_own_edges(game_name, params):
    geometry = board_for(game_name, params).geometry
    for cell_edges, polygon in zip(geometry["cells"], geometry["polygons"]):
        sides = {tuple(sorted((polygon[k], polygon[(k + 1) % len(polygon)]))) for k in range(len(polygon))}
        assert sides == {tuple(geometry["edges"][e]) for e in cell_edges}


def test_triangle_dots_are_numbered_from_the_apex_row_by_row():
    geometry = board_for("dots-and-triangles", {"rows": 3}).geometry
    dots = geometry["dots"]
    assert dots[0][1] < dots[1][1] == dots[2][1] < dots[3][1]  # rows 1, 2, 3
    assert dots[1][0] < dots[2][0] and dots[3][0] < dots[4][0] < dots[5][0]
    assert [label[2] for label in geometry["labels"]] == [str(n) for n in range(1, 7)]


def test_a_dots_move_is_its_edge_index_and_other_spellings_share_it():
    game = find_game("dots-and-triangles", rows=4)
    board = board_for("dots-and-triangles", {"rows": 4})
    for edge in range(len(game.edges)):
        assert board.encode(game.format_move(edge)) == edge
        assert board.move_effects[edge] == edge
    assert board.encode("4 2") == board.encode("2 4")
    assert len(board.move_texts) == len(game.edges)


def test_a_text_that_is_no_move_is_listed_but_has_no_effect():
    board = board_for("dots-and-triangles", {"rows": 4})
    index = board.encode("1 10")  # not adjacent dots
    assert board.move_texts[index] == "1 10" and board.move_effects[index] is None
    assert board.encode("1 10") == index


def test_nim_moves_are_pile_and_count_and_piles_come_from_the_params():
    board = board_for("limit-nim", {"piles": "5/3,7/7"})
    assert board.kind == "nim"
    assert board.geometry == {"piles": [[5, 3], [7, 7]]}
    assert board.move_effects[board.encode("2 4")] == [1, 4]
    assert board_for("limit-nim", {"piles": [[5, 3], [7, 7]]}).geometry == board.geometry  # as stored in JSON


def test_sudoku_moves_are_cell_digit_and_claim():
    board = board_for("codecup-sudoku", {})
    assert board.kind == "grid"
    assert board.move_effects[board.encode("Aa1")] == [0, 1, 0]
    assert board.move_effects[board.encode("Dg7!")] == [3 * 9 + 6, 7, 1]
    assert board.move_effects[board.encode("!")] == [-1, 0, 1]


def test_an_unknown_game_gets_a_text_board_that_says_why():
    board = board_for("go", {"size": 19})
    assert board.kind == "text" and board.game is None
    assert "go" in board.note
    assert board.frames(["D4"]) is None
    assert board.move_effects[board.encode("D4")] is None


def test_the_text_fallback_pictures_every_position_until_a_rejected_move():
    game = find_game("limit-nim", piles="3/2")
    board = text_board(game)
    frames = board.frames(["1 2", "1 1", "1 1"])  # the third move is illegal: the pile is empty
    assert frames is not None and len(frames) == 3
    state = game.new_state()
    assert frames[0] == state.render()
    state.play("1 2")
    assert frames[1] == state.render()


# --- encoded games -------------------------------------------------------------------------

def decode(data: dict, entry: list) -> dict:
    """What page.js's decodeGame does, in Python."""
    game = dict(zip(GAME_FIELDS, entry))
    board = data["boards"][game["board"]]
    moves = [int(m) for m in game["moves"].split(",")] if game["moves"] else []
    game["texts"] = [board["move_texts"][m] for m in moves]
    game["seat_list"] = [int(c, 36) for c in game["seats"]]
    game["times"] = [int(t) for t in game["times_ms"].split(",")] if game["times_ms"] else []
    game["names"] = [data["players"][p] for p in game["players"]]
    return game


@pytest.mark.parametrize("game_name, params", [
    ("dots-and-triangles", {"rows": 4}), ("dots-and-boxes", {"rows": 2, "cols": 3}),
    ("limit-nim", {"piles": "10/9,10/9"}), ("codecup-sudoku", {}),
])
def test_a_game_decodes_back_to_its_records_moves_seats_and_times(game_name, params):
    record = replace(play_random_game(game_name, params, ["ann", "bob"], random.Random(3), opening=2, typical_ms=[3, 40]),
                     id="r1-7", round=1)
    data = game_page_data(record)
    game = decode(data, data["games"][0])
    assert game["id"] == "r1-7" and game["round"] == 1
    assert game["texts"] == [m.move for m in record.moves]
    assert game["seat_list"] == [m.seat for m in record.moves]
    assert game["times"] == [round(m.wall_ms) for m in record.moves]
    assert game["forced"] == 2
    assert game["names"] == ["ann", "bob"]
    assert (game["scores"], game["winner"], game["termination"]) == (record.scores, record.winner, "normal")


def test_a_timeout_keeps_its_offender_detail_and_recorded_scores():
    record = play_random_game("dots-and-triangles", {"rows": 4}, ["ann", "bob"], random.Random(5), timeout_at=5)
    game = decode(game_page_data(record), game_page_data(record)["games"][0])
    assert game["termination"] == Termination.TIMEOUT.value
    assert game["offender"] == record.offender is not None
    assert game["detail"] == record.detail and "1000 ms" in game["detail"]
    assert len(game["texts"]) == 4


def test_games_of_a_tournament_share_one_board_and_one_player_list(tmp_path):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c"), games_per_pairing=2)
    summary = json.loads((folder / "summary.json").read_text())
    records = read_records(folder)
    data = page_json(write_tournament_report(folder).read_text())
    assert len(data["boards"]) == 1 and data["chunks"]["total"] == 6
    assert data["players"] == [p["name"] for p in summary["players"]]  # rank order
    assert data["standings"] == summary["players"] and data["crosstable"] == summary["crosstable"]
    assert [g[GAME_FIELDS.index("id")] for g in chunked_games(folder, data)] == [r.id for r in records]


@pytest.mark.parametrize("seats, counts", [(2, "points"), (3, "finished_ahead")])
def test_the_page_gets_the_seat_count_and_what_the_crosstable_counts(tmp_path, seats, counts):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c", "d"), game_name="dots-and-boxes",
                                     params={"rows": 1, "cols": 2}, games_per_pairing=seats, seats=seats)
    data = page_json(write_tournament_report(folder).read_text())
    assert data["seats"] == seats and data["crosstable_counts"] == counts
    players = data["game_fields"].index("players")
    assert {len(g[players]) for g in chunked_games(folder, data)} == {seats}
    assert all(len(p["places"]) == seats for p in data["standings"])


# --- the page ------------------------------------------------------------------------------

def page_json(page: str) -> dict:
    match = re.search(r'<script id="report-data" type="application/json">(.*?)</script>', page, re.S)
    assert match, "the page has no data script"
    return json.loads(match.group(1))


def test_the_page_is_self_contained_and_its_data_reads_back(tmp_path):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b"))
    page = write_tournament_report(folder).read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing loaded from elsewhere
    assert "<link" not in page and "{{" not in page.split('id="report-data"')[0]
    data = page_json(page)
    assert data["page"] == "tournament" and data["standings"] == json.loads((folder / "summary.json").read_text())["players"]


def read_records(folder) -> list[GameRecord]:
    return [GameRecord.from_json(json.loads(line)) for line in (folder / "games.jsonl").read_text().splitlines()]


def read_chunk(path) -> tuple[str, object]:
    """A games-folder file's name and payload: `arbiterChunk("NAME",PAYLOAD);` (an ids file's
    object ends its members with commas, as JavaScript allows)."""
    match = re.fullmatch(r'arbiterChunk\("([^"]+)",(.*)\);\n', path.read_text(), re.S)
    assert match, f"{path} is not a chunk"
    return match.group(1), json.loads(re.sub(r",}$", "}", match.group(2)))


def chunked_games(folder, data: dict) -> list[list]:
    """Every game of a written report, in order, read back from its games folder."""
    games_dir = folder / data["chunks"]["folder"]
    count = -(-data["chunks"]["total"] // data["chunks"]["games_per_chunk"])
    games = []
    for number in range(count):
        name, payload = read_chunk(games_dir / f"games-{number}.js")
        assert name == f"games-{number}"
        games += payload
    return games


def test_names_cannot_break_out_of_the_data_script(tmp_path):
    hostile = '</script><script>alert("x")</script><!--'
    record = play_random_game("dots-and-triangles", {"rows": 3}, [hostile, "{{data}}"], random.Random(1))
    page = write_game_page(record, tmp_path / "g.html").read_text()
    assert page.count("</script>") == 2  # the data script's and the code's, nothing from the names
    assert page_json(page)["players"] == [hostile, "{{data}}"]
    assert "<title>&lt;/script&gt;" in page


def test_infinite_interval_ends_become_null(tmp_path):
    summary = {"name": "t", "players": [{"name": "a", "rating": 200.0, "rating_low": 12.0,
                                        "rating_high": float("inf")}]}
    page = write_report_page(tmp_path / "report.html", summary, [], [], "t").read_text()
    assert page_json(page)["standings"][0]["rating_high"] is None


def test_a_torn_last_line_is_ignored(tmp_path):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b"), games_per_pairing=2)
    with open(folder / "games.jsonl", "a") as handle:
        handle.write('{"game": "dots-and-tri')
    assert page_json(write_tournament_report(folder).read_text())["chunks"]["total"] == 2


def test_a_folder_without_summary_is_an_error_naming_it(tmp_path):
    with pytest.raises(ReportError, match=r"summary\.json"):
        write_tournament_report(tmp_path)


def test_arbiter_report_html_writes_the_page_from_the_recomputed_summary(tmp_path, capsys):
    from arbiter.cli import main

    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c"))
    (folder / "summary.json").unlink()  # `arbiter report` recomputes it from games.jsonl alone
    assert main(["report", str(folder), "--html"]) == 0
    assert f"wrote {folder / 'report.html'}" in capsys.readouterr().out
    data = page_json((folder / "report.html").read_text())
    assert data["standings"] == json.loads((folder / "summary.json").read_text())["players"]
    assert len(chunked_games(folder, data)) == 6


def test_the_tournament_card_of_a_three_seat_swiss_says_its_settings_in_words():
    summary = {"game": "dots-and-boxes", "params": {"rows": 2, "cols": 2, "players": 3}, "format": "swiss", "seats": 3,
               "settings": {"games_per_pairing": 3, "rounds": 4, "openings": {"random_moves": 0, "seed": 1, "lines": []},
                            "time": {"time_ms": 1500, "move_ms": 200, "clock": "cpu", "startup_ms": None}},
               "scoring": {"win": 1, "draw": 0.5, "loss": 0, "game_points": False, "places": [3, 1, 0]},
               "totals": {"planned": 24, "games": 3, "faults": 1},
               "sandbox": {"line": "Sandbox: every launched bot ran sandboxed in every game (bubblewrap, uid 61000)"}}
    assert overview_rows(summary) == [
        ["Game", "dots-and-boxes with rows 2, cols 2 and players 3."],
        ["Format", "Swiss, 4 rounds: each round, every group of 3 players plays 3 games."],
        ["Openings", "None: every game starts from the initial position."],
        ["Time", "1.5 s of CPU time per player and game, at most 0.2 s a move."],
        ["Scoring", "By place: 1st 3, 2nd 1, 3rd 0."],
        ["Games", "3 of 24 planned games played, 1 ended by a fault."],
        ["Sandbox", "Every launched bot ran sandboxed in every game (bubblewrap, uid 61000)."],
    ]


# --- the games folder: a report split into its page and chunks ------------------------------

@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of a few games, so that a small tournament spans many files."""
    monkeypatch.setattr(html, "ROWS_PER_CHUNK", 4)
    monkeypatch.setattr(html, "GAMES_PER_CHUNK", 2)


def test_the_page_holds_no_game_and_its_folder_holds_every_game_in_chunks(tmp_path, small_chunks):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c", "d"), games_per_pairing=2, timeouts=2)
    records = read_records(folder)  # 12 games
    page = write_tournament_report(folder).read_text()
    data = page_json(page)
    assert data["games"] == [] and data["chunks"]["total"] == 12
    for entry in chunked_games(folder, data):  # no move list of any game is in the page
        moves = entry[GAME_FIELDS.index("moves")]
        assert len(moves) > 10 and moves not in page
    files = sorted(path.name for path in (folder / data["chunks"]["folder"]).iterdir())
    assert [f for f in files if f.startswith("games-")] == sorted(f"games-{k}.js" for k in range(6))
    assert [f for f in files if f.startswith("list-")] == ["list-0.js", "list-1.js", "list-2.js"]
    # The list's rows have no moves, only their count; they follow games.jsonl's order.
    rows = [row for k in range(3) for row in read_chunk(folder / data["chunks"]["folder"] / f"list-{k}.js")[1]]
    assert data["chunks"]["list_fields"] == list(LIST_FIELDS) and len(rows[0]) == len(LIST_FIELDS)
    assert [(r[0], r[LIST_FIELDS.index("moves")]) for r in rows] == [(r.id, len(r.moves)) for r in records]
    decoded = [decode(data, entry) for entry in chunked_games(folder, data)]
    assert [g["texts"] for g in decoded] == [[m.move for m in r.moves] for r in records]


def test_each_filter_lists_the_positions_of_its_games_and_each_id_its_position(tmp_path, small_chunks):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c", "d"), games_per_pairing=2, timeouts=2)
    records = read_records(folder)
    data = page_json(write_tournament_report(folder).read_text())
    games_dir = folder / data["chunks"]["folder"]
    endings = [t.value for t in Termination]

    def view(name: str) -> list[int]:
        count = data["chunks"]["views"].get(name, 0)
        return [p for k in range(-(-count // 4)) for p in read_chunk(games_dir / f"{name}-{k}.js")[1]]

    for index, player in enumerate(data["players"]):
        mine = [n for n, r in enumerate(records) if player in r.seat_names()]
        assert view(f"p{index}") == mine and data["chunks"]["views"][f"p{index}"] == len(mine)
        timeouts = [n for n in mine if records[n].termination is Termination.TIMEOUT]
        assert view(f"p{index}e{endings.index('timeout')}") == timeouts
    assert view(f"e{endings.index('timeout')}") == [10, 11]
    ids = {}
    for bucket in range(data["chunks"]["id_buckets"]):
        ids.update(read_chunk(games_dir / f"ids-{bucket}.js")[1])
    assert ids == {r.id: n for n, r in enumerate(records)}
    assert all(id_bucket(r.id) == next(b for b in range(256) if r.id in read_chunk(games_dir / f"ids-{b}.js")[1])
               for r in records)


def test_the_writer_writes_each_chunk_while_it_reads_and_keeps_no_game(tmp_path, small_chunks):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c", "d"), games_per_pairing=2)
    records = read_records(folder)
    summary = json.loads((folder / "summary.json").read_text())
    seen_before: list[set[str]] = []
    kept: list[int] = []
    real_encode = html.PageData.encode_game

    def encode(self, record, fallback_id):
        kept.append(len(self.games))  # the page's data never collects the games
        return real_encode(self, record, fallback_id)

    def one_at_a_time():
        for number, record in enumerate(records):
            (partial,) = (tmp_path / "report-games").glob(".partial-*")
            seen_before.append({path.name for path in partial.iterdir()})
            yield record

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(html.PageData, "encode_game", encode)
        write_report_page(tmp_path / "report.html", summary, one_at_a_time(), [], "t")
    # Before the 7th record is read, the first three games chunks are on disk (two games each).
    assert {"games-0.js", "games-1.js", "games-2.js"} <= seen_before[6]
    assert "list-1.js" in seen_before[8] and "list-1.js" not in seen_before[7]
    assert kept == [0] * len(records)


def test_a_rewritten_report_leaves_one_games_folder_the_one_its_page_names(tmp_path, small_chunks):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c", "d"), games_per_pairing=2)
    first = page_json(write_tournament_report(folder).read_text())["chunks"]["folder"]
    (folder / "report-games" / ".partial-left-by-a-crash").mkdir()  # a report that stopped half way
    lines = (folder / "games.jsonl").read_text().splitlines(keepends=True)
    (folder / "games.jsonl").write_text("".join(lines[:3]))  # fewer games: fewer chunks
    data = page_json(write_tournament_report(folder).read_text())
    assert data["chunks"]["folder"] != first and data["chunks"]["total"] == 3
    assert [p.name for p in (folder / "report-games").iterdir()] == [data["chunks"]["folder"].split("/")[1]]
    files = sorted(p.name for p in (folder / data["chunks"]["folder"]).iterdir() if not p.name.startswith("ids-"))
    assert files == ["e0-0.js", "games-0.js", "games-1.js", "list-0.js"] + sorted(
        f"{view}-0.js" for view in data["chunks"]["views"] if view.startswith("p"))


def test_a_report_that_fails_half_way_leaves_the_old_page_and_its_games_whole(tmp_path, small_chunks):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c"), games_per_pairing=2)
    old = write_tournament_report(folder).read_text()
    with open(folder / "games.jsonl", "a") as handle:  # a bad line before a good one: the reader refuses it
        handle.write("not a record\n" + (folder / "games.jsonl").read_text().splitlines()[0] + "\n")
    with pytest.raises(UsageError, match="games.jsonl:7"):
        write_tournament_report(folder)
    assert (folder / "report.html").read_text() == old
    assert [p.name for p in (folder / "report-games").iterdir()] == [page_json(old)["chunks"]["folder"].split("/")[1]]
    assert len(chunked_games(folder, page_json(old))) == 6


def test_a_chunk_as_it_stands_is_what_the_finished_folder_will_hold_so_far(tmp_path, small_chunks):
    # The live page serves chunks while games arrive (GameChunks.text), before `finish`.
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c"), games_per_pairing=3, timeouts=1)
    records = read_records(folder)  # 9 games
    page = html.PageData(["a", "b", "c"])
    chunks = html.GameChunks(tmp_path / "chunks")
    (tmp_path / "chunks").mkdir()
    for count, record in enumerate(records, 1):
        chunks.add(page.encode_game(record, fallback_id=str(count)))
        rows = [row for k in range(-(-count // 4)) for row in json.loads(
            re.fullmatch(r'arbiterChunk\("list-\d+",(.*)\);\n', chunks.text(f"list-{k}"), re.S).group(1))]
        assert [row[0] for row in rows] == [r.id for r in records[:count]]
        assert chunks.text(f"list-{-(-count // 4)}") is None  # nothing past the last game
        assert chunks.index()["total"] == count
    held = {name: chunks.text(name) for name in ("list-2", "games-4", "e0-1", f"ids-{id_bucket(records[-1].id)}")}
    chunks.finish()
    for name, text in held.items():
        assert text == (tmp_path / "chunks" / f"{name}.js").read_text() == chunks.text(name), name
    for name in ("list-x", "../list-0", "ids-256", "games-5", "p9-0"):
        assert chunks.text(name) is None, name


def test_a_full_disk_half_way_says_so_and_leaves_the_old_report_whole(tmp_path, small_chunks, monkeypatch):
    import errno
    from pathlib import Path

    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c"), games_per_pairing=2)
    old = write_tournament_report(folder).read_text()
    write_text = Path.write_text

    def full(self, *args, **kwargs):
        if self.name == "games-1.js":
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(ReportError, match=r"games-1\.js: No space left on device \(its disk is full"):
        write_tournament_report(folder)
    assert (folder / "report.html").read_text() == old
    assert [p.name for p in (folder / "report-games").iterdir()] == [page_json(old)["chunks"]["folder"].split("/")[1]]
