"""Tries to fill the disk: writes $SIZE_MB into a file under /tmp, then removes it."""
import os

from hostile import hostile_bot, report


def disk_fill():
    size_mb, path = int(os.environ["SIZE_MB"]), f"/tmp/arbiter-disk-fill-{os.getpid()}"
    written = 0
    try:
        with open(path, "wb") as file:
            for _ in range(size_mb):
                file.write(b"\0" * (1 << 20))
                file.flush()
                written += 1
        report("disk_fill", True, f"wrote {written} MiB to {path}")
    except OSError as exc:
        report("disk_fill", False, f"stopped after {written} MiB: {exc.strerror}")
    finally:
        if os.path.exists(path):
            os.unlink(path)


hostile_bot(disk_fill)
