"""`arbiter check`: a bot's compliance with the protocol, scenario by scenario, in real games.

`run_check` plays the bot through the scenarios of `scenarios.py` with the referee (so the
clocks, faults and sandbox are those of any game), the arbiter's own seat program
(`seat.py`) playing the other seats, and returns a checklist: one item per duty of the
protocol, passed, failed (with a hint and the last lines exchanged) or not checked.
"""
from __future__ import annotations

from .scenarios import CheckItem, CheckReport, CheckTarget, run_check

__all__ = ["CheckItem", "CheckReport", "CheckTarget", "run_check"]
