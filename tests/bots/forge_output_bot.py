"""Tries to write a forged line into its opponent's stdout (/proc/PID/fd/1), to read its
memory (/proc/PID/mem) and to PTRACE_ATTACH it."""
import ctypes
import os

from hostile import hostile_bot, report, victims

PTRACE_ATTACH, PTRACE_DETACH = 16, 17


def forge_output():
    targets = victims()
    if not targets:
        report("forge_output", False, "no other process of the game is visible")
    libc = ctypes.CDLL(None, use_errno=True)
    for pid in targets:
        for path, mode in ((f"/proc/{pid}/fd/1", os.O_WRONLY), (f"/proc/{pid}/mem", os.O_RDONLY)):
            try:
                os.close(os.open(path, mode))  # opening is enough to forge or to read
                report("forge_output", True, f"opened {path}")
            except OSError as exc:
                report("forge_output", False, f"{path}: {exc.strerror}")
        if libc.ptrace(PTRACE_ATTACH, pid, None, None) == 0:
            libc.ptrace(PTRACE_DETACH, pid, None, None)
            report("forge_output", True, f"ptrace-attached {pid}")
        else:
            report("forge_output", False, f"ptrace {pid}: {os.strerror(ctypes.get_errno())}")


hostile_bot(forge_output)
