"""OpenSpiel's games through our interface (arbiter/games/openspiel.py): each plays as OpenSpiel
plays it, notation and faults are classified as docs/games.md says, chance is drawn by the referee
from the game's seed and sent as a `Chance` line, imperfect-information and unknown games are refused by name, and real bots play them
through the referee and a tournament."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from arbiter.cli import main  # noqa: E402
from arbiter.games import GameParamError, IllegalMove, MalformedMove, find_game  # noqa: E402
from arbiter.chance import ChanceDice, chance_seed  # noqa: E402
from arbiter.games import CHANCE  # noqa: E402
from arbiter.games.openspiel import NOTATION_SHAPES, POSITION_FREE_NOTATION, OpenSpielState  # noqa: E402
from arbiter.records import GameRecord, Termination  # noqa: E402
from arbiter.referee import TimeControl, play_game  # noqa: E402
from arbiter.tournament.audit import replay_problem  # noqa: E402

from referee_support import ROOT, bot, honest, live_marked, new_marker  # noqa: E402

MCTS_BOT = ROOT / "players" / "openspiel_mcts.py"
REFERENCE_BOT = ROOT / "players" / "openspiel_reference.py"

# (OpenSpiel's name, our parameters, OpenSpiel's parameters they give)
GAMES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("connect_four", {}, {}),
    ("hex", {"board_size": "5"}, {"board_size": 5}),
    ("chess", {}, {}),
    ("backgammon", {}, {}),
    ("pig", {"winscore": 30}, {"winscore": 30}),
    ("chinese_checkers", {"players": 3, "max_moves": 300}, {"players": 3, "max_moves": 300}),
]


def random_game(state: OpenSpielState, rng: random.Random) -> OpenSpielState:
    """Random moves through our interface until the game is over."""
    while not state.is_over():
        state.play(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize("name, params, spiel_params", GAMES, ids=[g[0] for g in GAMES])
def test_a_random_game_through_our_interface_is_openspiels_own(name: str, params: dict[str, Any],
                                                              spiel_params: dict[str, Any]) -> None:
    """Move for move: the same player to move (CHANCE at a chance node, whose outcomes and their
    probabilities are OpenSpiel's), the same legal moves written as OpenSpiel writes them, and
    the same ending and returns."""
    state = find_game(f"openspiel:{name}", **params).new_state()
    mirror = pyspiel.load_game(name, spiel_params).new_initial_state()
    rng = random.Random(1)
    while not state.is_over():
        player = mirror.current_player()
        assert state.current_player == player
        texts = {mirror.action_to_string(player, a): a for a in mirror.legal_actions()}
        assert state.legal_moves() == list(texts)
        if mirror.is_chance_node():
            assert state.chance_outcomes() == [(mirror.action_to_string(CHANCE, a), p) for a, p in mirror.chance_outcomes()]
        else:
            assert state.chance_outcomes() == []
        text = rng.choice(state.legal_moves())
        assert state.play(text) == text
        mirror.apply_action(texts[text])
    assert mirror.is_terminal()
    assert state.spiel_state.history() == mirror.history()
    assert state.scores == [round(r) for r in mirror.returns()]
    best = max(mirror.returns())
    leaders = [seat for seat, r in enumerate(mirror.returns()) if r == best]
    assert state.winner() == (leaders[0] if len(leaders) == 1 else None)
    assert state.legal_moves() == []


@pytest.mark.parametrize("name", sorted(POSITION_FREE_NOTATION))
def test_a_position_free_notation_writes_each_action_the_same_everywhere(name: str) -> None:
    """What POSITION_FREE_NOTATION claims: in every position of random games (120 plies), a legal action is
    written as at the start (so text outside that vocabulary is no move of the game)."""
    game = find_game(f"openspiel:{name}")
    start = game.spiel_game.new_initial_state()
    for seed in range(2):
        state = game.new_state()
        rng = random.Random(seed)
        for _ in range(120):  # plies: go's random games run to hundreds more, yacht's to 20 s
            if state.is_over():
                break
            spiel, player = state.spiel_state, state.current_player
            if player != CHANCE:
                for action in spiel.legal_actions():
                    assert spiel.action_to_string(player, action) == start.action_to_string(player, action)
            state.play(rng.choice(state.legal_moves()))


def test_every_playable_games_moves_travel_as_lines_and_read_as_moves() -> None:
    """In random games of every game the adapter plays: each legal move (and each outcome of
    chance) is printable ASCII without blanks at its ends (the transport strips them), no
    protocol word, and no two share a text (so a text names one action); and every player's
    legal move reads as a move of the game (its vocabulary or its notation's shape never calls
    one malformed). Every game but efg_game has one of the two."""
    from arbiter.games.openspiel import supported_names

    assert POSITION_FREE_NOTATION.isdisjoint(NOTATION_SHAPES)
    assert set(supported_names()) - POSITION_FREE_NOTATION - set(NOTATION_SHAPES) == {"efg_game"}
    for name in supported_names():
        if name == "efg_game":  # a game read from a file, none by default
            continue
        game = find_game(f"openspiel:{name}")
        state = game.new_state()
        rng = random.Random(1)
        for _ in range(120):
            if state.is_over():
                break
            texts = state.legal_moves()
            spiel = state.spiel_state
            assert len(texts) == len(spiel.legal_actions()), (name, texts)
            for text in texts:
                assert text == text.strip() and text.isascii() and text.isprintable() and 0 < len(text) <= 200, \
                    (name, text)
                assert text not in ("Start", "Quit") and not text.startswith(("Game ", "Opening ", "Chance ")), \
                    (name, text)
                if state.current_player != CHANCE:
                    assert game.parse_move(text) == text
            state.play(rng.choice(texts))


# (game, moves played first, the text sent, the fault it is)
FAULTS: list[tuple[str, list[str], str, type[Exception]]] = [
    ("connect_four", [], "", MalformedMove),
    ("connect_four", [], " x3", MalformedMove),          # blanks are not trimmed
    ("connect_four", [], "x3\x00", MalformedMove),
    ("connect_four", [], "x9", MalformedMove),           # no such column: no move of the game
    ("connect_four", [], "3", MalformedMove),            # not how OpenSpiel writes it
    ("connect_four", [], "o3", IllegalMove),             # a move of the game, but x is to move
    ("connect_four", ["x3", "o3"] * 3, "x3", IllegalMove),  # the column is full
    ("hex", [], "z99", MalformedMove),
    ("hex", ["e1"], "e1", IllegalMove),                  # the cell is taken
    ("pig", [], "jump", MalformedMove),
    ("pig", [], "Roll 5", MalformedMove),                # chance outcomes are drawn, never sent
    ("pig", ["roll"], "roll", IllegalMove),              # chance's turn: no player moves
    # Chess's notation depends on the position (Nxe5, e8=Q+): text in its shape (SAN) that is
    # not legal now is illegal, and text outside it malformed.
    ("chess", [], "e2e4", MalformedMove),                # not how OpenSpiel writes it: e4
    ("chess", [], "Nf6", IllegalMove),                   # black's move, white to move
    ("chess", [], "O-O", IllegalMove),
    ("chess", [], "whatever", MalformedMove),
    ("backgammon", ["chance outcome 0 X starts, (roll: 12)"], "24/23 24/21", MalformedMove),  # no action number
    ("backgammon", ["chance outcome 0 X starts, (roll: 12)"], "0 - 24/20 24/18", IllegalMove),  # not this roll
    ("chinese_checkers", [], "a1-b2", MalformedMove),
    ("chinese_checkers", [], "0->1", IllegalMove),
    ("quoridor", [], "e2e4", MalformedMove),
    ("quoridor", [], "a1", IllegalMove),
    ("xiangqi", [], "R(9,0)-(9,9)", IllegalMove),
    ("xiangqi", [], "R9-9", MalformedMove),
    ("shogi", [], "7g7e", IllegalMove),                  # a pawn moves one square
    ("shogi", [], "P-7f", MalformedMove),
    ("amazons", [], "X From (0, 0)", IllegalMove),
    ("amazons", [], "X from a1", MalformedMove),
    ("chess", [], "e4 ", MalformedMove),
    ("chess", [], "é4", MalformedMove),                  # not ASCII
    ("chess", [], "x" * 201, MalformedMove),
]


@pytest.mark.parametrize("name, before, text, fault", FAULTS,
                         ids=[f"{g}-{t[:12]!r}" for g, _, t, _ in FAULTS])
def test_a_bad_move_is_malformed_or_illegal_as_docs_say(name: str, before: list[str], text: str,
                                                        fault: type[Exception]) -> None:
    state = find_game(f"openspiel:{name}", **({"board_size": 5} if name == "hex" else {})).new_state()
    for move in before:
        state.play(move)
    with pytest.raises(fault) as caught:
        state.play(text)
    assert caught.value.text == text[:200]  # type: ignore[attr-defined]


# A 4-seat quoridor game on 5x5 (seed 208 of benchmarks/fuzz_openspiel.py): seat 1, boxed in at
# a2, has one legal move, off the board, and OpenSpiel writes it `_-1` (`_14` in the game).
BOXED_IN = ['c2h', 'b3v', 'b4h', 'b1h', 'c1v', 'd3v', 'c3h', 'a3v', 'b5', 'a4', 'd1h', 'e4', 'c5', 'a5', 'b1',
            'e3', 'b5', 'c5', 'a1', 'e2', 'a5', 'b5', 'a2', 'e3', 'a1v', 'a4', 'a1', 'e4', 'a3', 'a2']


def test_a_legal_move_the_rules_write_outside_their_notation_is_the_rules_failure_not_the_bots() -> None:
    """The text of a legal move reads back as that legal move, whatever the notation's shape says;
    playing it is the rules' own failure (a SpielError, no GameError the referee would blame a
    bot for). 4-seat quoridor is refused (test below): its class is used past the refusal."""
    from arbiter.games import GameError
    from arbiter.games.openspiel import game_class

    class Unrefused(game_class("quoridor")):  # type: ignore[misc, valid-type]
        def refused(self) -> None:
            return None

    game = Unrefused(board_size=5, players=4)
    state = game.new_state()
    for text in BOXED_IN:
        state.play(text)
    assert state.legal_moves() == ["_-1"] and state.current_player == 1
    move, canonical = game.read_move("_-1")  # as the referee reads a bot's line
    assert canonical == "_-1" and state.illegal_reason(move) is None
    # OpenSpiel's CHECK quotes the cell it read off the board: garbage, which now and then is no
    # UTF-8 and reaches Python as a UnicodeDecodeError instead (the out-of-bounds read).
    with pytest.raises((pyspiel.SpielError, UnicodeDecodeError)) as failed:
        state.apply(move)
    assert not isinstance(failed.value, GameError)
    with pytest.raises(MalformedMove):  # text outside the notation that is not legal now is still malformed
        state.play("_-2")


class _SameText:
    """A pyspiel state whose rules write two legal actions alike."""

    def current_player(self) -> int:
        return 0

    def is_terminal(self) -> bool:
        return False

    def is_chance_node(self) -> bool:
        return False

    def legal_actions(self) -> list[int]:
        return [3, 4]

    def action_to_string(self, player: int, action: int) -> str:
        return "x"


def test_two_legal_moves_with_one_text_are_the_rules_failure_never_a_bots() -> None:
    from arbiter.games import GameError
    from arbiter.games.openspiel import NotationError

    state = OpenSpielState(find_game("openspiel:tic_tac_toe"), _SameText())  # type: ignore[arg-type]
    with pytest.raises(NotationError) as caught:
        state.legal_moves()
    assert str(caught.value) == ("the rules of openspiel:tic_tac_toe wrote legal action 4 as 'x', which no bot can "
                                 "name (so is action 3)")
    assert not isinstance(caught.value, GameError)  # the referee voids the game; no bot is blamed
    with pytest.raises(NotationError):
        state.play("x")


REFUSED = [
    ("quoridor", {"players": 4, "board_size": 5}, "players=3 or players=4", "quoridor.cc:619 or :623"),
    ("quoridor", {"players": 4}, "players=3 or players=4", "loop forever"),
    ("quoridor", {"players": 3}, "players=3 or players=4", "loop forever"),
    ("hex", {"num_rows": 4, "num_cols": 6, "swap": "true"}, "swap=true with num_rows != num_cols", "segmentation"),
    ("hex", {"num_rows": 3, "num_cols": 9, "swap": True}, "swap=true with num_rows != num_cols", "segmentation"),
]


@pytest.mark.parametrize("name, params, which, why", REFUSED, ids=[f"{n}-{p}" for n, p, _, _ in REFUSED])
def test_a_refused_variant_is_refused_by_name_parameters_and_reason(name: str, params: dict[str, Any], which: str,
                                                                    why: str) -> None:
    with pytest.raises(GameParamError) as caught:
        find_game(f"openspiel:{name}", **params)
    message = str(caught.value)
    assert message.startswith(f"openspiel:{name} ")
    assert f" is refused ({which}): " in message and why in message and "\n" not in message
    for key, value in params.items():
        assert f"{key}={str(value).lower()}" in message


def test_the_variants_beside_the_refused_ones_are_played() -> None:
    assert find_game("openspiel:quoridor", players=2, board_size=5).num_players == 2
    assert find_game("openspiel:hex", board_size=5, swap=True).params["swap"] is True
    assert find_game("openspiel:hex", num_rows=4, num_cols=6).params["num_cols"] == 6


def test_a_finished_game_takes_no_move() -> None:
    state = random_game(find_game("openspiel:tic_tac_toe").new_state(), random.Random(2))
    with pytest.raises(IllegalMove, match="the game is over"):
        state.play("x(0,0)")


@pytest.mark.parametrize("name, said", [
    ("openspiel:kuhn_poker", "openspiel:kuhn_poker cannot be played: it is not a game of perfect information"),
    ("openspiel:no_such_game", "openspiel:no_such_game cannot be played: OpenSpiel has no such game"),
    ("openspiel:morpion_solitaire", "it is a game for one player"),
    ("openspiel:goofspiel", "its players do not move one at a time"),
])
def test_a_game_that_cannot_be_played_is_refused_by_name_with_the_ones_that_can(name: str, said: str) -> None:
    with pytest.raises(GameParamError) as caught:
        find_game(name)
    message = str(caught.value)
    assert said in message
    assert "OpenSpiel's games that can are: " in message
    for playable in ("openspiel:connect_four", "openspiel:chess", "openspiel:backgammon", "openspiel:pig"):
        assert playable in message
    assert "openspiel:kuhn_poker" not in message.split("can are: ")[1]


@pytest.mark.parametrize("name, params, said", [
    ("connect_four", {"rowz": 3}, "openspiel:connect_four: unknown parameter 'rowz'; parameters are: columns, "
                                  "egocentric_obs_tensor, rows, x_in_row"),
    ("connect_four", {"rows": "six"}, "openspiel:connect_four: parameter rows='six' is not valid"),
    ("connect_four", {"egocentric_obs_tensor": "yes"}, "parameter egocentric_obs_tensor='yes' is not valid"),
    ("go", {"komi": "lots"}, "parameter komi='lots' is not valid"),
    ("hex", {"string_rep": "two words"}, "must be a word without blanks"),
    ("pig", {"seed": 1}, "unknown parameter 'seed'"),  # chance is the referee's, seeded outside the game
    ("pig", {"players": 1}, "openspiel:pig: 1 player(s); the arbiter plays games of two or more"),
    ("backgammon", {"scoring_type": "nope"}, "openspiel:backgammon: OpenSpiel refuses the parameters: "
                                             "Unrecognized scoring_type parameter: nope"),
    ("connect_four", {"rows": -1}, "openspiel:connect_four: OpenSpiel refuses the parameters: "
                                   "cannot create std::vector larger than max_size()"),
])
def test_a_bad_parameter_is_one_line_naming_the_game(name: str, params: dict[str, Any], said: str) -> None:
    with pytest.raises(GameParamError) as caught:
        find_game(f"openspiel:{name}", **params)
    assert said in str(caught.value)
    assert "\n" not in str(caught.value)


def test_parameters_are_openspiels_typed_and_on_the_game_line_as_text() -> None:
    game = find_game("openspiel:go", board_size="5", komi="6.5")
    assert game.params == {"board_size": 5, "handicap": 0, "komi": 6.5, "max_game_length": 50}
    assert game.describe() == "openspiel:go board_size=5 handicap=0 komi=6.5 max_game_length=50"
    again = find_game("openspiel:go", **dict(word.split("=") for word in game.param_text().split()))
    assert again.params == game.params
    assert find_game("openspiel:go", komi=7).params["komi"] == 7.0  # YAML's whole number for a real one
    pig = find_game("openspiel:pig", piglet="true")
    assert pig.params["piglet"] is True and "piglet=true" in pig.param_text()
    assert find_game("openspiel:pig", players=4).num_players == 4


def rolls(seed: int, count: int) -> list[str]:
    """The first `count` dice of Pig (rolling always) that a game seeded `seed` draws."""
    state = find_game("openspiel:pig", winscore=1000).new_state()
    dice = ChanceDice(seed)
    drawn = []
    while len(drawn) < count:
        state.play("roll")
        drawn.append(dice.draw(state))
        state.play(drawn[-1])
    return drawn


def test_chance_is_drawn_from_the_games_seed_alone() -> None:
    assert rolls(1, 30) == rolls(1, 30)
    assert rolls(1, 30) != rolls(2, 30)
    assert set(rolls(1, 60)) == {f"Roll {k}" for k in range(1, 7)}
    # Documented so that anyone can repeat it: one random() of Python's generator per node.
    generator = random.Random(1)
    assert rolls(1, 5) == [f"Roll {int(generator.random() * 6) + 1}" for _ in range(5)]


def test_chance_outcomes_follow_their_probabilities() -> None:
    """Backgammon's 36 rolls of two dice drawn 7,200 times from one seed: each
    near its probability (the draws are fixed by the seed: this cannot fail by bad luck)."""
    state = find_game("openspiel:backgammon").new_state()
    state.play(state.legal_moves()[0])  # X starts, with a roll of 1 and 2
    assert state.current_player == 0
    state.play(state.legal_moves()[0])
    probabilities = dict(state.chance_outcomes())
    assert state.current_player == CHANCE and len(probabilities) == 36
    dice = ChanceDice(7)
    total = 7200
    counts = Counter(dice.draw(state) for _ in range(total))
    for outcome, p in probabilities.items():  # within 4 standard deviations of its expectation
        assert counts[outcome] == pytest.approx(p * total, abs=4 * (total * p * (1 - p)) ** 0.5)


def test_a_clone_follows_the_same_moves_and_chance_as_the_original() -> None:
    state = find_game("openspiel:backgammon").new_state()
    copy = state.clone()
    rng = random.Random(4)
    for _ in range(6):
        text = rng.choice(state.legal_moves())
        state.play(text)
        copy.play(text)
    assert state.key() == copy.key() and state.spiel_state.history() == copy.spiel_state.history()
    assert copy.history == state.history


def test_the_registry_imports_openspiel_only_for_its_games() -> None:
    """A bot's start-up is on its clock: finding one of our games, or loading the bot kit, never
    imports pyspiel; finding an OpenSpiel game does."""
    code = ("import sys; import arbiter.bot; from arbiter.games import find_game; find_game('limit-nim'); "
            "print('pyspiel' in sys.modules); find_game('openspiel:hex'); print('pyspiel' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.split() == ["False", "True"], done.stderr


REFEREED = [
    ("openspiel:connect_four", {}),
    ("openspiel:pig", {"winscore": 30}),
    ("openspiel:backgammon", {}),  # chance_seed 0's opening roll gives seat 1 (O) the first move
]


@pytest.mark.parametrize("name, params", REFEREED, ids=[n for n, _ in REFEREED])
def test_two_boxed_random_bots_play_a_refereed_game_that_replays(name: str, params: dict[str, Any],
                                                                 tmp_path: Path) -> None:
    """The bot kit plays the game in its box (it imports open_spiel there, and follows the
    referee's `Chance` lines), the referee records it with the seed of its dice, and the record
    replays to its own result; a forged result, or a forged die, does not."""
    marker = new_marker()
    record = play_game(find_game(name, **params), [honest(marker, 1), honest(marker, 2)],
                       time=TimeControl(time_ms=20000), log_dir=tmp_path, chance_seed=0)
    assert record.termination is Termination.NORMAL, record.detail
    assert record.game == name
    chance = [m for m in record.moves if m.seat == CHANCE]
    assert (record.chance_seed, bool(chance)) == ((None, False) if name == "openspiel:connect_four" else (0, True))
    assert all(m.wall_ms == 0 and not m.forced for m in chance)
    first_mover = next(m.seat for m in record.moves if m.seat != CHANCE)
    assert first_mover == (1 if name == "openspiel:backgammon" else 0)
    assert sorted(record.scores) == [-1, 1] and record.winner == record.scores.index(1)
    data = json.loads(json.dumps(record.to_json()))
    assert replay_problem(GameRecord.from_json(data)) is None
    forged_result = GameRecord.from_json({**data, "winner": 1 - record.winner})  # a forged result
    assert replay_problem(forged_result) is not None
    assert "contradicts its moves" in str(replay_problem(forged_result))
    if chance:  # a die changed for another outcome of the same node: not what the seed draws
        index = record.moves.index(chance[0])
        state = find_game(name, **params).new_state()
        for move in record.moves[:index]:
            state.play(move.move)
        other = next(text for text, _ in state.chance_outcomes() if text != chance[0].move)
        forged = [dict(m, move=other) if k == index else m for k, m in enumerate(data["moves"])]
        assert "is not what its chance_seed draws" in str(replay_problem(GameRecord.from_json({**data, "moves": forged})))
    assert live_marked(marker) == []


def test_every_seat_reads_chances_draw_in_the_games_order_before_the_next_move(tmp_path: Path) -> None:
    """Pig, whose roll keeps the turn unless it is a 1: each seat's log of what it read and sent
    is the record's moves in order, chance's draws as `Chance Roll k` lines to both seats, so a
    seat that rolled reads its die before it moves again."""
    marker = new_marker()
    players = [bot("line_logger_bot.py", f"logger{seat}", marker) for seat in range(2)]
    record = play_game(find_game("openspiel:pig", winscore=12), players, time=TimeControl(time_ms=20000),
                       log_dir=tmp_path, chance_seed=5)
    assert record.termination is Termination.NORMAL, record.detail
    assert record.chance_seed == 5 and any(m.seat == CHANCE for m in record.moves)
    for seat, log in enumerate(record.logs):
        assert log is not None
        traffic = [line for line in Path(log).read_text().splitlines() if line.startswith(("< ", "> "))]
        assert traffic[0].startswith("< Game openspiel:pig ") and traffic[-1] == "< Quit"
        told = [line for line in traffic[1:-1] if line != "< Start"]
        assert told == [("> " if m.seat == seat else "< ") + (f"Chance {m.move}" if m.seat == CHANCE else m.move)
                        for m in record.moves]
    assert live_marked(marker) == []


def test_the_kit_applies_a_chance_line_and_refuses_one_where_the_game_has_no_chance(
        capsys: pytest.CaptureFixture[str]) -> None:
    from arbiter.bot import run_bot

    class Script:
        def __init__(self, *lines: str) -> None:
            self.script, self.sent = lines, []  # type: ignore[var-annotated]

        def lines(self):  # type: ignore[no-untyped-def]
            yield from self.script

        def send(self, line: str) -> None:
            self.sent.append(line)

    game = "Game openspiel:pig horizon=1000 piglet=false players=2 winscore=100 seat=0 time_ms=1000"
    rolled = Script(game, "Start", "Chance Roll 3", "Chance Roll 1", "stop", "Quit")
    assert run_bot(lambda state, ctx: "roll", argv=[], channel=rolled) == 0
    # Start, then a 3 keeps its turn; a 1 ends it, and the other seat's stop hands it back.
    assert rolled.sent == ["roll", "roll", "roll"]
    with pytest.raises(SystemExit):
        run_bot(lambda state, ctx: "roll", argv=[], channel=Script(game, "Chance Roll 3"))  # seat 0 is to move
    assert "the game is not at a chance node" in capsys.readouterr().err


def test_the_mcts_reference_beats_the_random_bot(tmp_path: Path) -> None:
    marker = new_marker()
    mcts = bot(MCTS_BOT, "mcts", marker, "--simulations", "50", "--seed", "1")
    wins = 0
    for game_number, seats in enumerate([(mcts, honest(marker, 1)), (honest(marker, 2), mcts)]):
        record = play_game(find_game("openspiel:connect_four"), list(seats), time=TimeControl(time_ms=30000),
                           log_dir=tmp_path / str(game_number))
        assert record.termination is Termination.NORMAL, record.detail
        wins += record.winner == [spec.name for spec in seats].index("mcts")
    assert wins == 2


def spiel_after(name: str, moves: list[str], **params: Any) -> Any:
    """OpenSpiel's state of `name` after `moves`, written as OpenSpiel writes them."""
    state = pyspiel.load_game(name, params).new_initial_state()
    for move in moves:
        state.apply_action(state.string_to_action(move))
    return state


def test_the_reference_mates_in_one_and_takes_a_hanging_queen_in_chess() -> None:
    from players.strategies.spiel_reference import chess_choice

    # Fool's mate, black to move: Qh4 mates; at depth 1 it is found as the game's end.
    fools = spiel_after("chess", ["f3", "e5", "g4"])
    for depth in (1, 2):
        assert fools.action_to_string(fools.current_player(), chess_choice(fools, random.Random(1), depth)) == "Qh4#"
    # White's queen on h5 hangs to black's knight on f6... and black takes it.
    hanging = spiel_after("chess", ["e4", "Nf6", "Qh5"])
    assert hanging.action_to_string(hanging.current_player(), chess_choice(hanging, random.Random(1), 2)) == "Nxh5"


def test_the_reference_values_chess_by_material_and_hunts_a_lone_king() -> None:
    from players.strategies.spiel_reference import chess_eval

    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert chess_eval(start, True) == chess_eval(start, False) == 0
    up_a_queen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert chess_eval(up_a_queen, True) > 900 and chess_eval(up_a_queen, False) == -chess_eval(up_a_queen, True)
    # White (a queen up) prefers black's king in the corner to the middle, and its own king near it.
    corner, middle = "k7/8/2K5/8/8/8/8/Q7 w - - 0 1", "8/8/8/3k4/8/8/8/Q3K3 w - - 0 1"
    assert chess_eval(corner, True) > chess_eval(middle, True)


def test_the_reference_backgammon_move_is_the_best_for_its_dice() -> None:
    from players.strategies.spiel_reference import backgammon_choice, backgammon_eval

    # The opening roll 3-1 for X (player 0): making its 5 point (8/5 6/5) is the classic best move.
    state = pyspiel.load_game("backgammon").new_initial_state()
    roll = next(a for a, _ in state.chance_outcomes() if "X starts" in state.action_to_string(-1, a)
                and "(roll: 13)" in state.action_to_string(-1, a))
    state.apply_action(roll)
    chosen = state.action_to_string(0, backgammon_choice(state, random.Random(1)))
    assert chosen.endswith(("8/5 6/5", "6/5 8/5")), chosen
    # Every legal move is valued, and the chosen one is the best of them.
    values = [backgammon_eval(state.child(a), 0) for a in state.legal_actions()]
    assert backgammon_eval(state.child(state.string_to_action(chosen)), 0) == max(values)


def test_the_reference_aims_each_chinese_checkers_player_at_the_corner_opposite_its_home() -> None:
    from players.strategies.spiel_reference import board_cells, chinese_checkers_eval, hex_steps, target_tips

    game = pyspiel.load_game("chinese_checkers", {"players": 3})
    start = str(game.new_initial_state())
    cells = board_cells(start)
    assert len(cells) == 121  # the star's cells, in OpenSpiel's numbering (3=>14 moves cell 3 to 14)
    tips = target_tips(start, 3)
    for player, tip in enumerate(tips):
        home = [(r, c) for r, c, char in cells if char == str(player + 1)]
        assert max(hex_steps(h, tip) for h in home) == 16 and min(hex_steps(h, tip) for h in home) == 13
        # The tip is a corner's point: two neighbours on the board.
        positions = {(r, c) for r, c, _ in cells}
        r, c = tip
        assert len(positions & {(r, c - 2), (r, c + 2), (r - 1, c - 1), (r - 1, c + 1), (r + 1, c - 1),
                                (r + 1, c + 1)}) == 2
    # A step toward the target lowers the evaluation.
    state = game.new_initial_state()
    before = chinese_checkers_eval(str(state), 0, tips[0])
    state.apply_action(state.string_to_action("3=>14"))
    assert chinese_checkers_eval(str(state), 0, tips[0]) < before


def test_the_reference_plays_a_game_it_has_no_evaluation_for_and_says_so_once(tmp_path: Path) -> None:
    marker = new_marker()
    reference = bot(REFERENCE_BOT, "reference", marker, "--simulations", "10", "--seed", "1")
    record = play_game(find_game("openspiel:tic_tac_toe"), [reference, honest(marker, 1)],
                       time=TimeControl(time_ms=30000), log_dir=tmp_path)
    assert record.termination is Termination.NORMAL, record.detail
    assert len([m for m in record.moves if m.seat == 0]) >= 3
    log = Path(record.logs[0]).read_text()  # type: ignore[arg-type]
    said = "openspiel_reference: no evaluation for tic_tac_toe (it has one for chess, backgammon, chinese_checkers)"
    assert log.count(said) == 1, log
    assert live_marked(marker) == []


def test_the_connect_four_class_runs_through_arbiter_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = (ROOT / "configs" / "connect-four-class.yaml").read_text().replace("../players", str(ROOT / "players"))
    path = tmp_path / "connect-four-class.yaml"
    path.write_text(config + f"results: {tmp_path / 'results'}\n")
    assert main(["run", str(path), "--quiet"]) == 0
    records = [json.loads(line) for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 12
    assert {r["termination"] for r in records} == {"normal"}
    assert {r["game"] for r in records} == {"openspiel:connect_four"}
    mcts_points = sum(r["points"][r["names"].index("mcts")] for r in records if "mcts" in r["names"])
    assert mcts_points == 6  # it wins all its six games against the random bots
    # The report's viewer has no board of its own for these games: it shows OpenSpiel's picture.
    assert '"kind":"text"' in (tmp_path / "results" / "report.html").read_text()


# (game, its parameters, the reference bot's program and options, the random bots, games per
# pairing, whether the reference's rating interval must clear every random bot's). Ten straight
# wins of two players clear the intervals (docs/statistics.md's virtual draws keep a sweep
# finite). Connect Four's reference is ranked in its class test above. Hex's is OpenSpiel's
# MCTS; chess's, backgammon's and Chinese checkers' the evaluation-based openspiel_reference.py,
# in chess at --depth 1 (1.4 ms a move against 31 at its default 2; both won 30 of 30 against
# random in benchmarks/bench_reference.py), which keeps this run near backgammon's cost.
# Chinese checkers with 3 players scores only a game someone finishes (the winner 2, the others
# -1; a game cut at max_moves is 0 for all), so max_moves leaves the reference room to finish
# (docs/games.md).
ARBITER_RUNS = [
    ("openspiel:hex", {"board_size": 4}, (MCTS_BOT, "--simulations", "30"), ["random"], 10, True),
    ("openspiel:chess", {}, (REFERENCE_BOT, "--depth", "1"), ["random"], 10, True),
    ("openspiel:backgammon", {}, (REFERENCE_BOT,), ["random"], 10, True),
    ("openspiel:chinese_checkers", {"players": 3, "max_moves": 1000}, (REFERENCE_BOT,), ["random", "random2"], 6,
     True),
]


@pytest.mark.parametrize("game, params, reference, others, per_pairing, ranked", ARBITER_RUNS,
                         ids=[g for g, *_ in ARBITER_RUNS])
def test_arbiter_run_plays_sandboxed_round_robins_that_replay_and_show_their_boards(
        game: str, params: dict[str, Any], reference: tuple[Any, ...], others: list[str], per_pairing: int,
        ranked: bool, tmp_path: Path) -> None:
    players = [f"  - {{name: reference, command: python {' '.join(map(str, reference))}}}"]
    players += [f"  - {{name: {name}, command: python {ROOT / 'players' / 'random_bot.py'}}}" for name in others]
    path = tmp_path / "run.yaml"
    path.write_text(f"name: spiel\ngame: {game}\nparams: {json.dumps(params)}\nformat: round-robin\n"
                    f"games_per_pairing: {per_pairing}\nconcurrency: 2\nseed: 3\ntime: {{time_ms: 60000}}\n"
                    f"results: {tmp_path / 'results'}\nplayers:\n" + "\n".join(players) + "\n")
    assert main(["run", str(path), "--quiet"]) == 0
    results = tmp_path / "results"
    records = [json.loads(line) for line in (results / "games.jsonl").read_text().splitlines()]
    assert records and {r["termination"] for r in records} == {"normal"}, [r["detail"] for r in records]
    assert all(all(r["sandboxed"]) for r in records)
    for record in records:  # every record replays (its dice from its chance_seed), and `arbiter report` says so
        assert replay_problem(GameRecord.from_json(record)) is None
        # The dice's seed: the config's seed (3) and the game id, as the runner derives it.
        assert record["chance_seed"] == (chance_seed(3, record["id"]) if game == "openspiel:backgammon" else None)
    assert main(["report", str(results), "--html"]) == 0
    summary = json.loads((results / "summary.json").read_text())
    ratings = {p["name"]: (p["rating_low"], p["rating_high"]) for p in summary["players"]}
    if ranked:
        assert ratings["reference"][0] > max(high for name, (low, high) in ratings.items() if name != "reference"), \
            ratings
    # The boards: OpenSpiel's picture of every position, step by step, in the report's games.
    page = (results / "report.html").read_text()
    games = "".join(path.read_text() for path in (results / "report-games").rglob("games-*.js"))
    first = find_game(game, **params).new_state()
    assert '"kind":"text"' in page and json.dumps(first.render())[1:-1] in games


CHECKED = [
    ("random_bot", ("--seed", "1"), "openspiel:connect_four", {}),
    ("random_bot", ("--seed", "1"), "openspiel:pig", {"winscore": "20"}),
    ("openspiel_mcts", ("--simulations", "50"), "openspiel:connect_four", {}),  # as the bundled config runs it
    ("openspiel_reference", ("--seed", "1"), "openspiel:backgammon", {}),  # chess: 18 s, checked by hand (docs/bots.md)
]


@pytest.mark.parametrize("bot_name, args, name, params", CHECKED, ids=[f"{b}-{n}" for b, _, n, _ in CHECKED])
def test_the_bundled_bots_pass_arbiter_check(bot_name: str, args: tuple[str, ...], name: str,
                                             params: dict[str, str], tmp_path: Path) -> None:
    from arbiter.check import CheckTarget, run_check
    from arbiter.referee import PlayerSpec
    from arbiter.transport.sandbox import SandboxSpec

    player = PlayerSpec(name=bot_name, command=(sys.executable, f"players/{bot_name}.py", *args), cwd=str(ROOT),
                        sandbox=SandboxSpec(read=(str(ROOT),)))
    report = run_check(CheckTarget(name, params, player), log_dir=tmp_path, concurrency=2)
    assert report.failed() == [], [(i.id, i.hint, i.transcript, i.log) for i in report.items if i.status == "fail"]
    assert len([i for i in report.items if i.status == "pass"]) >= 11


def test_arbiter_check_fails_a_bot_that_answers_an_illegal_move_with_a_hint(tmp_path: Path) -> None:
    """A bot that writes the other player's mark (`o3` as seat 0): a move of the game, illegal
    for its seat, named as such with the legal ones, and the transcript that led to it."""
    from arbiter.check import CheckTarget, run_check
    from arbiter.referee import PlayerSpec
    from arbiter.transport.sandbox import SandboxSpec

    script = ROOT / "tests" / "bots" / "other_players_move_bot.py"
    player = PlayerSpec(name="other_mark", command=(sys.executable, str(script)), cwd=str(ROOT),
                        sandbox=SandboxSpec(read=(str(ROOT),)))
    report = run_check(CheckTarget("openspiel:connect_four", {}, player), log_dir=tmp_path, concurrency=2)
    assert report.failed()[:1] == ["seat-0"], [(i.id, i.status) for i in report.items]
    first = next(item for item in report.items if item.id == "seat-0")
    assert "which is illegal: it is not a legal move of seat" in first.hint
    assert "keep the position in step" in first.hint
    assert first.transcript[-1].startswith("!! illegal: ")


@pytest.mark.parametrize("game, params, said", [
    ("openspiel:kuhn_poker", "{}", "game: 'openspiel:kuhn_poker' is not allowed: openspiel:kuhn_poker cannot be "
                                   "played: it is not a game of perfect information"),
    ("openspiel:connect_four", "{rowz: 3}", "params: openspiel:connect_four: unknown parameter 'rowz'"),
    ("open_spiel:hex", "{}", "(did you mean 'openspiel:NAME'?)"),
    # OpenSpiel's Connect Four takes rows=0, then crashes the process that asks for its moves.
    ("openspiel:connect_four", "{rows: 0}", "yaml:5: params.rows: openspiel:connect_four: parameter rows=0 crashes "
                                            "the game (SIGSEGV): it is outside the range the game supports"),
    ("openspiel:quoridor", "{players: 4\n  board_size: 5}", "params: openspiel:quoridor ansi_color_output=false "
                                                            "board_size=5 players=4 wall_count=3 is refused (players=3 "
                                                            "or players=4): OpenSpiel's rules fail"),
    ("openspiel:hex", "{num_rows: 4\n  num_cols: 6\n  swap: true}", "is refused (swap=true with num_rows != num_cols)"),
    ("openspiel:connect_four", "{rows: 100000\n  columns: 100000}",
     "params: openspiel:connect_four: the parameters columns=100000 rows=100000 together make a game too big "
     "to play (it needs more than 2048 MB of memory): they are outside what it supports"),
])
def test_a_config_names_the_openspiel_game_or_parameter_it_cannot_play(game: str, params: str, said: str,
                                                                       tmp_path: Path) -> None:
    from arbiter.tournament.config import load_config
    from arbiter.tournament.validate import ConfigError

    from tournament_helpers import write_config

    path = write_config(tmp_path, f"game: {game}\nparams:\n  {params[1:-1]}\nplayers:\n"
                                  "  - {name: a, command: 'true'}\n  - {name: b, command: 'true'}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert said in str(caught.value)


def test_a_config_plays_an_openspiel_game_with_its_parameters_as_openspiel_settled_them(tmp_path: Path) -> None:
    from arbiter.tournament.config import load_config

    from tournament_helpers import write_config

    path = write_config(tmp_path, "game: openspiel:hex\nparams: {board_size: 7}\nplayers:\n"
                                  "  - {name: a, command: 'true'}\n  - {name: b, command: 'true'}\n")
    config = load_config(path)
    assert config.game_name == "openspiel:hex"
    assert config.params["num_rows"] == config.params["num_cols"] == 7
    assert config.make_game().describe() == find_game("openspiel:hex", board_size=7).describe()


def test_arbiter_play_names_the_parameter_that_crashes_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "openspiel:connect_four", "-p", "rows=0", "-p", "columns=5", "true", "true"]) == 2
    assert capsys.readouterr().err.strip() == ("arbiter play: error: -p rows=0: openspiel:connect_four: parameter "
                                               "rows=0 crashes the game (SIGSEGV): it is outside the range the game "
                                               "supports")


@pytest.mark.parametrize("command, params, said", [
    ("play", ["players=4", "board_size=5"], "arbiter play: error: openspiel:quoridor ansi_color_output=false "
                                           "board_size=5 players=4 wall_count=3 is refused (players=3 or players=4): "),
    ("check", ["num_rows=4", "num_cols=6", "swap=true"], "arbiter check: error: openspiel:hex board_size=11 num_cols=6 "
                                                        "num_rows=4 plain_obs_tensor=false string_rep=standard "
                                                        "swap=true is refused (swap=true with num_rows != num_cols): "),
    ("match", ["num_rows=3", "num_cols=9", "swap=true"], "arbiter match: error: -p: openspiel:hex board_size=11 "
                                                        "num_cols=9 num_rows=3 plain_obs_tensor=false "
                                                        "string_rep=standard swap=true is refused "),
])
def test_arbiter_play_check_and_match_refuse_a_refused_variant_before_any_bot(
        command: str, params: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    name = "openspiel:quoridor" if command == "play" else "openspiel:hex"
    flags = [word for param in params for word in ("-p", param)]
    bots = {"play": ["false"] * 4, "check": ["false"], "match": ["false", "false", "--games", "2"]}[command]
    assert main([command, name, *flags, *bots]) == 2  # the bots are never started: the refusal comes first
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(said) and err[-1].endswith("(docs/games.md, Refused variants)")


def test_a_board_too_big_to_play_is_refused_by_the_bounded_probe_without_the_arbiter_making_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's `-p rows=100000 -p columns=100000`: the probe's child runs out of its capped
    heap at once, and the arbiter's own process never makes the game (making it grew to 4.5 GB)."""
    import arbiter.cli.players as cli_players

    made: list[str] = []
    monkeypatch.setattr(cli_players, "find_game", lambda name, **params: made.append(name))
    assert main(["check", "openspiel:connect_four", "-p", "rows=100000", "-p", "columns=100000", "false"]) == 2
    assert capsys.readouterr().err.strip() == (
        "arbiter check: error: openspiel:connect_four: the parameters columns=100000 rows=100000 together make a "
        "game too big to play (it needs more than 2048 MB of memory): they are outside what it supports")
    assert made == []


def test_a_probe_past_its_deadline_is_a_game_too_slow_to_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent's deadline (the child's CPU cap ends a busy one sooner): past it, the child is
    killed and the parameters refused, never taken as they are."""
    from arbiter.tournament import game_probe

    monkeypatch.setattr(game_probe, "PROBE_DEADLINE_S", 0.001)
    game_probe._failure.cache_clear()
    try:
        problem = game_probe.parameter_problem("openspiel:connect_four", {"rows": 5})
    finally:
        game_probe._failure.cache_clear()
    assert problem == ("rows", "openspiel:connect_four: parameter rows=5 makes a game too slow to play (its first 60 "
                               "moves took more than 0.001 s): it is outside the range the game supports")


def test_chess_is_drawn_by_the_rules_at_the_third_occurrence_of_a_position_and_white_is_seat_1():
    """OpenSpiel ends a chess game at a threefold repetition by itself (FIDE only lets a player
    claim it): Nf3 Nf6 Ng1 Ng8 twice gives the opening position a third time (docs/games.md)."""
    state = find_game("openspiel:chess").new_state()
    assert state.current_player == 1  # White is OpenSpiel's player 1, and moves first
    for text in ["Nf3", "Nf6", "Ng1", "Ng8"] * 2:
        assert not state.is_over()
        state.play(text)
    assert state.is_over() and state.winner() is None
