"""A box's control groups (sandbox.py's, and nobody else's): where this machine lets the arbiter
make them (`cgroup_places`, probed once), and one box's groups (`Groups`): made before its
keeper starts, their limits set (memory, processes, CPU bandwidth), then the box's CPU time,
freezing and thawing, `cgroup.kill`, why the kernel stopped it, and their removal. On cgroup
v2 the box's keeper starts bubblewrap in the v2 folder (`cgroup2`, clone3
`CLONE_INTO_CGROUP`), and joins each v1 group by its `tasks` file (`joins`)."""
from __future__ import annotations

import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

# The CPU bandwidth period: a box over its quota waits at most this long for the next one (a
# tenth of the kernel's default, so that a capped bot's pauses stay short beside a clock).
CPU_PERIOD_US = 10000


class GroupPlaces(Protocol):
    """Where a box's groups are made, per feature (sandbox.Support has them; None: not offered)."""

    memory: CgroupPlace | None
    pids: CgroupPlace | None
    cpu: CgroupPlace | None
    cpu_cap: CgroupPlace | None
    kill: CgroupPlace | None
    freezer: CgroupPlace | None


class GroupError(Exception):
    """A box's control group could not be made or set (the arbiter's problem, not the bot's)."""


@dataclass(frozen=True)
class CgroupPlace:
    """Where a box's group for one feature is made: a folder of a hierarchy, and its version."""

    version: int  # 1 or 2
    parent: str  # the folder new groups are made in (the arbiter's own group)


def cgroup_places() -> dict[str, CgroupPlace]:
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
            for feature, controller in (("memory", "memory"), ("pids", "pids"), ("cpu_cap", "cpu")):
                if controller in enabled:
                    found[feature] = CgroupPlace(2, parent)
            found.setdefault("cpu", CgroupPlace(2, parent))  # cpu.stat's usage is in every v2 group
            if "cgroup.kill" in files:  # Linux 5.14 and later
                found["kill"] = CgroupPlace(2, parent)
            if "cgroup.freeze" in files:  # Linux 5.2 and later
                found["freezer"] = CgroupPlace(2, parent)
    for feature, controller in (("memory", "memory"), ("pids", "pids"), ("freezer", "freezer"), ("cpu_cap", "cpu")):
        place = None if feature in found else _v1_place(mounts, own, controller)
        if place is not None:
            found[feature] = place
    cap = found.get("cpu_cap")
    if cap is not None and cap.version == 1 and "cpu.cfs_quota_us" not in (_group_files(cap.parent) or ()):
        del found["cpu_cap"]  # a kernel without CFS bandwidth control
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
    """The controllers a child group of `parent` gets (enabling memory, pids and cpu if we may)."""
    try:
        enabled = set(Path(parent, "cgroup.subtree_control").read_text().split())
        offered = set(Path(parent, "cgroup.controllers").read_text().split())
    except OSError:
        return set()
    for controller in ("memory", "pids", "cpu"):
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


def sweep_stale_groups(parent: str) -> None:
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


class Groups:
    """One box's control groups (one folder per hierarchy used), made, with their limits set,
    before its keeper starts."""

    def __init__(self, places: GroupPlaces, max_processes: int) -> None:
        name = _next_box_name()
        self.max_processes = max_processes  # pids.max
        self.folders: dict[str, str] = {}  # feature -> folder
        self.memory_mb: int | None = None
        self._memory_v2 = places.memory is not None and places.memory.version == 2
        self._cpu_cap_v2 = places.cpu_cap is not None and places.cpu_cap.version == 2
        # How bubblewrap's first process is born in the groups (the keeper, spawn.c): in the v2
        # folder by clone3(CLONE_INTO_CGROUP), nothing migrated; in each v1 group by writing `0`
        # to its `tasks` (a thread moving itself: the kernel skips the global lock whose taking
        # waits for an RCU grace period, 5 to 23 ms here, docs/performance.md, Sandbox).
        self.cgroup2: str | None = None
        self.joins: list[str] = []
        self._cpu_fd: int | None = None
        self._cpu_v2 = False
        self._freeze_fd: int | None = None  # cgroup.freeze (v2) or freezer.state (v1), open for writing
        self._freezer_v2 = False
        made: dict[str, str] = {}  # parent -> folder: one group per hierarchy
        try:
            for feature in ("memory", "pids", "cpu", "cpu_cap", "kill", "freezer"):
                place: CgroupPlace | None = getattr(places, feature)
                if place is None:
                    continue
                folder = made.get(place.parent)
                if folder is None:
                    folder = os.path.join(place.parent, name)
                    os.mkdir(folder)
                    made[place.parent] = folder
                    if place.version == 2:
                        self.cgroup2 = folder
                    else:
                        self.joins.append(os.path.join(folder, "tasks"))
                self.folders[feature] = folder
            if "pids" in self.folders:
                _write(os.path.join(self.folders["pids"], "pids.max"), str(max_processes))
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
            raise GroupError(f"cannot make the box's control group: {exc}") from None

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
            raise GroupError(f"cannot set the box's memory limit of {memory_mb} MiB: {exc}") from None
        self.memory_mb = memory_mb

    def limit_cpu(self, cores: float) -> None:
        """Let the group's processes use at most `cores` CPUs at once, over every period of
        CPU_PERIOD_US, when there is a CPU bandwidth group."""
        folder = self.folders.get("cpu_cap")
        if folder is None:
            return
        quota = max(1000, round(cores * CPU_PERIOD_US))
        try:
            if self._cpu_cap_v2:
                _write(os.path.join(folder, "cpu.max"), f"{quota} {CPU_PERIOD_US}")
            else:
                _write(os.path.join(folder, "cpu.cfs_period_us"), str(CPU_PERIOD_US))
                _write(os.path.join(folder, "cpu.cfs_quota_us"), str(quota))
        except OSError as exc:
            raise GroupError(f"cannot set the box's CPU cap of {cores} cores: {exc}") from None

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
                return f"it tried to have more than {self.max_processes} processes and threads at once"
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


__all__ = ["CPU_PERIOD_US", "CgroupPlace", "GroupError", "Groups", "cgroup_places", "sweep_stale_groups"]
