"""`check: true`'s check of one player, in a process of its own (docs/architecture.md, Where
games run): the child's side. A check plays games (the rules, the referee, the bots' pipes),
so it runs where a crash or a hang of the game's rules costs that check alone, never the
arbiter's own process. `preflight.py` forks it from the workers' zygote (role `check`),
sends it one `CheckTask`, waits for its answer within the check's longest possible
duration, and ends it on Ctrl-C.

The answer is one picklable tuple: (DONE, the `CheckReport`), (RAISED, the exception the
arbiter's own process would have raised: the check could not start as asked), (FAILED, a
sentence: the game's rules or the check failed, the bot not to blame) or (INTERRUPTED,).
"""
from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..check import CheckTarget, RulesFailure, run_check
from ..games import GameError
from .pool import described, picklable

DONE, RAISED, FAILED, INTERRUPTED = "done", "raised", "failed", "interrupted"


@dataclass(frozen=True)
class CheckTask:
    """One player's check as the child gets it: what `run_check` is given, and where the
    arbiter stands now (its working folder and environment: the child's are the zygote's)."""

    target: CheckTarget
    log_dir: str
    concurrency: int
    cwd: str
    environ: dict[str, str]


def serve_check(conn: Connection) -> None:
    """The child's life: one check, its answer on `conn`, then exit. Ctrl-C (the terminal's,
    the parent's, or the parent's end closing) ends the check's games as `arbiter check`
    ends them, and the answer is INTERRUPTED."""
    try:
        signal.signal(signal.SIGINT, _interrupt_once)  # the zygote's children start with it ignored
        task: CheckTask = conn.recv()
        # The parent sends nothing more: its end closing means it is gone, and the check has no one to answer.
        threading.Thread(target=_interrupt_when_closed, args=(conn,), name="check-parent", daemon=True).start()
        answer = _check(task)
    except KeyboardInterrupt:
        answer = (INTERRUPTED,)
    except (EOFError, OSError):  # from conn.recv: _check answers every failure of its own
        return  # the parent went before it sent the task
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the answer goes out whatever is pressed now
    try:
        conn.send(answer)
    except OSError:
        pass  # the parent is gone


def _check(task: CheckTask) -> tuple[Any, ...]:
    """Run the check where the arbiter stands; the answer for the parent."""
    try:
        if os.getcwd() != task.cwd:
            os.chdir(task.cwd)
        if os.environ != task.environ:
            os.environ.clear()
            os.environ.update(task.environ)
        return (DONE, run_check(task.target, log_dir=Path(task.log_dir), concurrency=task.concurrency))
    except (ValueError, GameError) as exc:  # GameError is a ValueError: the parent says it as before
        return (RAISED, picklable(exc, ValueError))
    except RulesFailure as exc:  # its message is the sentence
        return (FAILED, str(exc))
    except Exception as exc:  # noqa: BLE001 - the rules' (or the check's own) failure: this check's alone
        return (FAILED, f"the check failed in its process: {described(exc)}")


def _interrupt_once(signum: int, frame: Any) -> None:
    """The first Ctrl-C interrupts the check; any later one (the terminal's and the parent's
    both come) is ignored, so that the check's games end in order."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def _interrupt_when_closed(conn: Connection) -> None:
    """Interrupt the check once the parent's end of `conn` is closed (the parent has exited)."""
    try:
        conn.recv()
    except (EOFError, OSError):
        pass
    os.kill(os.getpid(), signal.SIGINT)


__all__ = ["DONE", "FAILED", "INTERRUPTED", "RAISED", "CheckTask", "serve_check"]
