"""Every verdict the referee gives, and its wording, in one place.

A game ends with a `Verdict`: how (`Termination`), who is at fault (a seat, or None) and the
sentence the record keeps as its `detail` (docs/records.md). The functions here are the only
place those sentences are written, so that the record, `arbiter play`, `arbiter check` (which
finds some of them by their words: `STARTUP_TIMEOUT`) and the docs say the same thing.
`label` is a seat as people read it: `seat 0 (random)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .records import Termination
from .seat_clock import CPU_CLOCK_WALL_FACTOR, Limit, TimeControl

STARTUP_TIMEOUT = "did not finish starting within"  # the detail of a start-up timeout, before its limit
RULES_FAILED = "the rules of"  # a void game's detail when its rules raised, before the game's name
EXCEPTION_CHARS = 400  # at most this much of an exception's message is kept in a detail


@dataclass(frozen=True)
class Verdict:
    """How a game ended, who is at fault (None: no one), and the sentence that says so."""

    termination: Termination
    offender: int | None
    detail: str


def game_over(labels: Sequence[str], scores: Sequence[int], winner: int | None, outcome: str | None) -> Verdict:
    """The game ended by its rules."""
    text = ", ".join(f"{label} {score}" for label, score in zip(labels, scores))
    result = "a draw" if winner is None else f"{labels[winner]} wins"
    return Verdict(Termination.NORMAL, None, f"the game ended: {text}; {result}" + (f" ({outcome})" if outcome else ""))


# --- the rules' own failures: no one's fault --------------------------------------------

def rules_failed(game: str, where: str, exc: BaseException) -> Verdict:
    """The game's rules raised (`where`: `at move 38`): the game is void, no bot is blamed."""
    text = " ".join(str(exc).split())
    if len(text) > EXCEPTION_CHARS:
        text = text[:EXCEPTION_CHARS] + "..."
    return Verdict(Termination.VOID, None, f"{RULES_FAILED} {game} failed {where}: {type(exc).__name__}"
                                           + (f": {text}" if text else ""))


def unreadable_notation(game: str, where: str, label: str, text: str, why: str) -> Verdict:
    """The bot played a legal move as the rules write it, and the rules' parser refused it."""
    return Verdict(Termination.VOID, None, f"{RULES_FAILED} {game} failed {where}: {label} played {text[:80]!r}, "
                                           f"a legal move as the rules write it, which their own parser refuses "
                                           f"({why})")


# --- faults: the offender loses ---------------------------------------------------------

def could_not_start(seat: int, label: str, error: object) -> Verdict:
    """The bot's command could not be launched."""
    return Verdict(Termination.CRASH, seat, f"{label} could not be started: {error}")


def startup_timeout(seat: int, label: str, startup_ms: int) -> Verdict:
    """The bot was still starting (not yet waiting for its input) at its start-up limit."""
    return Verdict(Termination.TIMEOUT, seat, f"{label} {STARTUP_TIMEOUT} {startup_ms} ms (it never waited for its input)")


def not_reading(seat: int, label: str) -> Verdict:
    """The bot's input stayed full past the hand-over's deadline."""
    return Verdict(Termination.TIMEOUT, seat,
                   f"{label} did not read its input: the arbiter could not hand it the turn in time")


# The hints a fault's sentence ends with where the likely cause is a first bot's mistake, as
# `arbiter check` gives them (docs/writing-a-bot.md): the same words under play, match and run.
NEVER_FLUSHED_HINT = ("it wrote no move all game: a bot that prints its move must flush its output after each "
                      "line (docs/writing-a-bot.md)")
CODECUP_DIALECT_HINT = ("a bot written for the codecup dialect reads the `Game` line as the other seat's move: "
                        "run it with `dialect: codecup` (--dialect codecup; docs/codecup.md)")
STDOUT_HINT = "write only moves on stdout; debug text goes to stderr"


def timeout(seat: int, label: str, limit: Limit, time: TimeControl, move_used_ms: float, used_ms: float, *,
            silent: bool = False) -> Verdict:
    """The bot ran out of time; `limit` says which limit it broke first (`SeatClock.limit_broken`);
    `silent`: it had written nothing all game (an unflushed output, most likely)."""
    unit = "ms of CPU time" if time.clock == "cpu" else "ms"
    if limit == "move":
        detail = f"took longer than its per-move cap of {time.move_ms} {unit} (cut off after {move_used_ms:.1f} {unit})"
    elif limit == "game":
        detail = f"ran out of time: it had {time.time_ms} {unit} for the game and was cut off after {used_ms:.1f} {unit}"
    else:
        detail = (f"ran out of time: under the CPU clock its wall time reached {CPU_CLOCK_WALL_FACTOR}x its "
                  "remaining budget without a move (it was blocked, not computing)")
    return Verdict(Termination.TIMEOUT, seat, f"{label} {detail}" + (f"; {NEVER_FLUSHED_HINT}" if silent else ""))


def crashed(seat: int, label: str, how: str, *, last_line: str | None = None, hint: str | None = None) -> Verdict:
    """The bot ended mid-game (`how`: `exited with status 1`), with its last line on stderr
    and a hint (what its box did not show it) when there are any."""
    detail = f"{label} {how} before the game ended"
    detail += f" (last line on stderr: {last_line!r})" if last_line else ""
    detail += f"; {hint}" if hint else ""
    return Verdict(Termination.CRASH, seat, detail)


def output_closed(seat: int, label: str, what: str) -> Verdict:
    """The bot's output closed (`what`) mid-game while its process was still running."""
    return Verdict(Termination.CRASH, seat, f"{label} {what} before the game ended (the process was still running)")


def socket_closed(seat: int, label: str, why: str) -> Verdict:
    """A socket bot's connection ended, its process's end not known: its socket's story."""
    return Verdict(Termination.CRASH, seat, f"{label} {why}")


def sandbox_broken(seat: int, label: str, broken: str) -> Verdict:
    """After its turn, the bot's box held more than its limits allow (its write cap)."""
    return Verdict(Termination.CRASH, seat, f"{label} broke the limits of its sandbox: {broken}")


def bad_line(seat: int, label: str, why: str) -> Verdict:
    """The bot wrote bytes that are not a protocol line (too long, not UTF-8)."""
    return Verdict(Termination.MALFORMED, seat, f"{label} sent {why}")


def empty_line(seat: int, label: str) -> Verdict:
    """The bot wrote an empty line as its move."""
    return Verdict(Termination.MALFORMED, seat, f"{label} sent an empty line")


def not_a_move(seat: int, label: str, text: str, why: str) -> Verdict:
    """The rules' parser says the bot's line is not a move of the game (`MalformedMove`)."""
    return Verdict(Termination.MALFORMED, seat, f"{label} sent {text[:80]!r}, which is not a move: {why}")


def illegal(seat: int, label: str, text: str, why: str) -> Verdict:
    """A move of the game that the position does not allow (`IllegalMove`)."""
    return Verdict(Termination.ILLEGAL, seat, f"{label} played {text[:80]!r}, which is illegal: {why}")


def out_of_turn(seat: int, label: str, shown: str, game_over: bool, *, before_its_first_move: bool = False,
                a_move: bool = True) -> Verdict:
    """The bot wrote `shown` (a line, quoted, or a bad line's description) when it was not to move;
    `before_its_first_move` in a dialect with a `Game` line, what it wrote `a_move` of the game: a
    codecup-style bot, most likely; not a move: text that belongs on stderr."""
    when = "after the game was over" if game_over else "when it was not its turn"
    hint = f"; {STDOUT_HINT}" if not a_move else ""
    if before_its_first_move and a_move and not game_over:
        hint = f"; {CODECUP_DIALECT_HINT}"
    return Verdict(Termination.PROTOCOL, seat, f"{label} wrote {shown} {when}{hint}")


# --- notes the record keeps beside a verdict ----------------------------------------------

def doubt(label: str, what: str, earliest: float, latest: float, limit: float, limit_text: str) -> str:
    """A verdict the arbiter could not make because it looked late: `what` happened after
    `earliest` and by `latest`, and `limit` lies between; given to the bot (docs/protocol.md, Time)."""
    return (f"{label} {what} between {(limit - earliest) * 1000:.1f} ms before and {(latest - limit) * 1000:.1f} ms "
            f"after {limit_text}, the arbiter having looked late: taken as in time")


__all__ = [
    "RULES_FAILED",
    "STARTUP_TIMEOUT",
    "Verdict",
    "bad_line",
    "could_not_start",
    "crashed",
    "doubt",
    "empty_line",
    "game_over",
    "illegal",
    "not_a_move",
    "not_reading",
    "output_closed",
    "out_of_turn",
    "rules_failed",
    "sandbox_broken",
    "socket_closed",
    "startup_timeout",
    "timeout",
    "unreadable_notation",
]
