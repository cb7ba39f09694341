#!/usr/bin/env python3
"""What a write cap the kernel holds costs per box, candidate by candidate, beside the floor
in the same run (arbiter/transport/write_cap.py says which was chosen and why).

- Box launch: `/bin/cat` boxed with a write folder (10 files of 10 KiB), launched the
  referee's way (`launch_pipe_bot`), timed from launch to its first answer and to gone:
  the write folder bound as it is (the floor: no cap but the after-turn check) beside the
  holder's capped tmpfs (`write_cap.WriteCap`: copied in before, back after), alternating.
- The cap alone, made and removed around the same folder, no box: the holder (unshare and
  nsenter, root or not); and, root only, the two others one could build here: a tmpfs
  mounted by the arbiter in the machine's own mount namespace (mount(2), copy in and back,
  umount: left behind if the arbiter is killed), and a loop-mounted ext4 image per player
  (made once, then `mount -o loop` and `umount` a box: no copy, but `mkfs` per player and
  root only).

Run: python benchmarks/bench_write_cap.py [--launches 30]
"""
from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.transport import write_cap  # noqa: E402
from arbiter.transport.sandbox import SandboxSpec, support  # noqa: E402
from bench_sandbox import one_launch_ms  # noqa: E402  (this folder, the script's own, is on the path)

CAP_MB, CAP_FILES = 16, 1000


def fill(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(10):
        (folder / f"book-{number}").write_bytes(os.urandom(10 << 10))


def holder(folder: Path) -> None:
    write_cap.WriteCap([str(folder)], write_mb=CAP_MB, write_files=CAP_FILES, box_uid=None).close()


_libc = ctypes.CDLL(None, use_errno=True)


def host_tmpfs(folder: Path) -> None:
    """A tmpfs mounted here by mount(2), filled, copied back, unmounted (root only)."""
    stage = tempfile.mkdtemp(prefix="bench-write-")
    options = f"size={CAP_MB}m,nr_inodes={CAP_FILES + 2},mode=0700".encode()
    if _libc.mount(b"bench-write", stage.encode(), b"tmpfs", 0, options) != 0:
        raise OSError(ctypes.get_errno(), "mount")
    try:
        shutil.copytree(folder, os.path.join(stage, "0"), symlinks=True)
        back = folder.with_name(folder.name + ".back")
        shutil.copytree(os.path.join(stage, "0"), back, symlinks=True)
        shutil.rmtree(back)
    finally:
        _libc.umount2(stage.encode(), 0)
        os.rmdir(stage)


def loop_image(image: Path) -> Callable[[Path], None]:
    """Mount and unmount a player's ext4 image (made once here), as each box would (root only)."""
    subprocess.run(["truncate", "-s", f"{CAP_MB}m", str(image)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-N", str(CAP_FILES), str(image)], check=True, capture_output=True)
    stage = tempfile.mkdtemp(prefix="bench-loop-")

    def cycle(folder: Path) -> None:
        subprocess.run(["mount", "-o", "loop", str(image), stage], check=True)
        subprocess.run(["umount", "-d", stage], check=True)
    return cycle


def median_ms(work: Callable[[Path], None], folder: Path, times: int) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        work(folder)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=30, help="launches (and caps made) of each kind")
    args = parser.parse_args()
    if not support().usable:
        sys.exit(f"this machine cannot sandbox bots ({support().describe()}): nothing to compare")
    if write_cap.available() is not None:
        sys.exit(f"no capped tmpfs here: {write_cap.available()}")
    print(f"Python {sys.version.split()[0]}; {os.cpu_count()} CPUs; {'root' if os.geteuid() == 0 else 'not root'}; "
          f"sandbox: {support().describe()}; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "cache"
        fill(folder)
        capped = write_cap.available
        samples: dict[str, list[tuple[float, float]]] = {"bound as it is (floor)": [], "holder's capped tmpfs": []}
        for _ in range(args.launches):
            for label in samples:
                if label.startswith("bound"):
                    write_cap.available = lambda: "off for the floor"  # type: ignore[assignment]
                try:
                    spec = SandboxSpec(write=(str(folder),), write_mb=CAP_MB, write_files=CAP_FILES)
                    samples[label].append(one_launch_ms(("/bin/cat",), spec))
                finally:
                    write_cap.available = capped  # type: ignore[assignment]
        print()
        print("| box with a write folder | first answer (ms) | launch to gone (ms) |")
        print("|---|---|---|")
        floor = {}
        for label, found in samples.items():
            answer, gone = statistics.median(s[0] for s in found), statistics.median(s[1] for s in found)
            floor.setdefault("answer", answer)
            floor.setdefault("gone", gone)
            print(f"| {label} | {answer:.1f} ({answer / floor['answer']:.2f}x) | {gone:.1f} ({gone / floor['gone']:.2f}x) |")

        print()
        print("| the cap alone, made and removed (10 files of 10 KiB) | ms |")
        print("|---|---|")
        print(f"| holder: unshare, tmpfs, copy in and back | {median_ms(holder, folder, args.launches):.1f} |")
        if os.geteuid() == 0:
            print(f"| tmpfs in the machine's namespace: mount(2), copy in and back | "
                  f"{median_ms(host_tmpfs, folder, args.launches):.1f} |")
            print(f"| loop-mounted ext4 image: mount and umount (mkfs once per player) | "
                  f"{median_ms(loop_image(Path(tmp) / 'image'), folder, args.launches):.1f} |")


if __name__ == "__main__":
    main()
