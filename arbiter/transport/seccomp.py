"""The system calls a box refuses: a seccomp filter for bubblewrap's `--seccomp FD` (docs/security.md).

`REFUSED` is the rule book: each row names the calls it refuses (some only with certain
arguments), the errno the caller gets instead, and why no bot needs them. `build_filter`
turns it into a classic BPF program, the array of `struct sock_filter` that bubblewrap hands
to the kernel; `filter_file` writes that program once per arbiter process to a file in memory
for the box's keeper to open on descriptor 5 (then `bwrap --seccomp 5 ...`).

What the program does with each system call, in order:
1. a call made through another ABI than the machine's own (i386's `int 0x80` on x86_64,
   32-bit ARM on aarch64) kills the process: no bot's runtime does that, and the filter's
   numbers would mean other calls there;
2. on x86_64, an x32 call (number with bit 30 set) kills the process, for the same reason;
3. a call named in `REFUSED` fails with the row's errno (for a call refused only with some
   arguments, when its arguments say so);
4. anything else runs.

Only x86_64 and aarch64 are known; elsewhere `build_filter` returns None and
`unsupported_reason` says why, so the caller can say "no system-call filter".
"""
from __future__ import annotations

import errno
import fcntl
import os
import struct
import threading
from dataclasses import dataclass
from typing import Mapping, Sequence

# --- the rules -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ArgIn:
    """Refuse when the argument at `index` (its low 32 bits) is one of `values`."""

    index: int
    values: tuple[int, ...]
    label: str  # the values' names, for the docs


@dataclass(frozen=True)
class ArgHasBits:
    """Refuse when the argument at `index` (its low 32 bits) has any bit of `mask` set."""

    index: int
    mask: int
    label: str


Condition = ArgIn | ArgHasBits


@dataclass(frozen=True)
class Call:
    """One system call by its name in the kernel's tables; refused always, or only `when`."""

    name: str
    when: Condition | None = None

    def describe(self) -> str:
        """The call as the docs show it: `clone` with a CLONE_NEW* flag."""
        return f"`{self.name}`" + (f" {self.when.label}" if self.when else "")


@dataclass(frozen=True)
class Refusal:
    """A row of the rule book: these calls fail with `errno`, for the reason `why`."""

    calls: tuple[Call, ...]
    errno: int
    why: str


def _calls(*names: str) -> tuple[Call, ...]:
    return tuple(Call(name) for name in names)


# The CLONE_NEW* flags that clone's first argument can carry. CLONE_NEWTIME (0x80) is not
# among them: in clone's flags the low byte is the exit signal, so the kernel never reads
# 0x80 there as a namespace (only unshare and clone3 can ask for a time namespace, and both
# are refused whole).
CLONE_NEW_FLAGS = (0x00020000  # CLONE_NEWNS
                   | 0x02000000  # CLONE_NEWCGROUP
                   | 0x04000000  # CLONE_NEWUTS
                   | 0x08000000  # CLONE_NEWIPC
                   | 0x10000000  # CLONE_NEWUSER
                   | 0x20000000  # CLONE_NEWPID
                   | 0x40000000)  # CLONE_NEWNET
TIOCSTI = 0x5412  # the same on x86_64 and aarch64
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_NOTIFY = 1026

REFUSED: tuple[Refusal, ...] = (
    Refusal(_calls("add_key", "keyctl", "request_key"), errno.ENOSYS,
            "The kernel keeps keyrings per user, not per box: boxes that share a uid could pass "
            "messages through them."),
    Refusal(_calls("io_uring_setup", "io_uring_enter", "io_uring_register"), errno.ENOSYS,
            "A large kernel interface behind many privilege escalations; runtimes that try it "
            "(libuv) fall back to ordinary calls on ENOSYS."),
    Refusal((*_calls("unshare", "setns"), Call("clone", ArgHasBits(0, CLONE_NEW_FLAGS, "with a `CLONE_NEW*` flag"))),
            errno.EPERM,
            "New namespaces, a user namespace above all, hand a process capabilities over a copy of "
            "the kernel's objects, where most container escapes start; the box is made of them already."),
    Refusal(_calls("clone3"), errno.ENOSYS,
            "Its flags are in memory a filter cannot read, so its namespaces could not be refused; "
            "on ENOSYS glibc falls back to `clone`, which is checked."),
    Refusal(_calls("mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "open_tree_attr",
                   "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr"), errno.EPERM,
            "What a box shows is fixed before the bot starts; changing it is the box's job alone."),
    Refusal(_calls("ptrace", "process_vm_readv", "process_vm_writev"), errno.EPERM,
            "Reading and writing another process's memory: no bot needs it, and it is the way into "
            "a neighbour should a namespace ever leak."),
    Refusal(_calls("bpf", "perf_event_open", "userfaultfd"), errno.EPERM,
            "Kernel interfaces behind many exploits (perf also measures what else runs on the CPU); "
            "no bot needs them."),
    Refusal(_calls("open_by_handle_at", "name_to_handle_at"), errno.EPERM,
            "Opening a file by its handle goes around the mount namespace (the \"shocker\" container escape)."),
    Refusal(_calls("kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
                   "reboot", "swapon", "swapoff", "acct", "syslog", "quotactl", "quotactl_fd",
                   "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
                   "setdomainname", "vhangup"), errno.EPERM,
            "Running the machine (its kernel, clock, swap, logs, terminals) is never a bot's business; "
            "refused even to the box's root in the moment before it drops its rights."),
    Refusal(_calls("iopl", "ioperm", "modify_ldt"), errno.EPERM,
            "Hardware ports and custom segment tables (x86_64 only) serve drivers and 16-bit code, "
            "and old exploits."),
    Refusal((Call("ioctl", ArgIn(1, (TIOCSTI,), "`TIOCSTI`")),), errno.EPERM,
            "It types characters into a terminal's input as if its owner had typed them."),
    Refusal((Call("flock"),
             Call("fcntl", ArgIn(1, (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW),
                                 "`F_GETLK`, `F_SETLK`, `F_SETLKW`, `F_OFD_GETLK`, `F_OFD_SETLK`, `F_OFD_SETLKW`"))),
            errno.ENOLCK,
            "A lock on a file two boxes both see (any system file, though read-only) is a bit one box "
            "sets and the other reads."),
    Refusal((*_calls("inotify_init", "inotify_init1", "fanotify_init"),
             Call("fcntl", ArgIn(1, (F_NOTIFY,), "`F_NOTIFY`"))),
            errno.ENOSYS,
            "Watching a file or folder two boxes both see tells one box when the other opens or reads it."),
)

# --- the machines ------------------------------------------------------------------------


@dataclass(frozen=True)
class Arch:
    """A machine the filter knows: its audit architecture and the numbers of the refused calls."""

    machine: str  # as os.uname().machine says
    audit_arch: int  # AUDIT_ARCH_*: EM_* | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE
    numbers: Mapping[str, int]  # from the kernel's syscall table; a call the arch lacks is absent
    x32_bit: int = 0  # a number with this bit is a call of the x32 ABI (x86_64 only)


# arch/x86/entry/syscalls/syscall_64.tbl (checked against asm/unistd_64.h by the tests).
_X86_64 = {
    "ioctl": 16, "clone": 56, "fcntl": 72, "flock": 73, "ptrace": 101, "syslog": 103, "vhangup": 153,
    "modify_ldt": 154, "pivot_root": 155, "adjtimex": 159, "chroot": 161, "acct": 163,
    "settimeofday": 164, "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168, "reboot": 169,
    "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173, "init_module": 175,
    "delete_module": 176, "quotactl": 179, "clock_settime": 227, "kexec_load": 246, "add_key": 248,
    "request_key": 249, "keyctl": 250, "inotify_init": 253, "unshare": 272, "inotify_init1": 294,
    "perf_event_open": 298, "fanotify_init": 300, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "clock_adjtime": 305, "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311,
    "finit_module": 313, "kexec_file_load": 320, "bpf": 321, "userfaultfd": 323,
}
# include/uapi/asm-generic/unistd.h, which aarch64 uses (checked against it by the tests).
_AARCH64 = {
    "ioctl": 29, "fcntl": 25, "flock": 32, "ptrace": 117, "syslog": 116, "vhangup": 58,
    "pivot_root": 41, "adjtimex": 171, "chroot": 51, "acct": 89, "settimeofday": 170, "mount": 40,
    "umount2": 39, "swapon": 224, "swapoff": 225, "reboot": 142, "sethostname": 161,
    "setdomainname": 162, "init_module": 105, "delete_module": 106, "quotactl": 60,
    "clock_settime": 112, "kexec_load": 104, "add_key": 217, "request_key": 218, "keyctl": 219,
    "unshare": 97, "inotify_init1": 26, "perf_event_open": 241, "fanotify_init": 262,
    "name_to_handle_at": 264, "open_by_handle_at": 265, "clock_adjtime": 266, "setns": 268,
    "process_vm_readv": 270, "process_vm_writev": 271, "finit_module": 273, "kexec_file_load": 294,
    "bpf": 280, "userfaultfd": 282, "clone": 220,
}
# Calls added since Linux 5.1 have one number on every architecture.
_SHARED_NEW = {
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "clone3": 435,
    "mount_setattr": 442, "quotactl_fd": 443, "open_tree_attr": 467,
}

ARCHES: Mapping[str, Arch] = {
    "x86_64": Arch("x86_64", 0xC000003E, {**_X86_64, **_SHARED_NEW}, x32_bit=0x40000000),
    "aarch64": Arch("aarch64", 0xC00000B7, {**_AARCH64, **_SHARED_NEW}),
}


def unsupported_reason() -> str | None:
    """Why this machine gets no system-call filter, or None when it gets one."""
    machine = os.uname().machine
    if machine not in ARCHES:
        return f"no system-call filter: it knows {' and '.join(ARCHES)}, this machine is {machine}"
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            has_seccomp = any(line.startswith("Seccomp:") for line in status)
    except OSError:
        has_seccomp = False
    if not has_seccomp:
        return "no system-call filter: the kernel was built without seccomp"
    return None


# --- the program -------------------------------------------------------------------------

_INSN = struct.Struct("=HBBI")  # struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}, native order
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = the 32-bit word of seccomp_data at k
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. Both machines
# are little-endian, so an argument's low half comes first. Only the low half is read: the
# kernel takes clone's flags and ioctl's and fcntl's commands as 32-bit values, so high bits
# set by a caller change nothing the kernel does, and must change nothing the filter does.
_NR_AT, _ARCH_AT = 0, 4


def _arg_low_at(index: int) -> int:
    return 16 + 8 * index


_Insn = tuple[int, int, int, int]  # (code, jt, jf, k)


def build_filter(machine: str | None = None, refused: Sequence[Refusal] = REFUSED) -> bytes | None:
    """The seccomp program refusing `refused` on `machine` (default: this one), as bubblewrap's
    `--seccomp` reads it; None on a machine the filter does not know."""
    if machine is None:
        if unsupported_reason() is not None:
            return None
        machine = os.uname().machine
    arch = ARCHES.get(machine)
    if arch is None:
        return None
    return b"".join(_INSN.pack(*insn) for insn in _program(arch, refused))


def _program(arch: Arch, refused: Sequence[Refusal]) -> list[_Insn]:
    program: list[_Insn] = [(_LD_W_ABS, 0, 0, _ARCH_AT), (_JEQ, 1, 0, arch.audit_arch),
                           (_RET, 0, 0, _RET_KILL_PROCESS), (_LD_W_ABS, 0, 0, _NR_AT)]
    if arch.x32_bit:
        program += [(_JSET, 0, 1, arch.x32_bit), (_RET, 0, 0, _RET_KILL_PROCESS)]
    # A flat list of comparisons: the kernel (5.11+) caches the verdict of every call whose
    # path looks at nothing but the number and the arch, so most calls never run it. Those
    # that do, fcntl, ioctl and clone, common in every runtime, are compared first.
    by_number = _rules_by_number(arch, refused)
    conditional_first = sorted(by_number.items(), key=lambda item: all(when is None for when, _ in item[1]))
    for number, rules in conditional_first:
        body = _checks(rules)
        program += [_jump(_JEQ, number, 0, len(body)), *body]
    program.append((_RET, 0, 0, _RET_ALLOW))
    return program


def _rules_by_number(arch: Arch, refused: Sequence[Refusal]) -> dict[int, list[tuple[Condition | None, int]]]:
    """Each refused call's number on `arch`, with its (condition, errno) in table order."""
    rules: dict[int, list[tuple[Condition | None, int]]] = {}
    for refusal in refused:
        for call in refusal.calls:
            number = arch.numbers.get(call.name)
            if number is not None:  # a call the arch lacks (iopl on aarch64) needs no rule
                rules.setdefault(number, []).append((call.when, refusal.errno))
    return rules


def _checks(rules: list[tuple[Condition | None, int]]) -> list[_Insn]:
    """What runs once the number matched: each condition in turn, then the call's verdict
    when none held (its unconditional errno, or allowed); every path returns."""
    verdicts = list(dict.fromkeys(code for when, code in rules if when is not None))
    always = next((code for when, code in rules if when is None), None)
    tests: list[tuple[int, int, int]] = []  # (opcode, k, index of the verdict it jumps to); opcode LD: no jump
    loaded: int | None = None
    for when, code in rules:
        if when is None:
            continue
        if loaded != when.index:
            tests.append((_LD_W_ABS, _arg_low_at(when.index), -1))
            loaded = when.index
        if isinstance(when, ArgIn):
            tests += [(_JEQ, value, verdicts.index(code)) for value in when.values]
        else:
            tests.append((_JSET, when.mask, verdicts.index(code)))
    first_verdict = len(tests) + 1  # after the tests and the fall-through return
    body: list[_Insn] = []
    for at, (opcode, k, verdict) in enumerate(tests):
        if opcode == _LD_W_ABS:
            body.append((opcode, 0, 0, k))
        else:
            body.append(_jump(opcode, k, first_verdict + verdict - at - 1, 0))
    body.append((_RET, 0, 0, _RET_ALLOW if always is None else _RET_ERRNO | always))
    body += [(_RET, 0, 0, _RET_ERRNO | code) for code in verdicts]
    return body


def _jump(opcode: int, k: int, jt: int, jf: int) -> _Insn:
    # Classic BPF jumps forward at most 255 instructions; a rule book that needs more must
    # be laid out differently, not silently truncated.
    if not (0 <= jt <= 255 and 0 <= jf <= 255):
        raise ValueError(f"a jump of {max(jt, jf)} instructions is beyond classic BPF")
    return (opcode, jt, jf, k)


# --- the file bubblewrap reads -------------------------------------------------------------

_file_lock = threading.Lock()
_file: list[str | None] = []  # once written (or found impossible): [path or None]


def filter_file() -> str | None:
    """A path to this machine's filter, which a box's keeper opens: a file in memory (memfd)
    of this process, written once per arbiter process and gone with it, so that nothing is
    left on disk and nothing needs removing at exit (an exit handler that a second Ctrl-C
    interrupts prints a traceback); None when there is no filter. A worker forked from this
    process holds the same file."""
    with _file_lock:
        if not _file:
            program = build_filter()
            _file.append(None if program is None else _in_memory(program))
        return _file[0]


def _in_memory(program: bytes) -> str:
    fd = os.memfd_create("arbiter-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, program)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
    return f"/proc/{os.getpid()}/fd/{fd}"


def markdown_table() -> str:
    """The rule book as the Markdown table of docs/security.md: call, errno, why."""
    rows = ["| call | errno | why |", "| --- | --- | --- |"]
    for refusal in REFUSED:
        calls = ", ".join(call.describe() for call in refusal.calls)
        rows.append(f"| {calls} | `{errno.errorcode[refusal.errno]}` | {refusal.why} |")
    return "\n".join(rows)
