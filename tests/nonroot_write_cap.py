"""Run by tests/test_write_cap.py as an ordinary user (not root), with the system's Python:
the disk filler's games in a folder of that user's (argv[1]); prints what was sampled."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arbiter.transport.sandbox import support  # noqa: E402
from arbiter.transport.write_cap import available  # noqa: E402
from write_cap_games import filled_games  # noqa: E402

base = Path(sys.argv[1])
seen = filled_games(base / "cache", base / "logs", games=2, write_mb=4, write_files=40)
print(json.dumps({"header": support().describe(), "helper": support().spawn is not None, "write_cap": available(),
                  **seen}))
