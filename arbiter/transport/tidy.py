"""Removing what the arbiter must (a bot's seat folder, a build's scratch folder, a write folder's
old copy): at any depth, and never through a link, whatever a bot left there."""
from __future__ import annotations

import os


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


__all__ = ["remove_tree"]
