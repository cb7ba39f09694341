"""Perfect play for the dots games, within the clock.

The player keeps one exact table per game (see `exact`). On the first move it loads the
whole-board table from the disk cache, or solves it when the estimated solve time fits
in its share of the remaining clock (the 4-row triangle board and 3 x 3 boxes always
do under the default 30 s). On bigger boards it plays double-cross until the free edges
are few enough to solve the rest within the clock, then plays exactly for the rest of the
game. Every move is logged on stderr: `value V margin M move TEXT` for exact moves (V is
the net score the move reaches over the cells not yet taken, M the final score margin
over the other seat that it guarantees), `heuristic move TEXT (...)` otherwise.

With three or more seats "exact" means max-n (see `exact`): every player takes the most
cells it can for itself, ties broken deterministically. The log line is then
`max-n cells C move TEXT expects A=a B=b ...`: the cells the move takes from here for
the mover, and every seat's final score if all play max-n from here. While safe moves
are left (and nothing can be captured) it plays the safe move with the most cells
expected when its rivals play their safe moves at random and everyone plays max-n once
no safe move is left (docs/bots.md, *Three or more seats: max-n*), logged as
`safe move TEXT expects A=a.a B=b.b ...`.
"""
from __future__ import annotations

import re
import time

from arbiter.bot import BotContext
from arbiter.games import GameError
from arbiter.games.dots import DotsGame, DotsState, owner_letter
from arbiter.games.dots_and_triangles import DotsAndTriangles

from . import NODES_ONLY
from .cell_index import tracked_index
from .double_cross import (DEFAULT_TIME_MS, DoubleCross, SearchBudgetExceeded, decision_time_limit_s,
                           double_cross_player, safe_edges)

# The solver (.exact) needs numpy, a tenth of a second to import: it is imported when a table
# is first wanted, not at the bot's start. `typing` and `dataclasses` are left out for the
# same reason (arbiter/games/base.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

    from .exact import ExactTable, MaxnTable

# Solver speed assumed when budgeting a solve: well under the 10-40 M states/s that
# benchmarks/bench_solver.py measures on 2^18-2^24 states, to allow for a loaded machine.
BUDGET_STATES_PER_S = 4_000_000
BUILD_SHARE = 0.5  # at most this share of the remaining clock (or of move_ms) goes into one solve
MAX_EXACT_EDGES = 26  # 2^26 int8 values = 64 MiB; beyond that, memory rather than time binds
# A max-n state costs more than a two-seat one: a vector of one int8 per seat, and a rotation,
# a key and a selection per edge. benchmarks/bench_solver.py measures 3 to 7.5 times the time
# of a two-seat solve for 3 and 4 seats (7.5 on 3 x 3 boxes, 3 seats). Budgeting 2.5 two-seat
# states per seat keeps the two-seat budget's margin (BUDGET_STATES_PER_S is 3 to 10 times
# below the measured speed). With 1 per seat, 3 x 3 boxes for 3 seats was solved on the first
# move, and at load average 24 on 2 cores that solve took 37 s of a 30 s clock.
MAXN_COST_PER_SEAT = 2.5

VALUE_LINE = re.compile(r"value (-?\d+) margin (-?\d+) move (.+)")
MAXN_LINE = re.compile(r"max-n cells (\d+) move (.+) expects ((?:[A-Z]=\d+ ?)+)")
SAFE_LINE = re.compile(r"safe move (.+) expects ((?:[A-Z]=\d+\.\d ?)+)")
# The safe-phase search values at most this many positions per decision, within double-cross's
# time share (decision_time_limit_s); beyond, the move is double-cross's (a random safe move
# while more than SAFE_SEARCH_MOVES are left). From 18 free edges of 3 x 3 boxes
# (--exact-edges 20, three seats) it needs a few thousand.
SAFE_PHASE_NODES = 50_000


class PerfectPlayer:
    """One game of exact play: the table in use, the clock spent, the fallback player."""

    def __init__(self, game: DotsGame, max_exact_edges: int = MAX_EXACT_EDGES,
                 board_tables: dict[str, ExactTable] | None = None) -> None:
        self.game = game
        self.max_exact_edges = max_exact_edges
        self.table: ExactTable | None = None
        self.used_s = 0.0  # time spent choosing moves so far
        self.board_checked = False  # whether the whole-board table was tried already
        # Whole-board tables by board key, shared by the games of one process (--serve, benchmarks).
        self.board_tables: dict[str, ExactTable] = {} if board_tables is None else board_tables
        self.fallback: DoubleCross | None = None

    def choose(self, state: DotsState, ctx: BotContext) -> int:
        """The move to play, logged with its value (or as heuristic)."""
        started = time.monotonic()
        try:
            return self._choose(state, ctx)
        finally:
            if not NODES_ONLY:  # else the tables are sized by the whole clock, on any machine alike
                self.used_s += time.monotonic() - started

    def _choose(self, state: DotsState, ctx: BotContext) -> int:
        drawn = state.drawn
        if self.table is None or not self.table.covers(drawn):
            self.table = self._find_table(drawn, ctx)
        if self.table is None:
            if self.fallback is None:
                self.fallback = double_cross_player(self.game)
            limit_s = decision_time_limit_s(ctx.time_ms, self.used_s, ctx.move_ms)
            move = self.fallback.choose(tracked_index(self.game, drawn, ctx.memory), ctx.rng, limit_s)
            free = len(self.game.edges) - drawn.bit_count()
            cap = self.max_free_edges()
            why = ("to solve within the clock" if free <= cap
                   else f"to solve at once (at most {cap}, --exact-edges)")
            ctx.log(f"heuristic move {self.game.format_move(move)} "
                    f"(double-cross: {free} free edges are too many {why})")
            return move
        from .exact import MaxnTable  # imported by now: there is a table

        if isinstance(self.table, MaxnTable):
            return self._choose_maxn(state, self.table, ctx)
        values = self.table.move_values(drawn)
        best = max(values.values())
        move = ctx.rng.choice(sorted(edge for edge, value in values.items() if value == best))
        me = state.current_player
        margin = state.scores[me] - state.scores[1 - me] + best
        ctx.log(f"value {best} margin {margin} move {self.game.format_move(move)}")
        return move

    def _choose_maxn(self, state: DotsState, table: MaxnTable, ctx: BotContext) -> int:
        """The max-n move, or while safe moves are left the safe move best against rivals
        playing theirs at random: deterministic, so no random choice among equals here."""
        drawn = state.drawn
        game = self.game
        if not tracked_index(game, drawn, ctx.memory).opportunities:
            safe = safe_edges(game, drawn)
            if safe:
                return self._choose_safe(state, table, sorted(safe), ctx)
        move, vector = table.best_move(state.drawn)
        me, seats = state.current_player, table.players
        finals = state.scores
        for offset, cells in enumerate(vector):
            finals[(me + offset) % seats] += cells
        expects = " ".join(f"{owner_letter(seat)}={final}" for seat, final in enumerate(finals))
        ctx.log(f"max-n cells {vector[0]} move {self.game.format_move(move)} expects {expects}")
        return move

    def _choose_safe(self, state: DotsState, table: MaxnTable, safe: list[int], ctx: BotContext) -> int:
        """The safe move that expects the most cells (then the fewest for the best rival, then
        the lowest edge) when the rivals play safe moves uniformly at random while any are
        left, and everyone plays max-n from the first position without one."""
        limit_s = decision_time_limit_s(ctx.time_ms, self.used_s, ctx.move_ms)
        try:
            deadline = float("inf") if NODES_ONLY else time.monotonic() + limit_s
            expected = SafePhase(table, state.drawn, deadline).move_vectors(safe)
        except SearchBudgetExceeded:
            if self.fallback is None:
                self.fallback = double_cross_player(self.game)
            move = self.fallback.choose(tracked_index(self.game, state.drawn, ctx.memory), ctx.rng, limit_s)
            ctx.log(f"heuristic move {self.game.format_move(move)} (double-cross: more than "
                    f"{SAFE_PHASE_NODES} positions, or {limit_s:.2f} s, to the end of the safe moves)")
            return move
        move = max(safe, key=lambda edge: (expected_rank(expected[edge]), -edge))
        me, seats = state.current_player, table.players
        finals = [float(score) for score in state.scores]
        for offset, cells in enumerate(expected[move]):
            finals[(me + offset) % seats] += cells
        expects = " ".join(f"{owner_letter(seat)}={final:.1f}" for seat, final in enumerate(finals))
        ctx.log(f"safe move {self.game.format_move(move)} expects {expects}")
        return move

    def max_free_edges(self) -> int:
        """The most free edges one table may have: `max_exact_edges` for two seats; with more,
        fewer, so the table (an int8 plane per seat) stays within 2^max_exact_edges bytes."""
        planes = 1 if self.game.num_players == 2 else self.game.num_players
        return self.max_exact_edges - (planes - 1).bit_length()  # minus ceil(log2(planes))

    def _find_table(self, drawn: int, ctx: BotContext) -> ExactTable | None:
        """A table covering the position, if one can be had within the clock."""
        from .exact import board_key, cached_board_table, save_board_table

        game = self.game
        time_ms = ctx.time_ms if ctx.time_ms is not None else DEFAULT_TIME_MS
        allowance_s = (time_ms / 1000 - self.used_s) * BUILD_SHARE
        if ctx.move_ms is not None:  # a per-move cap binds the solve too
            allowance_s = min(allowance_s, ctx.move_ms / 1000 * BUILD_SHARE)
        edges = len(game.edges)
        players = game.num_players
        if not self.board_checked and edges <= self.max_free_edges():
            self.board_checked = True
            key = board_key(game)
            table = self.board_tables.get(key)
            if table is not None:
                ctx.log(f"exact play: whole-board table ({edges} edges) kept from an earlier game")
                return table
            table = cached_board_table(game)
            if table is not None:
                ctx.log(f"exact play: whole-board table ({edges} edges) loaded from the cache")
            elif solve_seconds(edges, players) <= allowance_s:
                table, seconds = timed_build(game, 0)
                saved = save_board_table(table)
                ctx.log(f"exact play: solved the whole board (2^{edges} states) in {seconds:.2f} s"
                        + (f", cached in {saved}" if saved else ", cache not writable"))
            if table is not None:
                self.board_tables[key] = table
                return table
        free = edges - drawn.bit_count()
        if free <= self.max_free_edges() and solve_seconds(free, players) <= allowance_s:
            table, seconds = timed_build(game, drawn)
            ctx.log(f"exact play from here: solved the {free} free edges (2^{free} states) in {seconds:.2f} s")
            return table
        return None


class SafePhase:
    """Expected cells to the end of the safe moves, by search from one position: the player
    deciding picks its best safe move (`expected_rank`), each rival one of its safe moves
    uniformly at random (as greedy and double-cross do while many are left), and from the
    first position without a safe move every seat plays max-n (the table's vector)."""

    def __init__(self, table: MaxnTable, drawn: int, deadline: float) -> None:
        self.table = table
        self.deadline = deadline  # time.monotonic() past which the search gives up
        self.root = drawn
        self.players = table.players
        self.memo: dict[tuple[int, int], tuple[float, ...]] = {}
        self.nodes_left = SAFE_PHASE_NODES

    def move_vectors(self, safe: list[int]) -> dict[int, tuple[float, ...]]:
        """Each safe move of the deciding player with the cells each seat is expected to take
        after it, counted from the decider round the table."""
        drawn = self.root
        return {edge: self.vector(drawn | (1 << edge), 1) for edge in safe}

    def vector(self, drawn: int, turn: int) -> tuple[float, ...]:
        """Expected cells from here, counted from the decider; `turn` is the mover's offset from it."""
        key = (drawn, turn)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.nodes_left -= 1
        if self.nodes_left < 0 or (self.nodes_left % 64 == 0 and time.monotonic() > self.deadline):
            raise SearchBudgetExceeded
        seats = self.players
        safe = safe_edges(self.table.game, drawn)
        if not safe:
            cells = self.table.vector(drawn)  # counted from the mover
            result = tuple(float(cells[(seat - turn) % seats]) for seat in range(seats))
        else:
            children = [self.vector(drawn | (1 << edge), (turn + 1) % seats) for edge in sorted(safe)]
            if turn == 0:
                result = max(children, key=expected_rank)
            else:
                result = tuple(sum(child[seat] for child in children) / len(children) for seat in range(seats))
        self.memo[key] = result
        return result


def expected_rank(vector: tuple[float, ...]) -> tuple[float, float]:
    """How the decider ranks expected cells: its own, then the fewest for its best rival."""
    return vector[0], -max(vector[1:])


def solve_seconds(free: int, players: int) -> float:
    """The time a solve of 2^free states is budgeted at, for this many seats."""
    per_state = 1.0 if players == 2 else MAXN_COST_PER_SEAT * players
    return (1 << free) * per_state / BUDGET_STATES_PER_S


def timed_build(game: DotsGame, drawn: int) -> tuple[ExactTable, float]:
    """Solve a table and say how long it took (seconds)."""
    from .exact import build_table

    started = time.perf_counter()
    table = build_table(game, drawn)
    return table, time.perf_counter() - started


def make_perfect_chooser(max_exact_edges: int = MAX_EXACT_EDGES):
    """A bot-kit chooser playing perfectly (max-n for three or more seats)."""
    board_tables: dict[str, ExactTable] = {}

    def choose(state: DotsState, ctx: BotContext) -> int:
        player = ctx.memory.get("perfect")
        if not isinstance(player, PerfectPlayer) or player.game is not state.game:
            player = PerfectPlayer(state.game, max_exact_edges, board_tables=board_tables)
            ctx.memory["perfect"] = player
        return player.choose(state, ctx)

    return choose


choose_perfect = make_perfect_chooser()


def triangle_war(lines: Iterable[str]) -> list[str]:
    """Solve the classic Triangle War problem: who wins each game under perfect play from there.

    Input: the number of games; for each game the number of moves m (0 <= m <= 18) and m
    lines `i j` (the dots of each move, A moving first). Output: `Game k: A wins.` or
    `Game k: B wins.` per game. Raises ValueError naming the game and line of bad input.
    """
    from .exact import board_table

    game = DotsAndTriangles(rows=4)
    table: ExactTable | None = None
    numbered = [(n, line.strip()) for n, line in enumerate(lines, 1) if line.strip()]
    cursor = iter(numbered)

    def next_int(what: str) -> int:
        try:
            number, text = next(cursor)
        except StopIteration:
            raise ValueError(f"input ends where {what} was expected") from None
        if not re.fullmatch(r"\d+", text):
            raise ValueError(f"line {number}: expected {what}, got {text!r}")
        return int(text)

    results = []
    for k in range(1, next_int("the number of games") + 1):
        moves = next_int(f"the number of moves of game {k}")
        if moves > len(game.edges):
            raise ValueError(f"game {k}: {moves} moves, but the board has only {len(game.edges)} edges")
        state = game.new_state()
        for _ in range(moves):
            try:
                number, text = next(cursor)
            except StopIteration:
                raise ValueError(f"game {k}: input ends before its {moves} moves") from None
            try:
                state.play(" ".join(text.split()))
            except GameError as exc:
                raise ValueError(f"line {number} (game {k}): {exc}") from None
        if table is None:
            table = board_table(game)
        rest = table.value(state.drawn)  # for the player to move; 0 once the board is full
        margin_a = state.scores[0] - state.scores[1] + (rest if state.current_player == 0 else -rest)
        # Nine triangles: the margin is odd, never a tie.
        results.append(f"Game {k}: {'A' if margin_a > 0 else 'B'} wins.")
    return results
