#!/usr/bin/env python3
"""The referee's own cost per move, beside a bare pipe ping-pong in the same run.

- Baseline: this process and an echo process exchange one line at a time over pipes
  (raw os.read/os.write here; the echo's loop is the same as the game bots'). The round
  trip per line is the physical floor of a move: the arbiter hands over the turn and
  reads the move, one round trip.
- Refereed: `play_game` on limit-nim with one pile of N stones and limit 1, so every move
  is `1 1`, between two bots that answer at once (the same loop as the echo). Per move:
  the time between turns (from `on_turn` timestamps), the bot's share of it (the move's
  recorded `wall_ms`: from handing the turn over to the move's arrival, pipe transfer
  included), and the arbiter's own overhead = the difference, move by move. With and
  without suspension (SIGSTOP/SIGCONT around every turn).
- Medians throughout: on a shared machine the means carry other people's load spikes.
- Cut-off: a bot that sleeps through its turn with a 200 ms budget; how far past the
  budget the referee declares the timeout (its `time_used_ms`, measured from the hand-off).

Run: python benchmarks/bench_referee.py [--moves 1000] [--repeats 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arbiter.games import find_game  # noqa: E402
from arbiter.referee import PlayerSpec, TimeControl, play_game  # noqa: E402

# Answers `Start` and every `1 1` with `1 1` while stones are left; skips Game/Opening lines.
TAKER = r"""
import os, sys
stones = int(os.environ["STONES"])
out = sys.stdout
for line in sys.stdin:
    if line == "1 1\n":
        stones -= 1
    elif line == "Quit\n":
        break
    elif line != "Start\n":
        continue
    if stones > 0:
        out.write("1 1\n")
        out.flush()
        stones -= 1
"""
ECHO = r"""
import sys
out = sys.stdout
for line in sys.stdin:
    out.write(line)
    out.flush()
"""
SLEEPER = "import time\ntime.sleep(3600)\n"


def ping_pong_us(exchanges: int) -> list[float]:
    """Microseconds of each round trip of one line between this process and an echo process."""
    echo = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert echo.stdin is not None and echo.stdout is not None
    write_fd, read_fd = echo.stdin.fileno(), echo.stdout.fileno()
    line = b"1 1\n"
    for _ in range(50):  # warm up
        os.write(write_fd, line)
        os.read(read_fd, 64)
    trips = []
    for _ in range(exchanges):
        started = time.perf_counter()
        os.write(write_fd, line)
        os.read(read_fd, 64)
        trips.append((time.perf_counter() - started) * 1e6)
    echo.stdin.close()
    echo.wait()
    return trips


def refereed_us(moves: int, suspend_idle: bool) -> tuple[list[float], list[float]]:
    """Per move of one game of `moves` moves: (microseconds between turns, the bot's share)."""
    game = find_game("limit-nim", piles=f"{moves}/1")
    taker = PlayerSpec(name="taker", command=(sys.executable, "-c", TAKER), env={"STONES": str(moves)})
    stamps: list[float] = []
    record = play_game(game, [taker, taker], time=TimeControl(time_ms=600000, suspend_idle=suspend_idle),
                       on_turn=lambda state: stamps.append(time.perf_counter()))
    assert record.termination.value == "normal" and len(record.moves) == moves, record.detail
    # Turns 2..N (the first includes the bots' start-up); each turn is one move here.
    between_us = [(b - a) * 1e6 for a, b in zip(stamps, stamps[1:])]
    bots_us = [m.wall_ms * 1000 for m in record.moves[1:]]
    return between_us, bots_us


def cut_off_ms(budget_ms: int) -> float:
    """How long past `budget_ms` the referee took to declare a sleeping bot's timeout."""
    sleeper = PlayerSpec(name="sleeper", command=(sys.executable, "-c", SLEEPER))
    taker = PlayerSpec(name="taker", command=(sys.executable, "-c", TAKER), env={"STONES": "10"})
    record = play_game(find_game("limit-nim", piles="10/1"), [sleeper, taker], time=TimeControl(time_ms=budget_ms))
    assert record.termination.value == "timeout" and record.offender == 0, record.detail
    return record.time_used_ms[0] - budget_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=1000, help="moves per refereed game (and exchanges per ping-pong)")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each; medians are reported")
    parser.add_argument("--budget-ms", type=int, default=200, help="the sleeping bot's budget")
    args = parser.parse_args()

    bare: list[float] = []
    games: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}
    cuts = []
    for _ in range(args.repeats):  # interleaved, so a load spike hits every kind alike
        bare += ping_pong_us(args.moves)
        for suspend_idle in (True, False):
            between, bots = refereed_us(args.moves, suspend_idle)
            games[suspend_idle][0].extend(between)
            games[suspend_idle][1].extend(bots)
        cuts.append(cut_off_ms(args.budget_ms))

    floor_us = statistics.median(bare)
    print(f"bare pipe ping-pong: {floor_us:.1f} us per round trip "
          f"(median of {len(bare)}; mean {statistics.fmean(bare):.1f})")
    print()
    print("| refereed game, medians per move | per move (us) | bot's share (us) | arbiter overhead (us) "
          "| overhead / ping-pong | per move / ping-pong |")
    print("|---|---|---|---|---|---|")
    for suspend_idle, label in ((True, "suspend_idle: true (default)"), (False, "suspend_idle: false")):
        between, bots = games[suspend_idle]
        per_move = statistics.median(between)
        share = statistics.median(bots)
        overhead = statistics.median(b - w for b, w in zip(between, bots))  # paired, move by move
        print(f"| {label} | {per_move:.1f} | {share:.1f} | {overhead:.1f} | {overhead / floor_us:.2f}x "
              f"| {per_move / floor_us:.2f}x |")
    print()
    print(f"sleeping bot, {args.budget_ms} ms budget: cut off {statistics.median(cuts):.2f} ms past it "
          f"(median; max {max(cuts):.2f} ms; {args.repeats} runs)")


if __name__ == "__main__":
    main()
