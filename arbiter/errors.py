"""Errors from the user's input (command line, config files), shown as one clear message,
and the exit codes every subcommand returns."""
from __future__ import annotations

import enum
import os


class UsageError(Exception):
    """Bad input from the user: the CLI prints the message and exits with status 2."""


class ExitCode(enum.IntEnum):
    """What `arbiter` exits with; the one table is `EXIT_CODE_TABLE` (README, `arbiter --help`)."""

    DONE = 0  # the command did its work (a game refereed, whoever won; a tournament played; H1 accepted)
    CHECK_FAILED = 1  # a check said no (the SPRT accepted H0)
    USAGE = 2  # bad arguments, config or path, or a file that cannot be written: nothing was decided
    FAULT_GATE = 3  # the candidate faulted, or its logs have problem lines
    INCONCLUSIVE = 4  # the SPRT reached its maximum games undecided
    VOID = 5  # play, check: the game's own rules failed, so it could not be decided (no bot blamed)
    INTERRUPTED = 130  # Ctrl-C (SIGINT), SIGTERM or SIGHUP: recorded games are kept; run again to resume


EXIT_CODE_TABLE = """\
exit codes:
  0    done (a game refereed, whoever won; a tournament played; sprt: H1 accepted)
  1    a check failed (sprt: H0 accepted)
  2    usage error: bad arguments, config or path, or an output that cannot be written
  3    fault gate (sprt: the candidate faulted, or its logs have problem lines)
  4    inconclusive (sprt: maximum games reached undecided)
  5    void (play, check: the game's own rules failed; no bot is blamed)
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP); recorded games are kept, run the same command to resume"""


def show_path(path: str | bytes | os.PathLike[str]) -> str:
    """A path for a message: as it is, or quoted with escapes when it is not printable text
    (a non-UTF-8 name, a newline)."""
    text = os.fsdecode(path)
    return text if text.isprintable() else repr(text)
