"""Dots and Triangles ("Triangle War"): the dots game on a triangular grid of dots.

`rows` is the number of dots on a side. Dots are numbered 1.. row by row from the
apex, left to right. A move is the two dot numbers of an edge, smaller first: `2 4`.
Only unit triangles score.
"""
from __future__ import annotations

import re

from .base import MalformedMove, Param, int_range
from .dots import PLAYERS_PARAM, DotsGame, DotsState, owner_letter

# ASCII digits only, and few enough that int() is cheap (a bot may send anything).
_MOVE = re.compile(r"([0-9]{1,9}) ([0-9]{1,9})")


class DotsAndTriangles(DotsGame):
    name = "dots-and-triangles"
    aliases = ("triangle-war",)
    parameters = (
        Param("rows", 4, "dots on a side of the triangle, between 2 and 40", check=int_range(2, 40)),
        PLAYERS_PARAM,
    )

    def _setup(self) -> None:
        n = self.params["rows"]
        self.dot_count = n * (n + 1) // 2
        edges: set[tuple[int, int]] = set()
        triangles: list[tuple[int, int, int]] = []
        # Where each triangle's owner letter goes: (row, i) of its top-left dot, and whether
        # it points up (apex at that dot) or down (between that dot and its right neighbour).
        self._cell_places: list[tuple[int, int, bool]] = []
        for r in range(1, n + 1):
            for i in range(1, r + 1):
                here = self.dot(r, i)
                if i < r:
                    edges.add((here, self.dot(r, i + 1)))
                if r < n:
                    edges.add((here, self.dot(r + 1, i)))
                    edges.add((here, self.dot(r + 1, i + 1)))
                    triangles.append((here, self.dot(r + 1, i), self.dot(r + 1, i + 1)))
                    self._cell_places.append((r, i, True))
                    if i < r:
                        triangles.append((here, self.dot(r, i + 1), self.dot(r + 1, i + 1)))
                        self._cell_places.append((r, i, False))
        self.edges = sorted(edges)
        index = {edge: k for k, edge in enumerate(self.edges)}
        self.cells = [tuple(sorted((index[(a, b)], index[(a, c)], index[(b, c)]))) for a, b, c in triangles]
        self._index_cells()

    @staticmethod
    def dot(row: int, i: int) -> int:
        """The number of the i-th dot (1-based) of a row (1-based from the apex)."""
        return row * (row - 1) // 2 + i

    def parse_move(self, text: str) -> int:
        match = _MOVE.fullmatch(text)
        if not match:
            raise MalformedMove(text, "expected two dot numbers separated by one space, like '2 4'")
        a, b = sorted((int(match[1]), int(match[2])))
        for d in (a, b):
            if not 1 <= d <= self.dot_count:
                raise MalformedMove(text, f"there is no dot {d}; dots are 1 to {self.dot_count}")
        edge = self.edge_index.get((a, b))
        if edge is None:
            why = "an edge joins two different dots" if a == b else f"dots {a} and {b} are not adjacent"
            raise MalformedMove(text, why)
        return edge

    def format_move(self, move: int) -> str:
        a, b = self.edges[move]
        return f"{a} {b}"

    def render_state(self, state: DotsState) -> str:
        """Dot numbers; `---`, `/`, `\\` for drawn edges and `.` for undrawn ones;
        the owner's letter (A for seat 0) inside each completed triangle."""
        n = self.params["rows"]
        width = len(str(self.dot_count))
        # Columns from a dot to the dots below it; neighbours in a row are 2 * half apart.
        # 2 leaves room for "9--10"; three-digit numbers need more.
        half = 2 if width <= 2 else 4
        grid = [[" "] * (width + 2 * half * (n - 1)) for _ in range(2 * n - 1)]

        def column(r: int, i: int) -> int:
            """Where a dot's number ends (numbers are right-aligned)."""
            return width - 1 + (n - r) * half + (i - 1) * 2 * half

        def put(line: int, col: int, text: str) -> None:
            grid[line][col : col + len(text)] = text

        def drawn(a: int, b: int) -> bool:
            return bool((state.drawn >> self.edge_index[(a, b)]) & 1)

        for r in range(1, n + 1):
            for i in range(1, r + 1):
                here, x = self.dot(r, i), column(r, i)
                put(2 * r - 2, x - len(str(here)) + 1, str(here))
                if i < r and drawn(here, here + 1):  # dashes up to the next number
                    put(2 * r - 2, x + 1, "-" * (2 * half - len(str(here + 1))))
                elif i < r:  # a dot midway
                    put(2 * r - 2, x + half, ".")
                if r < n:
                    put(2 * r - 1, x - half // 2, "/" if drawn(here, self.dot(r + 1, i)) else ".")
                    put(2 * r - 1, x + half // 2, "\\" if drawn(here, self.dot(r + 1, i + 1)) else ".")
        for cell, (r, i, up) in enumerate(self._cell_places):
            put(2 * r - 1, column(r, i) + (0 if up else half), owner_letter(state.owner[cell]))
        import textwrap  # only for pictures, which a bot never draws: not on its start-up

        return textwrap.dedent("\n".join("".join(line).rstrip() for line in grid))
