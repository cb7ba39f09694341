"""The sandbox: one box per bot, made with bubblewrap and control groups (docs/security.md).

This module owns every privilege and every limit of a sandboxed bot, and nothing else
knows how the box is made. A `Box` makes the box's control groups, with their limits, and
starts its keeper (`start`): a small process (the launch helper's `spawn keeper`, else
`keeper.py`) that starts bubblewrap already inside the groups, stays outside them, reaps the
box's init and ends with the bot's status once nothing of the box is left. While the bot
lives the box finds the bot's own process and its keepers (`keepers`), freezes and thaws it,
reads its CPU time and kills it whole; afterwards it says why it was stopped (memory,
process count) and is removed. Nothing is started or built ahead of its bot.

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
  io_uring, ptrace, bpf...), loaded by bubblewrap from a file the keeper opens on descriptor 5.
- **suspension**: the box is frozen whole between turns (the freezer control
  group; its keeper, outside it, never is), children it forks meanwhile included; `BotProcess`
  stops it by SIGSTOP walks only
  where there is no freezer.
- **what it shows**: every path is resolved once (`_box_view`), and `shown_path_problems`
  refuses, when the config is read, one that leads to the config, the results or another
  player's folder; a path inside a write folder is shown by that folder, never resolved.
- **the whole tree**: every process of the box is in its PID namespace, whose init is a
  grandchild of the keeper; when the bot's first process ends, or that init is killed, the
  kernel kills everything else in the box, and the keeper reaps what comes to it. The control group also gives the
  box's CPU time in one read and, on cgroup v2, `cgroup.kill`.

`support()` probes the machine once per process and says what is enforced; when
bubblewrap cannot run, bots are not boxed and every run says so.
"""
from __future__ import annotations

import functools
import os
import re
import signal
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from .procfs import children, kill, read_proc
from .waits import readable
from . import spawn as spawn_helper
from .cgroups import CgroupPlace, GroupError, Groups, cgroup_places, sweep_stale_groups
from .seccomp import filter_file, unsupported_reason
from .shown import (CPU_CORES, MIN_CPU_CORES, PACKAGE_DIR, PLAYERS_DIR, SYSTEM_DIRS, WRITE_FILES, WRITE_MB,  # noqa: F401
                    SandboxSpec, _ancestors, _binds, _masks, _named_paths, _resolved)
from .tidy import remove_tree  # noqa: F401  (its importers find it here, where it was)
from . import write_cap

BOX_UID = BOX_GID = 61000  # the unprivileged user a boxed bot runs as when the arbiter is root
TMPFS_MB = 64  # size of a box's private /tmp, and of its /dev/shm
MAX_PROCESSES = 128  # tasks (processes and threads) in a box at once
MAX_FILE_MB = 64  # the largest file a bot may write (RLIMIT_FSIZE)
MAX_OPEN_FILES = 256  # RLIMIT_NOFILE
BOX_PATH = "/usr/local/bin:/usr/bin:/bin"
_PROBE_TIMEOUT_S = 10.0


class SandboxError(Exception):
    """A box could not be made though the machine offers sandboxing (the arbiter's problem)."""


# --- what the machine offers ---------------------------------------------------------

@dataclass(frozen=True)
class Support:
    """What this machine lets the arbiter enforce, found by `support()`."""

    bwrap: str | None  # the bubblewrap that ran the probe box, or None
    setpriv: str | None  # util-linux setpriv, used inside the box
    as_root: bool  # boxes run as BOX_UID (else as the arbiter's uid in a user namespace)
    memory: CgroupPlace | None = None
    pids: CgroupPlace | None = None
    cpu: CgroupPlace | None = None
    cpu_cap: CgroupPlace | None = None  # CPU bandwidth: v1's cpu.cfs_quota_us, v2's cpu.max
    kill: CgroupPlace | None = None  # cgroup v2's cgroup.kill
    freezer: CgroupPlace | None = None  # cgroup v2's cgroup.freeze, or the v1 freezer controller
    seccomp: str | None = None  # the file holding the system-call filter (seccomp.py), if there is one
    # The launch helper (spawn.py) that puts the bot's pipes in place and drops its rights in
    # the box; None: a /bin/sh shim and util-linux's setpriv do it.
    spawn: str | None = None
    # A sentence per protection that cannot be had here, and why (a limit's: `LIMITS`).
    missing: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        """Whether bots can be boxed at all (namespaces and a private filesystem view)."""
        return self.bwrap is not None and self.setpriv is not None

    def enforced(self) -> dict[str, str | bool]:
        """For the run's description and reports: each protection, and how (or False); a
        limit's as the table of limits says (`LIMITS`)."""
        def place(p: CgroupPlace | None, what: str) -> str | bool:
            return f"cgroup v{p.version} {what}" if p else False
        return {
            "namespaces": "bubblewrap: pid, ipc, uts, net, mount, cgroup" if self.usable else False,
            "identity": (f"uid {BOX_UID}, no capabilities, no_new_privs" if self.as_root
                         else "the arbiter's uid in a user namespace, no capabilities, no_new_privs")
            if self.usable else False,
            "filesystem": "system runtime and the bot's own files, read-only; private /tmp" if self.usable else False,
            "network": "none (own loopback only)" if self.usable else False,
            **{limit.name: (limit.how(self) or False) if self.usable else False for limit in LIMITS},
            "cpu_accounting": place(self.cpu, "CPU time of the whole box") if self.usable else False,
            "system_calls": ("seccomp: keyrings, io_uring, namespaces, mounts, ptrace, bpf, perf events, "
                             "file locks and watches refused (docs/security.md)")
            if self.usable and self.seccomp else False,
        }

    def describe(self) -> str:
        """One line for a run's header: the limits as the table of limits says (`LIMITS`)."""
        if not self.usable:
            return "bots are NOT sandboxed: " + "; ".join(self.missing)
        text = "bots are sandboxed (bubblewrap"
        text += f", uid {BOX_UID}" if self.as_root else ", user namespace"
        grouped = [limit.short for limit in LIMITS if limit.by_group(self)]
        text += f"; cgroup limits: {', '.join(grouped)}" if grouped else ""
        text += "; system-call filter)" if self.seccomp else ")"
        shortfalls = [shortfall for limit in LIMITS if (shortfall := limit.shortfall(self))]
        text += "".join(f"; {shortfall}" for shortfall in shortfalls)
        if self.missing:
            text += "; not enforced: " + "; ".join(self.missing)
        return text


@dataclass(frozen=True)
class Limit:
    """One limit of every box, with how each kind of machine enforces it, in the order a
    machine is matched: the first way whose machine this is (its place, or a condition) is
    the one way the box is made with, and the way the records (`Support.enforced`), the run's
    header (`Support.describe`) and docs/security.md (`limits_table`) describe it."""

    name: str  # its key in the records (tournament.json's `sandbox`)
    short: str  # its word in the run's header
    what: str  # what is limited, from which setting
    # (which machine, what it needs of `Support`: a control group's place, a condition or
    # None for any, how it is enforced there: None for not at all)
    ways: tuple[tuple[str, Callable[[Support], object] | None, str | None], ...]

    def _way(self, places: Support) -> tuple[int, CgroupPlace | None, str | None]:
        for index, (_, needs, how) in enumerate(self.ways):
            found = needs(places) if needs is not None else True
            if found:
                return index, found if isinstance(found, CgroupPlace) else None, how
        return len(self.ways), None, None

    def how(self, places: Support) -> str | None:
        """How this machine enforces it, or None when it does not."""
        _, place, how = self._way(places)
        return how.format(version=place.version) if how is not None and place is not None else how

    def by_group(self, places: Support) -> bool:
        """Whether a control group enforces it here."""
        return self._way(places)[1] is not None

    def shortfall(self, places: Support) -> str | None:
        """What the run's header says when this machine enforces it less than the first way."""
        index, _, how = self._way(places)
        if index == 0:
            return None
        return f"without {self.ways[0][0]}: {self.short} {'by ' + how if how is not None else 'not enforced'}"


LIMITS: tuple[Limit, ...] = (
    Limit("memory", "memory", "`memory_mb`: what the box's processes hold at once", (
        ("a memory control group", lambda s: s.memory,
         "cgroup v{version} memory: every page, shared memory and tmpfs included, no swap"),
        ("without one", None, "RLIMIT_AS in the box: address space, tmpfs pages not counted"))),
    Limit("processes", "processes", f"{MAX_PROCESSES} processes and threads at once", (
        ("a pids control group", lambda s: s.pids, f"cgroup v{{version}} pids.max={MAX_PROCESSES}"),
        ("without one, not root", lambda s: not s.as_root,
         f"RLIMIT_NPROC={MAX_PROCESSES} in the box's own user namespace"),
        ("without one, as root", None, None))),
    Limit("cpu_cap", "CPU", "`sandbox: cpu_cores` (default 1): the CPU its processes use at once", (
        ("a CPU bandwidth control group", lambda s: s.cpu_cap, "cgroup v{version} CPU bandwidth"),
        ("without one", None, None))),
    Limit("suspension", "suspension", "between its turns nothing of the box runs", (
        ("a freezer control group", lambda s: s.freezer, "cgroup v{version} freezer"),
        ("without one", None, "SIGSTOP passes over the box's process tree until one finds nothing running"))),
    Limit("files", "files", f"files of at most {MAX_FILE_MB} MiB, {MAX_OPEN_FILES} descriptors, no core dumps", (
        ("any", None, f"RLIMIT_FSIZE {MAX_FILE_MB} MiB, RLIMIT_NOFILE {MAX_OPEN_FILES}, no core dumps"),)),
)


def limits_table() -> str:
    """The table of limits as docs/security.md shows it: limit, machine, how."""
    rows = ["| limit | on a machine with | enforced by |", "| --- | --- | --- |"]
    for limit in LIMITS:
        for machine, _, how in limit.ways:
            rows.append(f"| {limit.short}: {limit.what} | {machine} | {how.format(version='1 or 2') if how else 'not enforced'} |")
    return "\n".join(rows)


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
    places = cgroup_places()
    for parent in {place.parent for place in places.values()}:
        sweep_stale_groups(parent)
    memory, pids = places.get("memory"), places.get("pids")
    return Support(bwrap=bwrap, setpriv=setpriv, as_root=as_root, memory=memory, pids=pids,
                   cpu=places.get("cpu"), cpu_cap=places.get("cpu_cap"), kill=places.get("kill"),
                   freezer=places.get("freezer"),
                   seccomp=seccomp_file, spawn=spawn, missing=tuple(missing))


def _try_box(bwrap: str, setpriv: str, as_root: bool, seccomp: str | None, spawn: str | None) -> str | None:
    """Run `true` in a box like a bot's, kept the same way (by the helper's keeper, or by
    keeper.py without it); None if it worked, else why not."""
    box = _bwrap_argv(bwrap, setpriv, as_root, ["/bin/true"], cwd="/tmp", read=(), write=(),
                      seccomp=seccomp is not None, spawn=spawn)
    keeper = [spawn, "keeper"] if spawn is not None else [sys.executable, "-I", "-S", _KEEPER_PY]
    argv = [*keeper, str(os.getpid()), "0", str(MAX_FILE_MB << 20), str(MAX_OPEN_FILES), "-", seccomp or "-", "-",
            "-", "--", *box]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=_PROBE_TIMEOUT_S, env={"PATH": BOX_PATH})
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        return last[0] if last else f"status {done.returncode}"
    return None


# --- the box -------------------------------------------------------------------------

class Box:
    """One bot's sandbox, kept by one keeper (the launch helper's `spawn keeper`, else
    `keeper.py`), as IOI's isolate keeps its box. `Box(...)` makes the box's control groups,
    with its limits set, and the keeper's command (`argv`, `env`, `pass_fds`); `start` starts
    the keeper, which starts bubblewrap already inside the groups (clone3 with
    CLONE_INTO_CGROUP on cgroup v2, `tasks` on v1), stays outside them (never frozen, never
    counted), reaps every process that comes to it (the box's init included) and exits, once
    none is left, with the bot's status. While the bot lives the box finds the bot's own
    process and its keepers (`keepers`), freezes and thaws it, reads its CPU time and kills it
    whole; afterwards it says why it was stopped (memory, process count) and is removed."""

    def __init__(self, command: Sequence[str], *, cwd: str | None, env: Mapping[str, str], spec: SandboxSpec,
                 memory_mb: int | None, seat_dir: str | None = None) -> None:
        self.places = places = support()  # what the box is made with (a test may change it)
        if not places.usable:  # the spec promised a box (box_here) on a machine that has none
            raise SandboxError(f"this machine cannot sandbox bots: {places.describe()}")
        assert places.bwrap is not None and places.setpriv is not None
        workdir = os.path.abspath(cwd or os.getcwd())
        # A ZeroMQ seat's folder is shown read-only: the bot connects to the socket in it (a
        # socket takes connections on a read-only mount) and can create nothing there.
        seat = (seat_dir,) if seat_dir else ()
        for path in (*spec.write, *seat):  # before the view, which shows only what exists
            _give_to_box(path, places.as_root)
        bwrap = _box_view(places.bwrap, places.setpriv, places.as_root, places.seccomp is not None, places.spawn,
                          tuple(_resolved(command, workdir)), workdir, (*spec.read, *seat), tuple(spec.write),
                          tuple(spec.hide))
        self.env = _bot_env(env)  # the keeper's, which bubblewrap hands to the bot
        # The keeper's report: descriptor 7 in the box, closed when the bot's program runs.
        self._report_r, report_w = os.pipe() if places.spawn is not None else (-1, -1)
        self.pass_fds: tuple[int, ...] = (report_w,) if report_w >= 0 else ()
        # The box's groups, limited, and its write folders shown as a capped copy (write_cap.py)
        # where the machine can make one: bubblewrap is then entered into the copy's holder's
        # namespaces (`around`), which the keeper execs in its place, in the box's groups all
        # the same. Whatever fails undoes what was made.
        groups: Groups | None = None
        self.write_cap: write_cap.WriteCap | None = None
        try:
            groups = Groups(places, MAX_PROCESSES)  # removes what it made when it fails
            groups.limit_memory(memory_mb)
            groups.limit_cpu(spec.cpu_cores)
            if spec.write and write_cap.available() is None:
                self.write_cap = write_cap.hold(spec.write, write_mb=spec.write_mb, write_files=spec.write_files,
                                                box_uid=(BOX_UID, BOX_GID) if places.as_root else None)
                bwrap = tuple(self.write_cap.around(bwrap))
        except BaseException as exc:
            if self.write_cap is not None:
                write_cap.release(self.write_cap)
            if groups is not None:
                groups.remove()
            for fd in (self._report_r, report_w):
                if fd >= 0:
                    os.close(fd)
            if isinstance(exc, (GroupError, write_cap.WriteCapError)):
                raise SandboxError(str(exc)) from None
            raise
        self.groups = groups
        # Without a memory group the cap is on address space (mmap included).
        address_space = str(memory_mb << 20) if memory_mb is not None and places.memory is None else "-"
        keeper = [places.spawn, "keeper"] if places.spawn is not None else [sys.executable, "-I", "-S", _KEEPER_PY]
        self.argv = [*keeper, str(os.getpid()), "0", str(MAX_FILE_MB << 20), str(MAX_OPEN_FILES), address_space,
                     places.seccomp or "-", str(report_w) if report_w >= 0 else "-", self.groups.cgroup2 or "-",
                     *self.groups.joins, "--", *bwrap]
        self.pid = -1  # the keeper's, once started
        self._keepers: set[int] = set()
        self._bot_pid: int | None = None

    def start(self) -> subprocess.Popen[bytes]:
        """Start the keeper in a session of its own, the bot's pipes its standard three (vfork:
        no Python runs between fork and exec). Raises OSError when it cannot be started."""
        try:
            popen = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=self.env, bufsize=0, close_fds=True, start_new_session=True,
                                     pass_fds=self.pass_fds)
        except ValueError as exc:  # a NUL in the bot's command or environment
            raise SandboxError(f"a bot's command or environment cannot hold a NUL character: {exc}") from None
        except subprocess.SubprocessError as exc:
            raise OSError(f"the box's keeper could not start: {exc}") from None
        finally:
            for fd in self.pass_fds:  # the keeper has its own
                os.close(fd)
            self.pass_fds = ()
        self.pid = popen.pid
        return popen

    def bot_pid(self) -> int | None:
        """The bot's own process (the box init's child), once it has run the bot's program."""
        if self._bot_pid is None:
            if self._report_r >= 0 and not readable([self._report_r], 0):
                return None  # the bot's program has not run yet (the box's descriptor 7 is open)
            tops = children(self.pid)
            inits = children(tops[0]) if tops else []
            bots = children(inits[0]) if inits else []
            if bots and read_proc(f"/proc/{bots[0]}/comm") not in (None, b"bwrap\n"):  # it has run exec
                self._keepers = {self.pid, tops[0], inits[0]}
                self._bot_pid = bots[0]
        return self._bot_pid

    def keepers(self) -> set[int]:
        """The keeper and bubblewrap's two processes (the one the keeper started and the box's
        init). Never signalled one by one: bubblewrap's death would SIGKILL the box at once, and
        a PID namespace's init does not take SIGCONT from outside reliably."""
        if self._keepers:
            return self._keepers
        tops = children(self.pid)
        return {self.pid, *tops, *(init for top in tops for init in children(top))}

    @property
    def freezes(self) -> bool:
        """Whether the box is suspended by the freezer (else process by process, by the caller)."""
        return self.groups.freezes

    def suspend(self) -> None:
        """Freeze every process of the box, bubblewrap's and any it forks meanwhile (see
        `Groups.freeze`); the keeper, outside the groups, is never frozen."""
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

    @staticmethod
    def exit_status(status: int) -> int:
        """The bot's own status from the keeper's: 128+N when the bot died of signal N."""
        return -(status - 128) if 128 < status <= 128 + 64 else status

    def kill(self) -> None:
        """SIGKILL every process of the box, never its keeper (which then reaps them and ends):
        through the control group where the machine allows, else bubblewrap's processes, whose
        death takes the box's PID namespace with it."""
        self.groups.kill()
        for pid in self.keepers() - {self.pid}:
            kill(pid, signal.SIGKILL)

    def limit_hit(self) -> str | None:
        """Why the box's processes were stopped by the kernel, when a limit did it."""
        return self.groups.limit_hit()

    def peak_memory_mb(self) -> float | None:
        """The most memory the box held at once, when a memory control group measured it."""
        return self.groups.peak_memory_mb()

    def remove(self) -> None:
        """Remove the control groups (the box's processes are dead) and the report's pipe, and
        copy its write folders back from their capped copy."""
        if self.write_cap is not None:
            write_cap.release(self.write_cap)
            self.write_cap = None
        for fd in (self._report_r, *self.pass_fds):
            if fd >= 0:
                os.close(fd)
        self._report_r, self.pass_fds = -1, ()
        self.groups.remove()


_KEEPER_PY = str(Path(__file__).with_name("keeper.py"))
_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _bot_env(env: Mapping[str, str]) -> dict[str, str]:
    """The bot's whole environment: the box's PATH, HOME and LANG, then its own; a name a
    shell would not take (`my.setting`) is left out, with the launch helper as without it."""
    return {name: value for name, value in {"PATH": BOX_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", **env}.items()
            if _SHELL_NAME.fullmatch(name)}


@functools.lru_cache(maxsize=256)
def _box_view(bwrap: str, setpriv: str, as_root: bool, seccomp: bool, spawn: str | None, command: tuple[str, ...],
              cwd: str, read: tuple[str, ...], write: tuple[str, ...], hide: tuple[str, ...] = ()) -> tuple[str, ...]:
    """`_bwrap_argv` for a player's box, worked out once per arbiter process: the same player's
    box shows the same paths in every game, and finding them (the interpreter's installation,
    every path resolved through its links) took 0.5 ms of the arbiter's CPU a launch, 40% of a
    boxed launch's. A path that changes between two games of one run is seen as it was at
    the first (the box shows what was resolved then)."""
    return tuple(_bwrap_argv(bwrap, setpriv, as_root, command, cwd=cwd,
                             read=(*read, *_named_paths(command, cwd, write, as_root)), write=write, seccomp=seccomp,
                             hide=hide, spawn=spawn))


def _bwrap_argv(bwrap: str, setpriv: str, as_root: bool, command: Sequence[str], *, cwd: str,
                read: Sequence[str], write: Sequence[str], seccomp: bool, hide: Sequence[str] = (),
                spawn: str | None = None) -> list[str]:
    """bubblewrap's command line for a box around `command`, run from `cwd` (with the
    system-call filter read from SECCOMP_FD when `seccomp`), the `hide` paths covered. The
    bot's pipes are moved to 0 and 1 and its rights dropped by the launch helper `spawn`
    (shown read-only at SPAWN_IN_BOX), or, without one, by a /bin/sh shim and setpriv."""
    argv = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--hostname", "box"]
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
_STDIO_SHIM = 'exec 0<&3 1>&4 3<&- 4>&- && exec "$@"'
SPAWN_IN_BOX = "/run/arbiter/spawn"  # where a box shows the launch helper


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
