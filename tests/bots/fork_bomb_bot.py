"""A fork bomb that stops to count: forks children that sleep until it has FORKS (default
1000) or a fork fails, reports how many it got, then plays honestly."""
import os
import time

from hostile import hostile_bot, report


def fork_bomb():
    made = 0
    try:
        for _ in range(int(os.environ.get("FORKS", "1000"))):
            if os.fork() == 0:
                time.sleep(100000)
                os._exit(0)
            made += 1
        report("fork_bomb", True, f"forked {made} processes")
    except OSError as exc:
        report("fork_bomb", False, f"forked {made} processes, then: {exc.strerror}")


hostile_bot(fork_bomb)
