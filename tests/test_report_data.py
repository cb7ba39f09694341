"""The data the HTML report is drawn from: board geometry, the move table, encoded games, the page."""
from __future__ import annotations

import json
import math
import random
import re
from dataclasses import replace

import pytest

from arbiter.games import find_game
from arbiter.records import GameRecord, Termination
from arbiter.reports.board_geometry import board_for, text_board
from arbiter.reports.html import (
    GAME_FIELDS,
    ReportError,
    game_page_data,
    overview_rows,
    render_page,
    tournament_page_data,
    write_game_page,
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
    records = [GameRecord.from_json(json.loads(line)) for line in (folder / "games.jsonl").read_text().splitlines()]
    data = tournament_page_data(summary, records)
    assert len(data["boards"]) == 1 and len(data["games"]) == 6
    assert data["players"] == [p["name"] for p in summary["players"]]  # rank order
    assert data["standings"] == summary["players"] and data["crosstable"] == summary["crosstable"]
    assert [g[GAME_FIELDS.index("id")] for g in data["games"]] == [r.id for r in records]



@pytest.mark.parametrize("seats, counts", [(2, "points"), (3, "finished_ahead")])
def test_the_page_gets_the_seat_count_and_what_the_crosstable_counts(tmp_path, seats, counts):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b", "c", "d"), game_name="dots-and-boxes",
                                     params={"rows": 1, "cols": 2}, games_per_pairing=seats, seats=seats)
    summary = json.loads((folder / "summary.json").read_text())
    records = [GameRecord.from_json(json.loads(line)) for line in (folder / "games.jsonl").read_text().splitlines()]
    data = tournament_page_data(summary, records)
    assert data["seats"] == seats and data["crosstable_counts"] == counts
    players = data["game_fields"].index("players")
    assert {len(g[players]) for g in data["games"]} == {seats}
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


def test_names_cannot_break_out_of_the_data_script(tmp_path):
    hostile = '</script><script>alert("x")</script><!--'
    record = play_random_game("dots-and-triangles", {"rows": 3}, [hostile, "{{data}}"], random.Random(1))
    page = write_game_page(record, tmp_path / "g.html").read_text()
    assert page.count("</script>") == 2  # the data script's and the code's, nothing from the names
    assert page_json(page)["players"] == [hostile, "{{data}}"]
    assert "<title>&lt;/script&gt;" in page


def test_infinite_interval_ends_become_null():
    summary = {"name": "t", "players": [{"name": "a", "rating": 200.0, "rating_low": 12.0,
                                        "rating_high": float("inf")}]}
    page = render_page(tournament_page_data(summary, []), "t")
    assert page_json(page)["standings"][0]["rating_high"] is None


def test_a_torn_last_line_is_ignored(tmp_path):
    folder = write_sample_tournament(tmp_path / "t", players=("a", "b"), games_per_pairing=2)
    with open(folder / "games.jsonl", "a") as handle:
        handle.write('{"game": "dots-and-tri')
    assert len(page_json(write_tournament_report(folder).read_text())["games"]) == 2


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
    assert len(data["games"]) == 6


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
