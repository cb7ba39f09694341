#!/usr/bin/env python3
"""Each reader of a results folder against the number of games in it (issue 40).

    python benchmarks/bench_readers.py [--sizes 10000,100000,1000000] [--readers ...] [--markdown PATH]

For each size N it makes a results folder of N games of benchmarks/million.yaml with
make_results.py (kept in --cache, one folder per N, and reused while it was made from the
same config by the same make_results.py and arbiter code; --remake makes it again), then
runs each reader once as a process of its own, one after the other, and measures it:
- `json.loads`, the baseline: a process that parses every line of the same games.jsonl with
  json.loads, one at a time (nothing kept: the least any reader of the file can spend);
- `report`: `arbiter report OUT`;
- `report --html`: `arbiter report --html OUT`;
- `report --audit`: `arbiter report --audit OUT`, skipped when `arbiter report --help` has no --audit;
- `resume`: `arbiter run OUT.yaml` (the made folder's config, concurrency 1), until its first
  new game's record is whole in games.jsonl (the file grew past its size before by a line that
  ends in a newline: a record is written and fsynced whole, so that is the first sign of a game
  played that cannot come early); then it is stopped with SIGINT (its process group, as a
  terminal's Ctrl-C) and the folder restored: games.jsonl cut back to its size, the files the
  run changed written back, the files and logs it added removed;
- `serve`: `arbiter serve OUT` (a free port on loopback, read from the address it prints),
  until `GET /` has returned 200 and its whole body; then SIGINT.

CPU is user + system seconds and peak is the largest resident set: of the process and the
processes it waited for (os.wait4) for those that exit; for resume and serve, of the arbiter's
own process at the moment measured (/proc/PID: the worker playing the game, the bots and
whatever runs after the moment are left out). Wall is from the start of the process. Each
reader is a whole process: the interpreter's start and the arbiter's imports are in its
figures (about 0.2 s of CPU and 30 MB), as they are in what a user waits for.

A process is stopped (SIGKILL to its group) when it runs past --timeout, when its resident
set passes --max-mb, or when the machine has less than --min-free-mb available: the row then
says so, with the figures at that moment (a lower bound).

The table (reader, N, CPU, wall, peak, CPU as a multiple of json.loads's at the same N) is
printed, and with --markdown written to a file with the command and the commit measured.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "benchmarks" / "million.yaml"
MAKER = ROOT / "benchmarks" / "make_results.py"
# A schedule holds at most 10,000,000 games (tournament/schema.py, MAX_PLANNED_GAMES; 1,000,000
# before issue 40, when the before figures were taken at 999,900 games).
SIZES = (10_000, 100_000, 1_000_000)
READERS = ("json.loads", "report", "report --html", "report --audit", "resume", "serve")
JSON_LINES = "import json, sys\nwith open(sys.argv[1], 'rb') as lines:\n    for line in lines:\n        json.loads(line)\n"
TICKS = os.sysconf("SC_CLK_TCK")
POLL_S = 0.01
STOP_WAIT_S = 60.0  # after SIGINT: then SIGKILL


@dataclass(frozen=True)
class Measured:
    """One reader's run: its CPU (user + system) and wall seconds and peak resident MB, or why it has none."""

    reader: str
    games: int
    cpu_s: float | None
    wall_s: float | None
    peak_mb: float | None
    note: str = ""


class Stopped(Exception):
    """A reader passed a limit and was killed; the figures at that moment."""

    def __init__(self, why: str, cpu_s: float | None, wall_s: float, peak_mb: float | None) -> None:
        super().__init__(why)
        self.cpu_s, self.wall_s, self.peak_mb = cpu_s, wall_s, peak_mb


@dataclass(frozen=True)
class Limits:
    """When a reader is stopped: past this wall time, this resident set, or below this much memory available."""

    timeout_s: float
    max_mb: float
    min_free_mb: float


def arbiter(*words: str) -> list[str]:
    """The arbiter command line of this checkout's interpreter."""
    return [sys.executable, "-m", "arbiter", *words]


# --- one process, measured ------------------------------------------------------------------

def _proc_figures(pid: int) -> tuple[float | None, float | None, float | None]:
    """(CPU s, peak MB, resident MB now) of a running process, from /proc; None where it has gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None, None, None
    fields = stat[stat.rfind(")") + 2:].split()
    cpu_s = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    kb = dict(re.findall(r"^(VmHWM|VmRSS):\s+(\d+) kB", status, re.M))
    return cpu_s, int(kb.get("VmHWM", 0)) / 1024, int(kb.get("VmRSS", 0)) / 1024


def _available_mb() -> float:
    """The machine's available memory (MemAvailable), in MB."""
    match = re.search(r"^MemAvailable:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
    return int(match.group(1)) / 1024 if match else float("inf")


def _kill(process: subprocess.Popen[bytes], sig: int) -> None:
    """Send `sig` to the process's group (it leads one: `_start`)."""
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def _reap(process: subprocess.Popen[bytes], limits: Limits, deadline: float | None = None
          ) -> tuple[int, float, float] | None:
    """Wait for the process (within `deadline`, a monotonic time, if given), watching the limits:
    (exit code, CPU s, peak MB), or None at the deadline; Stopped when a limit is passed."""
    started = getattr(process, "started", time.monotonic())
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
        now = time.monotonic()
        if deadline is not None and now > deadline:
            return None
        _check_limits(process, limits, now - started)
        time.sleep(POLL_S)


def _check_limits(process: subprocess.Popen[bytes], limits: Limits, wall_s: float) -> None:
    """Stopped (the process group killed) when the process is past a limit."""
    cpu_s, peak_mb, rss_mb = _proc_figures(process.pid)
    why = None
    if wall_s > limits.timeout_s:
        why = f"stopped after {wall_s:.0f} s (--timeout)"
    elif rss_mb is not None and rss_mb > limits.max_mb:
        why = f"stopped at {rss_mb:.0f} MB resident (--max-mb)"
    elif _available_mb() < limits.min_free_mb:
        why = f"stopped: the machine had less than {limits.min_free_mb:.0f} MB available (--min-free-mb)"
    if why is not None:
        _kill(process, signal.SIGKILL)
        process.wait()
        raise Stopped(why, cpu_s, wall_s, peak_mb)


def _start(argv: list[str], output: Path) -> subprocess.Popen[bytes]:
    """Start `argv` in a process group of its own, its output to the file `output`."""
    with open(output, "wb") as sink:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                                   cwd=ROOT, start_new_session=True)
    process.started = time.monotonic()  # type: ignore[attr-defined]
    return process


def measure_exit(reader: str, games: int, argv: list[str], limits: Limits, work: Path) -> Measured:
    """A reader that ends by itself: CPU and peak of it and what it waited for (os.wait4)."""
    output = work / "output.txt"
    process = _start(argv, output)
    try:
        reaped = _reap(process, limits)
    except Stopped as stop:
        return Measured(reader, games, stop.cpu_s, stop.wall_s, stop.peak_mb, str(stop))
    assert reaped is not None
    code, cpu_s, peak_mb = reaped
    wall_s = time.monotonic() - process.started  # type: ignore[attr-defined]
    note = "" if code == 0 else f"exit {code}: {_last_line(output)}"
    return Measured(reader, games, cpu_s, wall_s, peak_mb, note)


def measure_until(reader: str, games: int, argv: list[str], reached: Callable[[subprocess.Popen[bytes], Path], None],
                  limits: Limits, work: Path) -> Measured:
    """A reader that runs until stopped: measured (from /proc) when `reached` returns (it runs in a
    thread of its own, given the process and its output file), then stopped with SIGINT."""
    output = work / "output.txt"
    process = _start(argv, output)
    done = threading.Event()
    failure: list[BaseException] = []

    def watch() -> None:
        try:
            reached(process, output)
        except BaseException as exc:  # noqa: BLE001 - reported in the row
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=watch, daemon=True).start()
    try:
        while not done.wait(POLL_S):
            if process.poll() is not None:
                done.wait(1.0)  # it may have ended after the moment measured
                break
            _check_limits(process, limits, time.monotonic() - process.started)  # type: ignore[attr-defined]
        wall_s = time.monotonic() - process.started  # type: ignore[attr-defined]
        cpu_s, peak_mb, _ = _proc_figures(process.pid)
    except Stopped as stop:
        return Measured(reader, games, stop.cpu_s, stop.wall_s, stop.peak_mb, str(stop))
    note = ""
    if failure:
        note = f"not reached: {failure[0]}"
    elif not done.is_set():
        note = f"ended before the moment measured (exit {process.returncode}): {_last_line(output)}"
    _kill(process, signal.SIGINT)
    try:
        if _reap(process, limits, time.monotonic() + STOP_WAIT_S) is None:
            _kill(process, signal.SIGKILL)
            process.wait()
            note = (note + "; " if note else "") + f"SIGKILL: still stopping {STOP_WAIT_S:.0f} s after SIGINT"
    except Stopped as stop:
        note = (note + "; " if note else "") + f"while stopping after SIGINT: {stop}"
    if note.startswith("not reached") or note.startswith("ended before"):
        return Measured(reader, games, None, None, None, note)
    return Measured(reader, games, cpu_s, wall_s, peak_mb, note)


def _last_line(output: Path) -> str:
    """The last line the process printed (for a row's note)."""
    lines = output.read_text(errors="replace").strip().splitlines()
    return lines[-1][:200] if lines else "(no output)"


# --- the moments: a resume's first new record, the live page's first body ------------------------

def first_new_record(games_file: Path, size: int) -> Callable[[subprocess.Popen[bytes], Path], None]:
    """Returns when games.jsonl holds a whole line past `size` (the first game played by the resume)."""
    def reached(process: subprocess.Popen[bytes], output: Path) -> None:
        while process.poll() is None:
            try:
                grown = games_file.stat().st_size
            except OSError:
                grown = 0
            if grown > size:
                with open(games_file, "rb") as file:
                    file.seek(size)
                    if b"\n" in file.read(grown - size):
                        return
            time.sleep(POLL_S / 2)
        raise RuntimeError(f"the run ended (exit {process.returncode}) before a new record: {_last_line(output)}")
    return reached


def first_page(process: subprocess.Popen[bytes], output: Path) -> None:
    """Returns when `GET /` of the address `arbiter serve` printed has returned 200 and its whole body."""
    url = None
    while url is None:
        match = re.search(r"live page: (http://\S+)", output.read_text(errors="replace"))
        if match:
            url = match.group(1)
        elif process.poll() is not None:
            raise RuntimeError(f"arbiter serve ended (exit {process.returncode}): {_last_line(output)}")
        else:
            time.sleep(POLL_S / 2)
    with urllib.request.urlopen(url, timeout=3600) as response:
        body = response.read()
        if response.status != 200 or not body:
            raise RuntimeError(f"GET / gave {response.status} with {len(body)} bytes")


# --- the folder: made once per N, restored after a resume -----------------------------------------

def made_by() -> str:
    """What makes a folder: the config, make_results.py and the arbiter's code (its git tree, and
    its changes when the tree differs), so that a folder is made again by changed code."""
    digest = hashlib.sha256(CONFIG.read_bytes() + MAKER.read_bytes())
    for words in (("rev-parse", "HEAD:arbiter"), ("diff", "HEAD", "--", "arbiter")):
        digest.update(subprocess.run(["git", *words], cwd=ROOT, capture_output=True).stdout)
    return digest.hexdigest()[:16]


def results_folder(cache: Path, games: int, remake: bool) -> tuple[Path, Path]:
    """The made folder of `games` games and its run config (made now, or kept from before)."""
    folder, run_config, stamp = cache / str(games), cache / f"{games}.yaml", cache / f"{games}.made.json"
    maker = made_by()
    if not remake and stamp.is_file() and folder.is_dir():
        kept = json.loads(stamp.read_text())
        if kept.get("made_by") == maker and (folder / "games.jsonl").stat().st_size == kept.get("bytes"):
            print(f"N={games:,}: reusing {folder} (made {kept['made_at']} at commit {kept['commit']})", flush=True)
            return folder, run_config
    for path in (folder, run_config, stamp):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    subprocess.run([sys.executable, str(MAKER), str(CONFIG), str(games), str(folder)], check=True, cwd=ROOT)
    size = (folder / "games.jsonl").stat().st_size
    print(f"N={games:,}: made {folder} in {time.monotonic() - started:.1f} s ({size / 1e6:,.0f} MB)", flush=True)
    stamp.write_text(json.dumps({"games": games, "bytes": size, "made_by": maker, "commit": commit(),
                                 "made_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}) + "\n")
    return folder, run_config


SNAPSHOT_BYTES = 1 << 20  # files up to this size are kept whole (the description, the config copy, the standings)


@dataclass(frozen=True)
class Snapshot:
    """A results folder as it was: its small files' bytes, its others' size and time (games.jsonl's
    size alone: it only grows) and its logs' names."""

    files: dict[str, bytes | tuple[int, int]]
    games_size: int
    logs: frozenset[str]

    @classmethod
    def take(cls, folder: Path) -> Snapshot:
        """The folder as it is now."""
        files: dict[str, bytes | tuple[int, int]] = {}
        for path in folder.iterdir():
            if path.is_file() and path.name != "games.jsonl":
                stat = path.stat()
                kept_whole = stat.st_size <= SNAPSHOT_BYTES or path.name == "checkpoint.json"  # a resume rewrites it
                files[path.name] = path.read_bytes() if kept_whole else (stat.st_size, stat.st_mtime_ns)
        logs = frozenset(os.listdir(folder / "logs")) if (folder / "logs").is_dir() else frozenset()
        return cls(files, (folder / "games.jsonl").stat().st_size, logs)

    def restore(self, folder: Path) -> list[str]:
        """Put the folder back as it was (a big file changed is only said); what was changed."""
        changed = []
        with open(folder / "games.jsonl", "r+b") as games:
            if os.fstat(games.fileno()).st_size != self.games_size:
                changed.append("games.jsonl cut back")
                games.truncate(self.games_size)
        for path in folder.iterdir():
            kept = self.files.get(path.name)
            if path.name in ("games.jsonl", "logs"):
                continue
            if kept is None:
                changed.append(f"{path.name} removed")
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
            elif isinstance(kept, tuple):
                stat = path.stat()
                if (stat.st_size, stat.st_mtime_ns) != kept:
                    changed.append(f"{path.name} changed (too big to have been kept: not restored)")
            elif path.read_bytes() != kept:
                changed.append(f"{path.name} written back")
                path.write_bytes(kept)
        for name in self.files.keys() - {p.name for p in folder.iterdir()}:
            kept = self.files[name]
            changed.append(f"{name} put back" if isinstance(kept, bytes) else f"{name} gone (too big to put back)")
            if isinstance(kept, bytes):
                (folder / name).write_bytes(kept)
        added = set(os.listdir(folder / "logs")) - self.logs if (folder / "logs").is_dir() else set()
        for name in added:
            path = folder / "logs" / name
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        if added:
            changed.append(f"{len(added)} logs removed")
        return changed


# --- the run ----------------------------------------------------------------------------------

def commit() -> str:
    """The commit measured (with `+changes` when the tree differs from it)."""
    def git(*words: str) -> str:
        return subprocess.run(["git", *words], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no", "--", "arbiter") else "")


def has_audit_flag() -> bool:
    """Whether `arbiter report` takes --audit (issue 40 adds it)."""
    shown = subprocess.run(arbiter("report", "--help"), capture_output=True, text=True, cwd=ROOT).stdout
    return "--audit" in shown


def measure_size(games: int, readers: list[str], cache: Path, remake: bool, limits: Limits) -> list[Measured]:
    """Every asked reader on the folder of `games` games."""
    folder, run_config = results_folder(cache, games, remake)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-readers-") as scratch:
        work = Path(scratch)
        for reader in readers:
            if reader == "json.loads":
                row = measure_exit(reader, games, [sys.executable, "-c", JSON_LINES, str(folder / "games.jsonl")],
                                   limits, work)
            elif reader.startswith("report"):
                row = measure_exit(reader, games, arbiter("report", *reader.split()[1:], str(folder)), limits, work)
            elif reader == "resume":
                before = Snapshot.take(folder)
                row = measure_until(reader, games, arbiter("run", str(run_config)),
                                    first_new_record(folder / "games.jsonl", before.games_size), limits, work)
                changed = before.restore(folder)
                print(f"  restored after the resume: {'; '.join(changed) or 'nothing had changed'}", flush=True)
            else:
                row = measure_until(reader, games, arbiter("serve", str(folder)), first_page, limits, work)
            rows.append(row)
            print(format_row(row, None), flush=True)
    return rows


def format_row(row: Measured, baseline: Measured | None) -> str:
    """One row of the markdown table, its CPU as a multiple of `baseline`'s."""
    def number(value: float | None, digits: int) -> str:
        return "-" if value is None else f"{value:,.{digits}f}"
    ratio = "-"
    if baseline is not None and baseline.cpu_s and row.cpu_s is not None:
        ratio = f"{row.cpu_s / baseline.cpu_s:.1f}x"
    return (f"| {row.reader} | {row.games:,} | {number(row.cpu_s, 2)} | {number(row.wall_s, 2)} | "
            f"{number(row.peak_mb, 0)} | {ratio} | {row.note} |")


def table(rows: list[Measured]) -> str:
    """The markdown table, each reader's CPU as a multiple of json.loads's at the same N."""
    baselines = {row.games: row for row in rows if row.reader == "json.loads"}
    lines = ["| reader | games | CPU s | wall s | peak MB | CPU / json.loads | note |",
             "|---|---:|---:|---:|---:|---:|---|"]
    lines += [format_row(row, baselines.get(row.games)) for row in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure every asked reader at every asked size; print the table (and write it with --markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="games in each folder, comma-separated (default %(default)s)")
    parser.add_argument("--readers", default=",".join(READERS),
                        help=f"which readers, comma-separated (default all: {', '.join(READERS)})")
    parser.add_argument("--cache", type=Path, default=ROOT / "results" / "bench-readers",
                        help="where the made folders are kept, one per N (default %(default)s)")
    parser.add_argument("--remake", action="store_true", help="make the folders again even when kept")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a reader may run (default %(default)s)")
    parser.add_argument("--max-mb", type=float, default=14_000.0,
                        help="resident MB a reader may hold (default %(default)s)")
    parser.add_argument("--min-free-mb", type=float, default=3_000.0,
                        help="stop a reader when the machine has less available (default %(default)s)")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table to this file")
    args = parser.parse_args(argv)
    sizes = [int(size.replace("_", "")) for size in args.sizes.split(",") if size]
    readers = [reader.strip() for reader in args.readers.split(",") if reader.strip()]
    unknown = [reader for reader in readers if reader not in READERS]
    if unknown:
        parser.error(f"--readers: {', '.join(unknown)} unknown (known: {', '.join(READERS)})")
    if "report --audit" in readers and not has_audit_flag():
        print("arbiter report has no --audit here: that reader is skipped", flush=True)
        readers.remove("report --audit")
    if "json.loads" not in readers:
        readers.insert(0, "json.loads")  # every ratio is to it
    limits = Limits(args.timeout, args.max_mb, args.min_free_mb)
    measured_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    measured = commit()  # at the start: the code the readers ran
    print("| reader | games | CPU s | wall s | peak MB | CPU / json.loads | note |", flush=True)
    rows = [row for games in sizes for row in measure_size(games, readers, args.cache, args.remake, limits)]
    text = table(rows)
    print()
    print(text, end="")
    if args.markdown is not None:
        command = shlex.join(["python", "benchmarks/bench_readers.py", *(argv if argv is not None else sys.argv[1:])])
        load = " ".join(f"{value:.1f}" for value in os.getloadavg())
        args.markdown.write_text(f"`{command}` at commit {measured}, {measured_at} (load average at the end "
                                 f"{load}; {os.cpu_count()} cores)\n\n{text}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
