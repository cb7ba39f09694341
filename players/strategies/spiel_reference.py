"""The reference strategies for OpenSpiel's games: a short search over OpenSpiel's own state
(`state.spiel_state`, whose clone and apply_action run in C++) with an evaluation written for
the game. Each returns the OpenSpiel action to play; ties are broken by the bot's random
generator, so a seed fixes the moves.

- chess: alpha-beta to a fixed depth in plies (checkmate and draws are the game's own ends,
  found by the search), on material read from the FEN, plus pawns' advance and, once one side
  is far ahead, the losing king driven to the edge and the winning king brought near it (so
  that a won ending is mated rather than drawn by the fifty-move rule).
- backgammon: one ply, the mover's dice being known: the legal move whose position is best by
  the race (pip counts), checkers borne off, the opponent's checkers on the bar, points made
  (home board and blocking points) and the mover's blots within the opponent's reach.
- chinese checkers: the mover's own moves searched to a fixed depth (a jump that may go on is
  the same player's next action), by how far its pieces are from the far tip of the corner
  opposite its home (the corner it must fill), with a charge for its last piece's lag.

`SEARCHED` names the games with an evaluation; the bot plays any other with MCTS.
"""
from __future__ import annotations

TYPE_CHECKING = False  # `typing` is for type checkers: it would cost every bot start (arbiter/games/base.py)
if TYPE_CHECKING:
    import random
    from typing import Any

SEARCHED = ("chess", "backgammon", "chinese_checkers")

# --- chess --------------------------------------------------------------------------------

PIECE_CP = {"p": 100, "n": 320, "b": 330, "r": 500, "q": 900}  # centipawns
# Every character of a FEN's board, as centipawns for white: a piece's value, +/- by its colour.
_SIGNED_CP = {**{char: 0 for char in "12345678/kK"}, **{piece: -value for piece, value in PIECE_CP.items()},
              **{piece.upper(): value for piece, value in PIECE_CP.items()}}
MATE_CP = 100_000  # a win at the root; a win found deeper scores less (a quicker mate first)
WINNING_CP = 400  # a lead from which the loser's king is hunted
PAWN_STEP_CP = 8  # for each rank a pawn has advanced


def chess_eval(fen: str, white: bool) -> int:
    """The position for one side, in centipawns: material, pawns' advance and, for a side far
    ahead, its king near the other's and the other's king near the edge."""
    board = fen[:fen.index(" ")]
    material = sum(map(_SIGNED_CP.__getitem__, board))
    ranks = board.split("/")  # rank 8 first: white's pawns advance up the list, black's down
    advance = 0
    for index, row in enumerate(ranks):
        if "P" in row:
            advance += (6 - index) * row.count("P")
        if "p" in row:
            advance -= (index - 1) * row.count("p")
    advance *= PAWN_STEP_CP
    score = material + advance
    if abs(material) >= WINNING_CP:
        winner = material > 0
        (lf, lr), (wf, wr) = _square(ranks, "k" if winner else "K"), _square(ranks, "K" if winner else "k")
        edge = max(abs(2 * lf - 7), abs(2 * lr - 7))  # 1 in the middle, 7 on the edge
        near = max(abs(lf - wf), abs(lr - wr))  # king steps between the kings
        hunt = 10 * edge + 6 * (7 - near)
        score += hunt if winner else -hunt
    return score if white else -score


def _square(ranks: list[str], piece: str) -> tuple[int, int]:
    """(file, rank), 0 to 7, of a piece that is on the board once (a king)."""
    for index, row in enumerate(ranks):
        if piece in row:
            file = 0
            for char in row:
                if char == piece:
                    return file, 7 - index
                file += int(char) if char.isdigit() else 1
    raise ValueError(f"no {piece} in the FEN")


def chess_choice(spiel: Any, rng: random.Random, depth: int) -> int:
    """The best action by alpha-beta to `depth` plies, random among equals."""
    me = spiel.current_player()
    scored = [(-_negamax(spiel.child(action), 1 - me, depth - 1, -2 * MATE_CP, 2 * MATE_CP, 1), action)
              for action in _ordered(spiel)]
    best = max(score for score, _ in scored)
    return rng.choice([action for score, action in scored if score == best])


def _negamax(spiel: Any, player: int, depth: int, alpha: int, beta: int, ply: int) -> int:
    """The value of `spiel` for `player`, who is to move there (OpenSpiel's chess: 1 white,
    0 black), by alpha-beta to `depth` more plies."""
    if spiel.is_terminal():
        return int(spiel.returns()[player]) * (MATE_CP - ply)
    if depth == 0:
        return chess_eval(str(spiel), player == 1)
    best = -2 * MATE_CP
    for action in _ordered(spiel):
        value = -_negamax(spiel.child(action), 1 - player, depth - 1, -beta, -alpha, ply + 1)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def _ordered(spiel: Any) -> list[int]:
    """Legal actions, captures and promotions first (alpha-beta cuts more)."""
    player = spiel.current_player()
    actions = spiel.legal_actions()
    return sorted(actions, key=lambda a: 0 if "x" in (text := spiel.action_to_string(player, a)) or "=" in text
                  else 1)


# --- backgammon ---------------------------------------------------------------------------

POINTS = 24
BAR_PIPS = 25
OFF_POINTS = 10.0  # a checker borne off, beyond the pips it saved
HIT_POINTS = 6.0  # an opponent's checker on the bar, beyond the pips it lost
HOME_POINT = 6.0  # a point made in the home board
BLOCK_POINT = 3.0  # a point made elsewhere in front of an opponent's checker
BLOT_RISK = 0.5  # of the pips a blot has travelled, times its chance of being hit


def backgammon_choice(spiel: Any, rng: random.Random) -> int:
    """The legal move after which the mover's position evaluates best."""
    me = spiel.current_player()
    scored = [(backgammon_eval(spiel.child(action), me), action) for action in spiel.legal_actions()]
    best = max(score for score, _ in scored)
    return rng.choice([action for score, action in scored if score == best])


def backgammon_eval(spiel: Any, me: int) -> float:
    """A backgammon position for player `me` (0 moves up the board, 1 down), in about pips."""
    if spiel.is_terminal():
        return 1e6 * spiel.returns()[me]
    other = 1 - me
    mine = [spiel.board(me, point) for point in range(POINTS)]
    theirs = [spiel.board(other, point) for point in range(POINTS)]
    tensor = spiel.observation_tensor(me)  # ... bar, off, turn of `me`, then of the other
    my_bar, my_off, their_bar, their_off = (round(tensor[k]) for k in (192, 193, 195, 196))
    # Distance to go: 0 moves from point 0 to 23 and off, 1 the other way.
    to_go = (lambda p: POINTS - p) if me == 0 else (lambda p: p + 1)
    their_to_go = (lambda p: p + 1) if me == 0 else (lambda p: POINTS - p)
    my_pips = BAR_PIPS * my_bar + sum(n * to_go(p) for p, n in enumerate(mine))
    their_pips = BAR_PIPS * their_bar + sum(n * their_to_go(p) for p, n in enumerate(theirs))
    score = their_pips - my_pips + OFF_POINTS * (my_off - their_off) + HIT_POINTS * their_bar
    # Their checkers, by how far each still has to go (the bar: farthest).
    their_distances = [their_to_go(p) for p, n in enumerate(theirs) if n] + ([BAR_PIPS] if their_bar else [])
    for point, count in enumerate(mine):
        if count >= 2:
            if to_go(point) <= 6:
                score += HOME_POINT
            elif any(d > their_to_go(point) for d in their_distances):
                score += BLOCK_POINT
        elif count == 1:
            # Hit by a checker that has it ahead: their distance to go past it, 1 to 24 pips away.
            gaps = [d - their_to_go(point) for d in their_distances if d > their_to_go(point)]
            chance = sum(_hit_chance(g) for g in gaps)
            score -= BLOT_RISK * min(1.0, chance) * (BAR_PIPS - to_go(point)) + 2.0 * min(1.0, chance)
    return score


def _hit_chance(gap: int) -> float:
    """About the chance that one checker `gap` pips away hits a blot on the next roll."""
    if gap <= 6:
        return 11 / 36 + (1 / 36 if gap <= 4 else 0)
    if gap <= 12:
        return 3 / 36
    return 1 / 36 if gap <= 24 else 0.0


# --- Chinese checkers ---------------------------------------------------------------------

LAG_WEIGHT = 2  # the last piece's distance counts this much beyond the sum
CORNER_STEPS = 3  # a corner's cells are those within 3 steps of its tip (10 of them)
TRAP_STEPS = 30  # a rival's piece walled in the mover's target corner counts this many steps
MAX_JUMPS = 8  # a chain of jumps is searched this far ahead, the rest played on the next action


def board_cells(text: str) -> list[tuple[int, int, str]]:
    """OpenSpiel's Chinese checkers picture as its cells in OpenSpiel's numbering: (row,
    column of the character in the line, what is on it: '.' or the player's number + 1)."""
    cells = []
    for row, line in enumerate(text.splitlines()):
        if line.startswith("Player"):
            break
        cells += [(row, column, char) for column, char in enumerate(line) if char != " "]
    return cells


def hex_steps(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Steps between two cells of the picture, whose neighbours are 2 columns apart on a row
    and 1 column apart on the next row (doubled-width hexagonal coordinates)."""
    rows, columns = abs(a[0] - b[0]), abs(a[1] - b[1])
    return rows + max(0, (columns - rows) // 2)


def target_tips(initial: str, players: int) -> list[tuple[int, int]]:
    """Each player's target: the tip of the corner opposite its home, the cell of the board
    farthest from its home's pieces."""
    cells = board_cells(initial)
    tips = []
    for player in range(players):
        home = [(r, c) for r, c, char in cells if char == str(player + 1)]
        tips.append(max(((r, c) for r, c, _ in cells), key=lambda cell: min(hex_steps(cell, h) for h in home)))
    return tips


def chinese_checkers_eval(text: str, player: int, tip: tuple[int, int]) -> int:
    """How far `player`'s pieces are from its target tip (lower is better): their steps
    summed, plus the farthest one's again LAG_WEIGHT times (no piece left behind), plus
    TRAP_STEPS for each other player's piece in its target corner with no free cell beside it.
    The game is won only with every cell of the corner its own: a piece walled in there by the
    mover's own would keep it from winning for good."""
    mark = str(player + 1)
    board = {(r, c): char for r, c, char in board_cells(text)}
    steps = [hex_steps(cell, tip) for cell, char in board.items() if char == mark]
    score = sum(steps) + LAG_WEIGHT * max(steps)
    for (r, c), char in board.items():
        if char not in (".", mark) and hex_steps((r, c), tip) <= CORNER_STEPS:
            if all(board.get(cell) != "." for cell in ((r, c - 2), (r, c + 2), (r - 1, c - 1), (r - 1, c + 1),
                                                        (r + 1, c - 1), (r + 1, c + 1))):
                score += TRAP_STEPS
    return score


def chinese_checkers_choice(spiel: Any, rng: random.Random, tips: list[tuple[int, int]]) -> int:
    """The action after which the mover's best way to end its turn (a jump may go on, as the
    same player's next action, or stop: `Pass`) leaves its pieces nearest its target."""
    me = spiel.current_player()
    tip = tips[me]

    def value(state: Any, steps_left: int) -> float:
        if state.is_terminal():
            return -1e6 * state.returns()[me]
        if state.current_player() != me or steps_left == 0:
            return chinese_checkers_eval(str(state), me, tip)
        return min(value(state.child(a), steps_left - 1) for a in state.legal_actions())

    scored = [(value(spiel.child(action), MAX_JUMPS), action) for action in spiel.legal_actions()]
    best = min(score for score, _ in scored)
    return rng.choice([action for score, action in scored if score == best])
