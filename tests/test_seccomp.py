"""The system calls a box refuses (arbiter/transport/seccomp.py), proved with real processes
in bubblewrap boxes: every row of the rule book gives its errno, and gives it because the
filter matched that very call (a second filter answers each row with an errno of its own,
one the kernel never gives); the attacks work without the filter and fail with it; and the
runtimes bots are written in still start and play under it."""
from __future__ import annotations

import errno
import functools
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import pytest

from arbiter.transport import seccomp
from arbiter.transport.sandbox import BOX_UID
from arbiter.transport.seccomp import REFUSED, ArgHasBits, ArgIn, Refusal
from referee_support import ROOT

BWRAP = shutil.which("bwrap")
SETPRIV = shutil.which("setpriv")
AS_ROOT = os.geteuid() == 0
ARCH = seccomp.ARCHES.get(os.uname().machine)
# The Python boxed probes run: the system's, which the box's user can always run (a virtual
# environment's may lead to a folder only root may enter, or be under the box's hidden /tmp).
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
# Calls of the rule book that x86_64 has and aarch64 lacks.
X86_64_ONLY = {"iopl", "ioperm", "modify_ldt", "inotify_init"}


def bwrap_runs() -> bool:
    if BWRAP is None or SETPRIV is None:
        return False
    probe = subprocess.run([BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
                            *([] if AS_ROOT else ["--unshare-user"]), "--", "/bin/true"], capture_output=True)
    return probe.returncode == 0


needs_box = pytest.mark.skipif(not bwrap_runs() or seccomp.unsupported_reason() is not None,
                               reason="bubblewrap cannot run here, or this machine has no filter")


# --- the rule book as data ----------------------------------------------------------------

def test_every_refused_call_has_a_number_on_each_machine() -> None:
    names = {call.name for row in REFUSED for call in row.calls}
    assert names <= set(seccomp.ARCHES["x86_64"].numbers)
    assert names - set(seccomp.ARCHES["aarch64"].numbers) == X86_64_ONLY


@functools.cache
def header_numbers(header: Path) -> dict[str, int]:
    """`__NR_name number` (or asm-generic's `__NR3264_name`) lines of a kernel header."""
    found = re.findall(r"^#define __NR(?:3264)?_(\w+)\s+(\d+)\s*$", header.read_text(), re.MULTILINE)
    return {name: int(number) for name, number in found}


HEADERS = {"x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
           "aarch64": Path("/usr/include/asm-generic/unistd.h")}


@pytest.mark.parametrize("machine, header", sorted(HEADERS.items()))
def test_numbers_agree_with_the_kernel_headers(machine: str, header: Path) -> None:
    if not header.exists():
        pytest.skip(f"{header} is not installed (linux-libc-dev)")
    known = header_numbers(header)
    ours = seccomp.ARCHES[machine].numbers
    checked = {name: number for name, number in ours.items() if name in known}
    assert checked == {name: known[name] for name in checked}
    # Newer than these headers (Debian 12's are Linux 6.1's): open_tree_attr (6.15).
    assert set(ours) - set(checked) <= {"open_tree_attr"}


# What a contest machine must refuse, whatever else the rule book grows to hold.
MUST_REFUSE: dict[str, int] = {
    **dict.fromkeys(["add_key", "keyctl", "request_key", "io_uring_setup", "io_uring_enter",
                     "io_uring_register", "clone3"], errno.ENOSYS),
    **dict.fromkeys(["unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
                     "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "ptrace", "process_vm_readv",
                     "process_vm_writev", "bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load",
                     "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct",
                     "syslog", "quotactl", "open_by_handle_at", "name_to_handle_at", "settimeofday",
                     "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname", "vhangup",
                     "iopl", "ioperm"], errno.EPERM),
    "flock": errno.ENOLCK,
}


def test_the_rule_book_refuses_what_a_contest_must() -> None:
    always = {call.name: row.errno for row in REFUSED for call in row.calls if call.when is None}
    assert {name: always.get(name) for name in MUST_REFUSE} == MUST_REFUSE
    conditions = {(call.name, row.errno): call.when for row in REFUSED for call in row.calls if call.when}
    clone = conditions[("clone", errno.EPERM)]
    assert isinstance(clone, ArgHasBits) and clone.index == 0
    assert clone.mask == 0x20000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
    locks = conditions[("fcntl", errno.ENOLCK)]
    assert isinstance(locks, ArgIn) and locks.index == 1 and set(locks.values) == {5, 6, 7, 36, 37, 38}
    tiocsti = conditions[("ioctl", errno.EPERM)]
    assert isinstance(tiocsti, ArgIn) and (tiocsti.index, tiocsti.values) == (1, (0x5412,))


def test_no_call_is_refused_both_always_and_on_a_condition() -> None:
    always = {call.name for row in REFUSED for call in row.calls if call.when is None}
    sometimes = {call.name for row in REFUSED for call in row.calls if call.when is not None}
    assert not always & sometimes


def test_an_unknown_machine_gets_no_filter() -> None:
    assert seccomp.build_filter("riscv64") is None
    assert seccomp.build_filter("aarch64") is not None


def test_the_docs_show_the_rule_book() -> None:
    assert seccomp.markdown_table() in (ROOT / "docs" / "security.md").read_text()


# --- the program, run by a small BPF interpreter (the only way to run aarch64's here) ------

def run_program(program: bytes, *, arch: int, nr: int, args: Sequence[int] = ()) -> int:
    """What the kernel would decide for one call: the program's return value."""
    words = [nr, arch, 0, 0] + [half for arg in (*args, *[0] * (6 - len(args)))
                                for half in (arg & 0xFFFFFFFF, arg >> 32)]
    insns = [tuple(insn) for insn in seccomp._INSN.iter_unpack(program)]
    at, a = 0, 0
    while True:
        code, jt, jf, k = insns[at]
        if code == 0x20:
            a = words[k // 4]
        elif code == 0x06:
            return k
        elif code in (0x15, 0x45):
            taken = a == k if code == 0x15 else bool(a & k)
            at += jt if taken else jf
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        at += 1


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_the_program_decides_each_rule(machine: str) -> None:
    arch = seccomp.ARCHES[machine]
    program = seccomp.build_filter(machine)
    assert program is not None
    for row in REFUSED:
        for call in row.calls:
            if call.name not in arch.numbers:
                continue
            for args, _ in condition_cases(call.when, base=(0,) * 6):
                assert run_program(program, arch=arch.audit_arch, nr=arch.numbers[call.name],
                                   args=args) == 0x00050000 | row.errno, call.describe()
    for nr in (0, 1, 63, 64, 200, 400):  # read, write or exit... on either machine: none refused
        if nr not in arch.numbers.values():
            assert run_program(program, arch=arch.audit_arch, nr=nr) == 0x7FFF0000
    fcntl, clone = arch.numbers["fcntl"], arch.numbers["clone"]
    assert run_program(program, arch=arch.audit_arch, nr=fcntl, args=(3, 1)) == 0x7FFF0000  # F_GETFD
    assert run_program(program, arch=arch.audit_arch, nr=clone, args=(0x1200011,)) == 0x7FFF0000  # fork
    assert run_program(program, arch=0x40000003, nr=20) == 0x80000000  # i386
    assert run_program(program, arch=0x40000028, nr=20) == 0x80000000  # 32-bit ARM


# --- boxes --------------------------------------------------------------------------------

def boxed(command: Sequence[str], program: bytes | None, folder: Path, *,
          timeout_s: float = 60.0) -> subprocess.CompletedProcess[str]:
    """Run `command` in a bubblewrap box made as the arbiter makes one (its own PID, IPC,
    UTS and network namespaces, as uid 61000 when root, without capabilities), under
    `program` when one is given, passed as the box's keeper does: open on descriptor 5,
    `--seccomp 5`. `folder` is shown read-only at /tmp/probe."""
    assert BWRAP is not None and SETPRIV is not None
    argv = [BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--perms", "1777",
            "--tmpfs", "/tmp", "--ro-bind", str(folder), "/tmp/probe", "--setenv", "HOME", "/tmp",
            "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--die-with-parent"]
    prefix = [SETPRIV, "--no-new-privs", "--inh-caps=-all"]
    if AS_ROOT:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        prefix += [f"--reuid={BOX_UID}", f"--regid={BOX_UID}", "--clear-groups", "--bounding-set=-all"]
    else:
        argv.append("--unshare-user")
    launch: list[str] = []
    if program is not None:
        path = folder / f"filter-{len(list(folder.glob('filter-*')))}.bpf"
        path.write_bytes(program)
        launch = ["/bin/sh", "-c", 'exec 5<"$0" && exec "$@"', str(path)]
        argv += ["--seccomp", "5"]
    return subprocess.run([*launch, *argv, "--", *prefix, "--", *command], capture_output=True, text=True,
                          timeout=timeout_s, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The probes' folder, readable by the box's user, with a read-only file both boxes see."""
    path = tmp_path_factory.mktemp("seccomp")
    path.chmod(0o755)
    (path / "probe.py").write_text(PROBE)
    shared = path / "shared.txt"
    shared.write_text("a file two boxes both see\n")
    shared.chmod(0o444)
    return path


# Tries each call it is given, raw, and prints what each returned: 0, or its errno.
PROBE = r'''
import ctypes, json, os, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


class Flock(ctypes.Structure):  # struct flock on x86_64 and aarch64
    _fields_ = [("l_type", ctypes.c_short), ("l_whence", ctypes.c_short), ("l_start", ctypes.c_long),
                ("l_len", ctypes.c_long), ("l_pid", ctypes.c_int)]


shared = os.open("/tmp/probe/shared.txt", os.O_RDONLY)
keep = []


def value(arg):
    if arg == "FD":
        return shared
    if arg == "FLOCK":  # a read lock on the whole file
        keep.append(Flock(0, 0, 0, 0, 0))
        return ctypes.addressof(keep[-1])
    if arg == "BUF":
        keep.append(ctypes.create_string_buffer(512))
        return ctypes.addressof(keep[-1])
    if isinstance(arg, str):  # "s:text": a C string
        keep.append(ctypes.create_string_buffer(arg[2:].encode()))
        return ctypes.addressof(keep[-1])
    return arg


results = {}
for label, number, args in json.loads(sys.argv[1]):
    ctypes.set_errno(0)
    returned = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(value(arg)) for arg in args])
    if returned == 0 and label.startswith("clone"):
        os._exit(0)  # the child of a clone that got through
    if returned > 0 and label.startswith("clone"):
        os.waitpid(returned, 0)
    results[label] = ctypes.get_errno() if returned == -1 else 0
print(json.dumps(results))
'''

# Arguments for each call that do nothing should the filter let it through (the box's user,
# without capabilities, is refused or the arguments are invalid), so a wrong filter shows as
# a wrong errno, never as a changed machine. A call not listed gets zeros.
CALL_ARGS: dict[str, tuple[object, ...]] = {
    "keyctl": (0x7FFFFFFF,), "io_uring_enter": (-1,), "io_uring_register": (-1,),
    "unshare": (0x10000000 | 0x2000,),  # CLONE_NEWUSER with CLONE_PTRACE: EINVAL
    "setns": (-1, 0),
    "clone": (0x10000,),  # CLONE_THREAD without CLONE_SIGHAND: EINVAL, whatever else is asked
    "umount2": ("s:/", 0xFFFFFFFF), "move_mount": (-1, 0, -1, 0, 0xFFFFFFFF),
    "open_tree": (-1, 0, 0xFFFFFFFF), "open_tree_attr": (-1, 0, 0xFFFFFFFF), "fsopen": (0, 0xFFFFFFFF),
    "fsconfig": (-1,), "fsmount": (-1,), "fspick": (-1, 0, 0xFFFFFFFF), "mount_setattr": (-1, 0, 0xFFFFFFFF),
    "ptrace": (16, 0x3FFFFFFF), "process_vm_readv": (0x3FFFFFFF,), "process_vm_writev": (0x3FFFFFFF,),
    "bpf": (-1,), "userfaultfd": (0xFFFFFFFF,), "open_by_handle_at": (-1,),
    "name_to_handle_at": (-1, 0, 0, 0, 0xFFFFFFFF), "finit_module": (-1,), "kexec_file_load": (-1, -1),
    "syslog": (10,),  # the size of the log's buffer
    "quotactl_fd": (-1,), "clock_settime": (0x7FFF,), "clock_adjtime": (0x7FFF,),
    "sethostname": (0, 0xFFFF), "setdomainname": (0, 0xFFFF), "iopl": (4,),
    "ioctl": (-1, 0), "flock": ("FD", 1 | 4),  # LOCK_SH | LOCK_NB
    "fcntl": ("FD", 0, "FLOCK"), "inotify_init1": (0xFFFFFFFF,), "fanotify_init": (0xFFFFFFFF,),
}


def number(name: str) -> int:
    """A call's number on this machine as the kernel's header gives it (the module's own
    only when the header is missing or older than the call), so that a wrong number in the
    module shows in the boxes too: the probe then tries a call the filter does not refuse."""
    assert ARCH is not None
    header = HEADERS.get(ARCH.machine)
    known = header_numbers(header) if header is not None and header.exists() else {}
    return known.get(name, ARCH.numbers[name])


def condition_cases(when: ArgIn | ArgHasBits | None,
                    base: tuple[object, ...]) -> list[tuple[tuple[object, ...], str]]:
    """The argument lists that meet a call's condition, each with a label: every value of
    an `ArgIn`, every bit of an `ArgHasBits` (added to what the base passes)."""
    args = list(base) + [0] * (6 - len(base))
    if when is None:
        return [(tuple(args), "")]
    cases = []
    if isinstance(when, ArgIn):
        picks = [(value, f"{value:#x}") for value in when.values]
    else:
        picks = [(int(args[when.index]) | 1 << bit, f"{1 << bit:#x}") for bit in range(32) if when.mask >> bit & 1]
    for pick, label in picks:
        case = list(args)
        case[when.index] = pick
        cases.append((tuple(case), label))
    return cases


Case = tuple[str, int, tuple[object, ...]]  # (label, number, arguments) of one call to try


def row_cases(row: Refusal) -> list[Case]:
    """(label, number, arguments) of every call of a row on this machine, each way it is refused."""
    assert ARCH is not None
    return [(f"{call.name} {label}".strip(), number(call.name), args)
            for call in row.calls if call.name in ARCH.numbers
            for args, label in condition_cases(call.when, CALL_ARGS.get(call.name, ()))]


def marker_errno(index: int) -> int:
    """An errno the kernel never gives (it has 133), telling which row refused a call."""
    return 1000 + index


def all_row_cases() -> list[Case]:
    return [case for row in REFUSED for case in row_cases(row)]


def run_probe(folder: Path, program: bytes | None, cases: Sequence[Case]) -> dict[str, int]:
    done = boxed([PYTHON, "/tmp/probe/probe.py", json.dumps(cases)], program, folder)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def refused_as_filtered(folder: Path) -> dict[str, int]:
    """Each case of every row under the real filter."""
    return run_probe(folder, seccomp.build_filter(), all_row_cases())


@pytest.fixture(scope="module")
def refused_as_marked(folder: Path) -> dict[str, int]:
    """Each case of every row under a filter whose row i answers `marker_errno(i)`."""
    marked = [replace(row, errno=marker_errno(index)) for index, row in enumerate(REFUSED)]
    return run_probe(folder, seccomp.build_filter(refused=marked), all_row_cases())


def row_id(row: Refusal) -> str:
    names = list(dict.fromkeys(call.name for call in row.calls))
    return "+".join(names[:3]) + ("+..." if len(names) > 3 else "")


@needs_box
@pytest.mark.parametrize("index, row", list(enumerate(REFUSED)), ids=[row_id(row) for row in REFUSED])
def test_each_refused_call_fails_with_its_rows_errno(index: int, row: Refusal, refused_as_filtered: dict[str, int],
                                                      refused_as_marked: dict[str, int]) -> None:
    cases = row_cases(row)
    assert cases
    for label, _, _ in cases:
        assert refused_as_marked[label] == marker_errno(index), f"{label}: not refused by this row"
        assert errno.errorcode.get(refused_as_filtered[label]) == errno.errorcode[row.errno], label


# --- the attacks: they work without the filter, and fail with it ---------------------------

# (what is tried, the call, its arguments, the errno the filter gives)
ATTACKS: list[tuple[str, str, tuple[object, ...], int]] = [
    ("keyctl: the uid's keyring", "keyctl", (0, -4, 1), errno.ENOSYS),  # KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING
    ("add_key: a key to the process's keyring", "add_key", ("s:user", "s:arbiter-probe", "s:1", 1, -2),
     errno.ENOSYS),
    ("io_uring_setup: a ring", "io_uring_setup", (4, "BUF"), errno.ENOSYS),
    ("clone: a user namespace", "clone", (0x10000000 | 17, 0, 0, 0, 0), errno.EPERM),  # CLONE_NEWUSER | SIGCHLD
    ("clone: a user and a network namespace", "clone", (0x50000000 | 17, 0, 0, 0, 0), errno.EPERM),
    ("flock: a shared lock on a read-only file", "flock", ("FD", 1 | 4), errno.ENOLCK),
    ("fcntl F_SETLK: a read lock on a read-only file", "fcntl", ("FD", 6, "FLOCK"), errno.ENOLCK),
    ("fcntl F_GETLK: who holds a lock", "fcntl", ("FD", 5, "FLOCK"), errno.ENOLCK),
    ("fcntl F_OFD_SETLK: a read lock", "fcntl", ("FD", 37, "FLOCK"), errno.ENOLCK),
    ("fcntl F_SETLK with high bits the kernel ignores", "fcntl", ("FD", 1 << 32 | 6, "FLOCK"), errno.ENOLCK),
    ("inotify_init1: a watch", "inotify_init1", (0,), errno.ENOSYS),
]


def attack_cases() -> list[Case]:
    return [(label, number(name), args) for label, name, args, _ in ATTACKS]


@pytest.fixture(scope="module")
def attacks_unfiltered(folder: Path) -> dict[str, int]:
    return run_probe(folder, None, attack_cases())


@pytest.fixture(scope="module")
def attacks_filtered(folder: Path) -> dict[str, int]:
    return run_probe(folder, seccomp.build_filter(), attack_cases())


@needs_box
@pytest.mark.parametrize("label, name, args, refused_with", ATTACKS, ids=[attack[0] for attack in ATTACKS])
def test_an_attack_works_in_a_box_without_the_filter_and_fails_with_it(
        label: str, name: str, args: tuple[object, ...], refused_with: int,
        attacks_unfiltered: dict[str, int], attacks_filtered: dict[str, int]) -> None:
    assert attacks_unfiltered[label] == 0, errno.errorcode.get(attacks_unfiltered[label])
    assert attacks_filtered[label] == refused_with, errno.errorcode.get(attacks_filtered[label])


@needs_box
def test_unshare_from_util_linux_works_without_the_filter_and_fails_with_it(folder: Path) -> None:
    assert boxed(["unshare", "-Ur", "true"], None, folder).returncode == 0
    done = boxed(["unshare", "-Ur", "true"], seccomp.build_filter(), folder)
    assert done.returncode != 0
    assert "Operation not permitted" in done.stderr


# --- other ABIs: killed --------------------------------------------------------------------

ABI_PROBE_C = r'''
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* In a child: a getpid through i386's int 0x80, or through the x32 ABI; says how it ended. */
int main(int argc, char **argv) {
    pid_t child = fork();
    if (child == 0) {
        if (strcmp(argv[1], "i386") == 0) {
            long result;
            __asm__ volatile ("int $0x80" : "=a"(result) : "a"(20L) : "memory");
        } else {
            syscall(0x40000000 | SYS_getpid);
        }
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    printf("%s\n", WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exited");
    return 0;
}
'''

THREADS_C = r'''
#include <pthread.h>
#include <stdio.h>

static void *work(void *arg) { *(long *)arg *= 2; return NULL; }

int main(void) {
    pthread_t threads[8];
    long values[8];
    for (int i = 0; i < 8; i++) { values[i] = i; pthread_create(&threads[i], NULL, work, &values[i]); }
    long sum = 0;
    for (int i = 0; i < 8; i++) { pthread_join(threads[i], NULL); sum += values[i]; }
    printf("%ld\n", sum);
    return 0;
}
'''


def compiled(folder: Path, name: str, source: str) -> str:
    """`source` built with gcc into the probes' folder; its path inside the box."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    (folder / f"{name}.c").write_text(source)
    subprocess.run(["gcc", "-O1", "-pthread", "-o", str(folder / name), str(folder / f"{name}.c")], check=True)
    (folder / name).chmod(0o755)
    return f"/tmp/probe/{name}"


@needs_box
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="i386 and x32 calls exist on x86_64 only")
@pytest.mark.parametrize("abi", ["i386", "x32"])
def test_a_call_through_another_abi_kills_the_process(folder: Path, abi: str) -> None:
    program = compiled(folder, "abi_probe", ABI_PROBE_C)
    done = boxed([program, abi], seccomp.build_filter(), folder)
    assert done.stdout.strip() == "Bad system call", done.stderr
    assert boxed([program, abi], None, folder).stdout.strip() != "Bad system call"


# --- what bots do still works ---------------------------------------------------------------

PYTHON_BOT = r'''
import concurrent.futures, os, socket, subprocess, threading
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    assert sum(pool.map(lambda n: n * n, range(100))) == 328350
assert subprocess.run(["/bin/echo", "child"], capture_output=True, text=True).stdout == "child\n"
pid = os.fork()
if pid == 0:
    os._exit(7)
assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 7
with socket.socket() as server:
    server.bind(("127.0.0.1", 0)); server.listen()
    with socket.create_connection(server.getsockname()) as client, server.accept()[0] as peer:
        client.sendall(b"move"); assert peer.recv(4) == b"move"
os.set_blocking(0, True)  # fcntl F_GETFL / F_SETFL
print("played")
'''

NODE_BOT = r'''
const { Worker } = require("worker_threads");
const { execFileSync } = require("child_process");
const fs = require("fs");
fs.readFileSync("/tmp/probe/shared.txt");
if (execFileSync("/bin/echo", ["child"]).toString() !== "child\n") process.exit(1);
new Worker("require('worker_threads').parentPort.postMessage(6 * 7)", { eval: true })
  .on("message", (n) => {
    fs.promises.readFile("/tmp/probe/shared.txt").then(() => console.log(n === 42 ? "played" : "wrong"));
  });
'''

RUNTIMES = [
    ("python", [PYTHON, "-c", PYTHON_BOT], "played"),
    ("sh pipeline", ["/bin/sh", "-c", "echo a b c | tr a-z A-Z | wc -w"], "3"),
    ("perl", ["perl", "-e", "my $p = fork(); if (!$p) { exit 3 } waitpid($p, 0); print $? >> 8"], "3"),
    ("node", ["node", "-e", NODE_BOT], "played"),
    ("java", ["java", "-Xshare:auto", "-XX:+UseSerialGC", "-version"], None),
    ("java, parallel GC", ["java", "-XX:+UseParallelGC", "-version"], None),
]


@needs_box
@pytest.mark.parametrize("name, command, prints", RUNTIMES, ids=[runtime[0] for runtime in RUNTIMES])
def test_a_runtime_starts_and_plays_under_the_filter(folder: Path, name: str, command: list[str],
                                                    prints: str | None) -> None:
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not installed")
    done = boxed(command, seccomp.build_filter(), folder)
    assert done.returncode == 0, done.stderr
    if prints is not None:
        assert done.stdout.strip() == prints
    else:  # java -version writes to stderr, and nothing else should be there
        assert "version" in done.stderr and "warning" not in done.stderr.lower(), done.stderr


@needs_box
def test_sqlite_reads_a_database_without_locks_as_the_docs_say(folder: Path) -> None:
    """docs/security.md tells entrants to open SQLite with `immutable=1` or `nolock=1`."""
    with sqlite3.connect(folder / "book.db") as book:
        book.execute("CREATE TABLE IF NOT EXISTS openings (move)")
        book.execute("INSERT INTO openings VALUES ('e4')")
    (folder / "book.db").chmod(0o444)
    read = ("import sqlite3, sys; "
            "print(sqlite3.connect(sys.argv[1], uri=True, timeout=0).execute('SELECT move FROM openings').fetchall())")
    for uri in ("file:/tmp/probe/book.db?immutable=1", "file:/tmp/probe/book.db?mode=ro&nolock=1"):
        done = boxed([PYTHON, "-c", read, uri], seccomp.build_filter(), folder)
        assert done.stdout.strip() == "[('e4',)]", done.stderr
    locking = boxed([PYTHON, "-c", read, "file:/tmp/probe/book.db?mode=ro"], seccomp.build_filter(), folder)
    assert "database is locked" in locking.stderr


@needs_box
def test_c_threads_run_under_the_filter(folder: Path) -> None:
    done = boxed([compiled(folder, "threads", THREADS_C)], seccomp.build_filter(), folder)
    assert (done.returncode, done.stdout.strip()) == (0, "56"), done.stderr


@needs_box
@pytest.mark.skipif(not AS_ROOT, reason="the box's user is only changed when the arbiter is root")
def test_setpriv_drops_to_the_box_user_under_the_filter(folder: Path) -> None:
    """`boxed` runs setpriv after bubblewrap has applied the filter, as the box's /bin/sh shim does."""
    done = boxed(["/bin/sh", "-c", "id -u; id -g; id -G; grep CapEff /proc/self/status"], seccomp.build_filter(),
                 folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(BOX_UID), str(BOX_UID), str(BOX_UID), "CapEff:", "0000000000000000"]


# --- the file bubblewrap reads --------------------------------------------------------------

@pytest.mark.skipif(seccomp.unsupported_reason() is not None, reason="this machine has no filter")
def test_the_filter_is_written_once_in_memory_sealed_and_leaves_nothing_on_disk() -> None:
    """The filter is a sealed file in memory of the arbiter's process: written once whatever
    the threads, nobody can change it, and nothing is left to remove at exit (no exit handler
    for a second Ctrl-C to interrupt)."""
    script = ("import threading; from arbiter.transport import seccomp\n"
              "paths = set()\n"
              "threads = [threading.Thread(target=lambda: paths.add(seccomp.filter_file())) for _ in range(8)]\n"
              "[t.start() for t in threads]; [t.join() for t in threads]\n"
              "import os; (path,) = paths\n"
              "target = os.readlink(path)\n"
              "try:\n    os.write(os.open(path, os.O_RDWR), b'x'); sealed = False\nexcept OSError:\n    sealed = True\n"
              "print(target.startswith('/memfd:'), sealed, open(path, 'rb').read() == seccomp.build_filter())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.split() == ["True", "True", "True"], done.stdout


def test_a_machine_with_the_filter_says_nothing_is_missing() -> None:
    if ARCH is None:
        assert seccomp.unsupported_reason() is not None and seccomp.filter_file() is None
    else:
        assert seccomp.unsupported_reason() is None
