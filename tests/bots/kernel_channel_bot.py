"""Tries the kernel's ways out of a box, each a channel to another box or the first step of an
exploit: a message in the user's keyring (which every box of uid 61000 shares), an exclusive
lock on a file every box sees read-only, a nested user namespace (uid 0 and mounts in it),
and an io_uring. Each is reported on its own line."""
import ctypes
import fcntl
import os
import sys

from hostile import hostile_bot, report

libc = ctypes.CDLL(None, use_errno=True)
NR = {"x86_64": {"add_key": 248, "io_uring_setup": 425}, "aarch64": {"add_key": 217, "io_uring_setup": 425}}[os.uname().machine]
KEY_SPEC_USER_KEYRING = -4
CLONE_NEWUSER = 0x10000000


def kernel_channels():
    payload = b"meet at move 7"
    key = libc.syscall(NR["add_key"], b"user", b"arbiter-channel", payload, len(payload), KEY_SPEC_USER_KEYRING)
    report("keyring", key >= 0, f"add_key gave {key}, errno {ctypes.get_errno()}")
    try:
        with open(sys.executable, "rb") as shared:
            fcntl.flock(shared, fcntl.LOCK_EX | fcntl.LOCK_NB)
            report("flock", True, f"locked {sys.executable}")
    except OSError as exc:
        report("flock", False, f"flock: {exc.strerror}")
    params = ctypes.create_string_buffer(120)
    ring = libc.syscall(NR["io_uring_setup"], 1, params)
    report("io_uring", ring >= 0, f"io_uring_setup gave {ring}, errno {ctypes.get_errno()}")
    if ring >= 0:
        os.close(ring)
    if os.fork() == 0:  # in a child: the bot itself keeps its namespaces
        done = libc.unshare(CLONE_NEWUSER)
        report("userns", done == 0, f"unshare(CLONE_NEWUSER) gave {done}, errno {ctypes.get_errno()}")
        os._exit(0)
    os.wait()


hostile_bot(kernel_channels)
