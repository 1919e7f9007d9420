"""Star Wars tile and meeple art, drawn from a tile's structure in a style chosen by a seed.

Each style seed gives a different look (space colour, star field, route and asteroid colours,
widths, planet palette, symbol colours), so that a model trained on some styles can be tested
on styles it never saw. Shapes are plain OpenCV drawing on a supersampled canvas.
"""

from __future__ import annotations

import colorsys
import json
import math
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.starwars.spots import SPOT_XY
from companion.games.starwars.tiles import ASTEROID, PLANET, ROUTE, Feature, Tile

BGR = tuple[int, int, int]
SUPERSAMPLE = 2

# Unit-tile frame: (0, 0) top-left, (1, 1) bottom-right; side midpoints and inward normals.
SIDE_MID = ((0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 0.5))
SIDE_IN = ((0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (1.0, 0.0))
SIDE_ALONG = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))

PLAYER_BGR: dict[str, BGR] = {
    "red": (40, 40, 205),
    "green": (50, 160, 40),
    "black": (28, 28, 30),
    "white": (235, 235, 232),
    "orange": (20, 135, 245),
}


def hsv(h: float, s: float, v: float) -> BGR:
    """A BGR colour from hue (any, taken modulo 1), saturation and value (clipped to 0-1)."""
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0.0), 1.0), min(max(v, 0.0), 1.0))
    return (round(b * 255), round(g * 255), round(r * 255))


@dataclass(frozen=True)
class TileStyle:
    """One art style: every number the drawing varies, chosen from a seed."""

    seed: int
    space: BGR
    space_glow: BGR
    stars: int
    route: BGR
    route_edge: BGR
    route_width: float
    route_dashes: bool
    asteroid: BGR
    asteroid_edge: BGR
    cap_depth: float
    rocks: int
    planet_hues: tuple[float, ...]
    planet_radius: float
    planet_ring: bool
    symbol: dict[str, BGR]
    symbol_radius: float
    bevel: float

    @classmethod
    def from_seed(cls, seed: int) -> TileStyle:
        rng = random.Random(f"tile-style-{seed}")
        space_hue = rng.uniform(0.55, 0.8)
        route_hue = rng.choice([rng.uniform(0.1, 0.18), rng.uniform(0.45, 0.55), rng.uniform(0.0, 1.0)])
        rock_hue = rng.uniform(0.05, 0.12)
        return cls(
            seed=seed,
            space=hsv(space_hue, rng.uniform(0.3, 0.8), rng.uniform(0.08, 0.22)),
            space_glow=hsv(rng.uniform(0.5, 0.95), rng.uniform(0.3, 0.7), rng.uniform(0.18, 0.35)),
            stars=rng.randint(10, 45),
            route=hsv(route_hue, rng.uniform(0.2, 0.6), rng.uniform(0.8, 1.0)),
            route_edge=hsv(route_hue, rng.uniform(0.4, 0.9), rng.uniform(0.4, 0.6)),
            route_width=rng.uniform(0.08, 0.12),
            route_dashes=rng.random() < 0.5,
            asteroid=hsv(rock_hue, rng.uniform(0.15, 0.45), rng.uniform(0.45, 0.65)),
            asteroid_edge=hsv(rock_hue, rng.uniform(0.3, 0.6), rng.uniform(0.2, 0.35)),
            cap_depth=rng.uniform(0.22, 0.28),
            rocks=rng.randint(6, 16),
            planet_hues=tuple(rng.uniform(0, 1) for _ in range(4)),
            planet_radius=rng.uniform(0.19, 0.23),
            planet_ring=rng.random() < 0.4,
            symbol={
                "rebels": hsv(rng.uniform(-0.03, 0.03), rng.uniform(0.7, 0.95), rng.uniform(0.75, 0.95)),
                "empire": hsv(rng.uniform(0.55, 0.65), rng.uniform(0.0, 0.15), rng.uniform(0.85, 1.0)),
                "bounty": hsv(rng.uniform(0.1, 0.15), rng.uniform(0.8, 1.0), rng.uniform(0.85, 1.0)),
            },
            symbol_radius=rng.uniform(0.1, 0.12),
            bevel=rng.uniform(0.05, 0.25),
        )


def unit_point(x: float, y: float, size: int) -> tuple[int, int]:
    """A point of the unit tile on a canvas ``size`` pixels square."""
    return (round(x * size), round(y * size))


def _cap(side: int, depth: float, inset: float, steps: int = 12) -> list[tuple[float, float]]:
    """An asteroid field's lens along one side: straight on the edge, curved inward."""
    mx, my = SIDE_MID[side]
    ix, iy = SIDE_IN[side]
    ax, ay = SIDE_ALONG[side]
    points = []
    for k in range(steps + 1):
        t = -0.5 + inset + (1 - 2 * inset) * k / steps
        bulge = depth * math.cos(math.pi * t / (1 - 2 * inset + 1e-9))
        points.append((mx + ax * t + ix * bulge, my + ay * t + iy * bulge))
    return [
        (mx + ax * (-0.5 + inset), my + ay * (-0.5 + inset)),
        *points,
        (mx + ax * (0.5 - inset), my + ay * (0.5 - inset)),
    ]


def _asteroid_mask(feature: Feature, style: TileStyle, size: int) -> np.ndarray:
    mask = np.zeros((size, size), np.uint8)
    joined = len(feature.sides) > 1
    for side in feature.sides:
        inset = 0.0 if joined else 0.1
        poly = np.array([unit_point(x, y, size) for x, y in _cap(side, style.cap_depth, inset)], np.int32)
        cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA)
    if joined:
        cv2.circle(mask, unit_point(0.5, 0.5, size), round(0.24 * size), 255, -1, cv2.LINE_AA)
        for side in feature.sides:
            mx, my = SIDE_MID[side]
            ax, ay = SIDE_ALONG[side]
            corners = [(mx - ax * 0.2, my - ay * 0.2), (mx + ax * 0.2, my + ay * 0.2)]
            inner = [(0.5 + ax * 0.2, 0.5 + ay * 0.2), (0.5 - ax * 0.2, 0.5 - ay * 0.2)]
            poly = np.array([unit_point(x, y, size) for x, y in corners + inner], np.int32)
            cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA)
    return mask


def _route_points(feature: Feature, size: int) -> list[tuple[int, int]]:
    sides = feature.sides
    if len(sides) == 1:
        (mx, my) = SIDE_MID[sides[0]]
        return [unit_point(mx + (0.5 - mx) * t, my + (0.5 - my) * t, size) for t in np.linspace(0, 1, 12)]
    (x0, y0), (x1, y1) = SIDE_MID[sides[0]], SIDE_MID[sides[1]]
    points = []
    for t in np.linspace(0, 1, 24):
        # a quadratic Bezier through the centre's pull: straight for opposite sides, a bend otherwise
        x = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * 0.5 + t**2 * x1
        y = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * 0.5 + t**2 * y1
        points.append(unit_point(x, y, size))
    return points


def _symbol_point(tile: Tile, feature: Feature) -> tuple[float, float]:
    if feature.kind == PLANET:
        return (0.5, 0.4)
    side = feature.sides[0]
    mx, my = SIDE_MID[side]
    ix, iy = SIDE_IN[side]
    ax, ay = SIDE_ALONG[side]
    if feature.kind == ASTEROID:
        return (mx + ix * 0.12 + ax * 0.24, my + iy * 0.12 + ay * 0.24)
    if len(feature.sides) == 2:
        other = SIDE_MID[feature.sides[1]]
        x = 0.25 * mx + 0.5 * 0.5 + 0.25 * other[0]
        y = 0.25 * my + 0.5 * 0.5 + 0.25 * other[1]
        return (x, y)
    return (mx + ix * 0.36, my + iy * 0.36)


def draw_symbol(canvas: np.ndarray, faction: str, centre: tuple[int, int], radius: int, colour: BGR) -> None:
    dark = (20, 20, 20)
    cv2.circle(canvas, centre, radius + max(1, radius // 6), dark, -1, cv2.LINE_AA)
    draw_faction_mark(canvas, faction, centre, radius, colour, dark)


def draw_faction_mark(
    canvas: np.ndarray,
    faction: str,
    centre: tuple[int, int],
    radius: int,
    colour: BGR,
    cut: BGR,
    empire_hub: bool = True,
) -> None:
    """The three factions' shapes, which tell them apart in every family of art: the rebels' disc
    with a notch, the empire's wheel, the others' triangle with a hole; ``cut`` is the colour of
    the notch and the hole (the backing's)."""
    cx, cy = centre
    if faction == "rebels":
        cv2.circle(canvas, centre, radius, colour, -1, cv2.LINE_AA)
        notch = np.array(
            [(cx, cy - radius // 4), (cx - radius // 2, cy + radius), (cx + radius // 2, cy + radius)]
        )
        cv2.fillPoly(canvas, [notch.astype(np.int32)], cut, cv2.LINE_AA)
    elif faction == "empire":
        cv2.circle(canvas, centre, radius, colour, max(1, radius // 4), cv2.LINE_AA)
        for k in range(6):
            a = k * math.pi / 3
            end = (round(cx + math.cos(a) * radius), round(cy + math.sin(a) * radius))
            cv2.line(canvas, centre, end, colour, max(1, radius // 5), cv2.LINE_AA)
        if empire_hub:
            cv2.circle(canvas, centre, max(1, radius // 3), colour, -1, cv2.LINE_AA)
    else:
        tri = np.array(
            [
                (cx, cy - radius),
                (cx + radius * 0.9, cy + radius * 0.7),
                (cx - radius * 0.9, cy + radius * 0.7),
            ]
        )
        cv2.fillPoly(canvas, [tri.astype(np.int32)], colour, cv2.LINE_AA)
        cv2.circle(canvas, (cx, cy + radius // 6), max(1, radius // 4), cut, -1, cv2.LINE_AA)


def tile_key(tile: Tile) -> int:
    """A stable number for a tile's structure (Python's own hash changes between runs)."""
    return zlib.crc32(json.dumps(tile.to_json(), sort_keys=True).encode())


def as_turned_print(tile: Tile, draw_upright: Callable[[Tile], np.ndarray]) -> np.ndarray:
    """The tile as it lies, drawn as its print turned, as on a table: ``draw_upright`` draws the
    tile in the one way of lying taken as upright (the least ``tile_key``), and the picture is
    turned from there."""
    turns = {tile_key(tile.rotated(-q)): q for q in range(4)}
    upright = min(turns)
    quarter_turns = turns[upright]
    picture = draw_upright(tile.rotated(-quarter_turns))
    # np.rot90 with k=-1 turns a picture a quarter clockwise, as Tile.rotated(1) turns a tile
    return np.ascontiguousarray(np.rot90(picture, k=-quarter_turns))


def draw_tile(tile: Tile, style: TileStyle, size_px: int, variant: int = 0) -> np.ndarray:
    """The tile as it lies, ``size_px`` square, BGR. ``variant`` varies the stars and rocks of
    one physical copy, as printing and wear do."""
    size = size_px * SUPERSAMPLE
    rng = np.random.default_rng([style.seed, variant, tile_key(tile)])
    canvas = np.empty((size, size, 3), np.uint8)
    canvas[:] = style.space
    glow = np.zeros((size, size), np.float32)
    gx, gy = rng.uniform(0, size, 2)
    yy, xx = np.mgrid[0:size, 0:size]
    glow = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * (size * rng.uniform(0.25, 0.5)) ** 2))
    tint = np.array(style.space_glow, np.float32) - np.array(style.space, np.float32)
    canvas = np.clip(canvas + glow[..., None] * tint * rng.uniform(0.3, 0.9), 0, 255).astype(np.uint8)
    for _ in range(style.stars):
        x, y = rng.integers(0, size, 2)
        v = int(rng.integers(150, 255))
        cv2.circle(canvas, (int(x), int(y)), int(rng.integers(1, 3)), (v, v, v), -1, cv2.LINE_AA)

    for feature in tile.features:
        if feature.kind == ASTEROID:
            mask = _asteroid_mask(feature, style, size)
            layer = np.empty_like(canvas)
            layer[:] = style.asteroid
            for _ in range(style.rocks * 3):
                x, y = rng.integers(0, size, 2)
                shade = float(rng.uniform(0.6, 1.35))
                colour = tuple(int(min(255, c * shade)) for c in style.asteroid)
                cv2.circle(
                    layer,
                    (int(x), int(y)),
                    int(rng.integers(size // 40, size // 14)),
                    colour,
                    -1,
                    cv2.LINE_AA,
                )
            m = mask.astype(np.float32)[..., None] / 255
            canvas = (canvas * (1 - m) + layer * m).astype(np.uint8)
            contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            cv2.drawContours(canvas, contours, -1, style.asteroid_edge, max(2, size // 60), cv2.LINE_AA)

    routes = [f for f in tile.features if f.kind == ROUTE]
    width = max(3, round(style.route_width * size))
    for feature in routes:
        points = np.array(_route_points(feature, size), np.int32)
        cv2.polylines(canvas, [points], False, style.route_edge, width + max(2, width // 2), cv2.LINE_AA)
        cv2.polylines(canvas, [points], False, style.route, width, cv2.LINE_AA)
        if style.route_dashes:
            for a, b in zip(points[::4], points[2::4], strict=False):
                cv2.line(canvas, tuple(a), tuple(b), style.route_edge, max(1, width // 4), cv2.LINE_AA)
    planet = next((f for f in tile.features if f.kind == PLANET), None)
    if routes and planet is None and all(len(f.sides) == 1 for f in routes) and len(routes) > 1:
        hub = round(0.11 * size)
        c = unit_point(0.5, 0.5, size)
        cv2.rectangle(canvas, (c[0] - hub, c[1] - hub), (c[0] + hub, c[1] + hub), style.route_edge, -1)
        cv2.rectangle(
            canvas, (c[0] - hub // 2, c[1] - hub // 2), (c[0] + hub // 2, c[1] + hub // 2), style.route, -1
        )
    if planet is not None:
        hue = style.planet_hues[int(rng.integers(0, len(style.planet_hues)))]
        radius = round(style.planet_radius * size)
        centre = unit_point(0.5, 0.5, size)
        for k in range(radius, 0, -max(1, radius // 10)):
            v = 0.35 + 0.55 * (1 - k / radius) ** 0.5
            cv2.circle(
                canvas,
                (centre[0] - (radius - k) // 3, centre[1] - (radius - k) // 3),
                k,
                hsv(hue, 0.6, v),
                -1,
                cv2.LINE_AA,
            )
        if style.planet_ring:
            cv2.ellipse(
                canvas,
                centre,
                (round(radius * 1.35), round(radius * 0.4)),
                -20,
                0,
                360,
                hsv(hue + 0.1, 0.3, 0.85),
                max(2, size // 70),
                cv2.LINE_AA,
            )

    for feature in tile.features:
        for faction in feature.symbols:
            x, y = _symbol_point(tile, feature)
            draw_symbol(
                canvas,
                faction,
                unit_point(x, y, size),
                round(style.symbol_radius * size),
                style.symbol[faction],
            )

    # the cut edge catches the light on two sides and falls into shade on the others
    edge = max(2, size // 40)
    light = np.clip(np.array(style.space, np.float32) + 255 * style.bevel, 0, 255)
    canvas[:edge, :] = (canvas[:edge, :] * 0.5 + light * 0.5).astype(np.uint8)
    canvas[:, :edge] = (canvas[:, :edge] * 0.5 + light * 0.5).astype(np.uint8)
    canvas[-edge:, :] = (canvas[-edge:, :] * 0.6).astype(np.uint8)
    canvas[:, -edge:] = (canvas[:, -edge:] * 0.6).astype(np.uint8)
    small: np.ndarray = cv2.resize(canvas, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return small


def spot_point(spot: str) -> tuple[float, float]:
    """A meeple spot in unit-tile coordinates."""
    dx, dy = SPOT_XY[spot]
    return (0.5 + dx, 0.5 + dy)


def meeple_shape(height_px: float) -> np.ndarray:
    """A meeple's outline, standing, centred on its middle, head up, ``height_px`` tall."""
    outline = [
        (0.0, -0.5),
        (0.12, -0.47),
        (0.16, -0.36),
        (0.13, -0.26),
        (0.42, -0.16),
        (0.45, -0.06),
        (0.2, -0.02),
        (0.3, 0.48),
        (0.08, 0.48),
        (0.0, 0.3),
        (-0.08, 0.48),
        (-0.3, 0.48),
        (-0.2, -0.02),
        (-0.45, -0.06),
        (-0.42, -0.16),
        (-0.13, -0.26),
        (-0.16, -0.36),
        (-0.12, -0.47),
    ]
    return np.array(outline, np.float32) * height_px


def draw_meeple(
    canvas: np.ndarray,
    centre: tuple[float, float],
    colour: BGR,
    height_px: float,
    angle_deg: float,
    fallen: bool,
    rng: random.Random,
) -> None:
    """Draw a meeple onto ``canvas`` (in place): its shadow, its body with a lit rim."""
    shape = meeple_shape(height_px)
    if fallen:
        shape[:, 1] *= 0.75  # seen lying on its side it looks squat and turned
        angle_deg += rng.choice([-1, 1]) * rng.uniform(70, 110)
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    points = shape @ rot.T + np.array(centre, np.float32)
    shift = max(1.0, height_px * 0.12)
    scale = 16
    shadow = np.round((points + shift) * scale).astype(np.int32)
    body = np.round(points * scale).astype(np.int32)
    if not fallen:
        overlay = canvas.copy()
        cv2.fillPoly(overlay, [shadow], (0, 0, 0), cv2.LINE_AA, shift=4)
        cv2.addWeighted(overlay, 0.45, canvas, 0.55, 0, dst=canvas)
    rim = (
        tuple(int(min(255, c * 0.55 + 90)) for c in colour)
        if sum(colour) < 200
        else tuple(int(c * 0.6) for c in colour)
    )
    cv2.fillPoly(canvas, [body], rim, cv2.LINE_AA, shift=4)
    inner = np.round(((points - np.array(centre)) * 0.78 + np.array(centre)) * scale).astype(np.int32)
    cv2.fillPoly(canvas, [inner], colour, cv2.LINE_AA, shift=4)
