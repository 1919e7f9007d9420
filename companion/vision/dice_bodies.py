"""Finding light dice on a tray's floor against a picture of that tray taken empty.

Custom dice (the Dice Game's) have no model of their own: a tray is photographed once empty, and
a die is then whatever is clearly brighter than the floor the empty picture predicts, after the
light of both pictures is matched (a gain across the picture that may slope, fitted on the floor
itself). Shadows are darker, not brighter, so they stay floor; the dark ink on a die's face is
filled in from the body around it. Each body found gives the die's top face: its centre, side
and angle (the edges' direction, within a quarter turn).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

BRIGHTER = 28.0  # grey levels above the predicted floor that a die's body shows at least
OTHER_HUE = 0.06  # a share of one colour channel in the pixel's sum that differs from the floor's
INK_RATIO = 0.45  # a shadow keeps more of the floor's light than this; ink keeps less
SKIN_SHARE = 0.4  # of a large blob's pixels skin-coloured: a hand, not dice
TOP_SHARE = 0.85  # of the blob's light (95th percentile): the top face is lighter, its sides darker
LARGE = 3.0  # die areas: a blob this large is looked at as a possible hand


@dataclass(frozen=True)
class Body:
    """A die's top face as found: centre (x, y), side, angle in degrees (-45, 45] clockwise."""

    centre: tuple[float, float]
    side: float
    angle: float
    box: tuple[int, int, int, int]  # x, y, width, height of its pixels
    on_edge: bool  # its pixels reach the edge of the area looked at


@dataclass(frozen=True)
class Bodies:
    dice: tuple[Body, ...]
    hand: bool = False  # a large skin-coloured blob lies over the tray
    clumps: tuple[tuple[int, int, int, int], ...] = ()  # blobs too large for a die: boxes


def grey(picture: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY), np.float32)


def predicted_floor(picture: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """The empty tray's grey picture under ``picture``'s light: a gain that may slope and bend
    across the picture, fitted where both show floor (no dice, no shadow)."""
    now, before = grey(picture), grey(empty)
    small = (max(now.shape[1] // 8, 8), max(now.shape[0] // 8, 8))
    ratio = np.log(
        (cv2.resize(now, small, interpolation=cv2.INTER_AREA) + 4)
        / (cv2.resize(before, small, interpolation=cv2.INTER_AREA) + 4)
    )
    yy, xx = np.mgrid[0 : small[1], 0 : small[0]].astype(np.float32)
    terms = _terms(xx / small[0] - 0.5, yy / small[1] - 0.5)
    fit = np.full(ratio.shape, float(np.median(ratio)))
    coeffs = np.zeros(len(terms))
    coeffs[0] = float(np.median(ratio))
    # fitted twice: first near the median, then near the first fit, so that a strong slope
    # keeps the corners of the floor in the fit and dice and shadows stay out
    for band in (0.12, 0.05):
        keep = np.abs(ratio - fit) < band
        if keep.sum() <= 3 * len(terms):
            break
        design = np.stack([t[keep] for t in terms], axis=1)
        coeffs = np.linalg.lstsq(design, ratio[keep], rcond=None)[0]
        fit = sum(c * t for c, t in zip(coeffs, terms, strict=True))
    height, width = now.shape
    fy, fx = np.mgrid[0:height, 0:width].astype(np.float32)
    gain = np.exp(
        sum(c * t for c, t in zip(coeffs, _terms(fx / width - 0.5, fy / height - 0.5), strict=True))
    )
    return np.asarray(before * gain, np.float32)


def _terms(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """A smooth light across the picture: constant, slopes and curvature (a lamp's fall-off)."""
    return [np.ones_like(x), x, y, x * x, y * y, x * y]


def body_mask(picture: np.ndarray, empty: np.ndarray, side: float) -> np.ndarray:
    return body_masks(picture, empty, side)[0]


def body_masks(picture: np.ndarray, empty: np.ndarray, side: float) -> tuple[np.ndarray, np.ndarray]:
    """Where a die's body lies (uint8 0/255): brighter than the floor, or far darker than any
    shadow (ink on a light floor), then ink filled in from the body around it."""
    floor = predicted_floor(picture, empty)
    now = grey(picture)
    # brighter in any one colour: a yellow die on orange wood is hardly brighter in grey
    gain = (floor + 4) / (grey(empty) + 4)
    lift = (picture.astype(np.float32) - empty.astype(np.float32) * gain[..., None]).max(axis=2)
    # or another colour: shadow and light change how bright the floor is, not its hue
    # (the light's own colour may differ between the pictures: each channel's gain matched first)
    cast = np.median(picture.reshape(-1, 3), axis=0) / (np.median(empty.reshape(-1, 3), axis=0) + 1)
    then = empty.astype(np.float32) * (cast / cast.mean()).astype(np.float32)
    hue_now = picture.astype(np.float32) / (picture.astype(np.float32).sum(axis=2, keepdims=True) + 12)
    hue_then = then / (then.sum(axis=2, keepdims=True) + 12)
    recoloured = (np.abs(hue_now - hue_then).max(axis=2) > OTHER_HUE) & (now > 40)
    mask = ((lift > BRIGHTER) | (now < INK_RATIO * floor - 10) | recoloured).astype(np.uint8) * 255
    raw = mask.copy()
    # closed first: on a dark floor the dark ink is floor-coloured and only the die's light
    # border and white parts stand out, a thin ring that an opening would wipe away
    close = max(int(side / 4), 3)
    mask = cv2.morphologyEx(
        mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close))
    )
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    small = max(int(side / 6), 1)
    return np.asarray(cv2.morphologyEx(filled, cv2.MORPH_OPEN, np.ones((small, small), np.uint8))), raw


def find_bodies(
    picture: np.ndarray,
    empty: np.ndarray,
    side: float,
    area: tuple[int, int, int, int] | None = None,
    split: bool = True,
) -> Bodies:
    """The dice in ``area`` (x0, y0, x1, y1; the whole picture when None) of ``picture``, a tray
    whose empty picture is ``empty`` and whose dice are ``side`` pixels a side. ``split``: a blob
    of several dice' size is split into that many dice (not when the side is not known yet)."""
    height, width = picture.shape[:2]
    x0, y0, x1, y1 = area if area is not None else (0, 0, width, height)
    whole, raw = body_masks(picture, empty, side)
    if _hand_over(picture, whole, side):
        return Bodies((), hand=True)
    mask = whole[y0:y1, x0:x1]
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    die_area = side * side
    found: list[Body] = []
    clumps: list[tuple[int, int, int, int]] = []
    crop = picture[y0:y1, x0:x1]
    for label in range(1, count):
        bx, by, bw, bh, pixels = (int(v) for v in stats[label])
        if pixels < 0.35 * die_area:
            continue  # a crumb, a glint: far less than a die's face
        edge = bx <= 1 or by <= 1 or bx + bw >= x1 - x0 - 1 or by + bh >= y1 - y0 - 1
        ys, xs = np.nonzero(labels == label)
        # the floor the closing took in is no face: only pixels that differ from it are lit
        light = np.where(raw[y0:y1, x0:x1][ys, xs] > 0, grey(crop)[ys, xs], 0.0)
        parts = max(round(_faces_area(xs - bx, ys - by, light, (bh, bw), side) / die_area), 1) if split else 1
        if parts > 1:
            clumps.append((bx + x0, by + y0, bw, bh))
        points = np.stack([xs, ys], axis=1).astype(np.float32)
        for part in _split(np.concatenate([points, light[:, None]], axis=1), parts):
            found.append(_body(part, x0, y0, edge))
    found.sort(key=lambda b: (b.centre[0], b.centre[1]))
    return Bodies(tuple(found), False, tuple(clumps))


def _faces_area(
    xs: np.ndarray, ys: np.ndarray, light: np.ndarray, shape: tuple[int, int], side: float
) -> int:
    """The area of a blob's top faces, ink and all: how many dice it holds, when divided by a
    die's. The side faces a slant shows are left out: they would make two dice look like three."""
    top = np.zeros(shape, np.uint8)
    lit = light > TOP_SHARE * np.percentile(light, 95)
    top[ys[lit], xs[lit]] = 255
    close = max(int(side / 4), 3)
    shut = cv2.morphologyEx(
        top, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close))
    )
    contours, _ = cv2.findContours(shut, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return int(sum(cv2.contourArea(c) for c in contours))


def _split(points: np.ndarray, parts: int) -> list[np.ndarray]:
    """A blob of ``parts`` dice pressed together, split by where its pixels lie (k-means on
    x and y; each row of ``points`` is x, y and more)."""
    if parts == 1 or len(points) < parts * 4:
        return [points]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    _, labels, _ = cv2.kmeans(
        np.ascontiguousarray(points[:, :2]), parts, None, criteria, 3, cv2.KMEANS_PP_CENTERS
    )  # type: ignore[call-overload]
    labels = labels.ravel()
    return [points[labels == k] for k in range(parts)]


def _body(part: np.ndarray, x0: int, y0: int, edge: bool) -> Body:
    """A die from its blob's pixels (x, y, grey): its top face is the hull of the pixels about
    as light as its lightest (the side faces a slant shows are in shade; ink lies inside)."""
    points, light = part[:, :2], part[:, 2]
    top = points[light > TOP_SHARE * np.percentile(light, 95)]
    if len(top) >= 12:
        points = top
    (cx, cy), (w, h), angle = cv2.minAreaRect(points)
    angle = float(angle) % 90.0
    if angle > 45.0:
        angle -= 90.0
    xs, ys = points[:, 0], points[:, 1]
    box = (int(xs.min()) + x0, int(ys.min()) + y0, int(xs.max() - xs.min()) + 1, int(ys.max() - ys.min()) + 1)
    return Body((float(cx) + x0, float(cy) + y0), float(min(w, h) + max(w, h)) / 2, angle, box, edge)


def _hand_over(picture: np.ndarray, mask: np.ndarray, side: float) -> bool:
    """A large skin-coloured blob that reaches in from the picture's edge: a hand, as an arm
    comes from outside the picture. Looked for in the whole picture, since a hand reaches across
    the tray's parts; a city of ivory dice is skin-coloured too, but lies inside the picture."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    height, width = mask.shape
    for label in range(1, count):
        bx, by, bw, bh, pixels = (int(v) for v in stats[label])
        if pixels < LARGE * side * side:
            continue
        edge = bx <= 1 or by <= 1 or bx + bw >= width - 1 or by + bh >= height - 1
        if edge and _skin_share(picture[labels == label]) > SKIN_SHARE:
            return True
    return False


def _skin_share(pixels: np.ndarray) -> float:
    """The share of BGR ``pixels`` (N, 3) in the usual skin range of YCrCb."""
    ycc = cv2.cvtColor(pixels.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2YCrCb).reshape(-1, 3)
    cr, cb = ycc[:, 1].astype(int), ycc[:, 2].astype(int)
    skin = (cr > 135) & (cr < 180) & (cb > 80) & (cb < 130)
    return float(skin.mean()) if len(skin) else 0.0


def die_square(picture: np.ndarray, body: Body, px: int, margin: int) -> np.ndarray:
    """The die's top face turned square to the picture (grey, ``px`` a side) with ``margin``
    pixels more on each side, so that a reader may look for the face around where it was found."""
    scale = px / body.side
    out = px + 2 * margin
    matrix = cv2.getRotationMatrix2D(body.centre, body.angle, scale)
    matrix[0, 2] += out / 2 - body.centre[0]
    matrix[1, 2] += out / 2 - body.centre[1]
    square = cv2.warpAffine(
        grey(picture), matrix, (out, out), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(square, np.float32)


@dataclass(frozen=True)
class Grid:
    """Dice laid edge to edge on a grid: its angle, and each occupied cell's centre."""

    angle: float
    cells: dict[tuple[int, int], tuple[float, float]]


def grid_of(picture: np.ndarray, empty: np.ndarray, side: float, area: tuple[int, int, int, int]) -> Grid:
    """The grid that dice pressed edge to edge make in ``area``: its angle (from the top faces'
    outline, within a quarter turn) and which cells hold a die. Cells count from the grid's
    top-left die; a cell holds a die when over half of it is a die's body."""
    x0, y0, x1, y1 = area
    whole, raw = body_masks(picture, empty, side)
    mask, raw = whole[y0:y1, x0:x1], raw[y0:y1, x0:x1]
    light = np.where(raw > 0, grey(picture[y0:y1, x0:x1]), 0.0)
    if not mask.any():
        return Grid(0.0, {})
    # each blob's top faces against its own light: the light may slope across the area
    count, labels = cv2.connectedComponents(mask)
    top = np.zeros(mask.shape, bool)
    for label in range(1, count):
        inside = labels == label
        top |= inside & (light > TOP_SHARE * np.percentile(light[inside], 95))
    angle = _edge_angle(mask)
    centre = ((x1 - x0) / 2, (y1 - y0) / 2)
    turn = cv2.getRotationMatrix2D(centre, angle, 1.0)
    size = (x1 - x0, y1 - y0)
    # where the grid starts and its pitch: from the top faces (a slant adds the side faces'
    # strip to the bodies); whether a cell holds a die: from the bodies, ink and all
    faces = cv2.warpAffine(top.astype(np.uint8) * 255, turn, size, flags=cv2.INTER_NEAREST)
    upright = cv2.warpAffine(mask, turn, size, flags=cv2.INTER_NEAREST)
    ys, xs = np.nonzero(faces)
    if not len(xs):
        return Grid(angle, {})
    left, high = float(xs.min()), float(ys.min())
    # the grid's pitch from the city's own width and height: dice are laid with small gaps, and
    # a side off by a few pixels would add up across the city
    columns = max(round((xs.max() + 1 - left) / side), 1)
    rows = max(round((ys.max() + 1 - high) / side), 1)
    across, down = (xs.max() + 1 - left) / columns, (ys.max() + 1 - high) / rows
    back = cv2.invertAffineTransform(turn)
    cells: dict[tuple[int, int], tuple[float, float]] = {}
    for j in range(rows):
        for i in range(columns):
            cx0, cy0 = int(left + i * across), int(high + j * down)
            patch = upright[cy0 : int(cy0 + down), cx0 : int(cx0 + across)]
            if patch.size and (patch > 0).sum() > 0.5 * across * down:
                mid = np.array([left + (i + 0.5) * across, high + (j + 0.5) * down, 1.0])
                px, py = back @ mid
                cells[(i, j)] = (float(px) + x0, float(py) + y0)
    return Grid(angle, cells)


def _edge_angle(mask: np.ndarray) -> float:
    """The direction of a mask's outline, modulo a quarter turn, in degrees (-45, 45]: the
    gradients of the softened mask, each direction taken four times round so that the four
    sides of a square agree, summed by strength."""
    soft = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 1.5)
    gx = cv2.Sobel(soft, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(soft, cv2.CV_32F, 0, 1)
    strength = gx * gx + gy * gy
    four = 4.0 * np.arctan2(gy, gx)
    total = complex(float((strength * np.cos(four)).sum()), float((strength * np.sin(four)).sum()))
    angle = float(np.degrees(np.angle(total))) / 4.0
    return angle + 90.0 if angle <= -45.0 else angle
