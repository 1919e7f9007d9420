"""Rendered trays of Carcassonne: The Dice Game's dice, seen from above.

No photograph of these dice exists here, so the reader is taught and measured on renders. A die
is a light cube whose faces carry dark ink: a knight, a catapult, or city segments drawn from a
faces table (``cap``, ``corner``, ``straight``, ``three``, or any table). Each die lies at a
random place and angle; a little slant shows a strip of its side faces; light, shadows, blur,
noise and JPEG vary by the seed. The tray's floor comes from its own seed (``floor``), so that
one tray can be pictured empty, then with one die per face (the enrolment photographs), then
with rolls, under different light each time, as a real tray would be.

A tray may hold a laid city in its city area (``CITY_AREA``, the right part of the picture):
dice pressed edge to edge on a grid, all at one small angle.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.sim.dice_tray import TEXTURE_PX, _hand, _paste, _square, _tray

BGR = tuple[int, int, int]
Cell = tuple[int, int]

# The Dice Game's faces as its record names them (the sim is core and imports no game: a faces
# table comes in as face -> segments, each segment its sides as bits N=1, E=2, S=4, W=8).
KNIGHT, CATAPULT = "knight", "catapult"
SIDE_BIT = {"N": 1, "E": 2, "S": 4, "W": 8}


def turned(sides: int, rotation: int) -> int:
    """Side bits after ``rotation`` clockwise quarter turns (N to E, E to S, ...)."""
    rotation %= 4
    return ((sides << rotation) | (sides >> (4 - rotation))) & 0b1111


# Dice sets: a light body and a dark ink, as printed dice are sold.
DICE_SETS: dict[str, tuple[BGR, BGR]] = {
    "white-black": ((238, 240, 242), (28, 28, 30)),
    "ivory-brown": ((200, 228, 240), (30, 45, 80)),
    "yellow-black": ((90, 215, 240), (25, 25, 25)),
    "blue-navy": ((235, 205, 170), (80, 30, 20)),
    "green-black": ((190, 235, 200), (30, 40, 30)),
    "pink-red": ((205, 195, 245), (30, 20, 120)),
    "grey-black": ((200, 200, 200), (20, 20, 20)),
}

# The picture's part where a city is laid: x0, y0, x1, y1 as fractions of the width and height.
CITY_AREA = (0.62, 0.0, 1.0, 1.0)


@dataclass(frozen=True)
class RenderedFace:
    """One die as drawn: its face, where its top face lies, and which way the face points."""

    face: str
    centre: tuple[float, float]
    side: float  # the top face's side, pixels
    north: float  # degrees clockwise from the picture's up to the face's N side
    rotation: int  # quarter turns of the face on the die (before the die's own angle)
    at: Cell | None = None  # the city cell, for a die laid in the city


@dataclass
class RenderedDiceGameTray:
    image: np.ndarray
    dice: list[RenderedFace] = field(default_factory=list)  # in the rolling area
    city: list[RenderedFace] = field(default_factory=list)  # laid in the city area
    hand: bool = False
    blur: float = 0.0


def _segment_shape(bits: int, n: int) -> np.ndarray:
    """The ink of one city segment touching the sides ``bits`` on an n x n face (uint8 mask)."""
    sides = bin(bits).count("1")
    # one drawn shape per kind of segment, then turned to the sides it must touch
    opposite = bits in (0b0101, 0b1010)
    canonical = {1: 0b0001, 2: 0b0101 if opposite else 0b0011, 3: 0b1011}.get(sides, 0b1111)
    turns = next(k for k in range(4) if turned(canonical, k) == bits)
    mask = np.zeros((n, n), np.uint8)

    def curve(a: tuple[float, float], c: tuple[float, float], b: tuple[float, float]) -> list[list[int]]:
        t = np.linspace(0, 1, 24)[:, None]
        pts = (1 - t) ** 2 * np.array(a) + 2 * (1 - t) * t * np.array(c) + t**2 * np.array(b)
        return (pts * n).astype(int).tolist()  # type: ignore[no-any-return]

    if canonical == 0b0001:  # a cap on N
        cv2.ellipse(mask, (n // 2, 0), (int(0.4 * n), int(0.3 * n)), 0, 0, 180, 255, -1, cv2.LINE_AA)
    elif canonical == 0b0011:  # a corner over N and E
        pts = [[int(0.12 * n), 0], [n, 0], [n, int(0.88 * n)], *curve((1, 0.88), (0.55, 0.45), (0.12, 0))]
        cv2.fillPoly(mask, [np.array(pts, np.int32)], 255, cv2.LINE_AA)
    elif canonical == 0b0101:  # a band from N to S
        pts = curve((0.15, 0), (0.33, 0.5), (0.15, 1)) + curve((0.85, 1), (0.67, 0.5), (0.85, 0))
        cv2.fillPoly(mask, [np.array(pts, np.int32)], 255, cv2.LINE_AA)
    elif canonical == 0b1011:  # city on N, E and W: white only in a cap on S
        mask[:] = 255
        cv2.ellipse(mask, (n // 2, n), (int(0.4 * n), int(0.32 * n)), 0, 180, 360, 0, -1, cv2.LINE_AA)
    else:  # city on every side; a white pennant keeps the face from being one flat colour
        mask[:] = 255
        cv2.circle(mask, (n // 2, n // 2), int(0.12 * n), 0, -1, cv2.LINE_AA)
    return np.ascontiguousarray(np.rot90(mask, -turns))


def _knight(n: int) -> np.ndarray:
    """A helmet: a dome and a visor slit, a plume on top."""
    mask = np.zeros((n, n), np.uint8)
    cv2.ellipse(mask, (n // 2, int(0.55 * n)), (int(0.28 * n), int(0.3 * n)), 0, 180, 360, 255, -1)
    cv2.rectangle(mask, (int(0.22 * n), int(0.55 * n)), (int(0.78 * n), int(0.8 * n)), 255, -1)
    cv2.rectangle(mask, (int(0.3 * n), int(0.5 * n)), (int(0.7 * n), int(0.57 * n)), 0, -1)
    cv2.line(mask, (n // 2, int(0.27 * n)), (int(0.62 * n), int(0.12 * n)), 255, max(2, n // 14))
    return mask


def _catapult(n: int) -> np.ndarray:
    """Two wheels under a frame, an arm thrown up with its bucket."""
    mask = np.zeros((n, n), np.uint8)
    for x in (0.3, 0.7):
        cv2.circle(mask, (int(x * n), int(0.75 * n)), int(0.1 * n), 255, max(2, n // 20))
    cv2.rectangle(mask, (int(0.18 * n), int(0.6 * n)), (int(0.82 * n), int(0.66 * n)), 255, -1)
    cv2.line(mask, (int(0.6 * n), int(0.62 * n)), (int(0.25 * n), int(0.22 * n)), 255, max(2, n // 16))
    cv2.circle(mask, (int(0.24 * n), int(0.2 * n)), int(0.08 * n), 255, -1)
    return mask


def face_ink(face: str, table: Mapping[str, Sequence[int]], n: int = TEXTURE_PX) -> np.ndarray:
    """Where a face of ``table`` (face -> segment side bits) carries ink, at rotation 0."""
    if face == KNIGHT:
        return _knight(n)
    if face == CATAPULT:
        return _catapult(n)
    ink = np.zeros((n, n), np.uint8)
    for bits in table[face]:
        ink = np.maximum(ink, _segment_shape(bits, n))
    return ink


def _rounded(n: int, corner: float) -> np.ndarray:
    mask = np.zeros((n, n), np.uint8)
    c = int(corner * n)
    cv2.rectangle(mask, (c, 0), (n - 1 - c, n - 1), 255, -1)
    cv2.rectangle(mask, (0, c), (n - 1, n - 1 - c), 255, -1)
    for cx, cy in ((c, c), (n - 1 - c, c), (c, n - 1 - c), (n - 1 - c, n - 1 - c)):
        cv2.circle(mask, (cx, cy), c, 255, -1, cv2.LINE_AA)
    return mask


def face_picture(
    face: str, rotation: int, table: Mapping[str, Sequence[int]], dice_set: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A face's texture turned ``rotation`` quarter turns clockwise, and its rounded mask."""
    body, ink = (np.array(c, np.float32) for c in DICE_SETS[dice_set])
    n = TEXTURE_PX
    # a margin of body colour round the art, as on a printed die
    art = cv2.resize(face_ink(face, table, n - 12), (n - 12, n - 12))
    paint = np.zeros((n, n), np.float32)
    paint[6:-6, 6:-6] = art / 255.0
    paint = np.rot90(paint, -rotation)
    image = body * (1 - paint[..., None]) + ink * paint[..., None]
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
    image *= (1.0 - 0.1 * (xx**2 + yy**2) * rng.uniform(0, 2))[..., None]
    return np.ascontiguousarray(image, np.float32), _rounded(n, rng.uniform(0.06, 0.14))


def _floor(floor: int, height: int, width: int) -> np.ndarray:
    """The tray's floor, the same for one ``floor`` seed; floors paler than the dice are left out
    (the finder needs the dice to stand out, docs/dicegame.md)."""
    rng = np.random.default_rng(floor)
    for _ in range(20):
        image = _tray(rng, height, width)
        if float(np.mean(image)) < 165:
            return image
    return image * 0.7


@dataclass(frozen=True)
class Scene:
    """What a render holds, apart from the light: the dice and where."""

    table: Mapping[str, Sequence[int]]
    dice_set: str = "white-black"
    floor: int = 0
    size: tuple[int, int] = (480, 640)
    side: float = 48.0  # the dice's side, pixels: the tray camera's distance is fixed


def render(
    scene: Scene,
    seed: int,
    dice: Sequence[str] = (),
    city: Sequence[tuple[str, Cell, int]] = (),
    whole: bool = False,
    hand: bool = False,
    blur: float | None = None,
    slant: float = 0.2,
    lying: Sequence[RenderedFace] = (),
) -> RenderedDiceGameTray:
    """A picture of the tray with ``dice`` (faces) thrown in its rolling area, at random places,
    angles and rotations, and ``city`` (face, cell, rotation) laid in its city area. ``whole``:
    the dice are thrown over the whole picture (the enrolment photographs, the measured rolls
    of a tray with no city area). ``lying``: dice of an earlier picture left where they lay (the
    dice not set aside), drawn before the thrown ones."""
    rng = np.random.default_rng(seed)
    height, width = scene.size
    canvas = _floor(scene.floor, height, width).copy()
    result = RenderedDiceGameTray(np.zeros(0))
    lean = rng.uniform(0, slant)
    towards = rng.uniform(0, 2 * math.pi)
    shift_dir = np.array([math.cos(towards), math.sin(towards)])
    x_end = width if whole or (not city and not dice) else int(CITY_AREA[0] * width)
    placed: list[np.ndarray] = []
    for die in lying:
        c = np.array(die.centre)
        angle = (die.north - 90 * die.rotation) % 360
        _die(
            canvas,
            rng,
            scene,
            die.face,
            die.rotation,
            c,
            die.side,
            angle,
            shift_dir * die.side * math.sin(lean),
        )
        placed.append(c)
        result.dice.append(die)
    for face in dice:
        side = scene.side * rng.uniform(0.96, 1.04)
        for _attempt in range(80):
            c = rng.uniform([side, side], [x_end - side, height - side])
            if all(np.hypot(*(c - p)) > 1.5 * side for p in placed):
                break
        else:
            continue
        placed.append(c)
        angle = rng.uniform(0, 360)
        rotation = int(rng.integers(0, 4))
        _die(canvas, rng, scene, face, rotation, c, side, angle, shift_dir * side * math.sin(lean))
        result.dice.append(
            RenderedFace(face, (float(c[0]), float(c[1])), side, (angle + 90 * rotation) % 360, rotation)
        )
    if city:
        result.city = _lay_city(canvas, rng, scene, city, shift_dir * scene.side * math.sin(lean))
    if hand:
        _hand(canvas, rng)
        result.hand = True
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    slope = rng.normal(0, 0.12, 2)
    gradient = 1 + slope[0] * (xx / width - 0.5) + slope[1] * (yy / height - 0.5)
    light = rng.uniform(0.8, 1.15) * rng.uniform(0.95, 1.05, 3)
    canvas = canvas * gradient[..., None] * light
    sigma = float(rng.uniform(0, 0.8) if blur is None else blur)
    if sigma > 0.05:
        canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
    canvas = canvas + rng.normal(0, rng.uniform(1, 4), canvas.shape).astype(np.float32)
    image = np.clip(canvas, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 96))])
    result.image = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR)) if ok else image
    result.blur = sigma
    return result


def _die(
    canvas: np.ndarray,
    rng: np.random.Generator,
    scene: Scene,
    face: str,
    rotation: int,
    centre: np.ndarray,
    side: float,
    angle: float,
    shift: np.ndarray,
    shadow: bool = True,
) -> None:
    """One die: its soft shadow, the side faces the slant shows, then its top face."""
    if shadow:
        mask = np.zeros(canvas.shape[:2], np.float32)
        offset = rng.normal(0, 0.1, 2) * side + shift * 0.5
        cv2.circle(mask, tuple((centre + offset).astype(int)), int(side * 0.6), 1.0, -1)
        mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), side * 0.12 + 1), np.float32)
        canvas *= (1 - rng.uniform(0.15, 0.4) * mask)[..., None]
    top = _square(centre, side, math.radians(angle))
    others = (KNIGHT, CATAPULT, *scene.table)
    for k in range(4):
        a, b = top[k], top[(k + 1) % 4]
        normal = np.array([b[1] - a[1], a[0] - b[0]])
        if normal @ shift <= 0.5:
            continue
        texture, mask = face_picture(
            str(rng.choice(others)), int(rng.integers(0, 4)), scene.table, scene.dice_set, rng
        )
        _paste(canvas, texture, mask, np.array([a, b, b + shift, a + shift]), rng.uniform(0.4, 0.65))
    texture, mask = face_picture(face, rotation, scene.table, scene.dice_set, rng)
    _paste(canvas, texture, mask, top, rng.uniform(0.92, 1.05))


def _lay_city(
    canvas: np.ndarray,
    rng: np.random.Generator,
    scene: Scene,
    city: Sequence[tuple[str, Cell, int]],
    shift: np.ndarray,
) -> list[RenderedFace]:
    """Dice laid edge to edge on a grid in the city area, the grid at one small angle."""
    height, width = canvas.shape[:2]
    side = scene.side
    angle = rng.uniform(-8, 8)
    xs = [at[0] for _, at, _ in city]
    ys = [at[1] for _, at, _ in city]
    pitch = side * 1.02
    x0 = CITY_AREA[0] * width + side
    room_x = CITY_AREA[2] * width - side - x0 - (max(xs) - min(xs)) * pitch
    room_y = height - 2 * side - (max(ys) - min(ys)) * pitch
    origin = np.array([x0 + rng.uniform(0, max(room_x, 0)), side + rng.uniform(0, max(room_y, 0))])
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    laid: list[RenderedFace] = []
    centres = []
    for face, at, rotation in city:
        offset = np.array([(at[0] - min(xs)) * pitch, (at[1] - min(ys)) * pitch]) + rng.normal(0, 0.6, 2)
        centre = origin + np.array([offset[0] * c - offset[1] * s, offset[0] * s + offset[1] * c])
        centres.append(centre)
        laid.append(
            RenderedFace(
                face, (float(centre[0]), float(centre[1])), side, (angle + 90 * rotation) % 360, rotation, at
            )
        )
    # the shadows and side faces of every die first, so that no die's side covers another's top
    for (face, _at, _rotation), centre in zip(city, centres, strict=True):
        _die(canvas, rng, scene, face, 0, centre, side, angle, shift)
    for (face, _at, rotation), centre in zip(city, centres, strict=True):
        texture, mask = face_picture(face, rotation, scene.table, scene.dice_set, rng)
        _paste(
            canvas,
            texture,
            mask,
            _square(centre, side, math.radians(angle + rng.normal(0, 0.8))),
            rng.uniform(0.92, 1.05),
        )
    return laid


def table_bits(table: Mapping[str, Sequence[str]]) -> dict[str, tuple[int, ...]]:
    """A faces table as the record writes it (``{"cap": ["N"]}``) in side bits."""
    return {face: tuple(sum(SIDE_BIT[s] for s in seg) for seg in segs) for face, segs in table.items()}
