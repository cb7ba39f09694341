"""What every test file shares: the tests' own process's handling of Ctrl-C."""
from __future__ import annotations

import signal

# A suite started as a background job of a non-interactive shell (`( pytest & )`) inherits
# SIGINT ignored, and so would every arbiter the tests start: the tests that press Ctrl-C on
# one (send it SIGINT) would then see it, rightly, keep an ignored SIGINT ignored. With
# Python's usual handler here, the programs the tests start are born with SIGINT at its
# default (a handler, unlike an ignored signal, is not inherited across exec).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
