"""The double-cross strategy on hand-built endgames: keeping control, taking all, giving least."""
from __future__ import annotations

import random

import pytest

from arbiter.bot import BotContext
from arbiter.games import find_game
from arbiter.games.dots import DotsGame, DotsState
from players.strategies.cell_index import CellIndex
from players.strategies.double_cross import (DoubleCross, DoubleCrossSeats, capture_groups, choose_double_cross,
                                             components, components_value, components_vector, mean_vector,
                                             safe_edges)
from players.strategies.exact import build_table

BOXES_2X3_TOP_CHAIN = ["1 1 h", "1 2 h", "1 3 h", "2 1 h", "2 2 h", "2 3 h"]  # top row: a chain of 3


def position(game: DotsGame, *texts: str) -> DotsState:
    """The position after drawing these edges in order."""
    state = game.new_state()
    for text in texts:
        state.play(text)
    return state


def replies(state: DotsState, seeds: int = 8) -> set[str]:
    """Every move the double-cross strategy plays here over a range of seeds."""
    game = state.game
    return {
        game.format_move(choose_double_cross(state, BotContext(game=game, seat=0, rng=random.Random(s))))
        for s in range(seeds)
    }


def exact_best(state: DotsState) -> set[str]:
    """The moves perfect play allows here (the board must be small)."""
    values = build_table(state.game, state.drawn).move_values(state.drawn)
    best = max(values.values())
    return {state.game.format_move(e) for e, v in values.items() if v == best}


def two_chains_of_three() -> DotsState:
    """2 x 3 boxes, every horizontal line drawn: two chains of three boxes, nothing else."""
    game = find_game("dots-and-boxes", rows=2, cols=3)
    return position(game, *BOXES_2X3_TOP_CHAIN, "3 1 h", "3 2 h", "3 3 h")


def test_the_position_is_two_chains_worth_minus_two_to_the_opener() -> None:
    state = two_chains_of_three()
    parts = components(state.game, state.drawn)
    assert parts == (("chain", 3), ("chain", 3))
    # Opening one: the other side takes one box, hands back two, and takes all of the last.
    assert components_value(parts) == -2 == build_table(state.game, state.drawn).value(state.drawn)


def test_it_keeps_control_by_declining_the_last_two_boxes_of_a_long_chain() -> None:
    state = two_chains_of_three()
    state.play("1 1 v")  # the opponent opens the top chain at its left end
    # Taking all three and opening the other chain nets 0; taking one, handing back two
    # and then taking the whole other chain nets +2.
    assert replies(state) == {"1 2 v"} <= exact_best(state)  # take the first box
    state.play("1 2 v")
    assert replies(state) == {"1 4 v"} <= exact_best(state)  # the double-dealing move
    state.play("1 4 v")
    # The opponent double-crosses (one line takes two boxes) and must open the last chain.
    assert state.game.completed_by(state.drawn, state.game.parse_move("1 3 v")) == 2


def test_it_takes_everything_when_keeping_control_does_not_pay() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=3)
    # Top row a chain of 3; bottom row: two boxes taken, the left box a chain of 1.
    state = position(game, *BOXES_2X3_TOP_CHAIN, "3 2 h", "3 3 h", "2 2 v", "2 3 v", "2 4 v")
    state.play("1 1 v")  # opened: take all 3 and give the single box (+2), rather than
    # take 1, give 2 and get the single box back (0)
    for _ in range(3):
        assert replies(state) <= exact_best(state)
        assert replies(state) & {"1 2 v", "1 3 v", "1 4 v"} == replies(state)
        before = sum(state.scores)
        state.play(replies(state).pop())
        assert sum(state.scores) == before + 1
    assert state.owner[:3] == [state.owner[0]] * 3


def loop_and_long_chain() -> DotsState:
    """3 x 3 boxes: a loop of the four top-left boxes and a chain of five around it."""
    game = find_game("dots-and-boxes", rows=3, cols=3)
    free = {"1 2 v", "2 2 v", "2 1 h", "2 2 h",  # inside the loop
            "1 3 h", "2 3 h", "3 3 h", "3 3 v", "3 2 v", "3 1 v"}  # along the chain
    return position(game, *(game.format_move(e) for e in range(24) if game.format_move(e) not in free))


def test_an_opened_loop_is_declined_four_boxes_from_the_end_when_that_wins() -> None:
    state = loop_and_long_chain()
    assert components(state.game, state.drawn) == (("chain", 5), ("loop", 4))
    state.play("1 2 v")  # the opponent opens the loop
    groups = capture_groups(state.game, state.drawn)
    assert [(len(g.cells), g.end, g.keep) for g in groups] == [(4, "both", 4)]
    # Taking the loop and opening the chain nets 4 - 5; giving all four back and taking
    # the chain nets -4 + 5. The double-double-deal cuts the loop in the middle.
    assert replies(state) == {"2 2 v"} <= exact_best(state)


def test_forced_to_give_it_opens_a_two_chain_in_the_middle() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=3)
    # Top row a chain of 3; bottom row: the right box taken, the other two a chain of 2
    # whose free lines are the left side, the line between them, and the middle bottom.
    state = position(game, *BOXES_2X3_TOP_CHAIN, "3 1 h", "3 3 h", "2 3 v", "2 4 v")
    assert components(game, state.drawn) == (("chain", 2), ("chain", 3))
    # In the middle, the opponent cannot hand the two boxes back: it takes them and
    # opens the three (+1 for us); at an end it would decline them (-1 for us).
    assert replies(state) == {"2 2 v"} <= exact_best(state)


def test_forced_to_give_it_gives_the_short_chain_first() -> None:
    game = find_game("dots-and-boxes", rows=2, cols=3)
    state = position(game, *BOXES_2X3_TOP_CHAIN, "3 2 h", "3 3 h", "2 2 v", "2 3 v", "2 4 v")
    assert components(game, state.drawn) == (("chain", 1), ("chain", 3))
    assert replies(state) == {"2 1 v", "3 1 h"} <= exact_best(state)


@pytest.mark.parametrize(("parts", "value"), [
    ((), 0),
    ((("chain", 1),), -1),
    ((("chain", 3),), -3),
    ((("chain", 1), ("chain", 1)), 0),
    ((("chain", 3), ("chain", 3)), -2),
    ((("chain", 3), ("chain", 3), ("chain", 3)), -1),
    ((("loop", 4),), -4),
    ((("chain", 5), ("loop", 4)), -1),
])
def test_the_value_of_chains_and_loops(parts: tuple[tuple[str, int], ...], value: int) -> None:
    assert components_value(parts) == value


def test_the_triangle_board_has_chains_of_triangles() -> None:
    game = find_game("dots-and-triangles", rows=4)
    horizontal = ["2 3", "4 5", "5 6", "7 8", "8 9", "9 10"]
    state = position(game, *horizontal)
    assert components(game, state.drawn) == (("chain", 1), ("chain", 3), ("chain", 5))
    # The puzzle's answer: give the top triangle first.
    assert replies(state) <= {"1 2", "1 3"}
    assert replies(state) <= exact_best(state)


def test_a_search_over_budget_falls_back_to_the_cheapest_gift() -> None:
    state = loop_and_long_chain()
    game = state.game
    player = DoubleCross(game, search_nodes=0)
    move = player.choose(CellIndex(game, state.drawn), random.Random(0))
    assert game.format_move(move) in {"1 2 v", "2 2 v", "2 1 h", "2 2 h"}  # the loop: 4 boxes, not 5


# --- three or more seats ------------------------------------------------------------------

@pytest.mark.parametrize("parts", [
    (("chain", 3),), (("chain", 3), ("chain", 3)), (("chain", 1), ("chain", 4), ("loop", 4)),
    (("chain", 2), ("chain", 3), ("chain", 5)), (("loop", 4), ("loop", 6)),
])
def test_with_two_seats_the_vectors_are_the_net_values(parts: tuple[tuple[str, int], ...]) -> None:
    mover, other = components_vector(tuple(sorted(parts)), 2)
    assert mover - other == components_value(tuple(sorted(parts)))


def test_with_three_seats_handing_back_gives_control_to_the_seat_after_next() -> None:
    # Two chains of three. Two seats: the responder keeps control (1 + 3 against 2 for the
    # opener). Three seats: handing back would give the seat after it the two cells and make
    # that seat open the last chain for the opener; so it takes all three, and the seat after
    # it takes the last chain.
    parts = (("chain", 3), ("chain", 3))
    assert components_value(parts) == -2
    assert components_vector(parts, 3) == (0, 3, 3)


def test_with_four_seats_each_opening_is_taken_whole_and_the_tie_goes_to_the_first() -> None:
    # Seats P (opens), Q, R, S. P opens the chain: Q takes 3 (handing back 2 would leave it
    # 1, and R would open the loop for S), opens the loop, R takes 4: (0, 3, 4, 0). P opens
    # the loop: Q takes 4 (handing back all 4 leaves it none), R takes the chain: (0, 4, 3, 0).
    # Equal for P (0 each, best rival 4 each): the first, the chain.
    assert components_vector((("chain", 3), ("loop", 4)), 4) == (0, 3, 4, 0)


@pytest.mark.parametrize("seats", [3, 4])
def test_double_cross_plays_whole_games_for_n_seats(seats: int) -> None:
    for name, params in (("dots-and-boxes", {"rows": 3, "cols": 3}), ("dots-and-triangles", {"rows": 4})):
        game = find_game(name, players=seats, **params)
        rng = random.Random(seats)
        contexts = [BotContext(game=game, seat=s, rng=random.Random(s), time_ms=30_000) for s in range(seats)]
        state = game.new_state()
        while not state.is_over():
            seat = state.current_player
            move = (choose_double_cross(state, contexts[seat]) if seat == 0
                    else rng.choice(state.legal_moves()))
            state.apply(move)
        assert isinstance(contexts[0].memory["double_cross"], DoubleCrossSeats)
        assert sum(state.scores) == len(game.cells)


@pytest.mark.parametrize("seats", [3, 4])
def test_with_more_seats_it_never_sacrifices_while_a_safe_move_is_left(seats: int) -> None:
    # With two seats a sacrifice may win the chain fight; with more the cells go to the next
    # player and the turn order of the whole table decides, so it plays safe while it can.
    game = find_game("dots-and-boxes", rows=3, cols=3, players=seats)
    checked = 0
    for seed in range(12):
        rng = random.Random(seed)
        ctx = BotContext(game=game, seat=0, rng=random.Random(seed), time_ms=30_000)
        state = game.new_state()
        while not state.is_over():
            if state.current_player == 0:
                index = CellIndex(game, state.drawn)
                move = choose_double_cross(state, ctx)
                if index.safe and not index.opportunities:
                    assert move in index.safe, f"seed {seed}: sacrificed {game.format_move(move)}"
                    checked += len(index.safe) <= 10  # where it searches rather than picks at random
            else:
                move = rng.choice(state.legal_moves())
            state.apply(move)
    assert checked


def test_with_more_seats_the_safe_phase_search_takes_rivals_to_play_safe_moves_at_random() -> None:
    # A position with a few safe moves left is worth the mean of its safe moves, not the best
    # for its mover: only the decider is taken to choose (docs/bots.md, Three or more seats).
    game = find_game("dots-and-boxes", rows=3, cols=3, players=3)
    rng = random.Random(4)
    checked = 0
    for _ in range(20):
        drawn = 0
        while len(safe_edges(game, drawn)) > 4:
            drawn |= 1 << rng.choice(sorted(safe_edges(game, drawn)))
        safe = safe_edges(game, drawn)
        if not safe:
            continue
        player = DoubleCrossSeats(game)
        player._nodes_left = 10**6  # noqa: SLF001 - a search outside choose() needs its budget set
        values = player.move_values(drawn, safe)
        assert player.quiet_value(drawn) == mean_vector(values.values())
        checked += len(set(values.values())) > 1
    assert checked > 0  # somewhere the mean is not every child's value
