"""Dots and Triangles ("Triangle War"): the dots game on a triangular grid of dots.

`rows` is the number of dots on a side. Dots are numbered 1.. row by row from the
apex, left to right. A move is the two dot numbers of an edge, smaller first: `2 4`.
Only unit triangles score.
"""
from __future__ import annotations

import re

from .base import MalformedMove, Param, int_range
from .dots import PLAYERS_PARAM, DotsGame, DotsState, owner_letter

_MOVE = re.compile(r"(\d+) (\d+)")


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
        for r in range(1, n + 1):
            for i in range(1, r + 1):
                here = self.dot(r, i)
                if i < r:
                    edges.add((here, self.dot(r, i + 1)))
                if r < n:
                    edges.add((here, self.dot(r + 1, i)))
                    edges.add((here, self.dot(r + 1, i + 1)))
                    # the upward triangle hanging from this dot
                    triangles.append((here, self.dot(r + 1, i), self.dot(r + 1, i + 1)))
                    if i < r:  # the downward triangle between this dot and its right neighbour
                        triangles.append((here, self.dot(r, i + 1), self.dot(r + 1, i + 1)))
        self.edges = sorted(edges)
        index = {edge: k for k, edge in enumerate(self.edges)}
        self.cells = [
            tuple(sorted(index[tuple(sorted(pair))] for pair in ((a, b), (a, c), (b, c))))  # type: ignore[index]
            for a, b, c in triangles
        ]
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
            raise MalformedMove(text, f"dots {a} and {b} are not adjacent, so no edge joins them")
        return edge

    def format_move(self, move: int) -> str:
        a, b = self.edges[move]
        return f"{a} {b}"

    def render_state(self, state: DotsState) -> str:
        """Dots as numbers; `---`, `/`, `\\` for drawn edges, `.` for undrawn; owners' letters."""
        n = self.params["rows"]
        width = len(str(self.dot_count))
        unit = 2 * ((width + 2) // 2)  # even, so slants sit exactly between dots
        lines = [[" "] * (2 * unit * (n - 1) + width + 1) for _ in range(2 * n - 1)]

        def col(r: int, i: int) -> int:
            return (n - r) * unit + (i - 1) * 2 * unit

        def drawn(a: int, b: int) -> bool:
            return bool((state.drawn >> self.edge_index[(a, b)]) & 1)

        def put(line: int, x: int, text: str) -> None:
            lines[line][x : x + len(text)] = list(text)

        for r in range(1, n + 1):
            for i in range(1, r + 1):
                x, here = col(r, i), self.dot(r, i)
                put(2 * (r - 1), x, str(here).rjust(width))
                if i < r:
                    mark = "-" if drawn(here, here + 1) else " "
                    gap = 2 * unit - width
                    put(2 * (r - 1), x + width, (mark * gap) if mark == "-" else " " * (gap // 2) + "." + " " * (gap - gap // 2 - 1))
                if r < n:
                    half = unit // 2
                    below_left, below_right = self.dot(r + 1, i), self.dot(r + 1, i + 1)
                    put(2 * r - 1, x + width - 1 - half, "/" if drawn(here, below_left) else ".")
                    put(2 * r - 1, x + width - 1 + half, "\\" if drawn(here, below_right) else ".")
        for cell, (a, _b, _c) in enumerate(self._triangle_dots()):
            r, i = self._row_of(a)
            up = self.dot(r + 1, i) in self._triangle_dots()[cell]
            x = col(r, i) + width - 1 + (0 if up else unit)
            put(2 * r - 1, x, owner_letter(state.owner[cell]))
        return "\n".join("".join(line).rstrip() for line in lines)

    def _triangle_dots(self) -> list[tuple[int, ...]]:
        """Each cell as its three dot numbers, in cell order."""
        cached = getattr(self, "_tri_dots", None)
        if cached is None:
            cached = [tuple(sorted({d for e in cell for d in self.edges[e]})) for cell in self.cells]
            self._tri_dots = cached
        return cached

    def _row_of(self, dot: int) -> tuple[int, int]:
        r = 1
        while self.dot(r + 1, 1) <= dot:
            r += 1
        return r, dot - self.dot(r, 1) + 1
