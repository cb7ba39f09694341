"""A box's write folders, capped by the kernel: one size- and inode-limited tmpfs per box.

A player's `sandbox: write:` folders are its own data, kept from game to game. A box does not
show them: it shows a copy of them, on a tmpfs of `write_mb` MiB and `write_files` entries
(`size=`, `nr_inodes=`) that the kernel holds at every moment (while the bot starts, during
its turns, after `Quit`): a bot that fills it gets ENOSPC inside its box and whatever it does
about that is its own. The player's boxes at once (two of its games side by side) share the
tmpfs, as they would share the folders (`hold`, `release`); when the last has ended, what the
tmpfs holds replaces the folders on disk, a copy held to the cap as plain files, so a bot
can never put more than its cap there.

How the tmpfs is made, one way for root and for an ordinary user: a small holder process,
`unshare` into a mount namespace of its own (and, not root, a user namespace in which it is
root), mounts the tmpfs over an empty folder, and waits. bubblewrap is started inside that
namespace (`nsenter` before it on its command line), so that it binds the tmpfs's folders
where the box shows the write folders; the arbiter copies in and out through the holder's
root (`/proc/PID/root`). The tmpfs is in no namespace but the holder's and the box's: nobody
else sees it, and it is gone when the holder ends, also when the arbiter is killed (the
holder reads the arbiter's pipe, and ends at its end of file).
Not root, bubblewrap then runs as root of the holder's user namespace: it is told the
arbiter's uid and gid for the box (`--uid`, `--gid`) and to drop every capability.

Why this way (benchmarks/bench_write_cap.py, docs/security.md): a quota needs a file system
set up for it and root; a loop-mounted image needs root, a `mkfs` per player and a loop
device a box (about twice the holder's time); a tmpfs mounted by the arbiter in the
machine's own namespace needs root and is left behind when the arbiter is killed (about
three quarters of the holder's time). The holder works for root and for an ordinary user,
off the clock, for players with write folders only. The price: the tmpfs is memory, charged to the control
group of whoever writes it (the bot's box for what the bot writes), so what a bot holds in
its write folders during a game counts towards its `memory_mb` too; and tmpfs counts whole
pages, so a cap of `write_mb` holds fewer small files than bytes (the cap is at the block).

Where no holder can be made (no `unshare`/`nsenter`, or no user namespaces for an ordinary
user), `available()` says so, the box shows the folders themselves, and the referee checks
them after each of the bot's turns instead (`SandboxSpec.write_cap_broken`).
"""
from __future__ import annotations

import errno
import functools
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from typing import Sequence

# The holder, in its namespaces: mounts the tmpfs ($1 its options) over the empty folder $0,
# says so, and waits for the end of its input (the arbiter's pipe: closed, or the arbiter gone).
_HOLDER_SCRIPT = 'mount -t tmpfs -o "$1" arbiter-write "$0" && echo ready && read -r _'
_COPY_CHUNK = 1 << 20


class WriteCapError(Exception):
    """A write cap could not be made (the arbiter's problem, not the bot's)."""


@functools.cache
def available() -> str | None:
    """None when this machine can hold write folders in a capped tmpfs, else why not (once per process)."""
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        return "util-linux's unshare and nsenter are not installed"
    try:
        cap = WriteCap((), write_mb=1, write_files=1, box_uid=None)
    except WriteCapError as exc:
        return str(exc)
    cap.close(keep=False)
    return None


_Key = tuple[tuple[str, ...], int, int, "tuple[int, int] | None"]
_HELD: dict[_Key, WriteCap] = {}  # the copies boxes show now, by their folders and cap
_USERS: dict[_Key, int] = {}  # how many boxes show each
_KEY_LOCKS: dict[_Key, threading.Lock] = {}  # one copy made or written back at a time, per folders
_LOCK = threading.Lock()  # over the three


def hold(folders: Sequence[str], *, write_mb: int, write_files: int, box_uid: tuple[int, int] | None) -> WriteCap:
    """The capped copy of a player's write folders for one more box: the one its other boxes
    show now (two games of one player at once share their folders, as on disk, and the cap
    holds for them together), else a new one. Raises WriteCapError. `release` it when the box
    has ended."""
    key = (tuple(_outermost(folders)), write_mb, write_files, box_uid)
    with _LOCK:
        lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    with lock:  # a copy still being written back is written back before the next is made
        with _LOCK:
            cap = _HELD.get(key)
            if cap is not None:
                _USERS[key] += 1
                return cap
        cap = WriteCap(key[0], write_mb=write_mb, write_files=write_files, box_uid=box_uid)
        with _LOCK:
            _HELD[key], _USERS[key] = cap, 1
        return cap


def release(cap: WriteCap) -> None:
    """One box showing `cap` has ended: the last one's end writes it back and removes it."""
    key = (tuple(cap.folders), *cap.limits, cap.box_uid)
    with _LOCK:
        lock = _KEY_LOCKS[key]
    with lock:
        with _LOCK:
            _USERS[key] -= 1
            if _USERS[key] > 0:
                return
            del _HELD[key], _USERS[key]
        cap.close()


class WriteCap:
    """A player's write folders held in one capped tmpfs: made (and filled with the folders'
    contents) before its box, shown by it through `around`, copied back and gone at `close`
    (boxes get one through `hold` and `release`, which share it between a player's boxes).
    `box_uid` is the (uid, gid) the bot runs as when the arbiter is root, else None."""

    def __init__(self, folders: Sequence[str], *, write_mb: int, write_files: int,
                 box_uid: tuple[int, int] | None) -> None:
        self.folders = _outermost(folders)
        self.box_uid = box_uid
        self.as_root = os.geteuid() == 0
        self.whole = True  # every folder was copied in whole (else none is copied back)
        self.limits = (write_mb, write_files)
        self._budget = _Budget(write_mb, write_files)  # the folders share one cap
        self._stage = tempfile.mkdtemp(prefix="arbiter-write-")
        # The root and one folder per write folder are entries of the tmpfs too.
        options = f"size={write_mb}m,nr_inodes={write_files + 1 + len(self.folders)},mode=0700"
        namespaces = ["--mount"] if self.as_root else ["--map-root-user", "--mount"]
        try:
            self._holder = subprocess.Popen(
                [shutil.which("unshare") or "unshare", *namespaces, "--propagation", "private", "--",
                 "/bin/sh", "-c", _HOLDER_SCRIPT, self._stage, options],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=True,
                start_new_session=True, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
        except OSError as exc:
            os.rmdir(self._stage)
            raise WriteCapError(f"cannot start the write folders' holder: {exc}") from None
        assert self._holder.stdout is not None
        if self._holder.stdout.readline() != b"ready\n":  # it ended: it could not mount
            said = self._end_holder()
            raise WriteCapError(f"cannot mount a capped tmpfs for the write folders: {said or 'no reason given'}")
        self.root = f"/proc/{self._holder.pid}/root{self._stage}"  # the tmpfs, seen from here
        try:
            for number, folder in enumerate(self.folders):
                self._fill(number, folder)
        except OSError as exc:
            self._end_holder()
            raise WriteCapError(f"cannot copy {folder} into its capped tmpfs: {exc}") from None

    def _fill(self, number: int, folder: str) -> None:
        inside = os.path.join(self.root, str(number))
        os.mkdir(inside, 0o755)
        if self.box_uid is not None:
            os.chown(inside, *self.box_uid)
        try:
            source = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except FileNotFoundError:
            return  # nothing yet: the box starts with an empty folder
        target = os.open(inside, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            _copy_tree(source, target, self.box_uid, self._budget)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EFBIG):
                raise
            # More than the cap on disk (put there by the organiser): the bot gets what fits,
            # and the folder is left as it is at the end (nothing of it is lost).
            self.whole = False
        finally:
            os.close(source)
            os.close(target)

    def launcher(self) -> list[str]:
        """What goes before bubblewrap on the box's command line: entering the holder's namespaces."""
        user = [] if self.as_root else ["--user", "--preserve-credentials"]
        return [shutil.which("nsenter") or "nsenter", f"--target={self._holder.pid}", "--mount", *user, "--"]

    def around(self, argv: Sequence[str]) -> list[str]:
        """bubblewrap's command line `argv` (its program first) made to show the capped copies:
        entered through `launcher`, each `--bind F F` of a write folder bound from the tmpfs,
        and, not root, bubblewrap told to run the box as the arbiter's user with no capability
        (in the holder's user namespace it is root)."""
        end = list(argv).index("--") if "--" in argv else len(argv)
        options = list(argv[1:end])
        number_of = {folder: number for number, folder in enumerate(self.folders)}
        for at in range(len(options) - 2):
            if options[at] == "--bind" and options[at + 1] == options[at + 2] and options[at + 1] in number_of:
                options[at + 1] = f"{self._stage}/{number_of[options[at + 1]]}"
        if not self.as_root:
            options += ["--uid", str(os.getuid()), "--gid", str(os.getgid()), "--cap-drop", "ALL"]
        return [*self.launcher(), argv[0], *options, *argv[end:]]

    def held_bytes(self) -> int | None:
        """What the tmpfs holds now, in bytes (its blocks in use), or None once it is gone."""
        try:
            found = os.statvfs(self.root)
        except OSError:
            return None
        return (found.f_blocks - found.f_bfree) * found.f_frsize

    def close(self, *, keep: bool = True) -> None:
        """After the box has ended: what the tmpfs holds replaces the folders on disk (`keep`,
        and only when they were copied in whole), then the tmpfs is gone. A folder that cannot
        be written back (its disk full, say) keeps what it held before the game."""
        if self._holder.poll() is None and keep and self.whole:
            budget = _Budget(*self.limits)
            for number, folder in enumerate(self.folders):
                try:
                    _replace(os.path.join(self.root, str(number)), folder, budget)
                except OSError:
                    pass  # the folder stays as it was: the game's writes are lost, nothing else
        self._end_holder()

    def _end_holder(self) -> str:
        """End the holder (its tmpfs with it), remove the empty folder; what it said on stderr."""
        holder = self._holder
        if holder.poll() is None:
            holder.kill()
        _, said = holder.communicate()
        try:
            os.rmdir(self._stage)
        except OSError:
            pass
        return said.decode(errors="replace").strip()


def _replace(inside: str, folder: str, budget: _Budget) -> None:
    """Make `folder` (on disk) hold what `inside` (the tmpfs) holds: copied beside it, then
    swapped in, so that a copy that fails leaves the folder as it was."""
    from .tidy import remove_tree  # the box's own, which no link or depth defeats
    fresh = tempfile.mkdtemp(prefix=f".{os.path.basename(folder)}.arbiter-", dir=os.path.dirname(folder))
    try:
        source = os.open(inside, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            target = os.open(fresh, os.O_RDONLY | os.O_DIRECTORY)
            try:
                _copy_tree(source, target, None, budget)
                os.fchmod(target, stat.S_IMODE(os.fstat(source).st_mode))
            finally:
                os.close(target)
        finally:
            os.close(source)
        old: str | None = fresh + ".old"
        try:
            os.rename(folder, old)
        except FileNotFoundError:
            old = None  # removed meanwhile (by hand): the copy takes its place
        try:
            os.rename(fresh, folder)
        except OSError:
            if old is not None:
                os.rename(old, folder)  # back as it was
            raise
        if old is not None:
            remove_tree(old)
    except BaseException:
        remove_tree(fresh)
        raise


class _Budget:
    """What a copy may still write: bytes and entries. A copy is held to the cap as plain
    files, so that hard links and holes (which cost the tmpfs nothing) cannot multiply what
    lands on disk: past it the copy fails with ENOSPC."""

    def __init__(self, write_mb: int, write_files: int) -> None:
        self.bytes, self.entries = write_mb << 20, write_files

    def take(self, size: int) -> None:
        self.bytes -= size
        self.entries -= 1
        if self.bytes < 0 or self.entries < 0:
            raise OSError(errno.ENOSPC, "the copy would hold more than the cap")


def _copy_tree(source: int, target: int, owner: tuple[int, int] | None, budget: _Budget) -> None:
    """Copy the folder open as `source` into the one open as `target`: files, folders and
    links (as links, never followed), each entry opened by name in its own folder; anything
    else (a FIFO, a socket) is left out. `owner` (uid, gid) is given every entry made, when
    not None. Iterative, one folder of each side open at a time, so that a bot's thousands
    of nested folders cost neither the stack nor the descriptors."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    src, dst = os.dup(source), os.dup(target)
    levels = [(_copy_level(src, dst, owner, budget), None)]  # (folders left to enter, the mode to give this one)
    try:
        while levels:
            folders, _ = levels[-1]
            if folders:
                name, mode = folders.pop()
                try:
                    inner = os.open(name, flags, dir_fd=src)
                except FileNotFoundError:  # gone since it was listed: the bot's other game at work there
                    continue
                os.close(src)
                src, dst = inner, _enter(dst, name, flags)
                levels.append((_copy_level(src, dst, owner, budget), mode))
                continue
            _, mode = levels.pop()
            if mode is not None:  # given last: a read-only folder is filled first
                os.fchmod(dst, mode)
            if levels:
                src, dst = _enter(src, "..", flags), _enter(dst, "..", flags)
    finally:
        os.close(src)
        os.close(dst)


def _enter(fd: int, name: str, flags: int) -> int:
    """The folder `name` in the one open as `fd`, opened; `fd` closed."""
    try:
        return os.open(name, flags, dir_fd=fd)
    finally:
        os.close(fd)


def _copy_level(source: int, target: int, owner: tuple[int, int] | None,
                budget: _Budget) -> list[tuple[str, int]]:
    """Copy one folder's files and links, and make its folders (empty, owner-only until
    filled); returns those folders' names and modes, to be entered."""
    folders = []
    with os.scandir(source) as entries:
        found = [(entry.name, entry.stat(follow_symlinks=False)) for entry in entries]
    for name, status in found:
        mode = status.st_mode
        try:
            if stat.S_ISLNK(mode):
                budget.take(0)
                try:
                    link = os.readlink(name, dir_fd=source)
                except FileNotFoundError:
                    raise _Vanished(name) from None
                os.symlink(link, name, dir_fd=target)
            elif stat.S_ISDIR(mode):
                budget.take(0)
                os.mkdir(name, 0o700, dir_fd=target)
                folders.append((name, stat.S_IMODE(mode)))
            elif stat.S_ISREG(mode):
                budget.take(status.st_size)
                _copy_file(source, target, name, stat.S_IMODE(mode))
            else:
                continue
        except _Vanished:
            continue  # gone since it was listed (a file renamed into place by the bot's other game)
        if owner is not None:
            os.chown(name, *owner, dir_fd=target, follow_symlinks=False)
    return folders


class _Vanished(Exception):
    """An entry of the folder being copied was gone when it was opened."""


def _copy_file(source: int, target: int, name: str, mode: int) -> None:
    try:
        reader = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=source)
    except FileNotFoundError:
        raise _Vanished(name) from None
    try:
        writer = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=target)
        try:
            while True:
                chunk = os.read(reader, _COPY_CHUNK)
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(writer, view):]
        finally:
            os.close(writer)
    finally:
        os.close(reader)


def _outermost(folders: Sequence[str]) -> list[str]:
    """The folders a box binds (`--bind F F`, by their real paths), one inside another left out
    (its parent shows it)."""
    real = sorted(dict.fromkeys(os.path.realpath(folder) for folder in folders), key=len)
    return [f for i, f in enumerate(real) if not any(_within(f, p) for p in real[:i])]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
