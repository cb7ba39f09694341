"""Answers each line it is sent with at most one move, so after completing a cell it waits
instead of moving again (`arbiter check`: extra-move)."""
import sys

from misbehave import first_legal

from arbiter.bot import parse_game_line

state = seat = None
forced = 0
for raw in sys.stdin:
    line = raw.strip()
    if line == "Quit":
        break
    if line.startswith("Game "):
        game, said = parse_game_line(line)
        state, seat = game.new_state(), said.seat
        continue
    if line.startswith("Opening "):
        forced = int(line.split()[1])
        continue
    if line != "Start":
        state.play(line)
    if forced:
        forced -= 1
        continue
    if not state.is_over() and state.current_player == seat:
        move = first_legal(state)
        print(move, flush=True)
        state.play(move)  # one move per line received, even when the turn goes on
