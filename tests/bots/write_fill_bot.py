"""Fills its writable folder (FOLDER) with COUNT files of SIZE_KB each on its second move,
then plays on."""
import os

from hostile import hostile_bot, report


def write_fill():
    folder, count, size = os.environ["FOLDER"], int(os.environ["COUNT"]), int(os.environ["SIZE_KB"]) << 10
    made = 0
    try:
        for n in range(count):
            with open(os.path.join(folder, f"fill-{n}"), "wb") as file:
                file.write(b"\0" * size)
            made += 1
        report("write_fill", True, f"wrote {made} files of {size} bytes in {folder}")
    except OSError as exc:
        report("write_fill", False, f"wrote {made} files, then: {exc.strerror}")


hostile_bot(write_fill)
