"""Config validation: every error names the file, line, key path, bad value and what is allowed."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arbiter.tournament.config import ConfigError, load_config

GOOD = """\
name: ladder
game: dots-and-triangles
params: {rows: 4}
format: round-robin
games_per_pairing: 4
openings: {random_moves: 2, seed: 7}
time: {time_ms: 5000, move_ms: null, clock: wall, suspend_idle: true, memory_mb: 512}
concurrency: 2
scoring: {win: 1, draw: 0.5, loss: 0}
players:
  - {name: random, command: python bot.py}
  - {name: other, command: [python, bot.py, --seed, 3], env: {SEED: 1}, time_ms: 1000}
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "bot.py").write_text("print('hi')\n")
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return path


def problems(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    return str(info.value)


def test_good_config_reads_into_records(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.name == "ladder"
    assert config.params == {"rows": 4, "players": 2}
    assert config.games_per_pairing == 4
    assert config.time.time_ms == 5000 and config.time.memory_mb == 512
    random_bot, other = config.players
    assert random_bot.command == (sys.executable, "bot.py")  # python -> this interpreter
    assert random_bot.cwd == str(tmp_path)  # relative paths resolve against the config's folder
    assert other.env == {"SEED": "1"}
    assert other.time is not None and other.time.time_ms == 1000 and other.time.memory_mb == 512
    assert config.results_dir == (Path.cwd() / "results" / "ladder").resolve()  # under where the user stands


def test_unknown_key_gets_did_you_mean_with_line(tmp_path: Path) -> None:
    text = GOOD.replace("concurrency: 2", "concurency: 2")
    assert f"{tmp_path / 't.yaml'}:8: concurency: unknown key 'concurency'; did you mean 'concurrency'?" in problems(tmp_path, text)


def test_bad_value_names_path_value_and_allowed(tmp_path: Path) -> None:
    text = GOOD.replace("time_ms: 1000", "time_ms: -5")
    assert "t.yaml:12: players[1].time_ms: -5 is not allowed: must be an integer >= 1" in problems(tmp_path, text)


def test_odd_games_per_pairing_is_refused(tmp_path: Path) -> None:
    text = GOOD.replace("games_per_pairing: 4", "games_per_pairing: 3")
    assert "games_per_pairing: 3 is not allowed: must be an even integer >= 2" in problems(tmp_path, text)


def test_unknown_game_lists_choices(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("game: dots-and-triangles", "game: dots-and-triangle"))
    assert "game: 'dots-and-triangle' is not allowed: must be one of:" in message
    assert "did you mean 'dots-and-triangles'" in message


def test_bad_game_parameter_names_range(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("rows: 4", "rows: 1"))
    assert "params: dots-and-triangles: parameter rows=1 is out of range" in message


def test_unstartable_commands_are_reported_before_any_game(tmp_path: Path) -> None:
    text = GOOD.replace("command: python bot.py", "command: python missing.py").replace(
        "[python, bot.py, --seed, 3]", "no-such-program-xyz")
    message = problems(tmp_path, text)
    assert "players[0].command: cannot be started: script missing.py does not exist" in message
    assert "players[1].command: cannot be started: 'no-such-program-xyz' is not found on PATH" in message
    assert message.startswith("2 problems in")  # all problems at once


def test_duplicate_names_and_missing_keys(tmp_path: Path) -> None:
    text = GOOD.replace("name: other", "name: random").replace("game: dots-and-triangles\n", "")
    message = problems(tmp_path, text)
    assert "players[1].name: 'random' is not allowed: player names must be unique" in message
    assert "game: is required" in message


def test_gauntlet_needs_a_known_candidate(tmp_path: Path) -> None:
    text = GOOD.replace("format: round-robin", "format: gauntlet") + "gauntlet: {candidate: mybot}\n"
    assert "gauntlet.candidate: 'mybot' is not allowed: must be one of: random, other" in problems(tmp_path, text)


def test_swiss_needs_rounds(tmp_path: Path) -> None:
    assert "rounds: is required for format: swiss" in problems(tmp_path, GOOD.replace("round-robin", "swiss"))


def test_openings_file_is_checked_against_the_rules(tmp_path: Path) -> None:
    (tmp_path / "openings.txt").write_text("1 2; 2 3\n1 2; 1 2\n")
    text = GOOD.replace("{random_moves: 2, seed: 7}", "{file: openings.txt}")
    message = problems(tmp_path, text)
    assert "openings.txt:2: illegal move '1 2': that edge is already drawn" in message


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"t.yaml:3: not valid YAML"):
        load_config(write(tmp_path, "name: x\ngame: y\n- a\n"))


# Hostile input from a user's side: each is refused with its key path, never a traceback.

@pytest.mark.parametrize("name, allowed", [
    ('"../../etc/x"', "must not contain '/' (player names are part of game ids and log file names)"),
    ('"a\\\\b"', "must not contain '\\\\'"),
    ('".hidden"', "must not start with '.'"),
    ('" padded"', "must not start or end with a space"),
    ('"' + "L" * 65 + '"', "must be at most 64 bytes long in UTF-8"),
    ("yes", 'must be a string (YAML reads yes/no/true/null and numbers as other types: quote the name'),
    ("12", "must be a string (YAML reads"),
])
def test_a_player_name_that_cannot_name_a_log_file_is_refused(tmp_path: Path, name: str, allowed: str) -> None:
    message = problems(tmp_path, GOOD.replace("name: random,", f"name: {name},"))
    assert "t.yaml:11: players[0].name: " in message and allowed in message


def test_unicode_and_spaces_are_fine_in_names(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD.replace("name: random,", "name: ünï cødé,")))
    assert config.players[0].name == "ünï cødé"


def test_names_equal_up_to_case_are_refused(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("name: random,", "name: Other,"))
    assert ("players[1].name: 'other' is not allowed: player 'Other' has the same name up to case "
            "(their log files would collide on a case-insensitive file system)") in message


def test_names_whose_game_ids_would_clash_are_refused(tmp_path: Path) -> None:
    # 'a-b' against 'c' and 'a' against 'b-c' would both be game 001-a-b-c: resume would skip one.
    players = "players:\n" + "".join(f"  - {{name: {n}, command: python bot.py}}\n" for n in ("a", "b-c", "a-b", "c"))
    message = problems(tmp_path, GOOD[:GOOD.index("players:")] + players)
    assert ("players[3].name: game ids would clash: 'a-b' against 'c' and 'a' against 'b-c' are both "
            "'a-b-c' in a game id") in message


def test_env_values_must_be_strings_or_numbers(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("env: {SEED: 1}", "env: {SEED: 1, LIST: [1, 2], NONE: null, FLAG: yes}"))
    assert "players[1].env.LIST: [1, 2] is not allowed: must be a string or a number" in message
    assert "players[1].env.NONE: None is not allowed" in message
    assert 'players[1].env.FLAG: True is not allowed: must be a string or a number (YAML reads yes/no/null as ' \
           'other types: quote it, e.g. FLAG: "1")' in message
    assert message.startswith("3 problems")


def test_time_ms_as_a_string_is_refused(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("time: {time_ms: 5000,", 'time: {time_ms: "5000",'))
    assert "time.time_ms: '5000' is not allowed: must be an integer >= 1" in message


def test_startup_keys_read_for_the_run_and_per_player(tmp_path: Path) -> None:
    text = GOOD.replace("memory_mb: 512}", "memory_mb: 512, startup_ms: 2500}").replace(
        "time_ms: 1000}", "time_ms: 1000, startup_ms: 700, charge_startup: true}")
    config = load_config(write(tmp_path, text))
    assert (config.time.startup_ms, config.time.charge_startup) == (2500, False)
    random_bot, other = config.players
    assert random_bot.time is None  # it plays under the run's time control
    assert other.time is not None and (other.time.startup_ms, other.time.charge_startup) == (700, True)
    assert load_config(write(tmp_path, GOOD)).time.startup_ms == 10000  # the default


@pytest.mark.parametrize("where, key, value, message", [
    ("time", "startup_ms", "0", "t.yaml:7: time.startup_ms: 0 is not allowed: must be an integer >= 1"),
    ("time", "startup_ms", '"5s"', "t.yaml:7: time.startup_ms: '5s' is not allowed: must be an integer >= 1"),
    ("player", "startup_ms", "-1", "t.yaml:12: players[1].startup_ms: -1 is not allowed: must be an integer >= 1"),
    ("player", "startup_ms", "1.5", "t.yaml:12: players[1].startup_ms: 1.5 is not allowed: must be an integer >= 1"),
    ("time", "charge_startup", "yes-please",
     "t.yaml:7: time.charge_startup: 'yes-please' is not allowed: must be true or false"),
    ("player", "charge_startup", "1", "t.yaml:12: players[1].charge_startup: 1 is not allowed: must be true or false"),
])
def test_a_bad_start_up_setting_names_its_key_path(tmp_path: Path, where: str, key: str, value: str,
                                                   message: str) -> None:
    if where == "time":
        text = GOOD.replace("memory_mb: 512}", f"memory_mb: 512, {key}: {value}}}")
    else:
        text = GOOD.replace("time_ms: 1000}", f"time_ms: 1000, {key}: {value}}}")
    assert message in problems(tmp_path, text)


def test_a_remote_player_has_no_start_up_to_bound(tmp_path: Path) -> None:
    remote = '{name: far, transport: remote, bind: "tcp://127.0.0.1:5601", startup_ms: 500, charge_startup: true}'
    message = problems(tmp_path, GOOD.replace("{name: other, command: [python, bot.py, --seed, 3], env: {SEED: 1}, "
                                              "time_ms: 1000}", remote))
    for key in ("startup_ms", "charge_startup"):
        assert f"t.yaml:12: players[1].{key}: does not apply to transport: remote" in message


@pytest.mark.parametrize("text, expected", [
    ("", "a tournament config must be a YAML mapping of keys"),
    ("- a\n- b\n", "a tournament config must be a YAML mapping of keys"),
    ("just words\n", "a tournament config must be a YAML mapping of keys"),
    ("name: x\n\tgame: y\n", "t.yaml:2: not valid YAML"),
])
def test_a_config_that_is_not_a_mapping_is_refused(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in problems(tmp_path, text)


def test_a_config_that_is_not_utf8_or_not_a_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\u00e9\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin1.yaml: not UTF-8 text: byte 0xe9 at offset 9"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"cannot read config .*: Is a directory"):
        load_config(tmp_path)
    with pytest.raises(ConfigError, match=r"cannot read config .*missing.yaml: No such file or directory"):
        load_config(tmp_path / "missing.yaml")


def test_an_openings_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "openings.txt").write_bytes(b"1 2\xff\n")
    message = problems(tmp_path, GOOD.replace("{random_moves: 2, seed: 7}", "{file: openings.txt}"))
    assert "openings.file: 'openings.txt' is not allowed: " in message and "is not UTF-8 text (byte 0xff" in message


def test_an_openings_file_with_crlf_line_ends_reads_like_lf(tmp_path: Path) -> None:
    (tmp_path / "openings.txt").write_bytes(b"# comment\r\n1 2; 8 9\r\n\r\n4 5\r\n")
    config = load_config(write(tmp_path, GOOD.replace("{random_moves: 2, seed: 7}", "{file: openings.txt}")))
    assert config.openings.lines == (("1 2", "8 9"), ("4 5",))


def test_an_openings_file_of_only_comments_is_refused(tmp_path: Path) -> None:
    (tmp_path / "openings.txt").write_text("# nothing here\n\n# still nothing\n")
    message = problems(tmp_path, GOOD.replace("{random_moves: 2, seed: 7}", "{file: openings.txt}"))
    assert "openings.txt has no openings (one per line, moves separated by ';')" in message


def test_more_random_opening_moves_than_the_game_lasts_is_refused(tmp_path: Path) -> None:
    text = GOOD.replace("game: dots-and-triangles\nparams: {rows: 4}", "game: limit-nim\nparams: {piles: '1/1'}")
    message = problems(tmp_path, text)
    assert "openings.random_moves: 2 is not allowed: cannot find a 2-move opening that leaves limit-nim" in message


def test_a_tournament_too_big_to_schedule_is_refused(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("games_per_pairing: 4", "games_per_pairing: 100000000000"))
    assert "games_per_pairing: 100000000000 is not allowed: must be an even integer >= 2 and <= 10000000" in message
    many = "players:\n" + "".join(f"  - {{name: p{i}, command: python bot.py}}\n" for i in range(50))
    message = problems(tmp_path, GOOD[:GOOD.index("players:")].replace("games_per_pairing: 4",
                                                                      "games_per_pairing: 10000") + many)
    assert "games_per_pairing: 10000 is not allowed: 50 players would play 12250000 games; at most 10000000" in message


def test_concurrency_bounds_are_the_same_in_the_file_and_on_the_command_line(tmp_path: Path) -> None:
    assert "concurrency: 0 is not allowed: must be an integer >= 1 and <= 256" in \
        problems(tmp_path, GOOD.replace("concurrency: 2", "concurrency: 0"))
    for flag in (0, 100000):
        with pytest.raises(ConfigError, match=rf"--concurrency {flag} is not allowed: must be >= 1 and <= 256"):
            load_config(write(tmp_path, GOOD), concurrency=flag)


def test_swiss_rounds_out_of_range_is_one_problem(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("round-robin", "swiss") + "rounds: 0\n")
    assert "\n" not in message and "rounds: 0 is not allowed: must be an integer >= 1" in message


def test_a_gauntlet_candidate_alone_is_refused(tmp_path: Path) -> None:
    text = GOOD[:GOOD.index("  - {name: other")].replace("round-robin", "gauntlet") + "gauntlet: {candidate: random}\n"
    assert "players: must be a list of at least two players" in problems(tmp_path, text)


@pytest.mark.parametrize("scoring, shown", [("{win: .inf}", "inf"), ("{draw: .nan}", "nan")])
def test_scoring_must_be_finite(tmp_path: Path, scoring: str, shown: str) -> None:
    # An infinite point would be recorded in games.jsonl and make summary.json unwritable.
    message = problems(tmp_path, GOOD.replace("scoring: {win: 1, draw: 0.5, loss: 0}", f"scoring: {scoring}"))
    assert f": {shown} is not allowed: must be a finite number" in message


def test_a_memory_limit_beyond_what_the_kernel_takes_is_refused(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("memory_mb: 512", "memory_mb: 100000000000000"))
    assert "time.memory_mb: 100000000000000 is not allowed: must be an integer >= 16 and <= 1073741824" in message


def test_a_tournament_name_too_long_for_a_folder_is_refused(tmp_path: Path) -> None:
    message = problems(tmp_path, GOOD.replace("name: ladder", "name: " + "n" * 300))
    assert "t.yaml:1: name: 'nnn" in message and "is not allowed: must be a plain name of at most 64 bytes" in message


def test_a_game_with_more_seats_than_players_is_refused(tmp_path: Path) -> None:
    # Games of three or more seats are played (tests/test_nplayer_tournament.py), given players for every seat.
    message = problems(tmp_path, GOOD.replace("params: {rows: 4}", "params: {rows: 4, players: 3}")
                       .replace("games_per_pairing: 4", "games_per_group: 3").replace("scoring: {win: 1, draw: 0.5, loss: 0}", ""))
    assert ("t.yaml:10: players: 2 players cannot fill the 3 seats of dots-and-triangles players=3: "
            "give at least 3 players") in message


def test_a_codecup_dialect_player_in_a_three_seat_game_is_refused(tmp_path: Path) -> None:
    """The CodeCup dialect has two seats (docs/protocol.md): with three, every game of such a
    player ended in a fault; now the config is refused by the player's key."""
    config = tmp_path / "three.yaml"
    config.write_text("name: three\ngame: dots-and-boxes\nparams: {rows: 2, cols: 2, players: 3}\nplayers:\n"
                      "  - {name: a, command: python3 a.py, dialect: codecup}\n"
                      "  - {name: b, command: python3 b.py}\n  - {name: c, command: python3 c.py}\n")
    for name in "abc":
        (tmp_path / f"{name}.py").write_text("")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert "players[0].dialect: codecup plays games of 2 seats, and this game has 3" in str(refused.value)


def test_reuse_is_the_runs_default_and_a_players_own_key_wins(tmp_path: Path) -> None:
    assert [p.reuse for p in load_config(write(tmp_path, GOOD)).players] == [False, False]  # the contest's way
    text = GOOD.replace("concurrency: 2", "concurrency: 2\nreuse: true").replace(
        "{name: random, command: python bot.py}", "{name: random, command: python bot.py, reuse: false}")
    assert [p.reuse for p in load_config(write(tmp_path, text)).players] == [False, True]


@pytest.mark.parametrize("where, player, message", [
    ("player", "{name: cc, command: python bot.py, dialect: codecup, reuse: true}",
     "t.yaml:12: players[1].reuse: does not apply to player 'cc': the codecup dialect has no Game line"),
    ("run", "{name: cc, command: python bot.py, dialect: codecup}",
     "t.yaml:9: reuse: does not apply to player 'cc': the codecup dialect has no Game line"),
    ("player", "{name: z, command: python bot.py, transport: zmq, reuse: true}",
     "t.yaml:12: players[1].reuse: does not apply to player 'z': only bots over pipes are kept between games"),
    ("player", '{name: far, transport: remote, bind: "tcp://127.0.0.1:5601", reuse: true}',
     "t.yaml:12: players[1].reuse: does not apply to transport: remote"),
])
def test_reuse_where_no_next_game_can_be_begun_is_refused(tmp_path: Path, where: str, player: str,
                                                          message: str) -> None:
    text = GOOD.replace("{name: other, command: [python, bot.py, --seed, 3], env: {SEED: 1}, time_ms: 1000}", player)
    if where == "run":
        text = text.replace("concurrency: 2", "concurrency: 2\nreuse: true")
    assert message in problems(tmp_path, text)


def test_reuse_is_refused_on_a_cluster(tmp_path: Path) -> None:
    text = GOOD.replace("concurrency: 2", "concurrency: 2\nreuse: true\ncluster: tcp://127.0.0.1:8786")
    assert "t.yaml:10: cluster: does not apply with reuse (players 'random', 'other')" in problems(tmp_path, text)
    with pytest.raises(ConfigError, match=r"--cluster tcp://127.0.0.1:8786 is not allowed with reuse"):
        load_config(write(tmp_path, GOOD.replace("concurrency: 2", "concurrency: 2\nreuse: true")),
                    cluster="tcp://127.0.0.1:8786")


@pytest.mark.parametrize("run_clock, player_clock, cores, expected", [
    ("cpu", "cpu", 8, 8),  # the CPU clock: every core
    ("wall", "wall", 8, 4),  # the wall clock: half of them, for the time bots wait for a CPU
    ("cpu", "wall", 8, 4),  # one wall-clock seat is enough
    ("wall", "wall", 1, 1),  # and never none
])
def test_the_default_concurrency_leaves_cores_free_under_the_wall_clock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_clock: str, player_clock: str, cores: int,
        expected: int) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    text = (GOOD.replace("concurrency: 2\n", "").replace("clock: wall", f"clock: {run_clock}")
            .replace("time_ms: 1000}", f"time_ms: 1000, clock: {player_clock}}}"))
    assert load_config(write(tmp_path, text)).concurrency == expected
    assert load_config(write(tmp_path, text), concurrency=3).concurrency == 3  # the command line's is kept
