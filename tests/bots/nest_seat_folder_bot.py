"""A ZeroMQ bot that tries to stop the tournament through its seat folder: it nests DEPTH
folders (default 5,000) in the folder of its socket (ARBITER_ENDPOINT), which a recursive
removal after the game cannot remove, and writes SIZE_MB beside them."""
import os

from hostile import hostile_bot, report


def nest_seat_folder():
    endpoint = os.environ["ARBITER_ENDPOINT"]
    folder = os.path.dirname(endpoint.removeprefix("ipc://"))
    depth, made = int(os.environ.get("DEPTH", "5000")), 0
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd, made = inner, made + 1
        report("nest_seat_folder", True, f"nested {made} folders in {folder}")
    except OSError as exc:
        report("nest_seat_folder", False, f"stopped after {made} folders: {exc.strerror}")
    finally:
        os.close(fd)


hostile_bot(nest_seat_folder)
