"""Errors from the user's input (command line, config files), shown as one clear message."""
from __future__ import annotations


class UsageError(Exception):
    """Bad input from the user: the CLI prints the message and exits with status 2."""
