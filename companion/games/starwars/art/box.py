"""A second family of tile art, never used in training: a stand-in for a real box (issue 5).

The first family (``art.py``) paints dark space with solid route bands, filled asteroid lenses
and shaded planets. This one is drawn differently in every part, as another printing of the
game would be: a mottled nebula that may be light or dark, routes as thin twin lanes with
beacons, asteroid fields as loose scattered rocks with no outline, planets as flat banded
discs, and faction symbols as square badges. The structure (which sides, which features,
which symbols) and where meeples stand are the same, so the rules and the spots still apply.

Styles in this family are numbered from ``BOX_STYLES.start``; ``is_box_style`` tells them apart.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.starwars.art.drawn import (
    BGR,
    SIDE_ALONG,
    SIDE_IN,
    SIDE_MID,
    SUPERSAMPLE,
    as_turned_print,
    tile_key,
    unit_point,
)
from companion.games.starwars.tiles import ASTEROID, PLANET, ROUTE, Tile

BOX_STYLES = range(1_000_000, 1_000_100)  # no data script draws from these


def is_box_style(style: int) -> bool:
    return style in BOX_STYLES


def _colour(rng: random.Random, lo: float, hi: float) -> BGR:
    return (round(rng.uniform(lo, hi)), round(rng.uniform(lo, hi)), round(rng.uniform(lo, hi)))


@dataclass(frozen=True)
class BoxStyle:
    """The numbers one printing of the second family varies, from a seed."""

    seed: int
    ground: BGR
    mottle: BGR
    lane: BGR
    lane_gap: float
    beacon: BGR
    rock: BGR
    rock_count: int
    planet_bands: tuple[BGR, BGR]
    planet_radius: float
    badge: BGR
    badge_mark: dict[str, BGR]
    stars: int  # specks of light (or dark, on a pale print) on each copy

    @classmethod
    def from_seed(cls, seed: int) -> BoxStyle:
        rng = random.Random(f"box-style-{seed}")
        light = rng.random() < 0.4  # some boxes print space pale, as a chart
        ground = _colour(rng, 170, 225) if light else _colour(rng, 25, 70)
        mottle = _colour(rng, 120, 170) if light else _colour(rng, 60, 110)
        lane = _colour(rng, 20, 60) if light else _colour(rng, 190, 250)
        return cls(
            seed=seed,
            ground=ground,
            mottle=mottle,
            lane=lane,
            lane_gap=rng.uniform(0.05, 0.08),
            beacon=_colour(rng, 0, 255),
            rock=_colour(rng, 60, 130) if light else _colour(rng, 110, 170),
            rock_count=rng.randint(14, 26),
            planet_bands=(_colour(rng, 40, 230), _colour(rng, 40, 230)),
            planet_radius=rng.uniform(0.25, 0.3),
            badge=_colour(rng, 10, 60),
            badge_mark={
                "rebels": (40, 60, rng.randint(200, 250)),
                "empire": (rng.randint(200, 250), rng.randint(200, 250), rng.randint(200, 250)),
                "bounty": (30, rng.randint(170, 220), rng.randint(220, 250)),
            },
            stars=rng.randint(8, 24),
        )


# The fine mottle is drawn on a grid of its own, not at the picture's size: a print is the same
# whatever size it is drawn at (a tile on the table, its enrolled picture), and so are the
# rocks drawn after it from the same random numbers.
FINE_GRID = 64


def _nebula(style: BoxStyle, rng: np.random.Generator, size: int) -> np.ndarray:
    """The ground, mottled by smoothed noise at two scales."""
    coarse = cv2.resize(rng.random((6, 6)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
    grain = cv2.GaussianBlur(rng.random((FINE_GRID, FINE_GRID)).astype(np.float32), (0, 0), FINE_GRID / 40)
    fine = cv2.resize(grain, (size, size), interpolation=cv2.INTER_CUBIC)
    weight = np.clip(0.7 * coarse + 2.0 * (fine - fine.mean()), 0, 1)[..., None]
    ground = np.array(style.ground, np.float32)
    mottle = np.array(style.mottle, np.float32)
    ground_picture: np.ndarray = np.clip(ground * (1 - weight) + mottle * weight, 0, 255).astype(np.uint8)
    return ground_picture


def _stars(canvas: np.ndarray, style: BoxStyle, rng: np.random.Generator) -> None:
    """A few specks in the lanes' colour, a little faded, each copy its own."""
    size = canvas.shape[0]
    ground = np.array(style.ground, np.float32)
    speck = tuple(float(c) for c in 0.3 * ground + 0.7 * np.array(style.lane, np.float32))
    for _ in range(style.stars):
        centre = unit_point(rng.uniform(0.03, 0.97), rng.uniform(0.03, 0.97), size)
        cv2.circle(canvas, centre, max(1, round(size * rng.uniform(0.004, 0.01))), speck, -1, cv2.LINE_AA)


def _rocks(canvas: np.ndarray, sides: tuple[int, ...], style: BoxStyle, rng: np.random.Generator) -> None:
    """Loose rocks in a band along each side of the field, denser towards the edge."""
    size = canvas.shape[0]
    for side in sides:
        mx, my = SIDE_MID[side]
        ix, iy = SIDE_IN[side]
        ax, ay = SIDE_ALONG[side]
        for _ in range(style.rock_count):
            t = rng.uniform(-0.42, 0.42)
            depth = 0.26 * rng.random() ** 1.5
            _rock(canvas, (mx + ax * t + ix * depth, my + ay * t + iy * depth), style, rng, size)


def _rocks_joining(
    canvas: np.ndarray, sides: tuple[int, ...], style: BoxStyle, rng: np.random.Generator
) -> None:
    """A field that reaches several sides is one field: a drift of rocks runs from each of its
    sides through the middle, so it does not look like separate fields along the same sides
    (players score a field by what it joins, so a print shows it)."""
    size = canvas.shape[0]
    for side in sides:
        mx, my = SIDE_MID[side]
        ax, ay = SIDE_ALONG[side]
        for _ in range(max(4, style.rock_count * 2 // 3)):
            t = rng.uniform(0.15, 1.1)  # from near the side to just past the middle
            wobble = rng.uniform(-0.12, 0.12)
            cx, cy = mx + (0.5 - mx) * t + ax * wobble, my + (0.5 - my) * t + ay * wobble
            _rock(canvas, (cx, cy), style, rng, size)


def _rock(
    canvas: np.ndarray, centre: tuple[float, float], style: BoxStyle, rng: np.random.Generator, size: int
) -> None:
    cx, cy = centre
    radius = rng.uniform(0.025, 0.05)
    corners = rng.integers(5, 8)
    angles = np.sort(rng.uniform(0, 2 * math.pi, corners))
    poly = [
        unit_point(
            cx + math.cos(a) * radius * rng.uniform(0.6, 1.0),
            cy + math.sin(a) * radius * rng.uniform(0.6, 1.0),
            size,
        )
        for a in angles
    ]
    shade = rng.uniform(0.7, 1.3)
    colour = tuple(int(min(255, c * shade)) for c in style.rock)
    cv2.fillPoly(canvas, [np.array(poly, np.int32)], colour, cv2.LINE_AA)


def _lane(canvas: np.ndarray, start: tuple[float, float], style: BoxStyle) -> None:
    """Twin thin lanes from a side's midpoint to the centre, with a beacon between them."""
    size = canvas.shape[0]
    sx, sy = start
    dx, dy = 0.5 - sx, 0.5 - sy
    length = math.hypot(dx, dy)
    nx, ny = -dy / length, dx / length
    thickness = max(2, size // 70)
    for sign in (-1, 1):
        ox, oy = nx * style.lane_gap * sign, ny * style.lane_gap * sign
        cv2.line(
            canvas,
            unit_point(sx + ox, sy + oy, size),
            unit_point(0.5 + ox, 0.5 + oy, size),
            style.lane,
            thickness,
            cv2.LINE_AA,
        )
    for t in (0.3, 0.7):
        cv2.circle(
            canvas,
            unit_point(sx + dx * t, sy + dy * t, size),
            max(2, size // 45),
            style.beacon,
            -1,
            cv2.LINE_AA,
        )


def _badge(canvas: np.ndarray, faction: str, centre: tuple[float, float], style: BoxStyle) -> None:
    size = canvas.shape[0]
    half = 0.07
    x, y = centre
    cv2.rectangle(
        canvas,
        unit_point(x - half, y - half, size),
        unit_point(x + half, y + half, size),
        style.badge,
        -1,
        cv2.LINE_AA,
    )
    mark = style.badge_mark[faction]
    if faction == "rebels":  # a flame: a tall diamond
        poly = [(x, y - half * 0.8), (x + half * 0.45, y), (x, y + half * 0.8), (x - half * 0.45, y)]
        cv2.fillPoly(
            canvas, [np.array([unit_point(px, py, size) for px, py in poly], np.int32)], mark, cv2.LINE_AA
        )
    elif faction == "empire":  # a cross of bars
        w = half * 0.2
        cv2.rectangle(
            canvas,
            unit_point(x - half * 0.75, y - w, size),
            unit_point(x + half * 0.75, y + w, size),
            mark,
            -1,
        )
        cv2.rectangle(
            canvas,
            unit_point(x - w, y - half * 0.75, size),
            unit_point(x + w, y + half * 0.75, size),
            mark,
            -1,
        )
    else:  # bounty hunters: a ring
        cv2.circle(
            canvas, unit_point(x, y, size), round(half * 0.6 * size), mark, max(2, size // 60), cv2.LINE_AA
        )


def _symbol_place(feature_kind: str, sides: tuple[int, ...]) -> tuple[float, float]:
    if feature_kind == PLANET:
        return (0.5, 0.5)
    mx, my = SIDE_MID[sides[0]]
    ix, iy = SIDE_IN[sides[0]]
    ax, ay = SIDE_ALONG[sides[0]]
    if feature_kind == ASTEROID:
        return (mx + ix * 0.1 - ax * 0.28, my + iy * 0.1 - ay * 0.28)
    return (mx + ix * 0.2 + ax * 0.14, my + iy * 0.2 + ay * 0.14)


def draw_box_tile(tile: Tile, style: BoxStyle, size_px: int, variant: int = 0) -> np.ndarray:
    """The tile as it lies, ``size_px`` square, BGR, in the second family of art. A tile turned
    is its print turned, as on a table: each copy is drawn once, upright, and turned to lie."""
    return as_turned_print(tile, lambda upright: _draw_upright(upright, style, size_px, variant))


def _draw_upright(tile: Tile, style: BoxStyle, size_px: int, variant: int) -> np.ndarray:
    size = size_px * SUPERSAMPLE
    # The copies of one tile type share their print's ground, as in the other families; each
    # copy has its own stars and loose rocks (the rocks stay in their field's band).
    rng = np.random.default_rng([style.seed, variant, tile_key(tile)])
    canvas = _nebula(style, np.random.default_rng([style.seed, tile_key(tile)]), size)
    _stars(canvas, style, rng)
    for feature in tile.features:
        if feature.kind == ASTEROID:
            _rocks(canvas, feature.sides, style, rng)
            if len(feature.sides) > 1:
                _rocks_joining(canvas, feature.sides, style, rng)
    for feature in tile.features:
        if feature.kind == ROUTE:
            for side in feature.sides:
                _lane(canvas, SIDE_MID[side], style)
    planet = next((f for f in tile.features if f.kind == PLANET), None)
    if planet is not None:
        radius = round(style.planet_radius * size)
        centre = unit_point(0.5, 0.5, size)
        cv2.circle(canvas, centre, radius, style.planet_bands[0], -1, cv2.LINE_AA)
        disc = np.zeros((size, size), np.uint8)
        cv2.circle(disc, centre, radius, 255, -1, cv2.LINE_AA)
        yy = np.arange(size)[:, None].repeat(size, 1)
        bands = ((yy - centre[1] + radius) // max(1, radius // 3)) % 2 == 1
        canvas[(disc > 0) & bands] = style.planet_bands[1]
        cv2.circle(canvas, centre, radius, style.lane, max(2, size // 80), cv2.LINE_AA)
    for feature in tile.features:
        for faction in feature.symbols:
            _badge(canvas, faction, _symbol_place(feature.kind, feature.sides), style)
    small: np.ndarray = cv2.resize(canvas, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return small
