"""A watched run of a game whose rules must never run in the arbiter's own process (issue 37;
docs/architecture.md, Where games run): the live page draws each running game from what its
worker tells it (`turn_news.TurnNews`), so rules that crash or raise when the arbiter calls
them cost the page nothing, and the arbiter nothing."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from arbiter.records import GameRecord, Termination
from test_live import Stream
from tournament_helpers import ROOT, write_config
from worker_only_games import FAILURE_VARIABLE, PID_VARIABLE

TESTS = ROOT / "tests"
SLOW_BOT = TESTS / "bots" / "slow_random_bot.py"
# `arbiter` itself, told its own pid first: the one process whose calls of the rules fail.
ARBITER = ("import os, runpy, sys\n"
           f"os.environ[{PID_VARIABLE!r}] = str(os.getpid())\n"
           "sys.argv[0] = 'arbiter'\n"
           "runpy.run_module('arbiter', run_name='__main__', alter_sys=True)\n")


@pytest.mark.parametrize("failure", ["raise", "hang", "segfault"])
def test_a_watched_run_shows_its_games_without_running_their_rules_in_the_arbiter(tmp_path: Path, failure: str) -> None:
    players = "\n".join(f"  - {{name: {name}, command: python {SLOW_BOT} --seed {seed}, env: {{SLOW_MS: '100'}}}}"
                        for name, seed in (("ann", 1), ("bob", 2)))
    config = write_config(tmp_path, "game: worker_only_games:WorkerOnlyNim\ngames_per_pairing: 2\nconcurrency: 1\n"
                                    f"sandbox: off\nplayers:\n{players}\n", name="watched")
    env = {**os.environ, FAILURE_VARIABLE: failure,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.Popen([sys.executable, "-c", ARBITER, "run", str(config), "--serve"], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    try:
        assert run.stderr is not None
        for line in run.stderr:
            lines.append(line)
            if "live page:" in line:
                break
        reader = threading.Thread(target=lambda: lines.extend(run.stderr), daemon=True)  # type: ignore[arg-type]
        reader.start()
        url = re.search(r"live page: http://127\.0\.0\.1:(\d+)/", "".join(lines))
        assert url, "".join(lines)
        # "Now playing" shows a game's moves as its worker told them, turn by turn.
        stream = Stream(int(url.group(1)))
        boards: list[dict[str, Any]] = []  # as the page keeps them: each message with boards replaces them

        def moves_shown(message: dict[str, Any]) -> bool:
            boards[:] = message.get("boards", boards)
            return any(len(r["entry"][11]) >= 2 for r in message["live"].get("running", []))
        try:
            shown = stream.until(moves_shown, limit_s=60)
        finally:
            stream.close()
        running = next(r for r in shown["live"]["running"] if len(r["entry"][11]) >= 2)
        entry, board = running["entry"], boards[running["entry"][2]]
        seen = [(int(seat), board["move_texts"][int(i)]) for seat, i in zip(entry[11], entry[12].split(","))]
        assert running["to_move"] in (0, 1, None)
        assert run.wait(timeout=120) == 0, "".join(lines)
        reader.join(5)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    records = [GameRecord.from_json(json.loads(line))
               for line in (tmp_path / "results" / "games.jsonl").read_text().splitlines()]
    assert [r.termination for r in records] == [Termination.NORMAL] * 2, [r.detail for r in records]
    played = next(r for r in records if r.id == entry[0])
    assert [(m.seat, m.move) for m in played.moves][:len(seen)] == seen
    assert "Traceback" not in "".join(lines), "".join(lines)
