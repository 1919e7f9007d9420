"""Emblems a style makes up for the three factions (the fourth family of art,
``art_invented.py``): a glyph's shape, counts and colours, and how it is drawn.

Every length is a share of the emblem's radius, so an emblem is the same at any size up to
strokes a pixel thin.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.starwars.art.drawn import BGR

GLYPHS = ("star", "polygon", "cross", "rings", "chevrons", "blob", "bars")
BACKINGS = ("none", "disc", "square", "outline")
# the counts a glyph's points, bars or rings are drawn from (low, high + 1)
COUNTS = {
    "star": (3, 9),
    "polygon": (3, 9),
    "blob": (5, 10),
    "rings": (1, 4),
    "chevrons": (1, 4),
    "bars": (1, 4),
}
# counts far enough apart to tell three emblems of one shape apart at a camera's few pixels
TOLD_BY_COUNT = {"star": [3, 5, 8], "rings": [1, 2, 3], "chevrons": [1, 2, 3], "bars": [1, 2, 3]}


@dataclass(frozen=True)
class Glyph:
    """One faction's emblem in one style: its shape and its colours."""

    kind: str
    points: int  # a star's points, a polygon's corners, chevrons' or bars' count, a blob's bumps
    ratio: float  # a star's inner radius, a cross's arm width, a ring's or bar's thickness
    turn: float  # radians
    colour: BGR
    backing: str
    backing_colour: BGR
    blob: tuple[float, ...]  # a blob's radius at each bump

    @classmethod
    def invent(
        cls, rng: random.Random, kind: str, colour: BGR, backing: str, backing_colour: BGR, count: int | None
    ) -> Glyph:
        points = count if count is not None else rng.randint(*COUNTS[kind]) if kind in COUNTS else 1
        return cls(
            kind=kind,
            points=points,
            ratio=rng.uniform(0.25, 0.6),
            turn=rng.uniform(0, 2 * math.pi) if rng.random() < 0.5 else 0.0,
            colour=colour,
            backing=backing,
            backing_colour=backing_colour,
            blob=tuple(rng.uniform(0.45, 1.0) for _ in range(max(points, 5))),
        )


def stroke(width: float, least: int = 1) -> int:
    """A stroke's width in pixels, rounded rather than floored, so that it keeps its share of the
    tile at any size."""
    return max(least, round(width))


def polygon(centre: tuple[float, float], radii: list[float], turn: float) -> np.ndarray:
    cx, cy = centre
    n = len(radii)
    return np.array(
        [
            (cx + r * math.cos(turn + 2 * math.pi * k / n), cy + r * math.sin(turn + 2 * math.pi * k / n))
            for k, r in enumerate(radii)
        ],
        np.int32,
    )


def draw_glyph(canvas: np.ndarray, glyph: Glyph, centre: tuple[float, float], radius: float) -> None:
    """A faction's emblem, ``radius`` pixels, on its backing."""
    cx, cy = centre
    c = (round(cx), round(cy))
    thick = stroke(radius * glyph.ratio * 0.6)
    outer = round(radius * 1.2)
    if glyph.backing == "disc":
        cv2.circle(canvas, c, outer, glyph.backing_colour, -1, cv2.LINE_AA)
    elif glyph.backing == "square":
        cv2.rectangle(
            canvas, (c[0] - outer, c[1] - outer), (c[0] + outer, c[1] + outer), glyph.backing_colour, -1
        )
    elif glyph.backing == "outline":
        cv2.circle(canvas, c, outer, glyph.colour, stroke(thick / 2), cv2.LINE_AA)
    colour = glyph.colour
    if glyph.kind == "star":
        radii = [radius if k % 2 == 0 else radius * glyph.ratio for k in range(2 * glyph.points)]
        cv2.fillPoly(canvas, [polygon(centre, radii, glyph.turn)], colour, cv2.LINE_AA)
    elif glyph.kind == "polygon":
        cv2.fillPoly(canvas, [polygon(centre, [radius] * glyph.points, glyph.turn)], colour, cv2.LINE_AA)
    elif glyph.kind == "blob":
        radii = [radius * r for r in glyph.blob]
        cv2.fillPoly(canvas, [polygon(centre, radii, glyph.turn)], colour, cv2.LINE_AA)
    elif glyph.kind == "cross":
        arm = radius * glyph.ratio / 2
        for a in (glyph.turn, glyph.turn + math.pi / 2):
            dx, dy, px, py = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
            bar = [
                (cx + dx * radius + px * arm, cy + dy * radius + py * arm),
                (cx + dx * radius - px * arm, cy + dy * radius - py * arm),
                (cx - dx * radius - px * arm, cy - dy * radius - py * arm),
                (cx - dx * radius + px * arm, cy - dy * radius + py * arm),
            ]
            cv2.fillPoly(canvas, [np.array(bar, np.int32)], colour, cv2.LINE_AA)
    elif glyph.kind == "rings":
        for k in range(glyph.points):
            r = round(radius * (1 - k / (glyph.points + 0.5)))
            cv2.circle(canvas, c, r, colour, thick, cv2.LINE_AA)
        cv2.circle(canvas, c, max(1, round(radius * 0.2)), colour, -1, cv2.LINE_AA)
    elif glyph.kind == "chevrons":
        a = glyph.turn
        for k in range(glyph.points):
            off = (k - (glyph.points - 1) / 2) * radius * 0.7
            tip = (cx + math.cos(a) * (radius * 0.6 + off), cy + math.sin(a) * (radius * 0.6 + off))
            arms = [
                (tip[0] - math.cos(a + s) * radius, tip[1] - math.sin(a + s) * radius) for s in (0.8, -0.8)
            ]
            line = np.array([arms[0], tip, arms[1]], np.int32)
            cv2.polylines(canvas, [line], False, colour, thick + 1, cv2.LINE_AA)
    else:  # bars
        for k in range(glyph.points + 1):
            off = (k - glyph.points / 2) * radius * 0.8 / max(1, glyph.points)
            dx, dy = math.cos(glyph.turn), math.sin(glyph.turn)
            start = (round(cx - dx * radius - dy * off), round(cy - dy * radius + dx * off))
            end = (round(cx + dx * radius - dy * off), round(cy + dy * radius + dx * off))
            cv2.line(canvas, start, end, colour, thick, cv2.LINE_AA)
