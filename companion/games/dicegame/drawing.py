"""The black parts of a city face as SVG paths in a unit square (x east, y south), for the pages.

A segment on one side is a cap (a curve into the die), a segment between two opposite sides a band;
any other segment is the union of the triangles from a middle point to each of its sides. On a
face with several segments each middle point leans towards its own sides, so that separate
segments stay apart on the drawing.
"""

from __future__ import annotations

from functools import cache

from companion.games.dicegame.faces import SIDE_BIT, SIDES

CORNERS = {"N": ((0, 0), (1, 0)), "E": ((1, 0), (1, 1)), "S": ((1, 1), (0, 1)), "W": ((0, 1), (0, 0))}
OUTWARD = {"N": (0.0, -1.0), "E": (1.0, 0.0), "S": (0.0, 1.0), "W": (-1.0, 0.0)}
CAP_DEPTH = 0.62  # the control point of a cap's curve: the curve itself reaches about half of it
BAND = 0.3  # how far a band between opposite sides narrows at the middle
LEAN = 0.22  # how far a segment's middle point leans towards its sides when a face has several


def _number(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") or "0"


@cache
def segment_paths(segments: tuple[int, ...]) -> tuple[str, ...]:
    """One SVG path ("d") per segment (side bits), in a 1 x 1 square."""
    return tuple(_path(segment, lean=len(segments) > 1) for segment in segments)


def _path(segment: int, lean: bool) -> str:
    sides = [side for side in SIDES if segment & SIDE_BIT[side]]
    if len(sides) == 1:
        (ax, ay), (bx, by) = CORNERS[sides[0]]
        ox, oy = OUTWARD[sides[0]]
        cx, cy = 0.5 - ox * (CAP_DEPTH - 0.5), 0.5 - oy * (CAP_DEPTH - 0.5)
        return f"M{ax} {ay}L{bx} {by}Q{_number(cx)} {_number(cy)} {ax} {ay}Z"
    if len(sides) == 2 and sides in (["N", "S"], ["E", "W"]) and not lean:
        # a band from side to side, narrower in the middle
        if sides == ["N", "S"]:
            return f"M0 0L1 0L{1 - BAND} 0.5L1 1L0 1L{BAND} 0.5Z"
        return f"M0 0L0.5 {BAND}L1 0L1 1L0.5 {1 - BAND}L0 1Z"
    mx, my = 0.5, 0.5
    if lean:
        mx += LEAN * sum(OUTWARD[s][0] for s in sides) / len(sides)
        my += LEAN * sum(OUTWARD[s][1] for s in sides) / len(sides)
    middle = f"{_number(mx)} {_number(my)}"
    parts = []
    for side in sides:
        (ax, ay), (bx, by) = CORNERS[side]
        parts.append(f"M{middle}L{ax} {ay}L{bx} {by}Z")
    return "".join(parts)
