"""The castle drawn as standalone SVG for the phone: the board inside the walls with its start
spaces, tiles and followers, the keeps' flags, rings and spaces for a finger, and the score track
on the wall (``tile_drawing.py`` draws a tile, ``track_drawing.py`` the track).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from companion.games.base import Cell
from companion.games.castle.layout import Layout
from companion.games.castle.svg import SIDE_CORNERS, Attrs, Point, element, num
from companion.games.castle.tile_drawing import WALL, spot, start_svg, tile_svg, tile_svg_body
from companion.games.castle.tiles import CastleTile
from companion.games.castle.track_drawing import Track, track_svg_body

__all__ = ["Piece", "Track", "board_svg", "colour_of", "spot", "tile_svg"]

COLOURS = {
    "yellow": "#f2c200",
    "blue": "#1f5fbf",
    "red": "#d32f2f",
    "green": "#2e7d32",
    "black": "#1a1a1a",
    "white": "#ffffff",
    "orange": "#f57c00",
    "purple": "#7b1fa2",
    "pink": "#e91e63",
    "brown": "#6d4c41",
    "grey": "#757575",
    "gray": "#757575",
}
SEAT_COLOURS = ("#f2c200", "#1f5fbf")  # for colours the drawing has no name for
EMPTY = "#fbf8f1"
TARGET_FILL, TARGET_EDGE, SPOT_EDGE = "#fff4d6", "#f2b705", "#f2b705"


def colour_of(colour: str | None, seat: int) -> str:
    return COLOURS.get((colour or "").strip().lower(), SEAT_COLOURS[seat % 2])


@dataclass(frozen=True)
class Piece:
    """A follower to draw: where, on which feature, whose colour."""

    cell: Cell
    feature: int
    colour: str
    lying: bool  # a merchant lies on its side


def _follower(tile: CastleTile, cell: Cell, piece: Piece, nth: int, c: float) -> str:
    if not 0 <= piece.feature < len(tile.features):
        return ""  # a follower naming a feature the tile lacks is left out: a drawing must not fail
    x, y = spot(tile.features[piece.feature])
    x, y = (cell[0] + x) * c + nth * 0.12 * c, (cell[1] + y) * c
    ring: Attrs = {"stroke": "#111111", "stroke-width": 0.035 * c, "fill": piece.colour}
    if piece.lying:
        return element("ellipse", {"cx": x, "cy": y, "rx": 0.15 * c, "ry": 0.08 * c, **ring})
    halo = element("circle", {"cx": x, "cy": y, "r": 0.13 * c, "fill": "#ffffff"})
    return halo + element("circle", {"cx": x, "cy": y, "r": 0.1 * c, **ring})


def board_svg(
    layout: Layout,
    tiles: Mapping[Cell, CastleTile],
    pieces: Sequence[Piece] = (),
    highlight: Collection[Cell] = (),
    targets: Collection[Cell] = (),
    spots: Sequence[tuple[Cell, str, Point]] = (),
    keeps: Sequence[tuple[Cell, str]] = (),
    cell_px: float = 40,
    only: Collection[Cell] | None = None,
    track: Track | None = None,
) -> str:
    """The castle as an SVG document. ``highlight``: what a score counted (the rest is faded);
    ``targets``: empty spaces drawn for a finger to choose; ``spots``: rings where a follower may
    go (cell, the record's feature name, where on the tile); ``keeps``: a keep flag on a cell in
    a colour; ``only``: draw just these cells (a close-up of one tile and its neighbours);
    ``track``: the score track drawn round the castle, on its wall."""
    c = cell_px
    cells = sorted(layout.interior if only is None else set(only), key=lambda p: (p[1], p[0]))
    xs, ys = [x for x, _ in cells] or [0], [y for _, y in cells] or [0]
    m = 0.45 * c
    box = (
        min(xs) * c - m,
        min(ys) * c - m,
        (max(xs) - min(xs) + 1) * c + 2 * m,
        (max(ys) - min(ys) + 1) * c + 2 * m,
    )
    view = list(box)
    if track is not None:
        out = 1.1 * c  # room for the ring and its numbers
        view = [box[0] - out, box[1] - out, box[2] + 2 * out, box[3] + 2 * out]
    body = []
    shown = set(cells)
    for cell in cells:
        if cell in layout.interior and cell not in tiles:
            rect: Attrs = {"x": cell[0] * c, "y": cell[1] * c, "width": c, "height": c, "fill": EMPTY}
            body.append(element("rect", rect | {"stroke": "#d8cfbd", "stroke-width": 0.02 * c}))
    for index, start in enumerate(layout.starts):
        if start.cell in shown:
            body.append(start_svg(layout, index, c, bool(highlight) and start.cell not in highlight))
    for cell in cells:
        if cell in tiles:
            body.append(tile_svg_body(cell, tiles[cell], c, bool(highlight) and cell not in highlight))
    body.append(_walls(layout, shown, c))
    for cell in targets:
        if cell not in tiles and cell in shown:
            rect = {"x": cell[0] * c + 2, "y": cell[1] * c + 2, "width": c - 4, "height": c - 4}
            rect |= {"fill": TARGET_FILL, "stroke": TARGET_EDGE, "stroke-width": 2, "stroke-dasharray": "5 3"}
            body.append(
                element("g", {"class": "target", "data-cell": f"{cell[0]},{cell[1]}"}, element("rect", rect))
            )
    seen: dict[tuple[Cell, int], int] = {}
    for piece in pieces:
        tile = tiles.get(piece.cell)
        if tile is not None and piece.cell in shown:
            nth = seen.get((piece.cell, piece.feature), 0)
            seen[(piece.cell, piece.feature)] = nth + 1
            body.append(_follower(tile, piece.cell, piece, nth, c))
    for cell, colour in keeps:
        if cell in shown:
            x, y = cell[0] * c + 0.78 * c, cell[1] * c + 0.08 * c
            pole = f"M{num(x)},{num(y + 0.34 * c)} V{num(y)}"
            flag = f"{pole} l{num(0.2 * c)},{num(0.07 * c)} l{num(-0.2 * c)},{num(0.07 * c)}"
            body.append(
                element(
                    "path",
                    {
                        "d": flag,
                        "fill": colour,
                        "stroke": "#111111",
                        "stroke-width": 0.03 * c,
                        "class": "keep",
                    },
                )
            )
    for cell, name, (sx, sy) in spots:
        ring: Attrs = {"cx": (cell[0] + sx) * c, "cy": (cell[1] + sy) * c, "r": 0.12 * c, "fill": "#ffffff"}
        ring |= {"fill-opacity": "0.85", "stroke": SPOT_EDGE, "stroke-width": 0.05 * c}
        attrs: Attrs = {"class": "spot", "data-at": f"{cell[0]},{cell[1]}", "data-feature": name}
        body.append(element("g", attrs, element("circle", ring)))
    if track is not None:
        body.append(track_svg_body(track, box, c))
    root: Attrs = {"xmlns": "http://www.w3.org/2000/svg", "viewBox": " ".join(num(v) for v in view)}
    root |= {"width": "100%", "font-family": "sans-serif", "role": "img"}
    return element("svg", root, "".join(body)) + "\n"


def _walls(layout: Layout, shown: set[Cell], c: float) -> str:
    """The castle wall: every interior edge with no interior space across it."""
    lines = []
    for x, y in sorted(shown & layout.interior):
        for side, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
            if (x + dx, y + dy) in layout.interior:
                continue
            (ax, ay), (bx, by) = SIDE_CORNERS[side]
            lines.append(f"M{num((x + ax) * c)},{num((y + ay) * c)} L{num((x + bx) * c)},{num((y + by) * c)}")
    if not lines:
        return ""
    return element(
        "path",
        {
            "d": " ".join(lines),
            "stroke": WALL,
            "stroke-width": 0.12 * c,
            "fill": "none",
            "stroke-linecap": "square",
            "class": "wall",
        },
    )
