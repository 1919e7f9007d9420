"""A third family of tile art, for training only: each part of a tile drawn one of several ways.

The first family (``art.py``) varies colours and sizes but always draws a part the same way, so a
model trained on it learns that a route is a pale band with a dark edge. Here every style picks,
for each part, a way of drawing it (a route as a solid band, an outline, a dashed or dotted line,
a textured band; an asteroid field filled, hatched, speckled, as loose rocks or as an outline; a
planet shaded, flat, as a ring, lit from one side or mottled; a ground flat, graded, clouded or
textured, light or dark) and its colours from the whole colour wheel. What the parts are and where
they lie (sides, features, symbols, the hub where routes end, meeple spots) are placed exactly
as the first family places them, so the labels stay the same. The point is to teach structure,
not a look; the second family (``art_box.py``) stays the unseen test.

Styles in this family are numbered from ``WIDE_STYLES.start``; ``is_wide_style`` tells them apart.
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
    _symbol_point,
    draw_faction_mark,
    hsv,
    tile_key,
    unit_point,
)
from companion.games.starwars.tiles import ASTEROID, PLANET, ROUTE, Feature, Tile

WIDE_STYLES = range(
    3_000_000, 3_200_000
)  # training and its own held-out part: see models/training/cell_data.py

GROUNDS = ("flat", "gradient", "clouds", "grain", "stripes")
ROUTES = ("band", "outlined", "dashed", "dotted", "textured", "line")
FIELDS = ("filled", "hatched", "speckled", "rocks", "outline", "crosshatched")
PLANETS = ("shaded", "flat", "ring", "crescent", "mottled")
HUBS = ("square", "circle", "ring", "diamond")
BACKINGS = ("none", "disc", "ring", "hexagon")
BORDERS = ("none", "bevel", "line", "dark")


def is_wide_style(style: int) -> bool:
    return style in WIDE_STYLES


def _value(colour: BGR) -> float:
    return max(colour) / 255


def _contrasting(rng: random.Random, ground_v: float, least: float) -> BGR:
    """A colour of any hue whose brightness is at least ``least`` away from the ground's: printed
    art keeps its parts readable against their ground, whatever its palette."""
    lo, hi = (ground_v + least, 1.0) if ground_v < 0.5 else (0.0, ground_v - least)
    v = rng.uniform(min(lo, hi), max(lo, hi))
    return hsv(rng.random(), rng.uniform(0.0, 1.0), v)


@dataclass(frozen=True)
class WideStyle:
    """One style of the third family: the way each part is drawn, its colours and sizes."""

    seed: int
    ground: str
    ground_a: BGR
    ground_b: BGR
    specks: int
    speck: BGR
    route: str
    route_fill: BGR
    route_line: BGR
    route_width: float
    route_pull: float  # how close a bending route passes to the centre (1: through it)
    hub: str
    field: str
    field_fill: BGR
    field_line: BGR
    field_edge: bool
    cap_depth: float
    lens_inset: float
    core_radius: float
    planet: str
    planet_colours: tuple[BGR, ...]
    planet_radius: float
    planet_ring: bool
    symbol: dict[str, BGR]
    symbol_radius: float
    backing: str
    backing_colour: BGR
    border: str
    blur: float

    @classmethod
    def from_seed(cls, seed: int) -> WideStyle:
        rng = random.Random(f"wide-style-{seed}")
        dark = rng.random() < 0.55
        ground_v = rng.uniform(0.05, 0.35) if dark else rng.uniform(0.6, 0.95)
        ground_h, ground_s = rng.random(), rng.uniform(0.0, 0.8)
        ground_a = hsv(ground_h, ground_s, ground_v)
        ground_b = hsv(ground_h + rng.uniform(-0.2, 0.2), ground_s, ground_v + rng.uniform(-0.15, 0.15))
        route_fill = _contrasting(rng, ground_v, 0.3)
        field_fill = _contrasting(rng, ground_v, 0.15)
        # factions keep their usual colours in most boxes, not in all
        if rng.random() < 0.7:
            symbol = {
                "rebels": hsv(rng.uniform(-0.04, 0.04), rng.uniform(0.6, 1.0), rng.uniform(0.6, 1.0)),
                "empire": hsv(rng.random(), rng.uniform(0.0, 0.2), rng.uniform(0.75, 1.0)),
                "bounty": hsv(rng.uniform(0.08, 0.17), rng.uniform(0.7, 1.0), rng.uniform(0.75, 1.0)),
            }
        else:
            hue = rng.random()
            symbol = {
                name: hsv(
                    hue + k / 3 + rng.uniform(-0.05, 0.05), rng.uniform(0.4, 1.0), rng.uniform(0.6, 1.0)
                )
                for k, name in enumerate(("rebels", "empire", "bounty"))
            }
        return cls(
            seed=seed,
            ground=rng.choice(GROUNDS),
            ground_a=ground_a,
            ground_b=ground_b,
            specks=rng.choice((0, rng.randint(5, 30), rng.randint(30, 80))),
            speck=_contrasting(rng, ground_v, 0.3),
            route=rng.choice(ROUTES),
            route_fill=route_fill,
            route_line=rng.choice((_contrasting(rng, ground_v, 0.2), hsv(0, 0, 1 - _value(route_fill)))),
            route_width=rng.uniform(0.05, 0.16),
            route_pull=rng.uniform(0.55, 1.0),
            hub=rng.choice(HUBS),
            field=rng.choice(FIELDS),
            field_fill=field_fill,
            field_line=_contrasting(rng, ground_v, 0.2),
            field_edge=rng.random() < 0.5,
            cap_depth=rng.uniform(0.17, 0.32),
            lens_inset=rng.uniform(0.05, 0.14),
            core_radius=rng.uniform(0.18, 0.27),
            planet=rng.choice(PLANETS),
            planet_colours=tuple(
                hsv(rng.random(), rng.uniform(0.2, 0.9), rng.uniform(0.4, 1.0)) for _ in range(4)
            ),
            planet_radius=rng.uniform(0.15, 0.29),
            planet_ring=rng.random() < 0.3,
            symbol=symbol,
            symbol_radius=rng.uniform(0.08, 0.13),
            backing=rng.choice(BACKINGS),
            backing_colour=hsv(
                rng.random(), rng.uniform(0, 0.6), rng.choice((rng.uniform(0, 0.2), rng.uniform(0.8, 1)))
            ),
            border=rng.choice(BORDERS),
            blur=rng.choice((0.0, 0.0, rng.uniform(0.5, 1.6))),
        )


def _ground(style: WideStyle, rng: np.random.Generator, size: int) -> np.ndarray:
    a = np.array(style.ground_a, np.float32)
    b = np.array(style.ground_b, np.float32)
    if style.ground == "flat":
        mix = np.zeros((size, size), np.float32)
    elif style.ground == "gradient":
        angle = rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
        mix = np.clip(0.5 + (xx - 0.5) * math.cos(angle) + (yy - 0.5) * math.sin(angle), 0, 1)
    elif style.ground == "clouds":
        coarse = rng.random((5, 5)).astype(np.float32)
        mix = cv2.resize(coarse, (size, size), interpolation=cv2.INTER_CUBIC).clip(0, 1)
    elif style.ground == "grain":
        mix = rng.random((size, size)).astype(np.float32)
        mix = cv2.GaussianBlur(mix, (0, 0), size / 80).clip(0, 1)
        mix = (mix - mix.min()) / max(1e-6, float(mix.max() - mix.min()))
    else:
        period = size / rng.uniform(4, 12)
        angle = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        mix = 0.5 + 0.5 * np.sin((xx * math.cos(angle) + yy * math.sin(angle)) * 2 * math.pi / period)
    canvas = a + mix[..., None] * (b - a)
    for _ in range(style.specks):
        x, y = rng.integers(0, size, 2)
        cv2.circle(canvas, (int(x), int(y)), int(rng.integers(1, 4)), style.speck, -1, cv2.LINE_AA)
    return np.clip(canvas, 0, 255).astype(np.uint8)


def _lens(side: int, depth: float, inset: float, steps: int = 12) -> list[tuple[float, float]]:
    """An asteroid field's outline along one side: on the edge, bulging inward to ``depth``."""
    mx, my = SIDE_MID[side]
    ix, iy = SIDE_IN[side]
    ax, ay = SIDE_ALONG[side]
    span = 1 - 2 * inset
    points = [(mx + ax * (-0.5 + inset), my + ay * (-0.5 + inset))]
    for k in range(steps + 1):
        t = -0.5 + inset + span * k / steps
        bulge = depth * math.cos(math.pi * t / span)
        points.append((mx + ax * t + ix * bulge, my + ay * t + iy * bulge))
    points.append((mx + ax * (0.5 - inset), my + ay * (0.5 - inset)))
    return points


def field_mask(feature: Feature, style: WideStyle, size: int) -> np.ndarray:
    """Where one asteroid field lies: a lens on each of its sides and, when they join, a core in
    the middle with a neck to each side, as the first family joins them."""
    mask = np.zeros((size, size), np.uint8)
    joined = len(feature.sides) > 1
    for side in feature.sides:
        poly = _lens(side, style.cap_depth, 0.0 if joined else style.lens_inset)
        cv2.fillPoly(mask, [np.array([unit_point(x, y, size) for x, y in poly], np.int32)], 255, cv2.LINE_AA)
    if joined:
        cv2.circle(mask, unit_point(0.5, 0.5, size), round(style.core_radius * size), 255, -1, cv2.LINE_AA)
        for side in feature.sides:
            mx, my = SIDE_MID[side]
            ax, ay = SIDE_ALONG[side]
            neck = [(mx - ax * 0.2, my - ay * 0.2), (mx + ax * 0.2, my + ay * 0.2)]
            neck += [(0.5 + ax * 0.2, 0.5 + ay * 0.2), (0.5 - ax * 0.2, 0.5 - ay * 0.2)]
            cv2.fillPoly(
                mask, [np.array([unit_point(x, y, size) for x, y in neck], np.int32)], 255, cv2.LINE_AA
            )
    return mask


def _field_layer(style: WideStyle, canvas: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
    """The field's look over the whole tile; the mask cuts it out."""
    layer = canvas.copy()
    fill, line = style.field_fill, style.field_line
    thin = max(1, size // 70)
    if style.field in ("filled", "rocks", "outline"):
        layer[:] = fill if style.field == "filled" else layer
        count = {"filled": 25, "rocks": 40, "outline": 0}[style.field]
        for _ in range(count):
            x, y = rng.integers(0, size, 2)
            r = int(rng.integers(size // 40, size // 12))
            shade = float(rng.uniform(0.6, 1.4))
            colour = tuple(int(min(255, c * shade)) for c in fill)
            sides = int(rng.integers(5, 9))
            angles = np.sort(rng.uniform(0, 2 * math.pi, sides))
            radii = r * rng.uniform(0.6, 1.0, sides)
            poly = np.stack([x + radii * np.cos(angles), y + radii * np.sin(angles)], 1).astype(np.int32)
            cv2.fillPoly(layer, [poly], colour, cv2.LINE_AA)
    elif style.field in ("hatched", "crosshatched"):
        layer[:] = (layer * 0.5 + np.array(fill, np.float32) * 0.5).astype(np.uint8)
        gap = max(4, round(size * rng.uniform(0.04, 0.07)))
        for direction in (1, -1) if style.field == "crosshatched" else (1,):
            for k in range(-size, 2 * size, gap):
                cv2.line(layer, (k, 0), (k + direction * size, size), line, thin, cv2.LINE_AA)
    else:  # speckled
        for _ in range(size * 2):
            x, y = rng.integers(0, size, 2)
            cv2.circle(
                layer, (int(x), int(y)), int(rng.integers(1, max(2, size // 50))), fill, -1, cv2.LINE_AA
            )
    return layer


def route_points(feature: Feature, style: WideStyle, size: int) -> np.ndarray:
    """A route's centre line: from its side to the centre, or from side to side, bending through
    a point pulled towards the centre by ``route_pull`` (straight across for opposite sides)."""
    if len(feature.sides) == 1:
        mx, my = SIDE_MID[feature.sides[0]]
        line = [(mx + (0.5 - mx) * t, my + (0.5 - my) * t) for t in np.linspace(0, 1, 12)]
    else:
        (x0, y0), (x1, y1) = SIDE_MID[feature.sides[0]], SIDE_MID[feature.sides[1]]
        mid = ((x0 + x1) / 2, (y0 + y1) / 2)
        cx = mid[0] + (0.5 - mid[0]) * style.route_pull
        cy = mid[1] + (0.5 - mid[1]) * style.route_pull
        # control point so that the curve passes through (cx, cy) at its middle
        px, py = 2 * cx - (x0 + x1) / 2, 2 * cy - (y0 + y1) / 2
        line = [
            (
                (1 - t) ** 2 * x0 + 2 * (1 - t) * t * px + t**2 * x1,
                (1 - t) ** 2 * y0 + 2 * (1 - t) * t * py + t**2 * y1,
            )
            for t in np.linspace(0, 1, 24)
        ]
    return np.array([unit_point(x, y, size) for x, y in line], np.int32)


def _draw_route(
    canvas: np.ndarray, points: np.ndarray, style: WideStyle, rng: np.random.Generator
) -> np.ndarray:
    size = canvas.shape[0]
    width = max(3, round(style.route_width * size))
    fill, line = style.route_fill, style.route_line
    kind = style.route
    if kind == "band":
        cv2.polylines(canvas, [points], False, fill, width, cv2.LINE_AA)
    elif kind == "outlined":
        cv2.polylines(canvas, [points], False, line, width + max(2, width // 2), cv2.LINE_AA)
        cv2.polylines(canvas, [points], False, fill, width, cv2.LINE_AA)
    elif kind == "dashed":
        cv2.polylines(canvas, [points], False, fill, width, cv2.LINE_AA)
        for a, b in zip(points[::3], points[1::3], strict=False):
            cv2.line(
                canvas, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), line, max(1, width // 3), cv2.LINE_AA
            )
    elif kind == "dotted":
        # a line of beads along the path, close enough to read as one route
        length = np.cumsum(np.r_[0, np.hypot(*np.diff(points, axis=0).T)])
        step = max(2.0, width * 0.9)
        for d in np.arange(0, length[-1] + 1e-6, step):
            x = float(np.interp(d, length, points[:, 0]))
            y = float(np.interp(d, length, points[:, 1]))
            cv2.circle(canvas, (round(x), round(y)), max(2, width // 2), fill, -1, cv2.LINE_AA)
    elif kind == "textured":
        mask = np.zeros(canvas.shape[:2], np.uint8)
        cv2.polylines(mask, [points], False, 255, width, cv2.LINE_AA)
        coarse = rng.uniform(0.6, 1.3, (size // 4, size // 4)).astype(np.float32)
        noise = cv2.resize(coarse, (size, size), interpolation=cv2.INTER_NEAREST)
        texture = np.clip(np.array(fill, np.float32) * noise[..., None], 0, 255)
        m = mask.astype(np.float32)[..., None] / 255
        canvas = (canvas * (1 - m) + texture * m).astype(np.uint8)
    else:  # a thin line with a shadow beside it
        thin = max(2, width // 3)
        cv2.polylines(canvas, [points + max(1, thin // 2)], False, line, thin, cv2.LINE_AA)
        cv2.polylines(canvas, [points], False, fill, thin, cv2.LINE_AA)
    return canvas


def _draw_hub(canvas: np.ndarray, style: WideStyle) -> None:
    """Where single routes end together: the first family's hub, drawn this style's way."""
    size = canvas.shape[0]
    c = unit_point(0.5, 0.5, size)
    r = round(size * (0.08 + style.route_width * 0.4))
    fill, line = style.route_fill, style.route_line
    if style.hub == "square":
        cv2.rectangle(canvas, (c[0] - r, c[1] - r), (c[0] + r, c[1] + r), line, -1)
        cv2.rectangle(canvas, (c[0] - r // 2, c[1] - r // 2), (c[0] + r // 2, c[1] + r // 2), fill, -1)
    elif style.hub == "circle":
        cv2.circle(canvas, c, r, fill, -1, cv2.LINE_AA)
        cv2.circle(canvas, c, r, line, max(1, r // 4), cv2.LINE_AA)
    elif style.hub == "ring":
        cv2.circle(canvas, c, r, fill, max(2, r // 2), cv2.LINE_AA)
    else:
        diamond = np.array([(c[0], c[1] - r), (c[0] + r, c[1]), (c[0], c[1] + r), (c[0] - r, c[1])], np.int32)
        cv2.fillPoly(canvas, [diamond], fill, cv2.LINE_AA)
        cv2.polylines(canvas, [diamond], True, line, max(1, r // 4), cv2.LINE_AA)


def _draw_planet(canvas: np.ndarray, style: WideStyle, rng: np.random.Generator) -> None:
    size = canvas.shape[0]
    colour = style.planet_colours[int(rng.integers(0, len(style.planet_colours)))]
    radius = round(style.planet_radius * size)
    c = unit_point(0.5, 0.5, size)
    base = np.array(colour, np.float32)
    if style.planet == "shaded":
        for k in range(radius, 0, -max(1, radius // 10)):
            shade = 0.45 + 0.65 * (1 - k / radius)
            tone = tuple(int(min(255, v * shade)) for v in base)
            cv2.circle(canvas, (c[0] - (radius - k) // 3, c[1] - (radius - k) // 3), k, tone, -1, cv2.LINE_AA)
    elif style.planet == "flat":
        cv2.circle(canvas, c, radius, colour, -1, cv2.LINE_AA)
        cv2.circle(canvas, c, radius, style.route_line, max(1, size // 70), cv2.LINE_AA)
    elif style.planet == "ring":
        cv2.circle(canvas, c, radius, colour, max(2, radius // 4), cv2.LINE_AA)
    elif style.planet == "crescent":
        dim = tuple(int(v * 0.35) for v in base)
        cv2.circle(canvas, c, radius, dim, -1, cv2.LINE_AA)
        lit = np.zeros(canvas.shape[:2], np.uint8)
        cv2.circle(lit, c, radius, 255, -1, cv2.LINE_AA)
        shadow = np.zeros_like(lit)
        angle = rng.uniform(0, 2 * math.pi)
        off = (round(c[0] + math.cos(angle) * radius * 0.45), round(c[1] + math.sin(angle) * radius * 0.45))
        cv2.circle(shadow, off, radius, 255, -1, cv2.LINE_AA)
        canvas[(lit > 127) & (shadow < 128)] = colour
    else:  # mottled
        disc = np.zeros(canvas.shape[:2], np.uint8)
        cv2.circle(disc, c, radius, 255, -1, cv2.LINE_AA)
        noise = cv2.resize(rng.uniform(0.5, 1.3, (6, 6)).astype(np.float32), (size, size))
        texture = np.clip(base * noise[..., None], 0, 255)
        m = disc.astype(np.float32)[..., None] / 255
        canvas[:] = (canvas * (1 - m) + texture * m).astype(np.uint8)
    if style.planet_ring:
        ring = tuple(int(min(255, v * 0.5 + 110)) for v in base)
        axes = (round(radius * 1.4), round(radius * 0.35))
        cv2.ellipse(
            canvas, c, axes, float(rng.uniform(-40, 40)), 0, 360, ring, max(2, size // 70), cv2.LINE_AA
        )


def _draw_symbol(canvas: np.ndarray, faction: str, centre: tuple[int, int], style: WideStyle) -> None:
    """The faction's mark (the same three shapes as the first family: they tell the factions
    apart) on this style's backing, in this style's colours."""
    radius = round(style.symbol_radius * canvas.shape[0])
    colour = style.symbol[faction]
    back = style.backing_colour
    cx, cy = centre
    outer = radius + max(1, radius // 5)
    if style.backing == "disc":
        cv2.circle(canvas, centre, outer, back, -1, cv2.LINE_AA)
    elif style.backing == "ring":
        cv2.circle(canvas, centre, outer, back, max(1, radius // 4), cv2.LINE_AA)
    elif style.backing == "hexagon":
        hexagon = [
            (cx + outer * math.cos(k * math.pi / 3), cy + outer * math.sin(k * math.pi / 3)) for k in range(6)
        ]
        cv2.fillPoly(canvas, [np.array(hexagon, np.int32)], back, cv2.LINE_AA)
    draw_faction_mark(canvas, faction, centre, radius, colour, back, empire_hub=False)


def _draw_border(canvas: np.ndarray, style: WideStyle) -> None:
    size = canvas.shape[0]
    edge = max(2, size // 40)
    if style.border == "bevel":
        canvas[:edge, :] = (canvas[:edge, :] * 0.5 + 110).astype(np.uint8)
        canvas[:, :edge] = (canvas[:, :edge] * 0.5 + 110).astype(np.uint8)
        canvas[-edge:, :] = (canvas[-edge:, :] * 0.6).astype(np.uint8)
        canvas[:, -edge:] = (canvas[:, -edge:] * 0.6).astype(np.uint8)
    elif style.border == "line":
        cv2.rectangle(
            canvas, (edge, edge), (size - 1 - edge, size - 1 - edge), style.route_line, max(1, edge // 2)
        )
    elif style.border == "dark":
        cv2.rectangle(canvas, (0, 0), (size - 1, size - 1), (15, 15, 15), edge)


def draw_wide_tile(tile: Tile, style: WideStyle, size_px: int, variant: int = 0) -> np.ndarray:
    """The tile as it lies, ``size_px`` square, BGR; ``variant`` varies one printed copy."""
    size = size_px * SUPERSAMPLE
    rng = np.random.default_rng([style.seed, variant, tile_key(tile)])
    canvas = _ground(style, rng, size)
    for feature in tile.features:
        if feature.kind == ASTEROID:
            mask = field_mask(feature, style, size)
            layer = _field_layer(style, canvas, rng, size)
            m = mask.astype(np.float32)[..., None] / 255
            canvas = (canvas * (1 - m) + layer * m).astype(np.uint8)
            if style.field_edge or style.field == "outline":
                contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
                cv2.drawContours(canvas, contours, -1, style.field_line, max(2, size // 60), cv2.LINE_AA)
    routes = [f for f in tile.features if f.kind == ROUTE]
    for feature in routes:
        canvas = _draw_route(canvas, route_points(feature, style, size), style, rng)
    planet = next((f for f in tile.features if f.kind == PLANET), None)
    # the first family's rule for a hub: several routes that each end in the middle, no planet
    if routes and planet is None and len(routes) > 1 and all(len(f.sides) == 1 for f in routes):
        _draw_hub(canvas, style)
    if planet is not None:
        _draw_planet(canvas, style, rng)
    for feature in tile.features:
        for faction in feature.symbols:
            x, y = _symbol_point(tile, feature)
            _draw_symbol(canvas, faction, unit_point(x, y, size), style)
    _draw_border(canvas, style)
    if style.blur > 0:
        canvas = cv2.GaussianBlur(canvas, (0, 0), style.blur * SUPERSAMPLE)
    small: np.ndarray = cv2.resize(canvas, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return small
