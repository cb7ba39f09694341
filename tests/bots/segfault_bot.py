"""Dies by SIGSEGV mid-game: reads address 0 (no core file is written)."""
import ctypes
import resource

from misbehave import misbehaving_bot


def act(state, ctx):
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    ctypes.string_at(0)


misbehaving_bot(act)
