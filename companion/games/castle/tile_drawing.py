"""A castle tile drawn in SVG: each half of a side is a triangle from the tile's centre to that
half of the edge, filled with the colour of the feature touching it; paths run from the middles
of their sides to the centre (or stop short, at a plaza); a tower or house inside the tile is a
square in its middle; markets are small yellow squares, a fountain a blue dot. A start space is
drawn the same way, as a strip on the wall against its side.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from xml.sax.saxutils import escape

from companion.games.base import Cell
from companion.games.carcassonne.tiles import Feature
from companion.games.castle.layout import Layout
from companion.games.castle.svg import MID, SIDE_CORNERS, Attrs, Frame, Point, element, num
from companion.games.castle.tiles import COURTYARD, FOUNTAIN, HOUSE, MARKETS, PATH, TOWER, CastleTile

FILL = {TOWER: "#8f9296", HOUSE: "#c4663f", COURTYARD: "#e9d8a6"}
EDGE = {TOWER: "#4d5053", HOUSE: "#7c3a20", COURTYARD: "#b59f5e"}
PLAZA, TILE_EDGE, WALL = "#f4eee0", "#8a7f6a", "#6f5f49"
PATH_FILL, PATH_EDGE, FOUNTAIN_FILL, MARKET_FILL = "#fffdf7", "#6b5a3e", "#3f86c6", "#f2b705"
FADED = "0.3"
START_DEPTH = 0.28  # how far a start space reaches onto the wall, in tile widths


def half_triangle(part: int) -> tuple[Point, Point, Point]:
    """The triangle of a half part in a unit tile: centre, then that half of the edge."""
    side, k = divmod(part, 3)
    (ax, ay), (bx, by) = SIDE_CORNERS[side]
    mid = MID[side]
    return ((0.5, 0.5), (ax, ay), mid) if k == 0 else ((0.5, 0.5), mid, (bx, by))


def spot(feature: Feature) -> Point:
    """Where a follower (or a ring for one) stands on a feature, in a unit tile."""
    if not feature.parts:
        return (0.5, 0.5)
    first = feature.parts[0]
    side = first // 3
    if first % 3 == 1:  # a path: on it, a third of the way in
        mx, my = MID[side]
        return (mx + (0.5 - mx) * 0.55, my + (0.5 - my) * 0.55)
    a, b, c = half_triangle(first)
    return ((a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3)


def _features(f: Frame, features: Sequence[Feature]) -> str:
    out = []
    # Regions first, then paths on top, then what stands inside the tile.
    for feature in features:
        if feature.kind == PATH or not feature.parts:
            continue
        # one shape for all the halves of a feature, stroked in its own colour to close the seams
        d = " ".join(f"M{f.points(half_triangle(part)).replace(' ', ' L')}Z" for part in feature.parts)
        out.append(
            element(
                "path",
                {"d": d, "fill": FILL[feature.kind], "stroke": FILL[feature.kind], "stroke-width": 0.5},
            )
        )
    for feature in features:
        if feature.kind == PATH:
            out.append(_path(f, feature))
    for feature in features:
        if feature.kind != PATH and not feature.parts:
            box: Attrs = {
                "x": f.x + 0.33 * f.c,
                "y": f.y + 0.33 * f.c,
                "width": 0.34 * f.c,
                "height": 0.34 * f.c,
            }
            attrs = box | {
                "fill": FILL[feature.kind],
                "stroke": EDGE[feature.kind],
                "stroke-width": 0.03 * f.c,
            }
            out.append(element("rect", attrs))
    for feature in features:
        markets = dict(feature.counts).get(MARKETS, 0)
        if markets:
            x, y = f.at(spot(feature))
            size = 0.16 * f.c
            out.append(
                element(
                    "rect",
                    {
                        "x": x - size / 2,
                        "y": y - size / 2,
                        "width": size,
                        "height": size,
                        "fill": MARKET_FILL,
                        "stroke": "#7a5a00",
                        "stroke-width": 0.02 * f.c,
                    },
                )
            )
            if markets > 1:
                font: Attrs = {"font-size": 0.14 * f.c, "font-weight": "bold", "text-anchor": "middle"}
                out.append(element("text", {"x": x, "y": y, "dy": "0.35em", **font}, str(markets)))
    return "".join(out)


def _path(f: Frame, feature: Feature) -> str:
    sides = [p // 3 for p in feature.parts]
    ends = [f.at(MID[s]) for s in sides]
    centre = f.at((0.5, 0.5))
    if len(sides) == 1:
        # a path that ends inside the tile stops short of the centre, at a plaza or a building
        mx, my = MID[sides[0]]
        stop = f.at((mx + (0.5 - mx) * 0.6, my + (0.5 - my) * 0.6))
        d = f"M{num(ends[0][0])},{num(ends[0][1])} L{num(stop[0])},{num(stop[1])}"
    else:
        d = " ".join(f"M{num(x)},{num(y)} L{num(centre[0])},{num(centre[1])}" for x, y in ends)
    line: Attrs = {"d": d, "fill": "none", "stroke-linecap": "round"}
    body = element("path", line | {"stroke": PATH_EDGE, "stroke-width": 0.17 * f.c})
    body += element("path", line | {"stroke": PATH_FILL, "stroke-width": 0.11 * f.c})
    if dict(feature.counts).get(FOUNTAIN):
        x, y = f.at(spot(feature))
        body += element(
            "circle",
            {
                "cx": x,
                "cy": y,
                "r": 0.07 * f.c,
                "fill": FOUNTAIN_FILL,
                "stroke": "#ffffff",
                "stroke-width": 0.02 * f.c,
            },
        )
    return body


@lru_cache(maxsize=2048)
def tile_svg_body(cell: Cell, tile: CastleTile, c: float, faded: bool = False) -> str:
    """One tile drawn where it lies (the same every time: kept, as the board is drawn again on
    every change of the game)."""
    f = Frame(cell, c)
    parts = [element("title", {}, escape(f"[{cell[0]}, {cell[1]}]"))]
    parts.append(element("rect", {"x": f.x, "y": f.y, "width": c, "height": c, "fill": PLAZA}))
    parts.append(_features(f, tile.features))
    border: Attrs = {"x": f.x, "y": f.y, "width": c, "height": c, "fill": "none", "stroke": TILE_EDGE}
    parts.append(element("rect", border | {"stroke-width": 0.02 * c}))
    attrs: Attrs = {"opacity": FADED} if faded else {}
    return element("g", attrs | {"data-cell": f"{cell[0]},{cell[1]}"}, "".join(parts))


def tile_svg(tile: CastleTile, cell_px: float = 44) -> str:
    """One tile alone (the box's shapes on the entry page)."""
    c = cell_px
    body = tile_svg_body((0, 0), tile, c)
    root: Attrs = {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"-2 -2 {num(c + 4)} {num(c + 4)}"}
    return element("svg", root | {"width": num(c), "height": num(c), "role": "img"}, body)


def start_svg(layout: Layout, index: int, c: float, faded: bool) -> str:
    """A start space: a strip on the wall against its cell, its features drawn as on a tile's side."""
    start = layout.starts[index]
    cell, side = start.cell, start.side
    f = Frame(cell, c)
    (ax, ay), (bx, by) = SIDE_CORNERS[side]
    out = []
    normal = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}[side]
    d = START_DEPTH
    strip = [
        (ax, ay),
        (bx, by),
        (bx + normal[0] * d, by + normal[1] * d),
        (ax + normal[0] * d, ay + normal[1] * d),
    ]
    out.append(
        element(
            "polygon", {"points": f.points(strip), "fill": PLAZA, "stroke": WALL, "stroke-width": 0.02 * c}
        )
    )
    mid = MID[side]
    outer_mid = (mid[0] + normal[0] * d, mid[1] + normal[1] * d)
    # halves first, the path in the middle on top of them
    for feature in start.features:
        for part in feature.parts:
            k = part % 3
            if k == 1:
                continue
            near = (ax, ay) if k == 0 else (bx, by)
            quad = [near, mid, outer_mid, (near[0] + normal[0] * d, near[1] + normal[1] * d)]
            out.append(element("polygon", {"points": f.points(quad), "fill": FILL[feature.kind]}))
    for feature in start.features:
        if feature.kind == PATH:
            (x1, y1), (x2, y2) = f.at(mid), f.at(outer_mid)
            line: Attrs = {"x1": x1, "y1": y1, "x2": x2, "y2": y2}
            out.append(element("line", line | {"stroke": PATH_EDGE, "stroke-width": 0.17 * c}))
            out.append(element("line", line | {"stroke": PATH_FILL, "stroke-width": 0.11 * c}))
    attrs: Attrs = {"opacity": FADED} if faded else {}
    return element("g", attrs | {"class": "start", "data-start": str(index)}, "".join(out))
