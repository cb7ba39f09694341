"""The live page's server (arbiter/reports/live.py) over real HTTP on loopback: what it serves,
what it refuses, the events it pushes as records land and as the runner notes moves."""
from __future__ import annotations

import http.client
import json
import re
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from arbiter.errors import UsageError
from arbiter.games import find_game
from arbiter.records import GameRecord
from arbiter.referee import TimeControl
from arbiter.reports.live import RUNNING_MIN_S, LiveServer, LiveState, RunFeed, parse_address
from arbiter.reports.standings import compute_standings
from arbiter.tournament.config import SprtSettings
from arbiter.tournament.schedule import ScheduledGame
from arbiter.tournament.store import ResultsFolder, TournamentDescription
from arbiter.tournament.sprt import SprtTest
from arbiter.tournament.turn_news import TurnNews, TurnReporter
from report_samples import SCORING, SPRT_HYPOTHESES, write_sample_sprt, write_sample_tournament


@pytest.mark.parametrize("text, expected", [
    ("8000", ("127.0.0.1", 8000)),
    ("127.0.0.1:0", ("127.0.0.1", 0)),
    ("0.0.0.0:8080", ("0.0.0.0", 8080)),
    ("[::1]:9000", ("::1", 9000)),
    ("localhost:81", ("localhost", 81)),
])
def test_serve_address_is_host_and_port_and_loopback_unless_a_host_is_given(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", "configs/demo.yaml", "host:", "1.2.3.4:99999", "a:b:c"])
def test_a_serve_value_that_is_not_an_address_is_a_usage_error_naming_it(text):
    with pytest.raises(UsageError, match=re.escape(repr(text))):
        parse_address(text)


class Stream:
    """One browser's event stream, read with a deadline per event."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.connection.request("GET", "/events")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"

    def next(self) -> tuple[str, dict[str, Any]]:
        name, data = "", ""
        while True:
            line = self.response.readline().decode()
            if line == "":
                raise EOFError("the stream ended")
            line = line.rstrip("\n")
            if not line:
                if data:
                    return name, json.loads(data)
                continue
            key, _, value = line.partition(": ")
            if key == "event":
                name = value
            elif key == "data":
                data = value

    def until(self, test: Any, limit_s: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            _, message = self.next()
            if test(message):
                return message
        raise AssertionError("no such event in time")

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_sample_tournament(tmp_path / "ladder", players=("alpha", "beta", "gamma"), games_per_pairing=2,
                                   timeouts=0, seed=3)


@pytest.fixture
def serve(folder: Path) -> Iterator[Any]:
    servers: list[LiveServer] = []

    def start(**options: Any) -> tuple[LiveServer, int]:
        server = LiveServer(folder, **options)
        url = server.start()
        servers.append(server)
        return server, int(re.fullmatch(r"http://127\.0\.0\.1:(\d+)/", url).group(1))

    yield start
    for server in servers:
        server.stop()


def chunk_payload(text: str) -> Any:
    """What a chunk of the games list hands the page: `arbiterChunk("NAME",PAYLOAD);`."""
    match = re.fullmatch(r'arbiterChunk\("[^"]+",(.*)\);\n', text, re.S)
    assert match, text[:200]
    return json.loads(match.group(1))


def get(port: int, path: str, method: str = "GET", host: str | None = None) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, headers={"Host": host} if host else {})
    response = connection.getresponse()
    body = response.read().decode()
    connection.close()
    return response.status, body


def test_the_page_is_the_report_page_with_the_folders_standings_and_a_stream_to_follow(serve, folder):
    _, port = serve()
    status, body = get(port, "/")
    assert status == 200
    data = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)</script>', body).group(1))
    summary = json.loads((folder / "summary.json").read_text())
    assert [(p["name"], p["points"]) for p in data["standings"]] == [(p["name"], p["points"]) for p in summary["players"]]
    assert data["live"]["events"] == "events"
    # The first paint carries no game: the games list reads its rows from /games/ as it shows them.
    assert data["games"] == [] and data["chunks"]["total"] == 6 and data["chunks"]["folder"] == "games"
    status, chunk = get(port, "/games/list-0.js")
    assert status == 200 and [row[0] for row in chunk_payload(chunk)] == [f"g{n:05d}" for n in range(1, 7)]
    first = GameRecord.from_json(json.loads((folder / "games.jsonl").read_text().splitlines()[0]))
    games = chunk_payload(get(port, "/games/games-0.js")[1])
    assert [g[0] for g in games] == [f"g{n:05d}" for n in range(1, 7)] and games[0][13].count(",") == len(first.moves) - 1
    for missing in ("/games/list-1.js", "/games/list-x.js", "/games/..%2Fsummary.json.js", "/games/ids-256.js"):
        assert get(port, missing)[0] == 404, missing
    assert data["live"]["progress"] == {"done": 6, "planned": 6, "eta_s": None, "running": 0, "source": "folder",
                                        "ended": False, "sprt": False}


def test_the_server_is_read_only_and_answers_loopback_names_only(serve, folder):
    _, port = serve()
    before = sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir())
    assert get(port, "/", method="POST")[0] == 405
    assert get(port, "/events", method="PUT")[0] == 405
    assert get(port, "/summary.json")[0] == 404
    assert get(port, "/", host="attacker.example")[0] == 403  # a DNS name pointed at 127.0.0.1
    assert get(port, "/", host=f"localhost:{port}")[0] == 200
    assert sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir()) == before


def test_bot_logs_are_served_only_when_asked_and_only_a_games_own(serve, folder):
    logs = folder / "logs"
    logs.mkdir()
    (logs / "g00001-seat1-beta.log").write_text("beta's secret\n")
    (folder / "secret.txt").write_text("not a log\n")
    _, hidden = serve()
    assert get(hidden, "/logs/g00001/1") == (404, "bot logs are not served (start the server with --serve-logs)\n")
    _, shown = serve(logs=True)
    assert get(shown, "/logs/g00001/1") == (200, "beta's secret\n")
    assert get(shown, "/logs/g00001/0")[0] == 404
    assert get(shown, "/logs/nogame/1")[0] == 404
    for path in ("/logs/..%2Fsecret.txt/1", "/logs/g00001/..%2F..%2Fsecret.txt", "/logs/../secret.txt"):
        assert "not a log" not in get(shown, path)[1]


def test_records_that_land_are_pushed_with_the_recomputed_standings(serve, folder):
    games = folder / "games.jsonl"
    lines = games.read_text().splitlines(keepends=True)
    games.write_text("".join(lines[:2]))
    _, port = serve()
    stream = Stream(port)
    name, snapshot = stream.next()
    assert name == "snapshot" and snapshot["chunks"]["total"] == 2
    with games.open("a") as file:
        file.write(lines[2])
        file.write(lines[3][:40])  # a record half written: not read until its line is complete
    update = stream.until(lambda m: "chunks" in m and m["chunks"]["total"] == 3)
    # The update says how many games there are; their rows are in the chunks, read anew.
    assert [row[0] for row in chunk_payload(get(port, "/games/list-0.js")[1])] == ["g00001", "g00002", "g00003"]
    with games.open("a") as file:
        file.write(lines[3][40:] + "".join(lines[4:]))
    update = stream.until(lambda m: "chunks" in m and m["chunks"]["total"] == 6)
    assert [row[0] for row in chunk_payload(get(port, "/games/list-0.js")[1])][-3:] == ["g00004", "g00005", "g00006"]
    expected = compute_standings([GameRecord.from_json(json.loads(line)) for line in lines], players=["alpha", "beta", "gamma"],
                                 scoring=SCORING)
    assert [(p["name"], p["points"]) for p in update["standings"]] == [(p.name, p.points) for p in expected.players]
    assert update["live"]["progress"]["done"] == 6
    stream.close()


def worker_side(on_turn: Callable[[TurnNews], None], game: Any, opening: tuple[str, ...]) -> TurnReporter:
    """What a watched game's worker does: the referee's state after each turn, told as news
    (the pipe between them is tests/test_workers.py's)."""
    return TurnReporter(lambda *news: on_turn(TurnNews(*news)), game, opening)


def test_moves_noted_by_the_runner_become_a_running_board_with_clocks(serve, folder):
    feed = RunFeed()
    _, port = serve(feed=feed)
    stream = Stream(port)
    stream.next()
    game = find_game("dots-and-triangles", rows=4)
    scheduled = ScheduledGame(id="g00099", round=3, seats=("alpha", "beta"), opening=("1 2",))
    on_turn = feed.game_started(scheduled, game, [TimeControl(time_ms=5000), TimeControl(time_ms=7000)])
    state = game.new_state()
    state.play("1 2")  # the referee's state holds the opening
    report = worker_side(on_turn, game, scheduled.opening)
    played = []
    for _ in range(3):
        move = state.legal_moves()[0]
        played.append(game.format_move(move))
        state.apply(move)
        report(state)
    running = stream.until(lambda m: m["live"].get("running") and len(m["live"]["running"][0]["entry"][11]) == 4)
    entry = running["live"]["running"][0]
    assert entry["entry"][0] == "g00099" and entry["entry"][1] == 3 and entry["entry"][10] == 1  # one forced move
    assert entry["limits_ms"] == [5000, 7000] and entry["to_move"] == state.current_player
    assert all(used >= 0 for used in entry["used_ms"]) and not entry["ended"]
    board = running["boards"][entry["entry"][2]]
    assert [board["move_texts"][int(i)] for i in entry["entry"][12].split(",")] == ["1 2", *played]
    feed.game_left("g00099")
    stream.until(lambda m: m["live"].get("running", [{}])[0].get("ended") is True)
    stream.close()


def test_the_last_state_is_sent_when_the_run_ends_then_the_stream_closes(serve, folder):
    server, port = serve(feed=RunFeed())
    stream = Stream(port)
    stream.next()
    server.stop()
    name, last = stream.next()
    assert name == "snapshot" and last["live"]["progress"]["ended"] is True
    with pytest.raises((EOFError, ConnectionError, http.client.IncompleteRead)):
        stream.next()


def test_a_taken_port_is_a_usage_error_before_anything_runs(serve, folder):
    _, port = serve()
    with pytest.raises(UsageError, match=f"--serve 127.0.0.1:{port}: cannot listen there"):
        LiveServer(folder, port=port).start()


def test_an_sprt_folder_shows_the_llr_against_its_bounds(tmp_path):
    folder = write_sample_sprt(tmp_path / "check", pairs=4, planned=100)
    records = ResultsFolder(folder).store().load()
    test = SprtTest(SprtSettings(**SPRT_HYPOTHESES, max_games=100), "new", "old")
    for record in records:
        test.add(record)
    server = LiveServer(folder)
    port = int(server.start().rsplit(":", 1)[1].strip("/"))
    try:
        stream = Stream(port)
        _, snapshot = stream.next()
        stream.close()
    finally:
        server.stop()
    sprt = snapshot["live"]["sprt"]
    assert test.pairs_counted == 4
    assert (sprt["llr"], sprt["lower"], sprt["upper"]) == (test.state.llr, test.state.lower, test.state.upper)
    assert sprt["pairs"] == 4 and sprt["candidate"] == "new" and sprt["verdict"] == test.verdict
    assert snapshot["live"]["progress"]["sprt"] is True and snapshot["live"]["progress"]["planned"] == 100


def test_a_browser_opening_the_page_takes_no_update_from_one_already_watching(serve, folder):
    games = folder / "games.jsonl"
    lines = games.read_text().splitlines(keepends=True)
    games.write_text("".join(lines[:2]))
    _, port = serve()
    watching = Stream(port)
    watching.next()
    games.write_text("".join(lines))
    assert get(port, "/")[0] == 200  # reads the new records at once, for its own snapshot
    watching.until(lambda m: "chunks" in m and m["chunks"]["total"] == 6)
    watching.close()


def test_a_page_opened_during_a_game_has_the_board_of_the_game(serve):
    feed = RunFeed()
    _, port = serve(feed=feed)
    game = find_game("dots-and-boxes", rows=3, cols=3)  # a board no recorded game has
    on_turn = feed.game_started(ScheduledGame(id="x1", round=1, seats=("alpha", "beta"), opening=()), game,
                                [TimeControl()] * 2)
    report = worker_side(on_turn, game, ())
    state = game.new_state()
    state.apply(state.legal_moves()[0])
    report(state)
    page = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)</script>',
                                get(port, "/")[1]).group(1))
    entry = page["live"]["running"][0]["entry"]
    assert page["boards"][entry[2]]["game"] == "dots-and-boxes"


class NoRules:
    """A game as the live page may see it: its name and parameters. Anything else is a call of
    its rules, which the page never makes for a running game (its worker's news say it all)."""

    name = "dots-and-triangles"

    def json_params(self) -> dict[str, Any]:
        return {"rows": 4}

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the live page called the game's rules ({name})")


def test_a_running_game_is_drawn_from_its_workers_news_alone(tmp_path):
    feed = RunFeed()
    state = LiveState(tmp_path, feed=feed, logs=False)
    scheduled = ScheduledGame(id="g00007", round=2, seats=("alpha", "beta"), opening=("1 2",))
    on_turn = feed.game_started(scheduled, NoRules(), [TimeControl(time_ms=5000), TimeControl(time_ms=7000)])  # type: ignore[arg-type]
    started = feed.notes[-1][2]
    chance = -1
    # The notes as the worker's news land, at chosen times: the clocks are estimates from them.
    for after_s, news in [(0.1, TurnNews(((0, "1 2"),), (0, 0), 1, forced=True)),  # the opening, as the game starts
                          (2.0, TurnNews(((1, "2 3"), (chance, "6")), (0, 0), 0)),  # a draw ends beta's turn
                          (2.5, TurnNews(((0, "1 3"), (0, "2 4")), (1, 0), 1)),  # a triangle: alpha moves again
                          (3.5, TurnNews(((1, "3 5"),), (1, 0), 0))]:
        feed.notes.append(("turn", scheduled.id, started + after_s, news))
    state.take_notes()
    snapshot = state.snapshot()
    running = snapshot["live"]["running"][0]
    entry, board = running["entry"], snapshot["boards"][running["entry"][2]]
    assert entry[0] == "g00007" and entry[1] == 2 and entry[10] == 1  # one forced move
    assert entry[11] == "01*001" and entry[4] == [1, 0]
    assert [board["move_texts"][int(i)] for i in entry[12].split(",")] == ["1 2", "2 3", "6", "1 3", "2 4", "3 5"]
    # Each turn's time is its mover's (the first turn's from the start): never chance's, never the opening's.
    assert entry[13] == "0,2000,0,500,0,1000" and running["used_ms"] == [500, 3000]
    assert running["limits_ms"] == [5000, 7000] and running["to_move"] == 0 and not running["ended"]
    feed.notes.append(("turn", scheduled.id, started + 4.0, TurnNews(((0, "4 5"),), (2, 0), None)))  # over
    state.take_notes()
    assert state.snapshot()["live"]["running"][0]["to_move"] is None


class PageModel:
    """What a browser's page holds, taken in from its event stream as page.js takes it in: a
    snapshot replaces everything, an update replaces the tables it carries and adds games."""

    def __init__(self, chunk: Callable[[str], str | None]) -> None:
        self.data: dict[str, Any] = {}
        self.chunk = chunk  # the server's answer to /games/NAME.js

    def accept(self, name: str, message: dict[str, Any]) -> None:
        if name == "snapshot":
            self.data = message
            return
        for key in ("page", "tournament", "standings", "boards", "players", "chunks"):
            if key in message:
                self.data[key] = message[key]
        self.data["live"] = {**self.data["live"], **message["live"]}

    def unknown_boards(self) -> list[int]:
        """Board indices the page's games and running games name that its boards lack."""
        chunks = self.data["chunks"]
        games = [entry for k in range(-(-chunks["total"] // chunks["games_per_chunk"]))
                 for entry in chunk_payload(self.chunk(f"games-{k}") or "")]
        entries = games + [r["entry"] for r in self.data["live"].get("running", [])]
        return [entry[2] for entry in entries if not 0 <= entry[2] < len(self.data["boards"])]


def test_a_page_watching_a_run_that_prepares_its_folder_never_names_a_board_it_was_not_sent(tmp_path):
    # `arbiter run --serve` serves the folder before the run writes its description, and its
    # first game may be on the page before the server has read that description. The server's
    # steps are taken here one by one, with the times that decide what each update carries.
    folder = tmp_path / "ladder"
    folder.mkdir()
    feed = RunFeed()
    state = LiveState(folder, feed=feed, logs=False)
    page = PageModel(lambda name: state.chunks.text(name))
    state.scan()
    page.accept("snapshot", state.snapshot())
    game = find_game("dots-and-triangles", rows=4)
    on_turn = feed.game_started(ScheduledGame(id="g00001", round=1, seats=("alpha", "beta"), opening=()),
                                game, [TimeControl()] * 2)
    report = worker_side(on_turn, game, ())
    game_state = game.new_state()
    game_state.apply(game_state.legal_moves()[0])
    report(game_state)
    state.take_notes()
    page.accept("update", state.update(10.0, last_results=0.0, last_running=0.0))
    assert page.data["live"]["running"] and page.unknown_boards() == []
    # The run has written its description; the running game was sent a moment ago.
    ResultsFolder(folder).write_description(TournamentDescription(name="ladder", planned=6))
    state.take_notes()
    state.scan()
    page.accept("update", state.update(10.0 + RUNNING_MIN_S / 2, last_results=0.0, last_running=10.0))
    assert page.data["live"]["running"] and page.unknown_boards() == []


def test_a_running_games_new_move_texts_reach_a_page_that_already_has_its_board(tmp_path):
    # A board's table of move texts grows as moves are seen (limit-nim's is not filled ahead):
    # the page must get the texts of a running game's new moves even when no record lands.
    feed = RunFeed()
    state = LiveState(tmp_path, feed=feed, logs=False)
    page = PageModel(lambda name: state.chunks.text(name))
    scheduled = ScheduledGame(id="g00001", round=1, seats=("alpha", "beta"), opening=())
    on_turn = feed.game_started(scheduled, find_game("limit-nim"), [TimeControl()] * 2)
    on_turn(TurnNews((), (0, 0), 0, forced=True))
    on_turn(TurnNews(((0, "1 3"),), (0, 0), 1))
    state.take_notes()
    sent = lambda message: json.loads(json.dumps(message))  # noqa: E731 - as the stream carries it
    page.accept("snapshot", sent(state.snapshot()))
    for now, (seat, text) in enumerate([(1, "2 5"), (0, "3 9")], 1):
        on_turn(TurnNews(((seat, text),), (0, 0), 1 - seat))
        state.take_notes()
        page.accept("update", sent(state.update(10.0 * now, last_results=10.0 * now, last_running=0.0)))
    entry = page.data["live"]["running"][0]["entry"]
    board = page.data["boards"][entry[2]]
    assert [board["move_texts"][int(i)] for i in entry[12].split(",")] == ["1 3", "2 5", "3 9"]


def test_a_folder_started_again_sends_every_page_a_new_snapshot(serve, folder, tmp_path):
    ResultsFolder(folder).write_description(TournamentDescription(name="ladder", planned=6))
    _, port = serve(feed=RunFeed())
    stream = Stream(port)
    name, first = stream.next()
    assert name == "snapshot" and first["chunks"]["total"] == 6
    # As `--fresh` leaves it: another tournament's description, and its records from the start.
    other = write_sample_tournament(tmp_path / "other", players=("delta", "eps"), games_per_pairing=1, seed=4)
    ResultsFolder(folder).write_description(TournamentDescription(name="ladder", planned=1))
    (folder / "games.jsonl").write_bytes((other / "games.jsonl").read_bytes())
    name, again = stream.next()
    while name != "snapshot":
        name, again = stream.next()
    assert again["chunks"]["total"] == 1
    assert [row[0] for row in chunk_payload(get(port, "/games/list-0.js")[1])] == [
        json.loads(line)["id"] for line in (other / "games.jsonl").read_text().splitlines()]
    stream.close()


def test_an_entrants_link_opens_its_own_logs_and_no_other_seats(serve, folder):
    from arbiter.reports.entrant_keys import entrant_key
    record = GameRecord.from_json(json.loads((folder / "games.jsonl").read_text().splitlines()[0]))
    own, other = record.seat_names()
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)
    for seat, name in enumerate((own, other)):
        (logs / f"{record.id}-seat{seat}-{name}.log").write_text(f"{name}'s secret\n" + "x" * 20_000)
    key = entrant_key(folder, own)
    _, port = serve()  # no --serve-logs: only an entrant's link opens a log
    status, text = get(port, f"/logs/{record.id}/0?entrant={own}&key={key}")
    assert status == 200 and text.startswith(f"{own}'s secret\n")
    assert "cut by the arbiter's export: the first 10,000 characters" in text  # as the contest shows it
    assert get(port, f"/logs/{record.id}/1?entrant={own}&key={key}") == (
        403, "this link shows its own entrant's logs only\n")
    assert get(port, f"/logs/{record.id}/1?entrant={other}&key={key}")[0] == 403  # a key is its name's alone
    assert get(port, f"/logs/{record.id}/0?entrant={own}&key={'0' * 32}")[0] == 403
    assert get(port, f"/logs/{record.id}/0")[0] == 404
    status, page = get(port, f"/?entrant={own}&key={key}")
    data = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert status == 200 and data["live"]["entrant"] == own and data["live"]["key"] == key
    assert get(port, f"/?entrant={own}&key=nonsense")[0] == 403
    assert entrant_key(folder, own) == key  # the secret is kept: a link handed out keeps working
    assert (folder / "entrant-secret").stat().st_mode & 0o077 == 0


def test_arbiter_serve_prints_each_players_own_link(folder):
    import signal
    import subprocess
    import sys
    server = subprocess.Popen([sys.executable, "-m", "arbiter", "serve", str(folder), "--entrant-links"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        lines = [server.stdout.readline() for _ in range(4)]
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
    assert lines[0].startswith("live page: http://127.0.0.1:")
    links = {line.split()[2]: line.split()[-1] for line in lines[1:]}
    assert set(links) == {"alpha", "beta", "gamma"}
    port = int(re.search(r":(\d+)/", links["beta"]).group(1))
    assert all(link.startswith(f"http://127.0.0.1:{port}/?entrant={name}&key=") for name, link in links.items())
    assert server.returncode == 130


@pytest.mark.parametrize("covered", [0, 40, 120])
def test_a_page_started_from_the_checkpoint_counts_each_game_once(tmp_path: Path, monkeypatch, covered: int) -> None:
    """The standings start from the checkpoint's tally and take the records after it; every
    record still feeds the games list, read a slice at a time."""
    import arbiter.reports.live as live
    from arbiter.reports.results import report_results
    folder = write_sample_tournament(tmp_path / "big", players=("a", "b", "c", "d"), games_per_pairing=20, timeouts=2)
    games = folder / "games.jsonl"
    lines = games.read_bytes().splitlines(keepends=True)
    assert len(lines) == 120
    if covered:
        games.write_bytes(b"".join(lines[:covered]))
        report_results(folder)  # a checkpoint of the first `covered` records
        games.write_bytes(b"".join(lines))
    monkeypatch.setattr(live, "SCAN_BYTES", 20_000)  # a few records a slice
    state = LiveState(folder, feed=None, logs=False)
    slices = 0
    while True:
        state.scan()
        slices += 1
        if not state.reading:
            break
    assert slices > 5 and state.chunks.count == 120
    state._recompute()
    expected = compute_standings(_records_of(games), players=["a", "b", "c", "d"])
    shown = {row["name"]: (row["games"], row["points"]) for row in state.tables["standings"]}
    assert shown == {row.name: (row.games, row.points) for row in expected.players}


def _records_of(path: Path) -> list[GameRecord]:
    return [GameRecord.from_json(json.loads(line)) for line in path.read_text().splitlines()]
