"""A box's keeper in Python, for a machine where the launch helper (`spawn.c`, `spawn keeper`)
cannot be built: the same arguments, the same steps, the same exit status. Run as a script
(`python -I -S keeper.py PARENT_PID CORE FILE OPEN_FILES AS SECCOMP REPORT_FD CGROUP2
[JOIN_FILE...] -- BWRAP [ARGUMENT...]`), importing nothing of the arbiter; slower to start
(an interpreter), never different. See spawn.c for what each step is for."""
from __future__ import annotations

import ctypes
import fcntl
import os
import resource
import signal
import sys

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _refuse(what: str, exc: OSError) -> None:
    """Say what failed on stderr (the bot's log) and exit 126, as the helper does."""
    os.write(2, f"arbiter box: {what}: {exc.strerror}\n".encode())
    os._exit(126)


def _join(path: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, b"0")
    finally:
        os.close(fd)


def _child(args: list[str], joins: list[str], report: int, command: list[str]) -> None:
    """In bubblewrap's process before exec: into the groups, the limits, the descriptors."""
    try:
        for path in ([f"{args[7]}/cgroup.procs"] if args[7] != "-" else []) + joins:
            _join(path)
        for limit, text in ((resource.RLIMIT_CORE, args[1]), (resource.RLIMIT_FSIZE, args[2]),
                            (resource.RLIMIT_NOFILE, args[3]), (resource.RLIMIT_AS, args[4])):
            if text != "-":
                resource.setrlimit(limit, (int(text), int(text)))
        os.dup2(0, 3)
        os.dup2(1, 4)
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        if args[5] != "-":
            filter_fd = os.open(args[5], os.O_RDONLY)
            if filter_fd != 5:
                os.dup2(filter_fd, 5)
                os.close(filter_fd)
            os.set_inheritable(5, True)  # Python opens files close-on-exec
        if report >= 0:
            os.dup2(report, 7)
            os.close(report)
        os.execv(command[0], command)
    except OSError as exc:
        _refuse(command[0], exc)


def main(argv: list[str]) -> None:
    split = argv.index("--")
    args, joins, command = argv[:8], argv[8:split], argv[split + 1:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if os.getppid() != int(args[0]):
        os._exit(125)
    report = -1
    if args[6] != "-":
        report = fcntl.fcntl(int(args[6]), fcntl.F_DUPFD, 10)  # where 3, 4 and 5 cannot overwrite it
        os.close(int(args[6]))
    child = os.fork()
    if child == 0:
        _child(args, joins, report, command)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if report >= 0:
        os.close(report)
    status = None
    while True:
        try:
            pid, got = os.waitpid(-1, 0)
        except ChildProcessError:
            break  # every process of the box is gone
        if pid == child:
            status = got
    if status is None:
        os._exit(126)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main(sys.argv[1:])
