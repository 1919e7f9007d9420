"""Parts of rendered trays that real tables have and the plain rendered floor lacks: a tray's
floor of wood, felt, card or a printed box lid; the frame round it (its top edge and its inner
wall, seen from above); hard shadows cast by a lamp or the sun; light that is far from even.

``companion/sim/dice_tray.py`` calls these only for trays that ask for them, so the trays of
every existing seed stay as they were.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

# Tray kinds: the floor's material and the frame's.
TRAY_KINDS = ("wood", "felt", "card", "lid")
WOODS = ((150, 190, 215), (120, 160, 200), (70, 105, 150), (175, 200, 210), (60, 90, 140), (95, 140, 185))
FELTS = ((40, 110, 30), (110, 60, 20), (30, 30, 140), (40, 40, 40), (90, 90, 90), (60, 30, 70), (120, 40, 40))


def wood(rng: np.random.Generator, height: int, width: int, angle: float | None = None) -> np.ndarray:
    """Wood: a base colour in bands of grain, with a few darker streaks and knots."""
    base = np.array(WOODS[int(rng.integers(0, len(WOODS)))], np.float32) * rng.uniform(0.85, 1.15, 3)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    angle = rng.uniform(0, math.pi) if angle is None else angle
    along = xx * math.cos(angle) + yy * math.sin(angle)
    across = -xx * math.sin(angle) + yy * math.cos(angle)
    wobble = rng.uniform(3, 12) * np.sin(along / rng.uniform(40, 200) + rng.uniform(0, 6))
    grain = np.sin((across + wobble) / rng.uniform(1.5, 6)) * 0.4 + np.sin(
        (across + 2 * wobble) / rng.uniform(8, 25)
    )
    streaks = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 4)
    image = base * (1 + 0.07 * rng.uniform(0.4, 1.5) * grain[..., None] + 0.08 * streaks[..., None])
    for _ in range(int(rng.integers(0, 3))):  # knots: dark rings
        centre = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        axes = (int(rng.uniform(4, 14)), int(rng.uniform(10, 30)))
        cv2.ellipse(image, centre, axes, math.degrees(angle), 0, 360, tuple(float(c) * 0.6 for c in base), -1)
    return np.asarray(image, np.float32)


def felt(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    base = np.array(FELTS[int(rng.integers(0, len(FELTS)))], np.float32) * rng.uniform(0.8, 1.2, 3)
    image = np.broadcast_to(base, (height, width, 3)).copy()
    fibre = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 1.0)
    return np.asarray(image * (1 + 0.1 * fibre[..., None]), np.float32)


def card(rng: np.random.Generator, height: int, width: int, printed: bool) -> np.ndarray:
    """Plain card, or a box lid's inside printed with art: blocks of colour and lines of text."""
    base = np.array(rng.uniform(90, 240, 3), np.float32)
    image = np.broadcast_to(base, (height, width, 3)).copy()
    if printed:
        for _ in range(int(rng.integers(3, 9))):
            x, y = int(rng.uniform(-width / 4, width)), int(rng.uniform(-height / 4, height))
            w, h = int(rng.uniform(40, width / 2)), int(rng.uniform(30, height / 2))
            colour = tuple(float(c) for c in rng.uniform(20, 240, 3))
            if rng.random() < 0.5:
                cv2.rectangle(image, (x, y), (x + w, y + h), colour, -1)
            else:
                cv2.ellipse(image, (x, y), (w // 2, h // 2), rng.uniform(0, 180), 0, 360, colour, -1)
        for _ in range(int(rng.integers(0, 6))):  # a line of small print
            x, y = int(rng.uniform(0, width * 0.7)), int(rng.uniform(0, height))
            for k in range(int(rng.integers(5, 25))):
                cv2.rectangle(image, (x + 7 * k, y), (x + 7 * k + 4, y + 6), (40, 40, 40), -1)
        image = np.asarray(cv2.GaussianBlur(image, (0, 0), 0.8), np.float32)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 0.8)
    return np.asarray(image * (1 + 0.03 * grain[..., None]), np.float32)


def floor(kind: str, rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    if kind == "wood":
        return wood(rng, height, width)
    if kind == "felt":
        return felt(rng, height, width)
    if kind in ("card", "lid"):
        return card(rng, height, width, printed=kind == "lid")
    raise ValueError(f"a tray is one of {', '.join(TRAY_KINDS)}, not {kind!r}")


def frame(
    canvas: np.ndarray, rng: np.random.Generator, kind: str, light: np.ndarray
) -> tuple[int, int, int, int]:
    """A tray's frame drawn round the canvas: its top edge, then its inner wall, lit from
    ``light`` (a unit vector, the way the light falls). The frame runs along every side, cut
    by the picture on some. Returns the floor inside it as x0, y0, x1, y1."""
    height, width = canvas.shape[:2]
    short = min(height, width)
    rim = [int(rng.uniform(0.0, 0.12) * short) if rng.random() < 0.85 else 0 for _ in range(4)]
    wall = [int(rng.uniform(0.02, 0.07) * short) for _ in range(4)]
    material = wood(rng, height, width) if kind == "wood" else None
    if material is None:
        shade = np.array(rng.uniform(40, 230, 3), np.float32)
        material = np.broadcast_to(shade, (height, width, 3)).copy()
        if kind == "felt":  # a felt tray's frame is wood, card or plastic: some colour of its own
            material = wood(rng, height, width) if rng.random() < 0.5 else material
    top, right, bottom, left = (r + w for r, w in zip(rim, wall, strict=True))
    inside = (left, top, width - right, height - bottom)
    mask = np.ones((height, width), np.float32)
    mask[inside[1] : inside[3], inside[0] : inside[2]] = 0
    lit = np.ones((height, width), np.float32)
    # the inner wall of each side, as a camera above sees it: lit when it faces the light
    walls = (
        ((slice(rim[0], top), slice(None)), np.array([0.0, 1.0])),
        ((slice(None), slice(width - right, width - rim[1])), np.array([-1.0, 0.0])),
        ((slice(height - bottom, height - rim[2]), slice(None)), np.array([0.0, -1.0])),
        ((slice(None), slice(rim[3], left)), np.array([1.0, 0.0])),
    )
    for (rows, cols), facing in walls:
        lit[rows, cols] = np.minimum(lit[rows, cols], 0.75 + 0.35 * float(-facing @ light))
    canvas[:] = canvas * (1 - mask[..., None]) + material * (mask * lit)[..., None]
    return inside


def cast_by_frame(
    canvas: np.ndarray, inside: tuple[int, int, int, int], light: np.ndarray, length: float, dark: float
) -> None:
    """The hard shadow the frame's walls cast onto the floor, on the sides the light comes from."""
    x0, y0, x1, y1 = inside
    shade = np.ones(canvas.shape[:2], np.float32)
    dx, dy = round(float(light[0]) * length), round(float(light[1]) * length)
    if dx > 0:
        shade[y0:y1, x0 : x0 + dx] = 1 - dark
    elif dx < 0:
        shade[y0:y1, x1 + dx : x1] = 1 - dark
    if dy > 0:
        shade[y0 : y0 + dy, x0:x1] = 1 - dark
    elif dy < 0:
        shade[y1 + dy : y1, x0:x1] = 1 - dark
    canvas *= cv2.GaussianBlur(shade, (0, 0), 0.8)[..., None]


def hard_shadow(canvas: np.ndarray, footprint: np.ndarray, offset: np.ndarray, dark: float) -> None:
    """A die's shadow from a small, strong light: its footprint swept along ``offset``."""
    points = np.vstack([footprint, footprint + offset]).astype(np.float32)
    hull = cv2.convexHull(points).astype(np.int32)
    shade = np.zeros(canvas.shape[:2], np.float32)
    cv2.fillConvexPoly(shade, hull, 1.0, cv2.LINE_AA)
    canvas *= (1 - dark * cv2.GaussianBlur(shade, (0, 0), 0.7))[..., None]


def uneven_light(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A gain map: a lamp to one side (a strong gradient and a bright pool), and sometimes the
    soft shadow of something standing near the tray."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    lamp = rng.uniform([-0.3, -0.3], [1.3, 1.3]) * [width, height]
    reach = rng.uniform(0.5, 1.4) * max(height, width)
    pool = np.exp(-(((xx - lamp[0]) ** 2 + (yy - lamp[1]) ** 2) / reach**2))
    gain = rng.uniform(0.45, 0.75) + rng.uniform(0.4, 0.8) * pool
    if rng.random() < 0.4:
        blot = np.zeros((height, width), np.float32)
        centre = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        cv2.circle(blot, centre, int(rng.uniform(0.15, 0.4) * max(height, width)), 1.0, -1)
        gain *= 1 - rng.uniform(0.2, 0.45) * cv2.GaussianBlur(blot, (0, 0), rng.uniform(10, 40))
    return np.asarray(gain, np.float32)


def photographed_mat(seed: int, size: tuple[int, int] = (480, 640)) -> np.ndarray:
    """The blank printed play mat (companion/vision/matfile.py) on a table, as a camera above it
    sees it: tilted a little, shrunk, in dimmer light, with sensor noise. No die lies on it."""
    from companion.vision.matfile import mat_image

    rng = np.random.default_rng(seed)
    mat = mat_image(dpi=72).astype(np.float32)
    height, width = mat.shape[:2]
    table = np.empty((int(height * 1.3), int(width * 1.3), 3), np.float32)
    table[:] = rng.uniform(60, 200, 3)
    top, left = int(height * 0.15), int(width * 0.15)
    table[top : top + height, left : left + width] = mat
    far_x, far_y = table.shape[1], table.shape[0]
    corners = np.array([[0, 0], [far_x, 0], [far_x, far_y], [0, far_y]], np.float32)
    moved = (corners + rng.normal(0, 0.03, (4, 2)) * [table.shape[1], table.shape[0]]).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(corners, moved)
    seen = cv2.warpPerspective(table, matrix, (table.shape[1], table.shape[0]))
    photo = cv2.resize(seen, (size[1], size[0]), interpolation=cv2.INTER_AREA) * rng.uniform(0.7, 1.1)
    photo = photo + rng.normal(0, 3, photo.shape)
    return np.clip(photo, 0, 255).astype(np.uint8)
