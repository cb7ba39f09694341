"""Gets past memory_mb with shared memory: MAP_SHARED|MAP_ANONYMOUS pages and a /dev/shm file,
$SIZE_MB of each, every page touched."""
import mmap
import os
import sys

from hostile import hostile_bot, report


def shm_memory():
    size = int(os.environ["SIZE_MB"]) << 20
    print(f"ATTACK shm_memory: touching {size >> 20} MiB of shared memory", file=sys.stderr, flush=True)
    shared = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    for offset in range(0, size, 4096):
        shared[offset] = 1
    report("shm_memory", True, f"touched {size >> 20} MiB of MAP_SHARED memory")
    try:
        with open("/dev/shm/hoard", "wb") as hoard:
            for _ in range(size >> 20):
                hoard.write(b"\1" * (1 << 20))
        report("shm_memory", True, f"wrote {size >> 20} MiB to /dev/shm")
    except OSError as exc:
        report("shm_memory", False, f"/dev/shm: {exc.strerror}")
    shm_memory.keep = shared


hostile_bot(shm_memory)
