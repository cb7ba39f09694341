"""The sandbox: one box per bot, made with bubblewrap and control groups (docs/security.md).

This module owns every privilege and every limit of a sandboxed bot, and nothing else
knows how the box is made. `process.py` (the only place that starts a process) asks it for
a `Box`, whose first process it starts before the bot is known (a prelude, the launch helper
or else `/bin/sh`, that joins the box's control groups, sets its limits and waits), then has
it `enter` the bot's command (what the prelude reads next: the bot's limits and environment,
then bubblewrap around the bot). While the bot lives the box is its keeper: it finds the bot's own process and
its own two (`keepers`), freezes and thaws it, reads its CPU time and kills it whole;
afterwards it says why it was stopped (memory, process count) and is removed.

What a box is, on a machine that offers it all:
- **identity**: when the arbiter runs as root, the bot runs as `BOX_UID`/`BOX_GID`, an
  unprivileged user of its own, with no supplementary groups, no capabilities (bounding
  and inheritable sets emptied) and `no_new_privs` (util-linux's `setpriv`, run inside
  the box). Otherwise it keeps the arbiter's uid behind a user namespace, without
  capabilities. Its environment is cleared: `PATH`, `HOME=/tmp`, `LANG`, the protocol's
  variables and the player's own `env`.
- **namespaces** (bubblewrap): new PID, IPC, UTS, network, mount and cgroup namespaces.
  Only the system's runtime (`/usr`, `/etc`, the `/bin` and `/lib` links) is visible,
  read-only, plus what the bot needs: the files its command names, the interpreter's
  installation, the arbiter's bot kit and bundled players, its `cwd` when it was given
  one, and the player's extra `read`/`write` paths; `/tmp` and `/dev/shm` are private
  tmpfs of `TMPFS_MB` each; `/proc` shows only the box's processes; no network but its
  own loopback. A ZeroMQ bot's seat is a unix socket in a folder bound into its box alone.
- **limits**: memory through the control group (heap, shared memory and tmpfs pages
  alike), at most `MAX_PROCESSES` tasks, files of at most `MAX_FILE_MB`, no core dumps,
  at most `MAX_OPEN_FILES` descriptors. Without a memory control group, `RLIMIT_AS`;
  without a pids group and not root, `RLIMIT_NPROC` set inside the box's own user namespace.
  Its write folders hold at most `write_mb` and `write_files`: the box shows a copy of them on
  a tmpfs of that size and inode count, shared by the player's boxes at once and copied back
  when the last ends (`write_cap.py`); where that tmpfs cannot be made, the referee checks
  them after each turn (`SandboxSpec.write_cap_broken`).
- **system calls**: the seccomp filter of `seccomp.py` (keyrings, locks, namespaces, mounts,
  io_uring, ptrace, bpf...), loaded by bubblewrap from a file the prelude opens.
- **suspension**: the keeper freezes the whole box between turns (the freezer control
  group), children it forks meanwhile included; `BotProcess` stops it by SIGSTOP walks only
  where there is no freezer.
- **what it shows**: every path is resolved once (`_box_view`), and `shown_path_problems`
  refuses, when the config is read, one that leads to the config, the results or another
  player's folder; a path inside a write folder is shown by that folder, never resolved.
- **the whole tree**: every process of the box is in its PID namespace, whose init is a
  descendant of the launched process; when the bot's first process ends, or that init is
  killed, the kernel kills everything else in the box. The control group also gives the
  box's CPU time in one read and, on cgroup v2, `cgroup.kill`.

`support()` probes the machine once per process and says what is enforced; when
bubblewrap cannot run, bots are not boxed and every run says so.
"""
from __future__ import annotations

import functools
import os
import re
import secrets
import shlex
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from .procfs import children, read_proc, stat_fields
from .waits import readable
from . import spawn as spawn_helper
from .seccomp import filter_file, unsupported_reason
from .shown import PACKAGE_DIR, PLAYERS_DIR, SYSTEM_DIRS, _ancestors, _binds, _masks, _named_paths, _resolved
from . import write_cap

BOX_UID = BOX_GID = 61000  # the unprivileged user a boxed bot runs as when the arbiter is root
TMPFS_MB = 64  # size of a box's private /tmp, and of its /dev/shm
MAX_PROCESSES = 128  # tasks (processes and threads) in a box at once
MAX_FILE_MB = 64  # the largest file a bot may write (RLIMIT_FSIZE)
MAX_OPEN_FILES = 256  # RLIMIT_NOFILE
BOX_PATH = "/usr/local/bin:/usr/bin:/bin"
_PROBE_TIMEOUT_S = 10.0
_PROBE_REAP_S = 1.0  # how long the probe waits for its box's init to end, to reap it


class SandboxError(Exception):
    """A box could not be made though the machine offers sandboxing (the arbiter's problem)."""


WRITE_MB = 256  # the default cap on what a player's write folders hold together...
WRITE_FILES = 10000  # ...and on how many files, folders and links are in them


@dataclass(frozen=True)
class SandboxSpec:
    """What one player's box shows beyond the defaults: extra absolute paths, read-only or
    writable, and the cap on what the writable folders may hold."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    write_mb: int = WRITE_MB
    write_files: int = WRITE_FILES
    # Paths never shown, though a folder the box shows read-only holds them (the config, the
    # results, another player's folder): each is covered by an empty one (`_masks`).
    hide: tuple[str, ...] = ()

    def write_cap_broken(self) -> str | None:
        """Why the write folders hold more than their cap, or None (read without following a
        link; the walk stops as soon as the cap is passed, so it costs at most the cap). Asked
        only where the kernel cannot hold the cap (`write_cap.available`)."""
        if not self.write:
            return None
        size, entries = 0, 0
        limit = self.write_mb << 20
        pending = list(self.write)
        while pending:
            try:
                with os.scandir(pending.pop()) as found:
                    for entry in found:
                        entries += 1
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            size += entry.stat(follow_symlinks=False).st_size
                        if size > limit or entries > self.write_files:
                            return (f"its write folders hold more than their cap of {self.write_mb} MiB in "
                                    f"{self.write_files} files (sandbox: write_mb, write_files)")
            except OSError:
                continue  # gone meanwhile, or unreadable: nothing of it counts
        return None


# --- what the machine offers ---------------------------------------------------------

@dataclass(frozen=True)
class CgroupPlace:
    """Where a box's group for one feature is made: a folder of a hierarchy, and its version."""

    version: int  # 1 or 2
    parent: str  # the folder new groups are made in (the arbiter's own group)


@dataclass(frozen=True)
class Support:
    """What this machine lets the arbiter enforce, found by `support()`."""

    bwrap: str | None  # the bubblewrap that ran the probe box, or None
    setpriv: str | None  # util-linux setpriv, used inside the box
    as_root: bool  # boxes run as BOX_UID (else as the arbiter's uid in a user namespace)
    memory: CgroupPlace | None = None
    pids: CgroupPlace | None = None
    cpu: CgroupPlace | None = None
    kill: CgroupPlace | None = None  # cgroup v2's cgroup.kill
    freezer: CgroupPlace | None = None  # cgroup v2's cgroup.freeze, or the v1 freezer controller
    seccomp: str | None = None  # the file holding the system-call filter (seccomp.py), if there is one
    # The launch helper (spawn.py) that puts the bot's pipes in place and drops its rights in
    # the box; None: a /bin/sh shim and util-linux's setpriv do it.
    spawn: str | None = None
    missing: tuple[str, ...] = ()  # a sentence per thing that is not enforced, and why

    @property
    def usable(self) -> bool:
        """Whether bots can be boxed at all (namespaces and a private filesystem view)."""
        return self.bwrap is not None and self.setpriv is not None

    def enforced(self) -> dict[str, str | bool]:
        """For the run's description and reports: each protection, and how (or False)."""
        def place(p: CgroupPlace | None, what: str) -> str | bool:
            return f"cgroup v{p.version} {what}" if p else False
        memory: str | bool = place(self.memory, "memory")
        if self.usable and not self.memory:
            memory = "RLIMIT_AS (no memory control group)"
        return {
            "namespaces": "bubblewrap: pid, ipc, uts, net, mount, cgroup" if self.usable else False,
            "identity": (f"uid {BOX_UID}, no capabilities, no_new_privs" if self.as_root
                         else "the arbiter's uid in a user namespace, no capabilities, no_new_privs")
            if self.usable else False,
            "filesystem": "system runtime and the bot's own files, read-only; private /tmp" if self.usable else False,
            "network": "none (own loopback only)" if self.usable else False,
            "memory": memory if self.usable else False,
            "processes": (place(self.pids, f"pids.max={MAX_PROCESSES}") or self._nproc_in_namespace()
                          if self.usable else False),
            "cpu_accounting": place(self.cpu, "CPU time of the whole box") if self.usable else False,
            "suspension": (place(self.freezer, "freezer") or "SIGSTOP over the box's process tree")
            if self.usable else False,
            "files": f"RLIMIT_FSIZE {MAX_FILE_MB} MiB, RLIMIT_NOFILE {MAX_OPEN_FILES}, no core dumps"
            if self.usable else False,
            "system_calls": ("seccomp: keyrings, io_uring, namespaces, mounts, ptrace, bpf, perf events, "
                             "file locks and watches refused (docs/security.md)")
            if self.usable and self.seccomp else False,
        }

    def _nproc_in_namespace(self) -> str | bool:
        """Not root, without a pids group: RLIMIT_NPROC, which the kernel counts per user
        namespace, so in the box's own namespace it counts the box's tasks alone."""
        return f"RLIMIT_NPROC={MAX_PROCESSES} in the box's own user namespace" if not self.as_root else False

    def describe(self) -> str:
        """One line for a run's header."""
        if not self.usable:
            return "bots are NOT sandboxed: " + "; ".join(self.missing)
        limits = [name for name, p in (("memory", self.memory), ("processes", self.pids)) if p]
        rlimits = [] if self.memory else ["memory by RLIMIT_AS"]
        if self.pids is None and not self.as_root:
            rlimits.append(f"processes by RLIMIT_NPROC={MAX_PROCESSES} in the box's user namespace")
        text = "bots are sandboxed (bubblewrap"
        text += f", uid {BOX_UID}" if self.as_root else ", user namespace"
        text += f"; cgroup limits: {', '.join(limits)}" if limits else ""
        text += f"; {', '.join(rlimits)}" if rlimits else ""
        text += "; system-call filter)" if self.seccomp else ")"
        if self.missing:
            text += "; not enforced: " + "; ".join(self.missing)
        return text


_SUPPORT: Support | None = None
_SUPPORT_LOCK = threading.Lock()


def support() -> Support:
    """What this machine offers, probed once per process (a test box, the control groups)."""
    global _SUPPORT
    with _SUPPORT_LOCK:
        if _SUPPORT is None:
            _SUPPORT = _probe()
        return _SUPPORT


def box_here(spec: SandboxSpec | None) -> SandboxSpec | None:
    """The box a bot asking for `spec` gets when it is played on this machine: `spec` itself
    when this machine can make boxes, else None (the bot runs unboxed, which the caller says
    loudly). Decided once per run or command and carried in the player's spec, so a launch
    never asks again; a run spread over workers keeps `spec`, and each worker refuses the game
    if it cannot box (tournament/cluster.py)."""
    return spec if spec is not None and support().usable else None


def _probe() -> Support:
    as_root = os.geteuid() == 0
    missing: list[str] = []
    bwrap = shutil.which("bwrap")
    setpriv = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if bwrap is None:
        missing.append("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    if setpriv is None:
        missing.append("setpriv (util-linux) is not installed")
    seccomp_file = filter_file()
    if seccomp_file is None:
        missing.append(unsupported_reason() or "no system-call filter")
    spawn = spawn_helper.helper()
    if bwrap is not None and setpriv is not None:
        why = _try_box(bwrap, setpriv, as_root, seccomp_file, spawn)
        if why is not None and spawn is not None:
            spawn = None  # a box the helper cannot start in: the shell and setpriv do its work
            why = _try_box(bwrap, setpriv, as_root, seccomp_file, spawn)
        if why is not None and seccomp_file is not None and _try_box(bwrap, setpriv, as_root, None, spawn) is None:
            missing.append(f"no system-call filter: bubblewrap cannot load it here ({why})")
            seccomp_file = None
        elif why is not None:
            missing.append(f"bubblewrap cannot make a box here: {why}")
            bwrap = None
    places = _cgroup_places()
    for parent in {place.parent for place in places.values()}:
        _sweep_stale_groups(parent)
    memory, pids = places.get("memory"), places.get("pids")
    if memory is None:
        missing.append("memory control group (memory capped by RLIMIT_AS instead, which does not count tmpfs)")
    if pids is None and as_root:  # not root: RLIMIT_NPROC, counted in the box's own user namespace
        missing.append(f"process-count limit (no pids control group; {MAX_PROCESSES} tasks is not enforced)")
    if places.get("freezer") is None:
        missing.append("freezer control group (a suspended box is stopped process by process instead, "
                       "with SIGSTOP passes until one finds nothing running)")
    return Support(bwrap=bwrap, setpriv=setpriv, as_root=as_root, memory=memory, pids=pids,
                   cpu=places.get("cpu"), kill=places.get("kill"), freezer=places.get("freezer"),
                   seccomp=seccomp_file, spawn=spawn, missing=tuple(missing))


def _try_box(bwrap: str, setpriv: str, as_root: bool, seccomp: str | None, spawn: str | None) -> str | None:
    """Run `true` in a box like a bot's, started the same way (with the helper: built first,
    then given its command, as a box built ahead is); None if it worked, else why not."""
    box = _bwrap_argv(bwrap, setpriv, as_root, ["/bin/true"], cwd="/tmp", read=(), write=(),
                      seccomp=seccomp is not None, spawn=spawn, waits=spawn is not None)
    script_r, script_w = os.pipe()
    control_r, control_w = os.pipe()
    report_r, report_w = os.pipe()
    info_r, info_w = os.pipe()
    try:
        with open(script_w, "wb") as script, open(control_w, "wb") as control:
            script.write((_bot_script if spawn is None else _bot_data)(box, {"PATH": BOX_PATH}, address_space_mb=None,
                                                                         seccomp=seccomp, info=_fd_path(info_w)))
            control.write(_entries(["ePATH=" + BOX_PATH, "a/bin/true"]))
        argv = _prelude_argv((), _fd_path(script_r), spawn, control=control_r, report=report_w)
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=_PROBE_TIMEOUT_S, env={}, pass_fds=(control_r, report_w) if spawn else ())
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    finally:
        os.set_blocking(info_r, False)
        _reap_init(_info_pid(info_r))
        for fd in (script_r, control_r, report_r, report_w, info_r, info_w):
            os.close(fd)
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        return last[0] if last else f"status {done.returncode}"
    return None


# --- control groups ------------------------------------------------------------------

def _cgroup_places() -> dict[str, CgroupPlace]:
    """For each feature (memory, pids, cpu, kill): a writable place for boxes' groups."""
    mounts = _cgroup_mounts()
    own = _own_cgroups()
    found: dict[str, CgroupPlace] = {}
    # The CPU time from v1's `cpuacct.usage` where that controller is mounted beside the
    # unified hierarchy: v2's `cpu.stat` flushes the group's statistics at every reading (a
    # boxed game reads it twice a move; 2.5 us a move dearer, docs/performance.md).
    cpuacct = _v1_place(mounts, own, "cpuacct")
    if cpuacct is not None:
        found["cpu"] = cpuacct
    v2 = mounts.get("")  # the unified hierarchy, if mounted
    if v2 is not None and "" in own:
        parent = v2 + own[""].rstrip("/")
        files = _group_files(parent)
        if files is not None:
            enabled = _v2_controllers(parent)
            for feature in ("memory", "pids"):
                if feature in enabled:
                    found[feature] = CgroupPlace(2, parent)
            found.setdefault("cpu", CgroupPlace(2, parent))  # cpu.stat's usage is in every v2 group
            if "cgroup.kill" in files:  # Linux 5.14 and later
                found["kill"] = CgroupPlace(2, parent)
            if "cgroup.freeze" in files:  # Linux 5.2 and later
                found["freezer"] = CgroupPlace(2, parent)
    for feature, controller in (("memory", "memory"), ("pids", "pids"), ("freezer", "freezer")):
        place = None if feature in found else _v1_place(mounts, own, controller)
        if place is not None:
            found[feature] = place
    return found


def _v1_place(mounts: dict[str, str], own: dict[str, str], controller: str) -> CgroupPlace | None:
    """Where boxes' groups of a v1 controller go: under the arbiter's own group, when that
    controller is mounted and the arbiter may make groups there."""
    if controller not in mounts or controller not in own:
        return None
    parent = mounts[controller] + own[controller].rstrip("/")
    return CgroupPlace(1, parent) if _group_files(parent) is not None else None


def _cgroup_mounts() -> dict[str, str]:
    """Mount point per v1 controller, and of the unified (v2) hierarchy under the key ''."""
    mounts: dict[str, str] = {}
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return mounts
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        point, fstype, options = fields[4], tail[0], tail[2].split(",")
        if fstype == "cgroup2":
            mounts.setdefault("", point)
        elif fstype == "cgroup":
            for option in options:
                mounts.setdefault(option, point)
    return mounts


def _own_cgroups() -> dict[str, str]:
    """The arbiter's own group path per v1 controller, and in the unified hierarchy ('')."""
    own: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return own
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0" and controllers == "":
            own[""] = path
        else:
            for controller in controllers.split(","):
                own[controller] = path
    return own


def _v2_controllers(parent: str) -> set[str]:
    """The controllers a child group of `parent` gets (enabling memory and pids if we may)."""
    try:
        enabled = set(Path(parent, "cgroup.subtree_control").read_text().split())
        offered = set(Path(parent, "cgroup.controllers").read_text().split())
    except OSError:
        return set()
    for controller in ("memory", "pids"):
        if controller in offered and controller not in enabled:
            try:  # refused (EBUSY) when the group holds processes and is not the root
                Path(parent, "cgroup.subtree_control").write_text(f"+{controller}")
                enabled.add(controller)
            except OSError:
                pass
    return enabled


def _group_files(parent: str) -> set[str] | None:
    """The files of a new group in `parent` (a probe group, made and removed), or None when
    no group can be made there."""
    probe = os.path.join(parent, f"arbiter-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        return set(os.listdir(probe))
    except OSError:
        return None
    finally:
        try:
            os.rmdir(probe)
        except OSError:
            pass


def _join_file(folder: str, version: int) -> str:
    """The file of a group that a process joins by writing `0` to it. In a v1 hierarchy, `tasks`:
    that moves the writing thread alone (the box's first process, a shell, has one), and for a
    thread moving itself the kernel skips the global lock (`cgroup_threadgroup_rwsem`) whose
    taking otherwise waits for an RCU grace period, 5 to 23 ms (docs/performance.md, Sandbox).
    In v2, `cgroup.procs` (a thread cannot leave its process's domain there): that wait is
    paid, but by a box started before its bot is known (`Box`)."""
    return os.path.join(folder, "tasks" if version == 1 else "cgroup.procs")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as file:
            return file.read()
    except OSError:
        return ""


def _counter(text: str, key: str) -> int:
    """The number after `key` in a `key value` per line file (0 when absent)."""
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


_BOX_NUMBER = 0
_BOX_NUMBER_LOCK = threading.Lock()
# With the pid, names no other arbiter's group, even one left by a process whose pid is reused.
_PROCESS_TOKEN = secrets.token_hex(4)
_GROUP_GONE_WAIT_S = 0.2  # how long `remove` waits for a box's killed processes to leave its group


def _next_box_name() -> str:
    global _BOX_NUMBER
    with _BOX_NUMBER_LOCK:
        _BOX_NUMBER += 1
        return f"arbiter-{os.getpid()}-{_PROCESS_TOKEN}-{_BOX_NUMBER}"


def _remove_group(folder: str, wait_s: float) -> bool:
    """Remove an empty control group, waiting up to `wait_s` for processes still leaving it
    (the kernel finishes a killed box's processes a little after its first one is reaped)."""
    deadline = time.monotonic() + wait_s
    delay_s = 0.001
    while True:
        try:
            os.rmdir(folder)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay_s)
            delay_s = min(delay_s * 2, 0.02)


def _sweep_stale_groups(parent: str) -> None:
    """Remove the groups of boxes whose arbiter is gone (`arbiter-PID-...`, PID not running),
    left when a box's last process was slow to leave: empty, but a kernel object each."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        fields = name.split("-")
        if fields[0] != "arbiter" or len(fields) < 3 or not fields[1].isdigit():
            continue
        if not os.path.exists(f"/proc/{fields[1]}"):
            _remove_group(os.path.join(parent, name), 0)


class _Groups:
    """One box's control groups (one folder per hierarchy used), made before its first
    process starts; the memory limit is set when the box is given its bot (`limit_memory`)."""

    def __init__(self, places: Support) -> None:
        name = _next_box_name()
        self.folders: dict[str, str] = {}  # feature -> folder
        self.memory_mb: int | None = None
        self._memory_v2 = places.memory is not None and places.memory.version == 2
        # The file a process writes `0` to, to join each group itself (`_join_file`).
        self.joins: list[str] = []
        self._cpu_fd: int | None = None
        self._cpu_v2 = False
        self._freeze_fd: int | None = None  # cgroup.freeze (v2) or freezer.state (v1), open for writing
        self._freezer_v2 = False
        made: dict[str, str] = {}  # parent -> folder: one group per hierarchy
        try:
            for feature in ("memory", "pids", "cpu", "kill", "freezer"):
                place: CgroupPlace | None = getattr(places, feature)
                if place is None:
                    continue
                folder = made.get(place.parent)
                if folder is None:
                    folder = os.path.join(place.parent, name)
                    os.mkdir(folder)
                    made[place.parent] = folder
                    self.joins.append(_join_file(folder, place.version))
                self.folders[feature] = folder
            if "pids" in self.folders:
                _write(os.path.join(self.folders["pids"], "pids.max"), str(MAX_PROCESSES))
            if "cpu" in self.folders:
                self._cpu_v2 = places.cpu is not None and places.cpu.version == 2
                self._cpu_fd = os.open(os.path.join(self.folders["cpu"],
                                                    "cpu.stat" if self._cpu_v2 else "cpuacct.usage"), os.O_RDONLY)
            if "freezer" in self.folders:
                folder = self.folders["freezer"]
                self._freezer_v2 = places.freezer is not None and places.freezer.version == 2
                self._freeze_fd = os.open(os.path.join(folder, "cgroup.freeze" if self._freezer_v2 else "freezer.state"),
                                          os.O_WRONLY)
        except OSError as exc:
            self.remove()
            raise SandboxError(f"cannot make the box's control group: {exc}") from None

    def limit_memory(self, memory_mb: int | None) -> None:
        """Cap the memory of the group's processes (heap, shared memory and tmpfs pages), swap
        included, when there is a memory group; `memory_mb` stays None without one."""
        if "memory" not in self.folders or memory_mb is None:
            return
        folder, limit = self.folders["memory"], str(memory_mb << 20)
        try:
            if self._memory_v2:
                _write(os.path.join(folder, "memory.max"), limit)
                if os.path.exists(os.path.join(folder, "memory.swap.max")):
                    _write(os.path.join(folder, "memory.swap.max"), "0")
            else:
                _write(os.path.join(folder, "memory.limit_in_bytes"), limit)
                if os.path.exists(os.path.join(folder, "memory.memsw.limit_in_bytes")):
                    _write(os.path.join(folder, "memory.memsw.limit_in_bytes"), limit)  # no escape to swap
        except OSError as exc:
            raise SandboxError(f"cannot set the box's memory limit of {memory_mb} MiB: {exc}") from None
        self.memory_mb = memory_mb

    def cpu_ms(self) -> float:
        """The whole box's CPU time so far (every process it ever had); 0.0 once the group is
        removed (no process of it runs then). Read every turn: one call, no deeper."""
        fd = self._cpu_fd
        if fd is None:
            return 0.0
        try:
            data = os.pread(fd, 256, 0)
        except OSError:
            return 0.0
        if self._cpu_v2:  # "usage_usec N" is the first line
            return int(data.split(None, 2)[1]) / 1000
        return int(data) / 1e6

    @property
    def reads_cpu(self) -> bool:
        return self._cpu_fd is not None

    @property
    def freezes(self) -> bool:
        return self._freeze_fd is not None

    def freeze(self) -> None:
        """Freeze every process of the group, those it forks meanwhile included (the kernel
        freezes a new child with its parent's group). Neither waited for nor looked at (`frozen`
        in cgroup.events: a read a turn, and nobody needs the answer): a process asleep (a bot
        waiting for its input) or running is frozen within microseconds, as soon as it next runs;
        one in the middle of a system call that cannot be interrupted, when it leaves it. What a
        process uses meanwhile is its box's CPU time, which the referee reads once the box is
        suspended and charges to the bot (waiting for the kernel's word costs 0.5 to 1.5 ms a
        turn here: its notice comes from a worker thread)."""
        assert self._freeze_fd is not None
        os.pwrite(self._freeze_fd, b"1" if self._freezer_v2 else b"FROZEN", 0)

    def thaw(self) -> None:
        """Let the group's processes run again."""
        if self._freeze_fd is not None:
            try:
                os.pwrite(self._freeze_fd, b"0" if self._freezer_v2 else b"THAWED", 0)
            except OSError:
                pass  # the group is being removed

    def kill(self) -> None:
        """cgroup v2: SIGKILL every process in the group at once (thawed first: a process
        frozen by the v1 freezer does not die until it is thawed)."""
        self.thaw()
        folder = self.folders.get("kill")
        if folder is not None:
            try:
                _write(os.path.join(folder, "cgroup.kill"), "1")
            except OSError:
                pass

    def peak_memory_mb(self) -> float | None:
        """The most memory the box held at once, if the control group says."""
        folder = self.folders.get("memory")
        if folder is None:
            return None
        for name in ("memory.peak", "memory.max_usage_in_bytes"):
            text = _read_text(os.path.join(folder, name)).strip()
            if text.isdigit():
                return int(text) / (1 << 20)
        return None

    def limit_hit(self) -> str | None:
        """Why the kernel stopped the box, if a limit did: for a crash's detail."""
        if "memory" in self.folders and self.memory_mb is not None:
            folder = self.folders["memory"]
            events = _read_text(os.path.join(folder, "memory.events")) or _read_text(
                os.path.join(folder, "memory.oom_control"))
            if _counter(events, "oom_kill") > 0:
                return f"it reached its memory limit of {self.memory_mb} MiB (the sandbox's control group)"
        if "pids" in self.folders:
            if _counter(_read_text(os.path.join(self.folders["pids"], "pids.events")), "max") > 0:
                return f"it tried to have more than {MAX_PROCESSES} processes and threads at once"
        return None

    def remove(self) -> None:
        """Close the files and remove the groups (each must be empty by now)."""
        for fd in (self._cpu_fd, self._freeze_fd):
            if fd is not None:
                os.close(fd)
        self._cpu_fd = self._freeze_fd = None
        for folder in dict.fromkeys(self.folders.values()):
            _remove_group(folder, _GROUP_GONE_WAIT_S)  # else left empty, swept by a later run
        self.folders = {}


# --- the box -------------------------------------------------------------------------

class Box:
    """One bot's sandbox, made in steps. `Box()` makes its control groups and the command of
    its first process (`argv`, `env`, `pass_fds`): a prelude (the launch helper, else `/bin/sh`)
    that joins the groups, sets the limits every box has, puts the bot's pipes (its standard
    input and output) on descriptors 3 and 4, and waits for the rest of its script. That process
    can be started before the bot is known: `BotProcess` keeps boxes started ahead
    (docs/performance.md, Sandbox), so that no bot waits for the kernel while its box's first
    process joins the groups. `enter` then gives the started box its bot: what sets the bot's
    own limits and environment and becomes bubblewrap around it. With the launch helper that is
    two steps, which may be apart: `build` makes the prelude bubblewrap showing a `BoxView`, the
    helper waiting in the box, and `give` sends the helper the bot's environment (a player's
    next box is built while its game goes on: process.py). Then CPU time, freezing, why it was
    stopped, and `remove` once its processes are all gone."""

    def __init__(self) -> None:
        self.places = places = support()  # what the box is made with (a test may change it)
        if not places.usable:  # the spec promised a box (box_here) on a machine that has none
            raise SandboxError(f"this machine cannot sandbox bots: {places.describe()}")
        self.groups = _Groups(places)
        # The script comes through a pipe whose read end the prelude opens by its path in /proc:
        # the shell then holds it close-on-exec, so no process of the box inherits it. The
        # arbiter keeps the read end until `remove` (its number cannot be reused meanwhile).
        self._script_r, self._script_w = os.pipe()
        self._script_w_open = True
        # bubblewrap's word on the box (INFO_FD), through a pipe its prelude opens by its path in
        # /proc: the pid of the box's init, for a bot that ends before anything looked (`init`).
        # Made with bubblewrap's command line, not before: a box waiting for its bot holds none.
        self._info_r = self._info_w = -1
        # With the launch helper, a box can be built before its bot is known (`build`, then
        # `give`): the bot's command comes through a pipe the helper reads on descriptor 6, and
        # the helper's descriptor 7, closed when the bot's program runs, tells `bot_pid` that it has.
        self._control_w = self._report_r = -1
        self.pass_fds: tuple[int, ...] = ()  # the prelude's inherited pipes, closed here once it runs
        control = report = None
        if places.spawn is not None:
            control_r, self._control_w = os.pipe()
            self._report_r, report_w = os.pipe()
            self.pass_fds = (control_r, report_w)
            control, report = control_r, report_w
        self.argv = _prelude_argv(self.groups.joins, _fd_path(self._script_r), places.spawn,
                                  control=control, report=report)
        self.env: dict[str, str] = {}  # the prelude's; the bot's own is set by its script
        self.view: BoxView | None = None  # what it shows, once built
        self.write_cap: write_cap.WriteCap | None = None  # its write folders' capped copy (`write_cap.hold`)
        self._launched_pid = -1
        self.init: tuple[int, bytes] | None = None  # bubblewrap's init (pid, start time), once noted

    def enter(self, command: Sequence[str], *, cwd: str | None, env: Mapping[str, str], spec: SandboxSpec,
              memory_mb: int | None, seat_dir: str | None = None) -> None:
        """Give the started box its bot: `command` run from `cwd` with `env` (and the box's
        PATH, HOME and LANG), showing what `spec` and `seat_dir` add, within `memory_mb`."""
        places = self.places
        view = box_view(command, cwd=cwd, spec=spec, memory_mb=memory_mb, seat_dir=seat_dir, places=places)
        if places.spawn is not None:
            self.build(view)
            self.give(env, memory_mb)
            return
        for path in view.given:
            _give_to_box(path, places.as_root)
        self.groups.limit_memory(memory_mb)
        self._write_script(_bot_script(self._bwrap(view, waits=False), self._bot_env(env),
                                       address_space_mb=view.address_space_mb, seccomp=places.seccomp,
                                       info=self._info_path()))

    def build(self, view: BoxView) -> None:
        """Have the started box's prelude become bubblewrap showing `view`, its bot to come
        (`give`): the helper waits in the box for the bot's command. Needs the launch helper."""
        places = self.places
        assert places.spawn is not None and view.places is places
        for path in view.given:
            _give_to_box(path, places.as_root)
        self._write_script(_bot_data(self._bwrap(view, waits=True), {"PATH": BOX_PATH}, address_space_mb=view.address_space_mb,
                                     seccomp=places.seccomp, info=self._info_path()))
        self.view = view

    def _bwrap(self, view: BoxView, *, waits: bool) -> Sequence[str]:
        """bubblewrap's command line for `view`, its write folders shown as a capped copy
        (`write_cap.py`) where the machine can make one."""
        argv = view.bwrap(waits=waits)
        if not view.write or write_cap.available() is not None:
            return argv
        try:
            self.write_cap = write_cap.hold(view.write, write_mb=view.write_limits[0], write_files=view.write_limits[1],
                                            box_uid=(BOX_UID, BOX_GID) if self.places.as_root else None)
        except write_cap.WriteCapError as exc:
            raise SandboxError(str(exc)) from None
        return self.write_cap.around(argv)

    def give(self, env: Mapping[str, str], memory_mb: int | None) -> None:
        """Start the bot in the built box: its view's command, with `env` and the box's PATH,
        HOME and LANG, its group within `memory_mb`."""
        assert self.view is not None and self._control_w >= 0
        self.groups.limit_memory(memory_mb)
        data = _entries([*_env_entries(self._bot_env(env)), *(f"a{argument}" for argument in self.view.resolved)])
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._control_w, view):]
        except OSError as exc:
            raise SandboxError(f"the box is gone before its bot could start: {exc}") from None
        finally:
            os.close(self._control_w)
            self._control_w = -1

    def _info_path(self) -> str:
        """The path by which the prelude opens the pipe bubblewrap gives the init's pid on."""
        self._info_r, self._info_w = os.pipe()
        os.set_blocking(self._info_r, False)
        return _fd_path(self._info_w)

    def _note_init(self) -> None:
        """Note bubblewrap's init (`init`) from its word on INFO_FD, once it has given it: still
        bubblewrap's child, or handed to the arbiter, never a process that took its pid since
        (not a child of either). The pipe stays open until `remove`: bubblewrap writes its word
        in several writes, and one that met a pipe with no reader would kill it (SIGPIPE), and
        its box with it, which the arbiter would take for the bot's death."""
        if self.init is not None or self._info_r < 0:
            return
        pid = _info_pid(self._info_r)
        if pid is None:
            return  # not yet made (looked at again later), or never
        fields = stat_fields(pid)
        if fields is not None and int(fields[1]) in (os.getpid(), self._launched_pid) and \
                read_proc(f"/proc/{pid}/comm") == b"bwrap\n":
            self.init = (pid, fields[19])

    @staticmethod
    def _bot_env(env: Mapping[str, str]) -> dict[str, str]:
        return {"PATH": BOX_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", **env}

    def _write_script(self, script: bytes) -> None:
        """Write what the prelude reads, and close it (the prelude reads it to its end)."""
        try:
            view = memoryview(script)
            while view:  # more than a pipe holds waits for the prelude to read it
                view = view[os.write(self._script_w, view):]
        except OSError as exc:
            raise SandboxError(f"the box's first process is gone before its bot could start: {exc}") from None
        finally:
            self._close_script()

    def _close_script(self) -> None:
        if self._script_w_open:
            self._script_w_open = False
            os.close(self._script_w)

    def abandon(self) -> None:
        """No bot for this box: its prelude, or the helper waiting in a built box, reads an
        empty script and ends."""
        self._close_script()
        if self._control_w >= 0:
            os.close(self._control_w)
            self._control_w = -1

    # --- the running box: given the pid of the process launched with `argv` ----------------
    def launched(self, pid: int) -> None:
        """The box's first process (the prelude, then bubblewrap) has been started as `pid`."""
        self._launched_pid = pid
        self._keepers: set[int] = set()
        self._bot_pid: int | None = None
        self.init: tuple[int, bytes] | None = None  # bubblewrap's init (pid, start time), once noted
        for fd in self.pass_fds:  # the prelude has its own
            os.close(fd)
        self.pass_fds = ()

    def bot_pid(self) -> int | None:
        """The bot's own process (the box init's child), once it has run the bot's program."""
        if self._bot_pid is None:
            if self._report_r >= 0 and not readable([self._report_r], 0):
                return None  # the helper has not run the bot's program yet (its descriptor 7 is open)
            inits = children(self._launched_pid)
            bots = children(inits[0]) if inits else []
            if bots and read_proc(f"/proc/{bots[0]}/comm") not in (None, b"bwrap\n"):  # it has run exec
                self._keepers = {self._launched_pid, inits[0]}
                self._bot_pid = bots[0]
                fields = stat_fields(inits[0])
                self.init = (inits[0], fields[19]) if fields is not None else None
        return self._bot_pid

    def keepers(self) -> set[int]:
        """bubblewrap's processes: the one launched and the box's init (its child). They are
        never signalled one by one: their death would SIGKILL the box at once, and a PID
        namespace's init does not take SIGCONT from outside reliably."""
        if self._keepers:
            return self._keepers
        return {self._launched_pid, *children(self._launched_pid)}

    @property
    def freezes(self) -> bool:
        """Whether the box is suspended by the freezer (else process by process, by the caller)."""
        return self.groups.freezes

    def suspend(self) -> None:
        """Freeze every process of the box, bubblewrap's and any it forks meanwhile (see
        `_Groups.freeze`)."""
        self.groups.freeze()

    def resume(self) -> None:
        """Thaw the box (a no-op when it is not frozen)."""
        self.groups.thaw()

    def cpu_reader(self) -> Callable[[], float] | None:
        """What reads the box's CPU time in ms from its control group (every process it ever
        had; 0.0 once the group is gone), or None when there is no such group. Handed out
        once, so that a reading a move is one call deep."""
        return self.groups.cpu_ms if self.groups.reads_cpu else None

    def freezer_calls(self) -> tuple[Callable[[], None], Callable[[], None]] | None:
        """(suspend, resume) as the freezer's own calls, or None without a freezer. Handed out
        once, so that a turn's suspension is one call deep."""
        return (self.groups.freeze, self.groups.thaw) if self.groups.freezes else None

    def exit_status(self, status: int) -> int:
        """The bot's own status from bubblewrap's: it exits 128+N when the bot died of signal N."""
        return -(status - 128) if 128 < status <= 128 + 64 else status

    def kill(self) -> None:
        """SIGKILL the whole box through its control group, where the machine allows."""
        self.groups.kill()

    def limit_hit(self) -> str | None:
        """Why the box's processes were stopped by the kernel, when a limit did it."""
        return self.groups.limit_hit()

    def peak_memory_mb(self) -> float | None:
        """The most memory the box held at once, when a memory control group measured it."""
        return self.groups.peak_memory_mb()

    def ended_init(self) -> tuple[int, bytes] | None:
        """bubblewrap's init (pid, start time) once the box's processes have ended: as `bot_pid`
        noted it, or, for a bot that ended before anything looked, as bubblewrap gave its pid on
        INFO_FD. The arbiter reaps it once it is its zombie (process.py, `_Inits`): its first
        process can end before it, and a bot that exits at once would otherwise leave one a box."""
        self._note_init()
        return self.init

    def remove(self) -> None:
        """Remove the control groups (the box's processes are dead) and the script's pipes, and
        copy its write folders back from their capped copy."""
        self.abandon()
        if self.write_cap is not None:
            write_cap.release(self.write_cap)
            self.write_cap = None
        for fd in (self._script_r, self._report_r, self._info_r, self._info_w, *self.pass_fds):
            if fd >= 0:
                os.close(fd)
        self._script_r = self._report_r = self._info_r = self._info_w = -1
        self.pass_fds = ()
        self.groups.remove()


@dataclass(frozen=True)
class BoxView:
    """What a player's box shows and which command it runs, worked out from its command, spec
    and seat (`box_view`): two equal views make interchangeable boxes, so a box built ahead
    for one player's next game (process.py) serves any launch with the same view."""

    places: Support
    resolved: tuple[str, ...]  # the command, its program found as the box will find it
    workdir: str
    read: tuple[str, ...]
    write: tuple[str, ...]
    hide: tuple[str, ...]
    given: tuple[str, ...]  # made to exist and given to the box's user before it starts
    write_limits: tuple[int, int]  # the write folders' cap: (write_mb, write_files)
    address_space_mb: int | None  # the cap on address space, where no memory group caps the box

    def bwrap(self, *, waits: bool) -> tuple[str, ...]:
        """bubblewrap's command line: around the command, or (`waits`) ending with the helper
        waiting in the box for it (`spawn box-wait`)."""
        places = self.places
        assert places.bwrap is not None and places.setpriv is not None
        return _box_view(places.bwrap, places.setpriv, places.as_root, places.seccomp is not None, places.spawn,
                         self.resolved, self.workdir, self.read, self.write, self.hide, waits)


def box_view(command: Sequence[str], *, cwd: str | None, spec: SandboxSpec, memory_mb: int | None,
             seat_dir: str | None = None, places: Support | None = None) -> BoxView:
    """The view of a box for `command` run from `cwd` (the arbiter's folder when None),
    showing what `spec` and a ZeroMQ `seat_dir` add, within `memory_mb`."""
    places = places if places is not None else support()
    workdir = os.path.abspath(cwd or os.getcwd())
    # A ZeroMQ seat's folder is shown read-only: the bot connects to the socket in it (a
    # socket takes connections on a read-only mount) and can create nothing there.
    seat = (seat_dir,) if seat_dir else ()
    return BoxView(places=places, resolved=tuple(_resolved(command, workdir)), workdir=workdir,
                   read=(*spec.read, *seat), write=tuple(spec.write), hide=tuple(spec.hide),
                   given=(*spec.write, *seat), write_limits=(spec.write_mb, spec.write_files),
                   # Without a memory group the cap is on address space (mmap included).
                   address_space_mb=memory_mb if places.memory is None else None)


def _info_pid(info_r: int) -> int | None:
    """The box init's pid (outside the box) that bubblewrap wrote on INFO_FD, read from the
    other end of its pipe (non-blocking), or None when it said nothing (it failed before)."""
    try:
        said = os.read(info_r, 4096)
    except OSError:
        return None
    found = re.search(rb'"child-pid": *([0-9]+)', said)
    return int(found.group(1)) if found else None


def _reap_init(pid: int | None) -> None:
    """Reap the probe's box init once it is the arbiter's zombie (a child subreaper's: its
    bubblewrap may end first); not when bubblewrap reaped it, or it is another's, or it is
    still alive after _PROBE_REAP_S."""
    deadline = time.monotonic() + _PROBE_REAP_S
    while pid is not None:
        fields = stat_fields(pid)
        if fields is None or read_proc(f"/proc/{pid}/comm") != b"bwrap\n":
            return
        if fields[0] == b"Z" and int(fields[1]) == os.getpid():
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            return
        if time.monotonic() > deadline:
            return
        time.sleep(0.001)


def _fd_path(fd: int) -> str:
    """The path in /proc by which a box's prelude opens one of the arbiter's pipes (so that it
    holds its own copy, close-on-exec or on a descriptor of its choosing, and nothing else does)."""
    return f"/proc/{os.getpid()}/fd/{fd}"


def _entries(entries: Sequence[str]) -> bytes:
    """Entries for the launch helper (spawn.c), each a tag and its text, NUL-terminated. A NUL
    inside one would end it early and start another, so none is let through."""
    for entry in entries:
        if "\0" in entry:
            raise SandboxError(f"a bot's command or environment cannot hold a NUL character: {entry[1:80]!r}")
    return b"".join(entry.encode("utf-8", "surrogateescape") + b"\0" for entry in entries)


@functools.lru_cache(maxsize=256)
def _box_view(bwrap: str, setpriv: str, as_root: bool, seccomp: bool, spawn: str | None, command: tuple[str, ...],
              cwd: str, read: tuple[str, ...], write: tuple[str, ...], hide: tuple[str, ...] = (),
              waits: bool = False) -> tuple[str, ...]:
    """`_bwrap_argv` for a player's box, worked out once per arbiter process: the same player's
    box shows the same paths in every game, and finding them (the interpreter's installation,
    every path resolved through its links) took 0.5 ms of the arbiter's CPU a launch, 40% of a
    boxed launch's. A path that changes between two games of one run is seen as it was at
    the first (the box shows what was resolved then)."""
    return tuple(_bwrap_argv(bwrap, setpriv, as_root, command, cwd=cwd,
                             read=(*read, *_named_paths(command, cwd, write, as_root)), write=write, seccomp=seccomp,
                             hide=hide, spawn=spawn, waits=waits))


def _bwrap_argv(bwrap: str, setpriv: str, as_root: bool, command: Sequence[str], *, cwd: str,
                read: Sequence[str], write: Sequence[str], seccomp: bool, hide: Sequence[str] = (),
                spawn: str | None = None, waits: bool = False) -> list[str]:
    """bubblewrap's command line for a box around `command`, run from `cwd` (with the
    system-call filter read from SECCOMP_FD when `seccomp`), the `hide` paths covered. The
    bot's pipes are moved to 0 and 1 and its rights dropped by the launch helper `spawn`
    (shown read-only at SPAWN_IN_BOX), or, without one, by a /bin/sh shim and setpriv."""
    argv = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--hostname", "box", "--info-fd", str(INFO_FD)]
    if seccomp:
        argv += ["--seccomp", str(SECCOMP_FD)]
    if not as_root:
        argv.append("--unshare-user")  # unprivileged: the namespaces need a user namespace
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    size = str(TMPFS_MB << 20)
    argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
             "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"]
    # An empty folder where the bot starts, unless a bind below shows a real one there;
    # the folders leading to each bind are made searchable (bubblewrap would make them 0700).
    made: set[str] = set()
    binds = _binds(read, write, hide)
    for option, path in [("--dir", cwd), *binds]:
        for folder in _ancestors(path):
            if folder not in made:
                made.add(folder)
                argv += ["--dir", folder]
        argv += [option, path] if option == "--dir" else [option, path, path]
    argv += _masks(binds, hide)
    argv += ["--chdir", cwd]
    if as_root:  # root in the box only to become the box's user; the helper or setpriv drops it all
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    if spawn is not None:
        argv += ["--dir", os.path.dirname(SPAWN_IN_BOX), "--ro-bind", spawn, SPAWN_IN_BOX]
        rights = [str(BOX_UID) if as_root else "-", "-" if as_root else str(MAX_PROCESSES)]
        if waits:  # the command comes later, on the helper's descriptor 6
            return [*argv, "--", SPAWN_IN_BOX, "box-wait", *rights]
        return [*argv, "--", SPAWN_IN_BOX, "box", *rights, *command]
    prefix = [setpriv, "--no-new-privs", "--inh-caps=-all"]
    if as_root:
        prefix += [f"--reuid={BOX_UID}", f"--regid={BOX_GID}", "--clear-groups", "--bounding-set=-all"]
    # Not root: the process cap is RLIMIT_NPROC, set inside the box (so after bubblewrap made
    # its user namespace, whose own count then holds only the box's tasks; set before, it would
    # also cap the namespace's share of every process of the arbiter's user).
    # (bash says -u, dash -p).
    cap = f"{{ ulimit -u {MAX_PROCESSES} 2>/dev/null || ulimit -p {MAX_PROCESSES}; }}"
    shim = _STDIO_SHIM if as_root else f"{cap} && {_STDIO_SHIM}"
    return [*argv, "--", "/bin/sh", "-c", shim, "box", *prefix, "--", *command]


# The bot's stdin and stdout come in as descriptors 3 and 4 (`STDIN_FD`, `STDOUT_FD`), which
# bubblewrap's own two processes close: so only the bot holds its pipes, and the arbiter
# sees the end of file when the bot closes its output, not when the whole box has gone.
STDIN_FD, STDOUT_FD = 3, 4
SECCOMP_FD = 5  # the filter's file, which bubblewrap reads and closes before the bot starts
# Where bubblewrap writes its word on the box (`--info-fd`), the pid of the box's init outside
# the box among it, as soon as it has made the init; it closes it, and the init never has it.
INFO_FD = 8
_STDIO_SHIM = 'exec 0<&3 1>&4 3<&- 4>&- && exec "$@"'
SPAWN_IN_BOX = "/run/arbiter/spawn"  # where a box shows the launch helper


def _prelude_argv(joins: Sequence[str], script: str, spawn: str | None = None, *, control: int | None = None,
                  report: int | None = None) -> list[str]:
    """The command the arbiter starts for a box: a prelude that moves itself into the box's
    control groups (writing `0` to each of `joins`), sets the limits every box has, puts the
    bot's pipes (its standard input and output) on descriptors 3 and 4 with /dev/null on 0 and
    1, and reads from the file `script` what makes it bubblewrap. The launch helper `spawn`
    (`spawn prelude`, reading `_bot_data`; the inherited pipes `control` and `report` go to
    the helper that waits in a box built ahead, on its descriptors 6 and 7), else `/bin/sh`
    (running `_bot_script`). A prelude
    rather than Python between fork and exec, so that the arbiter starts it with vfork instead
    of copying itself (docs/performance.md, Sandbox); every process of the box descends from it,
    so all of them are in the groups."""
    if spawn is not None:
        return [spawn, "prelude", "0", str(MAX_FILE_MB << 20), str(MAX_OPEN_FILES), script,
                "-" if control is None else str(control), "-" if report is None else str(report), *joins]
    steps = ["set -e"]
    steps += [f"echo 0 >{shlex.quote(path)}" for path in joins]
    steps += ["ulimit -c 0", f"ulimit -f {(MAX_FILE_MB << 20) // 512}", f"ulimit -n {MAX_OPEN_FILES}"]
    steps.append(f"exec {STDIN_FD}<&0 {STDOUT_FD}>&1 </dev/null >/dev/null")
    steps.append(f". {shlex.quote(script)}")
    return ["/bin/sh", "-c", "; ".join(steps), "box-launch"]


_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _bot_script(bwrap: Sequence[str], env: Mapping[str, str], *, address_space_mb: int | None,
                seccomp: str | None, info: str) -> bytes:
    """What a box's prelude runs once its bot is known: the address-space cap (when there is no
    memory group), the system-call filter's file opened on SECCOMP_FD and the `info` file on
    INFO_FD for bubblewrap, the bot's environment (and nothing else: the prelude starts with
    none), then bubblewrap in its place."""
    lines = []
    if address_space_mb is not None:
        lines.append(f"ulimit -v {address_space_mb << 10}")
    if seccomp is not None:
        lines.append(f"exec {SECCOMP_FD}<{shlex.quote(seccomp)}")
    lines.append(f"exec {INFO_FD}>{shlex.quote(info)}")
    # A name that is not a shell's (`my.setting`) is left out: the shell inside the box, before
    # `setpriv`, would drop it anyway (as it always has, docs/security.md).
    lines += [f"export {name}={shlex.quote(value)}" for name, value in env.items() if _SHELL_NAME.fullmatch(name)]
    lines.append(f"exec {shlex.join(bwrap)}")
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


def _bot_data(bwrap: Sequence[str], env: Mapping[str, str], *, address_space_mb: int | None,
              seccomp: str | None, info: str) -> bytes:
    """`_bot_script`'s steps as the launch helper's prelude reads them (spawn.c): NUL-terminated
    entries, a tag and its text each; the same environment (names a shell would take), the same
    address-space cap and filter, then bubblewrap's command line. A NUL inside one would end it
    early and start another entry, so none is let through."""
    entries = []
    if address_space_mb is not None:
        entries.append(f"v{address_space_mb << 20}")
    if seccomp is not None:
        entries.append(f"s{seccomp}")
    entries.append(f"i{info}")
    entries += _env_entries(env)
    entries += [f"a{argument}" for argument in bwrap]
    return _entries(entries)


def _env_entries(env: Mapping[str, str]) -> list[str]:
    """The environment as the helper's entries, the names a shell would take (as `_bot_script`)."""
    return [f"e{name}={value}" for name, value in env.items() if _SHELL_NAME.fullmatch(name)]


def remove_tree(path: str) -> None:
    """Remove a folder and everything in it, at any depth and never through a link (a link is
    removed, not what it leads to); a file or link at `path` is removed itself. Iterative,
    with one folder open at a time, so a bot's 5,000 nested folders cost neither the stack
    nor the descriptors. Raises OSError when something cannot be removed."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return
    except OSError:  # not a folder, or a link to one
        os.unlink(path)
        return
    depth = 0
    try:
        while True:
            child = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    if not entry.is_dir(follow_symlinks=False):
                        os.unlink(entry.name, dir_fd=fd)
                        continue
                    try:
                        os.rmdir(entry.name, dir_fd=fd)
                    except OSError:
                        child = entry.name  # not empty: empty it first
                        break
            if child is not None:
                inner = os.open(child, flags, dir_fd=fd)
                os.close(fd)
                fd, depth = inner, depth + 1
            elif depth > 0:  # emptied: back up, where it is removed on the next pass
                outer = os.open("..", flags, dir_fd=fd)
                os.close(fd)
                fd, depth = outer, depth - 1
            else:
                break
    finally:
        os.close(fd)
    os.rmdir(path)


def _give_to_box(path: str, as_root: bool) -> None:
    """Make a writable path exist and, when the box runs as its own user, belong to it."""
    try:
        os.makedirs(path, exist_ok=True)  # boxes of one game start side by side, and games at once
        if as_root:
            os.chown(path, BOX_UID, BOX_GID)
    except OSError as exc:
        raise SandboxError(f"cannot prepare the writable folder {path}: {exc}") from None


__all__ = ["BOX_UID", "PACKAGE_DIR", "PLAYERS_DIR", "STDIN_FD", "STDOUT_FD", "Box", "SandboxError", "SandboxSpec",
           "Support", "remove_tree", "support"]
