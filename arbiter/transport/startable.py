"""Can this command start? The one answer for the config, the command line and a launch
(`unstartable`), with a hint that says what to do (a first bot's mistakes: docs/writing-a-bot.md)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Sequence

from . import SHORTAGES

# The file names an interpreter is given as its script: `python bot.py`, `node bot.js`...
SCRIPT_SUFFIXES = (".py", ".js", ".jar", ".rb", ".pl", ".sh", ".lua", ".php")
# The interpreter a hint names for a script by its suffix.
INTERPRETER_OF = {".py": "python3", ".js": "node", ".jar": "java -jar", ".rb": "ruby", ".pl": "perl", ".sh": "sh",
                  ".lua": "lua", ".php": "php"}


def unstartable(command: Sequence[str], cwd: str | Path | None) -> str | None:
    """Why a command cannot be started from `cwd` (None: the current folder), or None if it
    looks startable: the folder, the program (on PATH, or as a path from `cwd`, with a first
    line the system can run) and, for an interpreter given a script, the script. The one
    answer to "can this command start?", for the config, the command line and the launch
    alike; each answer says what to do (a first bot's mistakes: docs/writing-a-bot.md)."""
    folder = Path(cwd) if cwd is not None else Path.cwd()
    if cwd is not None and not folder.is_dir():
        return f"{cwd} is not a folder"
    program = command[0]
    run_by = INTERPRETER_OF.get(Path(program).suffix)
    if os.sep in program:
        path = Path(program) if os.path.isabs(program) else folder / program
        if path.is_dir():
            return _a_folder(program)
        if not path.is_file():
            return f"{program} does not exist (looked in {folder})"
        if not os.access(path, os.X_OK):
            through = f": {run_by} {program}" if run_by else ""
            return f"{program} is not executable: chmod +x it, or run it through its interpreter{through}"
        why = _first_line_problem(path, program, run_by)
        if why is not None:
            return why
    elif shutil.which(program) is None:
        if os.path.isdir(folder / program):
            return _a_folder(program)
        if os.path.isfile(folder / program):  # False, not an error, for a name too long to be a file
            return (f"{program!r} is not found on PATH; to run the file {program} here, write "
                    f"./{program}" + (f" or {run_by} {program}" if run_by else ""))
        return f"{program!r} is not found on PATH"
    for word in command[1:]:
        if word.startswith("-"):
            continue
        if word.endswith(SCRIPT_SUFFIXES):
            script = Path(word) if os.path.isabs(word) else folder / word
            if script.is_dir():
                return _a_folder(word)
            if not script.is_file():
                return f"script {word} does not exist (looked in {folder})"
        break
    return None


def _a_folder(given: str) -> str:
    """What to say of a folder given where a program or script belongs."""
    name = given.rstrip("/").removeprefix("./")
    return (f"{given} is a folder, not a program: give the program in it (./{name}/bot, or python3 {name}/bot.py "
            "for a script), or make the folder an entry of a config's `entries:` (docs/config.md, entries)")


def _first_line_problem(path: Path, program: str, run_by: str | None) -> str | None:
    """Why the system cannot run a program file from its first bytes: a `#!` line ending in a
    carriage return (a script saved with Windows line ends: the system looks for an interpreter
    whose name ends in it), or naming an interpreter that is not there; a script by its suffix
    with no `#!` line at all (the system would hand it to /bin/sh). None when it looks runnable."""
    try:
        with open(path, "rb") as file:
            head = file.read(512)
    except OSError as exc:
        if exc.errno in SHORTAGES:
            raise  # the arbiter's shortage, not the program's
        return f"{program} cannot be read ({exc.strerror})"
    if not head.startswith(b"#!"):
        if run_by and not head.startswith(b"\x7fELF"):
            return (f"{program} has no '#!' first line, so the system would run it with /bin/sh: start it with "
                    f"a line like '#!/usr/bin/env {run_by.split()[0]}', or run it as {run_by} {program}")
        return None
    line = head.split(b"\n", 1)[0]
    if line.endswith(b"\r"):
        return (f"{program} has Windows line ends (CRLF): its first line {line[:-1].decode(errors='replace')!r} "
                "ends in a carriage return, which the system takes as part of the interpreter's name (no such "
                f"program exists); convert the file to Unix line ends: sed -i 's/\\r$//' {program} (or dos2unix)")
    words = line[2:].decode(errors="replace").split()
    if words and words[0].startswith("/") and not os.path.isfile(words[0]):
        return f"{program}'s first line asks for the interpreter {words[0]}, which does not exist"
    if len(words) > 1 and os.path.basename(words[0]) == "env" and not words[1].startswith("-") \
            and shutil.which(words[1]) is None:
        return (f"{program}'s first line asks for the interpreter {words[1]}, which is not installed on this "
                "machine: install it, or change the line to an interpreter this machine has")
    return None
