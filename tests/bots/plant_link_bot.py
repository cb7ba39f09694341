"""Plants a link in its own writable folder, where its command names a file (BOOK, e.g.
`cache/book.txt`), leading to another entrant's folder (TARGET), then tries to read
TARGET's files through it: the arbiter shows that name at the link's target from the next
game on, unless shown paths inside writable folders are never followed."""
import os
import sys

from hostile import hostile_bot, report

del sys.argv[1:]  # the book's name is on the command line for the box to see, not for the kit


def plant_link():
    book, target = os.environ["BOOK"], os.environ["TARGET"]
    if not os.path.islink(book):
        if os.path.exists(book):
            os.unlink(book)
        os.symlink(target, book)
    try:
        with open(os.path.join(book, "bot.py")) as stolen:
            report("plant_link", True, f"read {stolen.read()!r} through {book}")
    except OSError as exc:
        report("plant_link", False, f"{book} -> {target}: {exc.strerror}")


hostile_bot(plant_link)
