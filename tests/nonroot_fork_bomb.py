"""Run by tests/test_sandbox.py as an ordinary user (not root), with the system's Python: a
boxed fork bomb against the random bot; prints what the box enforced and the bomb's report."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arbiter.games import find_game  # noqa: E402
from arbiter.referee import TimeControl, play_game  # noqa: E402
from arbiter.transport.sandbox import support  # noqa: E402
from referee_support import bot, honest, new_marker  # noqa: E402

logs = Path(sys.argv[1])
marker = new_marker()
record = play_game(find_game("limit-nim"), [bot("fork_bomb_bot.py", "bomb", marker), honest(marker)],
                   time=TimeControl(time_ms=10000), log_dir=logs)
report = [line for line in Path(record.logs[0]).read_text().splitlines() if line.startswith("ATTACK")]
print(json.dumps({"header": support().describe(), "helper": support().spawn is not None, "processes": support().enforced()["processes"],
                  "termination": record.termination.value, "detail": record.detail, "report": report}))
