"""The starter bots of examples/bots: each builds with its documented line and passes
`arbiter check` on every game it plays."""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from arbiter.check import CheckTarget, run_check
from arbiter.referee import PlayerSpec

ROOT = Path(__file__).resolve().parent.parent
STARTERS = ROOT / "examples" / "bots"
GAMES = [("dots-and-triangles", {}), ("dots-and-boxes", {"rows": "2", "cols": "3"}), ("limit-nim", {})]


def build_line(source: Path) -> str:
    """The `Build:` line of a starter's header comment."""
    match = re.search(r"Build:\s+(.+)", source.read_text())
    assert match, f"{source.name} has no Build: line"
    return match.group(1).strip()


@pytest.fixture(scope="module")
def c_starter() -> Path:
    """The C starter, built by its own Build: line, run as written from the repository's root."""
    assert shutil.which("gcc"), "gcc is needed (Debian: apt-get install gcc)"
    words = shlex.split(build_line(STARTERS / "starter_c.c"))
    assert words[:2] == ["gcc", "-O2"] and "-o" in words
    subprocess.run(words, cwd=ROOT, check=True, capture_output=True)
    return ROOT / words[words.index("-o") + 1]


def node() -> str:
    path = shutil.which("node")
    assert path, "node is needed (Debian: apt-get install nodejs)"
    return path


def test_the_js_starter_needs_no_build():
    assert build_line(STARTERS / "starter_js.js").startswith("nothing to build")


@pytest.mark.parametrize("game, params", GAMES, ids=[g for g, _ in GAMES])
@pytest.mark.parametrize("language", ["c", "js"])
def test_a_starter_passes_arbiter_check(c_starter, tmp_path, language, game, params):
    command = (str(c_starter),) if language == "c" else (node(), str(STARTERS / "starter_js.js"))
    player = PlayerSpec(name=f"starter-{language}", command=command, cwd=str(ROOT))
    report = run_check(CheckTarget(game, params, player, time_ms=3000), log_dir=tmp_path, concurrency=2)
    assert report.failed() == [], [(i.id, i.hint, i.transcript) for i in report.items if i.status == "fail"]
    assert report.item("seat-0").status == "pass" and report.item("quit").status == "pass"


# Starters for OpenSpiel's games: one in Python on the bot kit (OpenSpiel's own rules, any
# game: checked on Connect Four and on Pig, with dice), one in JavaScript with its own rules
# of Connect Four.
OPENSPIEL_STARTERS = [
    ("openspiel_starter.py", "openspiel:connect_four", {}),
    ("openspiel_starter.py", "openspiel:pig", {"winscore": "20"}),
    ("connect_four.js", "openspiel:connect_four", {}),
    ("connect_four.js", "openspiel:connect_four", {"rows": "5", "columns": "5", "x_in_row": "3"}),
]


@pytest.mark.parametrize("starter, game, params", OPENSPIEL_STARTERS,
                         ids=[f"{s}-{g}-{len(p)}" for s, g, p in OPENSPIEL_STARTERS])
def test_an_openspiel_starter_passes_arbiter_check(tmp_path, starter, game, params):
    pytest.importorskip("pyspiel")
    import sys

    source = STARTERS / starter
    if starter.endswith(".py"):
        assert build_line(source).startswith("nothing to build")
        command = (sys.executable, str(source))
    else:
        assert build_line(source).startswith("nothing to build")
        command = (node(), str(source))
    player = PlayerSpec(name=starter, command=command, cwd=str(ROOT))
    report = run_check(CheckTarget(game, params, player, time_ms=5000), log_dir=tmp_path, concurrency=2)
    assert report.failed() == [], [(i.id, i.hint, i.transcript) for i in report.items if i.status == "fail"]
    assert report.item("seat-0").status == "pass" and report.item("quit").status == "pass"
