"""Dots and Boxes on a grid of `rows` x `cols` boxes.

A move is `r c h` or `r c v`: the line from dot (row r, column c), 1-based from the
top-left dot, going right (`h`) or down (`v`).
"""
from __future__ import annotations

import re

from .base import MalformedMove, Param, int_range
from .dots import PLAYERS_PARAM, DotsGame, DotsState, owner_letter

# ASCII digits only, and few enough that int() is cheap (a bot may send anything).
_MOVE = re.compile(r"([0-9]{1,9}) ([0-9]{1,9}) ([hv])")


class DotsAndBoxes(DotsGame):
    name = "dots-and-boxes"
    parameters = (
        Param("rows", 3, "boxes down the board, between 1 and 30", check=int_range(1, 30)),
        Param("cols", 3, "boxes across the board, between 1 and 30", check=int_range(1, 30)),
        PLAYERS_PARAM,
    )

    def _setup(self) -> None:
        rows, cols = self.params["rows"], self.params["cols"]
        self.lines: list[tuple[int, int, str]] = sorted(
            [(r, c, "h") for r in range(1, rows + 2) for c in range(1, cols + 1)]
            + [(r, c, "v") for r in range(1, rows + 1) for c in range(1, cols + 2)]
        )
        self.line_index = {line: k for k, line in enumerate(self.lines)}
        # Edges as dot-number pairs too, so generic code can name dots; dots numbered row-major.
        def dot(r: int, c: int) -> int:
            return (r - 1) * (cols + 1) + c

        self.edges = [
            (dot(r, c), dot(r, c + 1)) if o == "h" else (dot(r, c), dot(r + 1, c))
            for r, c, o in self.lines
        ]
        index = self.line_index
        self.cells = [
            tuple(sorted(index[line] for line in ((r, c, "h"), (r + 1, c, "h"), (r, c, "v"), (r, c + 1, "v"))))
            for r in range(1, rows + 1)
            for c in range(1, cols + 1)
        ]
        self._index_cells()

    def parse_move(self, text: str) -> int:
        match = _MOVE.fullmatch(text)
        if not match:
            raise MalformedMove(text, "expected 'row col h' or 'row col v', like '1 2 h'")
        line = (int(match[1]), int(match[2]), match[3])
        move = self.line_index.get(line)
        if move is None:
            rows, cols = self.params["rows"], self.params["cols"]
            if line[2] == "h":
                starts = f"rows 1-{rows + 1}, cols 1-{cols}"
            else:
                starts = f"rows 1-{rows}, cols 1-{cols + 1}"
            raise MalformedMove(
                text, f"no such line on a {rows}x{cols} board ({line[2]} lines start at {starts})"
            )
        return move

    def format_move(self, move: int) -> str:
        r, c, o = self.lines[move]
        return f"{r} {c} {o}"

    def render_state(self, state: DotsState) -> str:
        """`+` dots, `---` and `|` drawn lines, owners' letters in boxes."""
        rows, cols = self.params["rows"], self.params["cols"]

        def drawn(line: tuple[int, int, str]) -> bool:
            return bool((state.drawn >> self.line_index[line]) & 1)

        out: list[str] = []
        for r in range(1, rows + 2):
            dashes = ("---" if drawn((r, c, "h")) else "   " for c in range(1, cols + 1))
            out.append("+" + "+".join(dashes) + "+")
            if r <= rows:
                row = ""
                for c in range(1, cols + 2):
                    row += "|" if drawn((r, c, "v")) else " "
                    if c <= cols:
                        row += f" {owner_letter(state.owner[(r - 1) * cols + c - 1])} "
                out.append(row)
        return "\n".join(line.rstrip() for line in out)
