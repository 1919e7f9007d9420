"""A fourth family of tile art: every style invents its own faction emblems, its own asteroids
and its own way of marking a route. Its held-out styles are unseen art the gallery's likeness is
judged on before the box art; its training styles were tried as training data (models/starwars/gallery.md).

The first and third families draw the three factions with the same three shapes, so a likeness
trained on them may learn those shapes rather than learn to compare a small mark in a camera
window with the mark on the user's picture. A real box has emblems of its own. Here each style
draws each faction as a glyph it makes up (a star, polygon, cross, rings, chevrons, a blob, bars,
each with its own count of points, turn and colours; in some styles all three alike in colour,
so only the shape tells them apart), puts it where it likes near the feature, fills its fields
with sprites of its own kind and density (from a packed field to a few loose ones, so that a
field's extent may show only in where its sprites lie) and marks its routes its own way. Where
the parts lie (field outlines, route paths), the hub, ground colours and border come from a style
of the third family drawn from the same seed. Copies of a type share their ground and specks and
differ in their field's sprites; a tile turned is its print turned; a print is the same at any
size (everything is placed in tile units).

What a tile is (its features, the sides they touch, its symbols) is drawn from the tile alone,
so the labels stay those of the catalog. Styles in this family are numbered from
``INVENTED_STYLES.start``. The box art (``art_box.py``) stays the unseen test.
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
    hsv,
    tile_key,
    unit_point,
)
from companion.games.starwars.art.emblems import (
    BACKINGS,
    GLYPHS,
    TOLD_BY_COUNT,
    Glyph,
    draw_glyph,
    polygon,
    stroke,
)
from companion.games.starwars.art.wide import WideStyle, _draw_border, _draw_hub, field_mask, route_points
from companion.games.starwars.tiles import ASTEROID, PLANET, ROUTE, Feature, Tile

INVENTED_STYLES = range(
    4_000_000, 4_100_000
)  # a training part and a held-out part: models/training/cell_data.py

SPRITES = ("rock", "crystal", "dot", "ring", "shard")
ROUTE_MARKS = ("chain", "chevrons", "wave", "ties", "glow")
PLANET_LOOKS = ("craters", "halo", "split", "spotted")
FACTIONS = ("rebels", "empire", "bounty")
PLACING_GRID = 64  # the mask sprites are placed by, whatever size the tile is drawn at


def is_invented_style(style: int) -> bool:
    return style in INVENTED_STYLES


@dataclass(frozen=True)
class InventedStyle:
    """One style of the fourth family: a ground, border and hub from a style of the third family
    (drawn from this style's own seed), and the parts it invents."""

    seed: int
    base: WideStyle
    glyphs: dict[str, Glyph]
    glyph_radius: float
    glyph_shift: tuple[float, float]  # (in, along) from where the first family puts a symbol
    sprite: str
    sprite_size: float
    sprites_per_field: int
    sprite_colours: tuple[BGR, BGR]
    field_tint: float  # 0: sprites on bare ground, 1: the field filled under them
    field_line: bool
    route_mark: str
    route_colours: tuple[BGR, BGR]
    route_width: float
    hub: bool
    planet_look: str
    planet_colours: tuple[BGR, BGR]
    planet_radius: float
    planet_shift: tuple[float, float]

    @classmethod
    def from_seed(cls, seed: int) -> InventedStyle:
        rng = random.Random(f"invented-style-{seed}")
        base = WideStyle.from_seed(seed)
        dark = max(base.ground_a) < 128

        def ink(least: float = 0.35) -> BGR:
            v = rng.uniform(0.35 + least, 1.0) if dark else rng.uniform(0.0, 0.65 - least)
            return hsv(rng.random(), rng.uniform(0.0, 1.0), v)

        if rng.random() < 0.7:
            kinds = rng.sample(GLYPHS, 3)
            counts: list[int | None] = [None, None, None]
        else:  # one shape for all three, told apart by its count of points, bars or rings
            kind = rng.choice(sorted(TOLD_BY_COUNT))
            kinds, counts = [kind] * 3, list(rng.sample(TOLD_BY_COUNT[kind], 3))
        if rng.random() < 0.35:  # one ink for every faction: the shape alone tells them apart
            colours = [ink()] * 3
        else:
            hue = rng.random()
            colours = [
                hsv(hue + k / 3 + rng.uniform(-0.08, 0.08), rng.uniform(0.4, 1.0), rng.uniform(0.55, 1.0))
                for k in range(3)
            ]
        backing = rng.choice(BACKINGS)
        # a backing dark under light inks and light under dark ones, so the emblem shows on it
        light_inks = sum(max(c) for c in colours) / 3 > 140
        backing_colour = hsv(rng.random(), rng.uniform(0, 0.5), 0.1 if light_inks else 0.9)
        glyphs = {
            faction: Glyph.invent(rng, kind, colour, backing, backing_colour, count)
            for faction, kind, colour, count in zip(FACTIONS, kinds, colours, counts, strict=True)
        }
        return cls(
            seed=seed,
            base=base,
            glyphs=glyphs,
            glyph_radius=rng.uniform(0.06, 0.13),
            glyph_shift=(rng.uniform(-0.06, 0.08), rng.uniform(-0.12, 0.12)),
            sprite=rng.choice(SPRITES),
            sprite_size=rng.uniform(0.02, 0.06),
            sprites_per_field=rng.choice((rng.randint(6, 14), rng.randint(15, 40), rng.randint(40, 90))),
            sprite_colours=(ink(0.2), ink(0.2)),
            field_tint=rng.choice((0.0, 0.0, rng.uniform(0.2, 0.8))),
            field_line=rng.random() < 0.3,
            route_mark=rng.choice(ROUTE_MARKS),
            route_colours=(ink(), ink(0.15)),
            route_width=rng.uniform(0.04, 0.12),
            hub=rng.random() < 0.6,
            planet_look=rng.choice(PLANET_LOOKS),
            # the planet's body far in brightness from the emblems' inks: an emblem lies on it
            planet_colours=(
                hsv(
                    rng.random(),
                    rng.uniform(0.2, 0.9),
                    rng.uniform(0.15, 0.35) if light_inks else rng.uniform(0.75, 1.0),
                ),
                ink(0.1),
            ),
            planet_radius=rng.uniform(0.13, 0.28),
            planet_shift=(rng.uniform(-0.06, 0.06), rng.uniform(-0.06, 0.06)),
        )


def _ground(style: InventedStyle, rng: np.random.Generator, size: int) -> np.ndarray:
    """The base style's two ground colours, flat, graded or clouded, with specks: drawn from a
    coarse grid and in tile units, so the same at any size."""
    a = np.array(style.base.ground_a, np.float32)
    b = np.array(style.base.ground_b, np.float32)
    kind = style.base.ground
    if kind == "flat":
        mix = np.zeros((size, size), np.float32)
    elif kind == "gradient":
        angle = rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
        mix = np.clip(0.5 + (xx - 0.5) * math.cos(angle) + (yy - 0.5) * math.sin(angle), 0, 1)
    else:
        cells = 5 if kind == "clouds" else 11
        coarse = rng.random((cells, cells)).astype(np.float32)
        mix = cv2.resize(coarse, (size, size), interpolation=cv2.INTER_CUBIC).clip(0, 1)
    canvas = a + mix[..., None] * (b - a)
    for x, y, r in zip(*rng.random((3, style.base.specks)), strict=True):
        cv2.circle(
            canvas,
            (round(x * size), round(y * size)),
            max(1, round((0.5 + r) * size / 96)),
            style.base.speck,
            -1,
        )
    return np.clip(canvas, 0, 255).astype(np.uint8)


def _blend(canvas: np.ndarray, colour: BGR, alpha: np.ndarray) -> None:
    """Lay ``colour`` over the canvas where ``alpha`` (0-1) says, in place."""
    a = np.clip(alpha, 0, 1)[..., None]
    canvas[:] = (canvas * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)


def _sprite(
    canvas: np.ndarray, style: InventedStyle, at: tuple[float, float], rng: np.random.Generator
) -> None:
    size = canvas.shape[0]
    r = style.sprite_size * size * float(rng.uniform(0.6, 1.3))
    colour = style.sprite_colours[int(rng.integers(2))]
    x, y = at[0] * size, at[1] * size
    turn = float(rng.uniform(0, 2 * math.pi))
    if style.sprite == "rock":
        radii = list(r * rng.uniform(0.6, 1.0, int(rng.integers(5, 9))))
        cv2.fillPoly(canvas, [polygon((x, y), radii, turn)], colour, cv2.LINE_AA)
    elif style.sprite == "crystal":
        radii = [r * (1.0 if k % 2 == 0 else 0.35) for k in range(8)]
        cv2.fillPoly(canvas, [polygon((x, y), radii, turn)], colour, cv2.LINE_AA)
    elif style.sprite == "dot":
        cv2.circle(canvas, (round(x), round(y)), max(1, round(r * 0.7)), colour, -1, cv2.LINE_AA)
    elif style.sprite == "ring":
        cv2.circle(canvas, (round(x), round(y)), max(2, round(r)), colour, max(1, round(r / 3)), cv2.LINE_AA)
    else:  # shard: a thin sliver
        radii = [r * 1.3, r * 0.3, r * 1.3, r * 0.3]
        cv2.fillPoly(canvas, [polygon((x, y), radii, turn)], colour, cv2.LINE_AA)


def _field(
    canvas: np.ndarray, feature: Feature, style: InventedStyle, rng: np.random.Generator
) -> np.ndarray:
    size = canvas.shape[0]
    mask = field_mask(feature, style.base, size)
    if style.field_tint > 0:
        m = mask.astype(np.float32)[..., None] / 255 * style.field_tint
        tint = np.array(style.sprite_colours[0], np.float32) * 0.5 + canvas * 0.5
        canvas = (canvas * (1 - m) + tint * m).astype(np.uint8)
    if style.field_line:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(canvas, contours, -1, style.sprite_colours[1], max(2, size // 70), cv2.LINE_AA)
    # sprites where the field lies, placed in tile units and by a mask of a fixed grid, so that
    # a print is the same at any size
    grid = field_mask(feature, style.base, PLACING_GRID) > 127
    wanted = max(3, round(style.sprites_per_field * float(grid.mean()) / 0.25))
    placed = 0
    for _ in range(wanted * 20):
        x, y = rng.uniform(0.02, 0.98, 2)
        if grid[int(y * PLACING_GRID), int(x * PLACING_GRID)]:
            _sprite(canvas, style, (float(x), float(y)), rng)
            placed += 1
            if placed == wanted:
                break
    return canvas


def _route(canvas: np.ndarray, points: np.ndarray, style: InventedStyle) -> None:
    size = canvas.shape[0]
    width = max(2, round(style.route_width * size))  # for strokes; marks are spaced unrounded
    exact = style.route_width * size
    main, second = style.route_colours
    length = np.cumsum(np.r_[0, np.hypot(*np.diff(points, axis=0).T)])

    def at(d: float) -> tuple[float, float, float, float]:
        x, y = float(np.interp(d, length, points[:, 0])), float(np.interp(d, length, points[:, 1]))
        x2, y2 = float(np.interp(d + 1, length, points[:, 0])), float(np.interp(d + 1, length, points[:, 1]))
        norm = max(1e-6, math.hypot(x2 - x, y2 - y))
        return x, y, (x2 - x) / norm, (y2 - y) / norm

    step = exact * 1.2
    marks = np.arange(step / 2, length[-1], step)
    mark = style.route_mark
    if mark == "glow":
        halo = np.zeros(canvas.shape[:2], np.float32)
        cv2.polylines(halo, [points], False, 1.0, width * 2, cv2.LINE_AA)
        _blend(canvas, second, cv2.GaussianBlur(halo, (0, 0), exact / 2))
        cv2.polylines(canvas, [points], False, main, stroke(exact / 3), cv2.LINE_AA)
    elif mark == "wave":
        wavy = []
        for d in np.arange(0, length[-1], 1.0):
            x, y, dx, dy = at(float(d))
            off = math.sin(d / (exact * 1.5) * math.pi) * exact * 0.6
            wavy.append((x - dy * off, y + dx * off))
        cv2.polylines(canvas, [np.array(wavy, np.int32)], False, main, stroke(exact / 2, 2), cv2.LINE_AA)
    elif mark == "ties":
        cv2.polylines(canvas, [points], False, main, stroke(exact / 4), cv2.LINE_AA)
        for d in marks:
            x, y, dx, dy = at(float(d))
            a = (round(x - dy * exact * 0.7), round(y + dx * exact * 0.7))
            b = (round(x + dy * exact * 0.7), round(y - dx * exact * 0.7))
            cv2.line(canvas, a, b, second, stroke(exact / 4), cv2.LINE_AA)
    else:  # a chain of links or a line of chevrons along the route
        for d in marks:
            x, y, dx, dy = at(float(d))
            if mark == "chain":
                angle = math.degrees(math.atan2(dy, dx))
                axes = (max(2, round(width * 0.55)), max(1, round(width * 0.3)))
                cv2.ellipse(
                    canvas, (round(x), round(y)), axes, angle, 0, 360, main, stroke(exact / 5), cv2.LINE_AA
                )
            else:
                tip = (x + dx * exact * 0.4, y + dy * exact * 0.4)
                arms = [
                    (tip[0] - dx * exact + s * dy * exact * 0.6, tip[1] - dy * exact - s * dx * exact * 0.6)
                    for s in (1, -1)
                ]
                line = np.array([arms[0], tip, arms[1]], np.int32)
                cv2.polylines(canvas, [line], False, main, stroke(exact / 3), cv2.LINE_AA)


def _planet(canvas: np.ndarray, style: InventedStyle) -> None:
    size = canvas.shape[0]
    radius = round(style.planet_radius * size)
    c = unit_point(0.5 + style.planet_shift[0], 0.5 + style.planet_shift[1], size)
    body, mark = style.planet_colours
    if style.planet_look == "halo":
        halo = np.zeros(canvas.shape[:2], np.float32)
        cv2.circle(halo, c, round(radius * 1.3), 1.0, -1, cv2.LINE_AA)
        _blend(canvas, body, cv2.GaussianBlur(halo, (0, 0), radius / 4))
    cv2.circle(canvas, c, radius, body, -1, cv2.LINE_AA)
    if style.planet_look == "craters":
        for k in range(5):
            a = 2.4 * k
            at = (round(c[0] + math.cos(a) * radius * 0.5), round(c[1] + math.sin(a) * radius * 0.5))
            cv2.circle(canvas, at, max(1, radius // (4 + k % 3)), mark, max(1, radius // 12), cv2.LINE_AA)
    elif style.planet_look == "split":
        half = np.zeros(canvas.shape[:2], np.uint8)
        cv2.ellipse(half, c, (radius, radius), 30, 0, 180, 255, -1, cv2.LINE_AA)
        canvas[half > 127] = mark
    elif style.planet_look == "spotted":
        for k in range(7):
            a, d = 0.9 * k, radius * (0.2 + 0.1 * (k % 5))
            at = (round(c[0] + math.cos(a) * d), round(c[1] + math.sin(a) * d))
            cv2.circle(canvas, at, max(1, radius // 7), mark, -1, cv2.LINE_AA)


def _glyph_place(feature: Feature, style: InventedStyle) -> tuple[float, float]:
    """Where a feature's emblem goes, in tile units: near its first side (the planet's, on the
    planet's upper half), moved the style's own way along and into the tile."""
    shift_in, shift_along = style.glyph_shift
    if feature.kind == PLANET:
        return (0.5 + style.planet_shift[0] + shift_along, 0.5 + style.planet_shift[1] - 0.1 + shift_in)
    side = feature.sides[0]
    mx, my = SIDE_MID[side]
    ix, iy = SIDE_IN[side]
    ax, ay = SIDE_ALONG[side]
    depth = (0.13 if feature.kind == ASTEROID else 0.3) + shift_in
    along = (0.22 if feature.kind == ASTEROID else 0.12) + shift_along
    return (mx + ix * depth + ax * along, my + iy * depth + ay * along)


def _draw_upright(tile: Tile, style: InventedStyle, size_px: int, variant: int) -> np.ndarray:
    size = size_px * SUPERSAMPLE
    # copies share their ground and specks; each has its own sprites
    canvas = _ground(style, np.random.default_rng([style.seed, tile_key(tile)]), size)
    rng = np.random.default_rng([style.seed, variant, tile_key(tile)])
    for feature in tile.features:
        if feature.kind == ASTEROID:
            canvas = _field(canvas, feature, style, rng)
    routes = [f for f in tile.features if f.kind == ROUTE]
    for feature in routes:
        _route(canvas, route_points(feature, style.base, size), style)
    planet = next((f for f in tile.features if f.kind == PLANET), None)
    if style.hub and planet is None and len(routes) > 1 and all(len(f.sides) == 1 for f in routes):
        _draw_hub(canvas, style.base)
    if planet is not None:
        _planet(canvas, style)
    for feature in tile.features:
        for k, faction in enumerate(feature.symbols):
            x, y = _glyph_place(feature, style)
            ax, ay = SIDE_ALONG[feature.sides[0]] if feature.sides else (1.0, 0.0)
            step = 2.6 * style.glyph_radius * k  # a second symbol beside the first
            inside = style.glyph_radius * 1.25 + 0.02  # the emblem and its backing stay on the tile
            cx, cy = (min(max(v, inside), 1 - inside) for v in (x + ax * step, y + ay * step))
            centre = (cx * size, cy * size)
            draw_glyph(canvas, style.glyphs[faction], centre, style.glyph_radius * size)
    _draw_border(canvas, style.base)
    if style.base.blur > 0:
        canvas = cv2.GaussianBlur(canvas, (0, 0), style.base.blur * size / 96)  # as at 96 px, at any size
    small: np.ndarray = cv2.resize(canvas, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return small


def draw_invented_tile(tile: Tile, style: InventedStyle, size_px: int, variant: int = 0) -> np.ndarray:
    """The tile as it lies, ``size_px`` square, BGR; ``variant`` is the printed copy."""
    return as_turned_print(tile, lambda upright: _draw_upright(upright, style, size_px, variant))
