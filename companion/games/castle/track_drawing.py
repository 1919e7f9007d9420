"""The wall's score track drawn round the castle: 100 spaces clockwise from the top left corner,
the corner towers (darker where a face-down wall tile is still there), every tenth space
numbered, and each marker with its laps past 100."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from companion.games.castle.layout import TRACK
from companion.games.castle.svg import Attrs, element
from companion.games.castle.tile_drawing import WALL


@dataclass(frozen=True)
class Track:
    """The wall's score track to draw round the castle: its corner towers, those still holding a
    face-down wall tile, and each marker (name, score, colour)."""

    corners: Sequence[tuple[int, int]]
    corners_left: Collection[int]
    markers: Sequence[tuple[str, int, str]]


def ring_position(space: int, box: tuple[float, float, float, float]) -> tuple[float, float, int]:
    """Where track space ``space`` lies on the ring ``box`` (x, y, width, height), clockwise from
    its top left corner (space 0): the point and the side (0 top, 1 right, 2 bottom, 3 left)."""
    x, y, w, h = box
    along = (space % TRACK) * 2 * (w + h) / TRACK
    if along < w:
        return (x + along, y, 0)
    along -= w
    if along < h:
        return (x + w, y + along, 1)
    along -= h
    if along < w:
        return (x + w - along, y + h, 2)
    return (x, y + h - (along - w), 3)


def track_svg_body(track: Track, box: tuple[float, float, float, float], c: float) -> str:
    body = []
    x, y, w, h = box
    step = 2 * (w + h) / TRACK
    band = 0.42 * c
    corner_of = {space: index for index, pair in enumerate(track.corners) for space in pair}
    outline: Attrs = {"x": x, "y": y, "width": w, "height": h, "fill": "none", "stroke": WALL}
    body.append(element("rect", outline | {"stroke-width": band + 0.08 * c, "stroke-opacity": "0.25"}))
    for space in range(TRACK):
        px, py, side = ring_position(space, box)
        index = corner_of.get(space)
        if index is not None:
            fill = "#b39566" if index in track.corners_left else "#ddd0b6"
            length = min(step, (w if side in (0, 2) else h))
            if side in (0, 2):
                rect: Attrs = {
                    "x": px - (length if side == 2 else 0),
                    "y": py - band / 2,
                    "width": length,
                    "height": band,
                }
            else:
                rect = {
                    "x": px - band / 2,
                    "y": py - (length if side == 3 else 0),
                    "width": band,
                    "height": length,
                }
            body.append(element("rect", rect | {"fill": fill, "data-space": str(space)}))
        tick: Attrs = {"cx": px, "cy": py, "r": 0.05 * c, "fill": "#ffffff" if space % 10 else "#5b4c36"}
        body.append(element("circle", tick))
        if space % 10 == 0:
            out = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}[side]
            font: Attrs = {"font-size": 0.32 * c, "text-anchor": "middle", "fill": "#5b4c36"}
            tx, ty = px + out[0] * 0.55 * c, py + out[1] * 0.55 * c
            body.append(element("text", {"x": tx, "y": ty, "dy": "0.35em", **font}, str(space)))
    for number, (name, score, colour) in enumerate(track.markers):
        px, py, side = ring_position(score % TRACK, box)
        shift = (number - 0.5) * 0.3 * c
        cx, cy = (px + shift, py) if side in (1, 3) else (px, py + shift)
        title = element("title", {}, escape(f"{name}: {score}"))
        marker: Attrs = {"cx": cx, "cy": cy, "r": 0.2 * c, "fill": colour, "stroke": "#111111"}
        body.append(element("circle", marker | {"stroke-width": 0.05 * c, "class": "marker"}, title))
        laps = score // TRACK
        if laps:
            font = {"font-size": 0.3 * c, "font-weight": "bold", "text-anchor": "middle", "fill": "#111111"}
            body.append(element("text", {"x": cx, "y": cy - 0.3 * c, **font}, f"+{laps * TRACK}"))
    return element("g", {"class": "track"}, "".join(body))
