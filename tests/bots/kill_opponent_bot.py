"""Tries to SIGKILL its opponent, to stop it (SIGSTOP) so it runs out of time, and to signal
the arbiter (signal 0: only whether it could)."""
import os
import signal

from hostile import hostile_bot, report, victims


def kill_opponent():
    targets = victims()
    for pid in targets:
        try:
            os.kill(pid, signal.SIGSTOP if os.environ.get("HOW") == "stop" else signal.SIGKILL)
            report("kill_opponent", True, f"signalled {pid}")
        except OSError as exc:
            report("kill_opponent", False, f"{pid}: {exc.strerror}")
    if not targets:
        report("kill_opponent", False, "no other process of the game is visible")
    try:
        os.kill(os.getppid(), 0)
        report("kill_opponent", os.getppid() > 1, f"may signal its parent {os.getppid()}")
    except OSError as exc:
        report("kill_opponent", False, f"parent: {exc.strerror}")
    try:
        os.kill(-1, 0)  # would every process of this user do?
        report("kill_opponent", bool(targets), "kill(-1) permitted")
    except OSError as exc:
        report("kill_opponent", False, f"kill(-1): {exc.strerror}")


hostile_bot(kill_opponent)
