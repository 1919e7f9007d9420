"""Small helpers for the Castle's SVG drawings: numbers written short, elements, a tile's frame.

Plain shapes only (no fonts fetched, no scripts); the same input gives the same text, so a page
can be cached and a test can compare two drawings.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

from companion.games.base import Cell

Point = tuple[float, float]
Attrs = dict[str, str | float]

# The corners of each side, clockwise, in a unit tile (x east, y south), and each side's middle.
SIDE_CORNERS: tuple[tuple[Point, Point], ...] = (
    ((0, 0), (1, 0)),
    ((1, 0), (1, 1)),
    ((1, 1), (0, 1)),
    ((0, 1), (0, 0)),
)
MID: tuple[Point, ...] = ((0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 0.5))


def num(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def element(tag: str, attrs: Attrs, body: str = "") -> str:
    text = "".join(f" {k}={quoteattr(v if isinstance(v, str) else num(v))}" for k, v in attrs.items())
    return f"<{tag}{text}>{body}</{tag}>" if body else f"<{tag}{text}/>"


class Frame:
    """One tile's square in SVG space, ``c`` pixels a side."""

    def __init__(self, cell: Cell, c: float) -> None:
        self.x, self.y, self.c = cell[0] * c, cell[1] * c, c

    def at(self, p: Point) -> Point:
        return (self.x + p[0] * self.c, self.y + p[1] * self.c)

    def points(self, ps: Sequence[Point]) -> str:
        return " ".join(f"{num(x)},{num(y)}" for x, y in (self.at(p) for p in ps))
