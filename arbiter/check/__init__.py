"""`arbiter check`: a bot's compliance with the protocol, scenario by scenario, in real games.

`run_check` plays the bot through the scenarios of `scenarios.py` with the referee (so the
clocks, faults and sandbox are those of any game), the arbiter's own seat program
(`seat.py`) playing the other seats, and returns a checklist: one item per duty of the
protocol, passed, failed (with a hint and the last lines exchanged) or not checked.
"""
from __future__ import annotations

from typing import Any

__all__ = ["CheckItem", "CheckReport", "CheckTarget", "RulesFailure", "run_check"]


def __getattr__(name: str) -> Any:
    # Imported on first use, not with the package: the seat and monitor programs run as
    # `python -m arbiter.check.seat` (and `.monitor`), and a package that imported them first
    # would make Python warn in every log ("found in sys.modules ... prior to execution").
    if name in __all__:
        from . import scenarios
        return getattr(scenarios, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
