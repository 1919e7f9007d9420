"""Draw a Star Wars board as one standalone SVG, for players checking a score on a phone.

Plain shapes only: no fonts fetched, no scripts, no external references. The same input gives the
same string, so a page can be cached and a test can compare two renders.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

from companion.games.base import Cell
from companion.games.starwars.tiles import ASTEROID, PLANET, ROUTE, Feature, Tile

Point = tuple[float, float]
Attrs = dict[str, str | float]

TILE_FILL, TILE_EDGE = "#f3efe6", "#8a8577"
ASTEROID_FILL, ASTEROID_EDGE = "#8d7b68", "#4e4034"
ROUTE_FILL, ROUTE_EDGE = "#f2a900", "#7a5200"
PLANET_FILL, PLANET_EDGE = "#3f7cc4", "#1b4a80"
BADGES = {"rebels": ("R", "#c62828"), "empire": ("E", "#37474f"), "bounty": ("B", "#6a1b9a")}
PLAYERS = {"red": "#d32f2f", "green": "#2e7d32", "black": "#1a1a1a", "white": "#ffffff", "orange": "#f57c00"}
UNKNOWN_PLAYER = "#9e9e9e"
FADED = "0.35"
# Sizes as fractions of a tile's side, so the drawing scales with cell_px.
BAND, GAP, NECK, ROUTE_W, PLANET_R, BADGE, MARGIN = 0.27, 0.05, 0.12, 0.11, 0.18, 0.09, 0.15
MEEPLE_R = {"small": 0.1, "large": 0.14}
MEEPLE_DEPTH = 0.15

# Each side's frame in a unit tile: its midpoint, the inward normal and the clockwise direction
# along it. A point is then (along, depth) whatever the side, which keeps the shapes below short.
_MID = ((0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 0.5))
_IN = ((0, 1), (-1, 0), (0, -1), (1, 0))
_ALONG = ((1, 0), (0, 1), (-1, 0), (0, -1))


def _num(value: float) -> str:
    # Two decimals keep the text short and identical across runs and platforms.
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _el(tag: str, attrs: Attrs, body: str = "") -> str:
    text = "".join(f" {k}={quoteattr(v if isinstance(v, str) else _num(v))}" for k, v in attrs.items())
    return f"<{tag}{text}>{body}</{tag}>" if body else f"<{tag}{text}/>"


def _xy(p: Point) -> str:
    return f"{_num(p[0])},{_num(p[1])}"


class _Frame:
    """One tile's square in SVG space."""

    def __init__(self, cell: Cell, c: int) -> None:
        self.x, self.y, self.c = cell[0] * c, cell[1] * c, c
        self.centre = (self.x + c / 2, self.y + c / 2)

    def at(self, side: int, along: float, depth: float) -> Point:
        (mx, my), (nx, ny), (ax, ay) = _MID[side], _IN[side], _ALONG[side]
        x, y = mx + along * ax + depth * nx, my + along * ay + depth * ny
        return (self.x + self.c * x, self.y + self.c * y)

    def off(self, dx: float, dy: float) -> Point:
        return (self.centre[0] + dx * self.c, self.centre[1] + dy * self.c)


def _poly(f: _Frame, side: int, points: list[Point]) -> str:
    return _el("polygon", {"points": " ".join(_xy(f.at(side, a, d)) for a, d in points)})


def _asteroid(f: _Frame, feature: Feature) -> list[str]:
    shapes = []
    sides = feature.sides
    # Bands on neighbouring sides already meet in their corner. Two opposite bands need a neck
    # through the centre, and a field on all four sides is filled, so one field reads as one shape.
    neck_half = 0.5 - BAND if len(sides) == 4 else NECK if sides in ((0, 2), (1, 3)) else 0.0
    for s in sides:
        # A band runs into a corner only when the next side is the same field; otherwise a gap
        # keeps two fields that meet at a corner visibly apart.
        end = 0.5 - GAP * ((s + 1) % 4 not in sides)
        start = -0.5 + GAP * ((s - 1) % 4 not in sides)
        shapes.append(_poly(f, s, [(start, 0.0), (end, 0.0), (end - BAND, BAND), (start + BAND, BAND)]))
        if neck_half:
            h = neck_half
            shapes.append(_poly(f, s, [(-h, BAND / 2), (h, BAND / 2), (h, 0.5 + h), (-h, 0.5 + h)]))
    # Stroked once underneath and filled once on top: only the outline of the union shows.
    edge: Attrs = {"fill": ASTEROID_EDGE, "stroke": ASTEROID_EDGE, "stroke-width": 0.04 * f.c}
    edge["stroke-linejoin"] = "round"  # a mitred 45-degree corner would poke out of the tile
    return [_el("g", edge, "".join(shapes)), _el("g", {"fill": ASTEROID_FILL}, "".join(shapes))]


def _route(f: _Frame, feature: Feature, crowded: bool) -> list[str]:
    start = f.at(feature.sides[0], 0, 0)
    if len(feature.sides) == 2:
        # Bending through a control point at the centre: straight across, curved round a corner,
        # so two curves on one tile never touch.
        path, mark = f"M{_xy(start)} Q{_xy(f.centre)} {_xy(f.at(feature.sides[1], 0, 0))}", ""
    else:
        # A dead end stops short when something else sits in the centre, so it does not seem to join it.
        end = f.at(feature.sides[0], 0, 0.25 if crowded else 0.5)
        path = f"M{_xy(start)} L{_xy(end)}"
        mark = _el("circle", {"cx": end[0], "cy": end[1], "r": 0.085 * f.c, "fill": ROUTE_EDGE})
    line: Attrs = {"d": path, "fill": "none", "stroke-linejoin": "round"}
    casing = _el("path", {**line, "stroke": ROUTE_EDGE, "stroke-width": (ROUTE_W + 0.04) * f.c})
    return [casing, _el("path", {**line, "stroke": ROUTE_FILL, "stroke-width": ROUTE_W * f.c}), mark]


def _badge(f: _Frame, p: Point, symbol: str) -> str:
    letter, colour = BADGES.get(symbol, ("?", "#000000"))
    h = BADGE * f.c
    box: Attrs = {"x": p[0] - h, "y": p[1] - h, "width": 2 * h, "height": 2 * h, "rx": 0.04 * f.c}
    rect = _el("rect", {**box, "fill": colour, "stroke": "#ffffff", "stroke-width": 0.015 * f.c})
    font: Attrs = {"font-size": 0.15 * f.c, "font-weight": "bold", "fill": "#ffffff", "text-anchor": "middle"}
    return rect + _el("text", {"x": p[0], "y": p[1], "dy": "0.35em", **font}, escape(letter))


def _badge_spots(f: _Frame, tile: Tile, feature: Feature) -> list[Point]:
    """One spot per symbol; extra symbols stack inwards rather than being left out."""
    n, sides = len(feature.symbols), feature.sides
    if feature.kind == PLANET:
        return [f.off(0, -0.2 * i) for i in range(n)]
    if feature.kind == ASTEROID:
        # Along the band, either side of where a meeple stands, then on the field's other sides.
        spots = [
            (sides[i // 2 % len(sides)], 0.26 * (-1) ** i, BAND / 2 + 0.2 * (i // (2 * len(sides))))
            for i in range(n)
        ]
        return [f.at(*spot) for spot in spots]
    # Beside the route, on the flank whose neighbouring side is free, so it does not sit on a field.
    sign = -1 if tile.side_feature[(sides[0] + 1) % 4] != -1 else 1
    return [f.at(sides[0], sign * 0.24 * (-1) ** i, 0.27 + 0.2 * (i // 2)) for i in range(n)]


def _meeple(f: _Frame, feature: Feature, colour: str, size: str, nth: int) -> str:
    if feature.kind == PLANET:
        p = f.off(0.14 + 0.12 * nth, 0.14)
    else:
        p = f.at(feature.sides[0], 0.12 * nth, MEEPLE_DEPTH)
    r = MEEPLE_R.get(size, MEEPLE_R["small"]) * f.c
    # A white halo under a dark outline keeps every colour, white and black included, readable on any fill.
    halo = _el("circle", {"cx": p[0], "cy": p[1], "r": r + 0.025 * f.c, "fill": "#ffffff"})
    ring: Attrs = {"stroke": "#111111", "stroke-width": 0.035 * f.c, "data-colour": colour}
    return halo + _el(
        "circle", {"cx": p[0], "cy": p[1], "r": r, "fill": PLAYERS.get(colour, UNKNOWN_PLAYER), **ring}
    )


def _tile(cell: Cell, tile: Tile, meeples: Sequence[tuple[int, str, str]], faded: bool, c: int) -> str:
    f = _Frame(cell, c)
    parts = [_el("title", {}, escape(f"[{cell[0]}, {cell[1]}]"))]
    parts.append(_el("rect", {"x": f.x, "y": f.y, "width": c, "height": c, "fill": TILE_FILL}))
    # Fields first, then routes, then the planet, so what lies in the centre stays on top.
    for feature in (x for x in tile.features if x.kind == ASTEROID):
        parts += _asteroid(f, feature)
    centre_users = sum(x.kind != ASTEROID or len(x.sides) > 1 for x in tile.features)
    for feature in (x for x in tile.features if x.kind == ROUTE):
        parts += _route(f, feature, centre_users > 1)
    if tile.planet_index is not None:
        circle: Attrs = {"cx": f.centre[0], "cy": f.centre[1], "r": PLANET_R * c, "fill": PLANET_FILL}
        parts.append(_el("circle", {**circle, "stroke": PLANET_EDGE, "stroke-width": 0.03 * c}))
    for feature in tile.features:
        spots = _badge_spots(f, tile, feature)
        parts += [_badge(f, p, sym) for p, sym in zip(spots, feature.symbols, strict=True)]
    border: Attrs = {"x": f.x, "y": f.y, "width": c, "height": c, "fill": "none", "stroke": TILE_EDGE}
    parts.append(_el("rect", {**border, "stroke-width": 0.02 * c}))
    seen: dict[int, int] = {}
    for index, colour, size in meeples:
        # A meeple naming a feature the tile lacks is left out: a drawing must not fail a page.
        if 0 <= index < len(tile.features):
            parts.append(_meeple(f, tile.features[index], colour, size, seen.get(index, 0)))
            seen[index] = seen.get(index, 0) + 1
    attrs: Attrs = {"opacity": FADED} if faded else {}
    return _el("g", {**attrs, "data-cell": f"{cell[0]},{cell[1]}"}, "".join(parts))


TARGET_FILL, TARGET_EDGE = "#fff4d6", "#f2b705"
SPOT_FILL, SPOT_EDGE = "#ffffff", "#f2b705"
SPOT_R = 0.11


def _target(cell: Cell, c: int) -> str:
    """An empty cell a tile may go in, for a finger: dashed, and named by ``data-cell``."""
    rect: Attrs = {"x": cell[0] * c + 2, "y": cell[1] * c + 2, "width": c - 4, "height": c - 4}
    rect |= {"fill": TARGET_FILL, "stroke": TARGET_EDGE, "stroke-width": 2, "stroke-dasharray": "6 4"}
    return _el("g", {"class": "target", "data-cell": f"{cell[0]},{cell[1]}"}, _el("rect", rect))


def _spot(cell: Cell, feature: str, where: tuple[float, float], c: int) -> str:
    """Where a meeple may go, for a finger: a ring on the tile, named by cell and feature."""
    cx, cy = (cell[0] + 0.5 + where[0]) * c, (cell[1] + 0.5 + where[1]) * c
    ring: Attrs = {"cx": cx, "cy": cy, "r": SPOT_R * c, "fill": SPOT_FILL, "fill-opacity": "0.8"}
    ring |= {"stroke": SPOT_EDGE, "stroke-width": 0.05 * c}
    attrs: Attrs = {"class": "spot", "data-at": f"{cell[0]},{cell[1]}", "data-feature": feature}
    return _el("g", attrs, _el("circle", ring))


def board_svg(
    tiles: Mapping[Cell, Tile],
    meeples: Sequence[tuple[Cell, int, str, str]] = (),
    highlight: Collection[Cell] = (),
    cell_px: int = 60,
    targets: Collection[Cell] = (),
    spots: Sequence[tuple[Cell, str, tuple[float, float]]] = (),
) -> str:
    """The board as a standalone SVG document; tiles outside a non-empty `highlight` are faded.
    ``targets``: empty cells drawn for a finger to choose; ``spots``: rings where a meeple may
    go (cell, the record's feature, where on the tile in tile widths from its centre)."""
    cells = sorted(tiles, key=lambda cell: (cell[1], cell[0]))
    shown = cells + sorted(targets, key=lambda cell: (cell[1], cell[0]))
    if shown:
        xs, ys = [x for x, _ in shown], [y for _, y in shown]
        box = (min(xs), min(ys), max(xs) + 1, max(ys) + 1)
    else:
        box = (0, 0, 1, 1)
    m = MARGIN * cell_px
    view = [box[0] * cell_px - m, box[1] * cell_px - m]
    view += [(box[2] - box[0]) * cell_px + 2 * m, (box[3] - box[1]) * cell_px + 2 * m]
    by_cell: dict[Cell, list[tuple[int, str, str]]] = {}
    for cell, index, colour, size in meeples:
        by_cell.setdefault(cell, []).append((index, colour, size))
    body = "".join(
        _tile(cell, tiles[cell], by_cell.get(cell, []), bool(highlight) and cell not in highlight, cell_px)
        for cell in cells
    )
    body += "".join(_target(cell, cell_px) for cell in targets if cell not in tiles)
    body += "".join(_spot(cell, feature, where, cell_px) for cell, feature, where in spots)
    root: Attrs = {"xmlns": "http://www.w3.org/2000/svg", "viewBox": " ".join(_num(v) for v in view)}
    root |= {"width": "100%", "font-family": "sans-serif", "role": "img"}
    return _el("svg", root, body or "<g/>") + "\n"
