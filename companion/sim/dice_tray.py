"""Rendered dice trays: six-sided pip dice of several colours on a tray, seen from above.

The pictures train and test the dice reader beside the real photographs, which show only white
dice on one wooden desk. Each die is a cube seen by a camera straight above the tray: its top
face, and the side faces that lean towards the camera's axis (the farther from the centre of
the picture, the more of them shows), each drawn from a face texture with its pips. A cocked
die leans on another or on the tray's wall: two of its faces show, both foreshortened, and it
has no value. Light, noise, blur and JPEG vary by the seed.

Every die carries its labels in the shared photographs' convention (``read_box``: the box
around the pips of the top face, which is what their labels draw) and the box of its whole
body (``body``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.sim import tray_parts

BGR = tuple[int, int, int]

# Body colour -> (a typical BGR, the pip colours it is sold with); names as the reader gives them.
DIE_COLOURS: dict[str, tuple[BGR, tuple[BGR, ...]]] = {
    "red": ((38, 38, 200), ((245, 245, 245), (30, 30, 30))),
    "green": ((60, 150, 30), ((245, 245, 245), (30, 30, 30))),
    "white": ((236, 238, 240), ((25, 25, 25), (40, 40, 160))),
    "black": ((35, 35, 38), ((245, 245, 245),)),
    "blue": ((170, 80, 30), ((245, 245, 245),)),
    "yellow": ((40, 210, 235), ((25, 25, 25),)),
    "orange": ((30, 120, 240), ((245, 245, 245), (25, 25, 25))),
    "ivory": ((200, 228, 238), ((25, 25, 25),)),
}

# Pip centres on a unit face, by value (the 2, 3 and 6 as they lie when the texture is upright).
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}

TEXTURE_PX = 96


@dataclass(frozen=True)
class RenderedDie:
    value: int | None  # None for a cocked die
    read_box: tuple[int, int, int, int]  # x, y, w, h around the top face's pips (the body, if cocked)
    body: tuple[int, int, int, int]  # x, y, w, h of everything of the die that shows
    centre: tuple[float, float]  # the top face's centre (the body's, if cocked)
    colour: str
    cut: bool = False  # partly outside the picture


@dataclass
class RenderedTray:
    image: np.ndarray  # BGR uint8
    dice: list[RenderedDie] = field(default_factory=list)
    hand: np.ndarray | None = None  # uint8 mask of a hand, when one reaches in
    blur: float = 0.0  # the sigma of the Gaussian blur applied, in pixels


def face_texture(value: int, body: BGR, pip: BGR, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A face of ``value`` as a TEXTURE_PX square: the picture and its mask (rounded corners)."""
    n = TEXTURE_PX
    image = np.empty((n, n, 3), np.float32)
    image[:] = body
    # a slight dome of light across the face, as a rounded face catches it
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
    image *= (1.0 - 0.12 * (xx**2 + yy**2) * rng.uniform(0, 2))[..., None]
    radius = rng.uniform(0.075, 0.11) * n
    for px, py in PIPS[value]:
        jitter = rng.normal(0, 0.008, 2) * n
        cv2.circle(
            image, (int(px * n + jitter[0]), int(py * n + jitter[1])), int(radius), pip, -1, cv2.LINE_AA
        )
    mask = np.zeros((n, n), np.uint8)
    corner = int(rng.uniform(0.08, 0.2) * n)
    cv2.rectangle(mask, (corner, 0), (n - 1 - corner, n - 1), 255, -1)
    cv2.rectangle(mask, (0, corner), (n - 1, n - 1 - corner), 255, -1)
    for cx, cy in (
        (corner, corner),
        (n - 1 - corner, corner),
        (corner, n - 1 - corner),
        (n - 1 - corner, n - 1 - corner),
    ):
        cv2.circle(mask, (cx, cy), corner, 255, -1, cv2.LINE_AA)
    return image, mask


def _paste(canvas: np.ndarray, texture: np.ndarray, mask: np.ndarray, quad: np.ndarray, shade: float) -> None:
    """Warp ``texture`` onto the four image points ``quad`` (top-left, top-right, bottom-right,
    bottom-left), darkened by ``shade``, inside the canvas only."""
    h, w = canvas.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    n = TEXTURE_PX
    source = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, (quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(texture * shade, matrix, size, flags=cv2.INTER_LINEAR)
    alpha = (
        cv2.warpPerspective(mask, matrix, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    )
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1 - alpha) + warped * alpha


def _square(centre: np.ndarray, side: float, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    corners = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * side
    return np.asarray(corners @ np.array([[c, s], [-s, c]]) + centre, np.float64)


def _box(points: np.ndarray) -> tuple[int, int, int, int]:
    x0, y0 = np.floor(points.min(axis=0))
    x1, y1 = np.ceil(points.max(axis=0))
    return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


def _clip(box: tuple[int, int, int, int], width: int, height: int) -> tuple[int, int, int, int]:
    x, y, w, h = box
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, width), min(y + h, height)
    return x0, y0, max(x1 - x0, 0), max(y1 - y0, 0)


def _tray(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A tray floor: wood grain, felt or plain card, in a random colour."""
    kind = rng.choice(["wood", "felt", "plain"], p=[0.35, 0.45, 0.2])
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if kind == "wood":
        base = np.array(
            rng.choice([(150, 190, 215), (120, 160, 200), (70, 105, 150), (175, 200, 210)]), np.float32
        )
        angle = rng.uniform(0, math.pi)
        along = xx * math.cos(angle) + yy * math.sin(angle)
        across = -xx * math.sin(angle) + yy * math.cos(angle)
        wobble = 8 * np.sin(along / rng.uniform(60, 200) + rng.uniform(0, 6))
        grain = np.sin((across + wobble) / rng.uniform(3, 9)) * 0.5 + np.sin(
            (across + 2 * wobble) / rng.uniform(10, 25)
        )
        image = base * (1 + 0.05 * grain[..., None] * rng.uniform(0.3, 1.5))
    else:
        if kind == "felt":
            base = np.array(
                rng.choice(
                    [(40, 110, 30), (110, 60, 20), (30, 30, 140), (40, 40, 40), (90, 90, 90), (60, 30, 70)]
                ),
                np.float32,
            )
        else:
            base = np.array(rng.uniform(120, 240, 3), np.float32)
        base = (base * rng.uniform(0.8, 1.2, 3)).astype(np.float32)
        image = np.broadcast_to(base, (height, width, 3)).copy()
        fibre = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 1.2)
        image *= 1 + 0.08 * fibre[..., None]
    return np.asarray(image, np.float32)


def _distractors(canvas: np.ndarray, rng: np.random.Generator) -> None:
    """Things that lie about a real table and are not dice: a cable, a token, a card's corner."""
    h, w = canvas.shape[:2]
    for _ in range(rng.integers(0, 3)):
        kind = rng.integers(0, 3)
        colour = tuple(float(c) for c in rng.uniform(10, 200, 3))
        if kind == 0:  # a cable: a thick dark curve
            points = np.cumsum(rng.normal(0, 40, (6, 2)), axis=0) + rng.uniform(0, [w, h])
            cv2.polylines(
                canvas, [points.astype(np.int32)], False, (30, 30, 30), int(rng.integers(4, 12)), cv2.LINE_AA
            )
        elif kind == 1:  # a round token
            centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            cv2.circle(canvas, centre, int(rng.uniform(8, 30)), colour, -1, cv2.LINE_AA)
        else:  # a card or a device at the edge
            x, y = int(rng.uniform(-w / 4, w)), int(rng.uniform(-h / 4, h))
            cv2.rectangle(
                canvas, (x, y), (x + int(rng.uniform(60, 250)), y + int(rng.uniform(40, 200))), colour, -1
            )


def _hand(canvas: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A hand reaching in from an edge: palm and fingers in a skin tone, shaded; its mask."""
    h, w = canvas.shape[:2]
    tone = np.array(
        rng.choice([(165, 190, 235), (140, 170, 225), (110, 145, 200), (75, 105, 160), (50, 75, 120)]),
        np.float32,
    )
    tone = tone * rng.uniform(0.85, 1.15)
    mask = np.zeros((h, w), np.uint8)
    edge = rng.integers(0, 4)
    scale = rng.uniform(0.25, 0.45) * min(h, w)
    # the wrist on the edge, the palm inside, fingers pointing inwards
    along = rng.uniform(0.2, 0.8)
    starts = {0: (along * w, 0.0), 1: (float(w), along * h), 2: (along * w, float(h)), 3: (0.0, along * h)}
    inward = {0: (0.0, 1.0), 1: (-1.0, 0.0), 2: (0.0, -1.0), 3: (1.0, 0.0)}
    start = np.array(starts[int(edge)])
    turn = rng.uniform(-0.5, 0.5)
    direction = np.array(inward[int(edge)]) @ np.array(
        [[math.cos(turn), math.sin(turn)], [-math.sin(turn), math.cos(turn)]]
    )
    palm = start + direction * scale * rng.uniform(0.6, 1.1)
    cv2.line(mask, tuple(start.astype(int)), tuple(palm.astype(int)), 255, int(scale * 0.7))
    cv2.ellipse(mask, tuple(palm.astype(int)), (int(scale * 0.5), int(scale * 0.45)), 0, 0, 360, 255, -1)
    side = np.array([-direction[1], direction[0]])
    for k in range(int(rng.integers(2, 6))):
        base = palm + side * scale * (k - 1.5) * 0.22 + direction * scale * 0.3
        tip = base + (direction + side * rng.normal(0, 0.2)) * scale * rng.uniform(0.5, 0.9)
        cv2.line(mask, tuple(base.astype(int)), tuple(tip.astype(int)), 255, int(scale * 0.16), cv2.LINE_AA)
    soft = cv2.GaussianBlur(mask, (0, 0), 2).astype(np.float32)[..., None] / 255
    shading = cv2.GaussianBlur(mask, (0, 0), scale / 6).astype(np.float32)[..., None] / 255
    skin = tone * (0.7 + 0.35 * shading) * (1 + 0.04 * rng.normal(0, 1, (h, w, 1)).astype(np.float32))
    canvas[:] = canvas * (1 - soft) + skin * soft
    return mask


def render_tray(
    seed: int,
    size: tuple[int, int] = (480, 640),
    dice: int | None = None,
    colours: tuple[str, ...] | None = None,
    cocked: float = 0.08,
    cut: bool = False,
    hand: bool = False,
    blur: float | None = None,
    tray: str | None = None,
    top_down: bool = False,
    hard: bool = False,
    die_px: tuple[float, float] | None = None,
) -> RenderedTray:
    """A picture of a tray (``size`` = height, width) with ``dice`` dice (random when None, 0 to
    6) of ``colours`` (random when None); each die is cocked with the chance ``cocked``; ``cut``
    puts one die half out of the picture; ``hand`` adds a hand; ``blur`` sets the blur's sigma
    (random and slight when None). ``tray`` (one of tray_parts.TRAY_KINDS) gives the tray that
    floor and a frame round it; ``top_down`` a camera straight above; ``hard`` a small strong
    light: hard shadows and uneven light; ``die_px`` the range of the dice's side in pixels.
    Left out, these draw nothing from the seed's stream: older seeds render as they did."""
    rng = np.random.default_rng(seed)
    height, width = size
    count = int(rng.integers(0, 7)) if dice is None else dice
    names = colours or tuple(DIE_COLOURS)
    canvas = _tray(rng, height, width) if tray is None else tray_parts.floor(tray, rng, height, width)
    inside = (0, 0, width, height)
    sun = None
    if tray is not None or hard:
        towards_light = rng.uniform(0, 2 * math.pi)
        sun = np.array([math.cos(towards_light), math.sin(towards_light)])  # the way the light falls
    if tray is not None:
        assert sun is not None
        inside = tray_parts.frame(canvas, rng, tray, sun)
        if hard:
            length, dark = rng.uniform(0.02, 0.07) * min(height, width), rng.uniform(0.3, 0.6)
            tray_parts.cast_by_frame(canvas, inside, sun, length, dark)
    if rng.random() < 0.4 and tray is None:
        _distractors(canvas, rng)
    side = rng.uniform(0.045, 0.15) * min(height, width)
    if die_px is not None:
        side = rng.uniform(*die_px)
    centre_of_view = np.array([width / 2, height / 2]) + rng.normal(0, 30, 2)
    lean = rng.uniform(0.0, 0.07)  # how much side face shows per pixel from the view's centre
    # a camera that looks at the tray at a slant (as the shared photographs do): every top face
    # is shortened along the slant and the face towards the camera shows below it
    slant = rng.uniform(0, 0.26) if rng.random() < 0.5 else rng.uniform(0.3, 0.85)
    if top_down:
        slant = 0.0
    towards = rng.uniform(0, 2 * math.pi)
    camera = (slant, np.array([math.cos(towards), math.sin(towards)]))
    placed: list[tuple[np.ndarray, float]] = []
    result = RenderedTray(np.zeros(0))
    for index in range(count):
        die_side = side * rng.uniform(0.9, 1.1)
        reach = die_side * 0.9
        for _attempt in range(60):
            if cut and index == 0:
                # the die's centre just outside an edge, so that a fifth to a half of it shows
                c = rng.uniform([reach, reach], [width - reach, height - reach])
                outside = die_side * (0.5 - rng.uniform(0.2, 0.45))
                edge = int(rng.integers(0, 4))
                axis, limit = edge % 2, (width, height)[edge % 2]
                c[axis] = -outside if edge < 2 else limit + outside
            else:
                x0, y0, x1, y1 = inside
                c = rng.uniform(
                    [x0 + reach, y0 + reach],
                    [max(x1 - reach, x0 + reach + 1), max(y1 - reach, y0 + reach + 1)],
                )
            if all(np.hypot(*(c - p)) > (r + die_side) * 0.85 for p, r in placed):
                break
        else:
            continue
        placed.append((c, die_side))
        colour = str(rng.choice(names))
        die = _draw_die(
            canvas,
            rng,
            c,
            die_side,
            colour,
            (centre_of_view, lean, camera),
            rng.random() < cocked,
            sun if hard else None,
        )
        result.dice.append(
            RenderedDie(
                die.value,
                _clip(die.read_box, width, height),
                _clip(die.body, width, height),
                die.centre,
                colour,
                cut=cut and index == 0,
            )
        )
    if hand:
        result.hand = _hand(canvas, rng)
    # light: gain, colour of the light, a gradient across the tray, a vignette
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    slope = rng.normal(0, 0.35, 2)
    gradient = 1 + slope[0] * (xx / width - 0.5) + slope[1] * (yy / height - 0.5)
    vignette = (
        1 - rng.uniform(0, 0.35) * (((xx - width / 2) / width) ** 2 + ((yy - height / 2) / height) ** 2) * 2
    )
    light = rng.uniform(0.6, 1.25) * rng.uniform(0.85, 1.15, 3)
    canvas = canvas * (gradient * vignette)[..., None] * light
    if hard:
        canvas = canvas * tray_parts.uneven_light(rng, height, width)[..., None]
    sigma = float(rng.uniform(0, 1.0) if blur is None else blur)
    if sigma > 0.05:
        canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
    canvas = canvas + rng.normal(0, rng.uniform(1, 6), canvas.shape).astype(np.float32)
    image = np.clip(canvas, 0, 255).astype(np.uint8)
    quality = int(rng.integers(60, 96))
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    result.image = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR)) if ok else image
    result.blur = sigma
    return result


def _draw_die(
    canvas: np.ndarray,
    rng: np.random.Generator,
    centre: np.ndarray,
    side: float,
    colour: str,
    view: tuple[np.ndarray, float, tuple[float, np.ndarray]],
    cocked: bool,
    sun: np.ndarray | None = None,
) -> RenderedDie:
    body_bgr, pip_choices = DIE_COLOURS[colour]
    b, g, r = (int(np.clip(c * rng.uniform(0.85, 1.12), 0, 255)) for c in body_bgr)
    body: BGR = (b, g, r)
    pip = pip_choices[int(rng.integers(0, len(pip_choices)))]
    value = int(rng.integers(1, 7))
    angle = rng.uniform(0, 2 * math.pi)
    top_shade = rng.uniform(0.9, 1.05)
    if sun is not None:
        # a small strong light: the die's footprint swept away from it, sharp-edged
        reach = side * rng.uniform(0.3, 1.4)
        tray_parts.hard_shadow(canvas, _square(centre, side, angle), sun * reach, rng.uniform(0.35, 0.65))
    else:
        # a soft shadow under the die, away from the light
        shadow = np.zeros(canvas.shape[:2], np.float32)
        offset = rng.normal(0, 0.12, 2) * side
        cv2.circle(shadow, tuple((centre + offset).astype(int)), int(side * 0.62), 1.0, -1)
        shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), side * 0.12 + 1), np.float32)
        canvas *= (1 - rng.uniform(0.2, 0.5) * shadow)[..., None]
    if cocked:
        return _draw_cocked(canvas, rng, centre, side, colour, body, pip, angle)
    # the top face sits nearer the camera than the base: the base appears shifted towards the
    # centre of the view, and the side faces between them show
    nadir, lean, (slant, towards) = view
    top = _square(centre, side, angle)
    along = (top - centre) @ towards
    top = top - (1 - math.cos(slant)) * along[:, None] * towards
    shift = np.clip((nadir - centre) * lean, -side * 0.4, side * 0.4) + towards * side * math.sin(slant)
    base = top + shift
    for k in range(4):
        a, b = top[k], top[(k + 1) % 4]
        normal = np.array([b[1] - a[1], a[0] - b[0]])  # outward for clockwise corners in image space
        if normal @ shift <= 0:
            continue
        texture, mask = face_texture(int(rng.integers(1, 7)), body, pip, rng)
        quad = np.array([a, b, b + shift, a + shift])
        _paste(canvas, texture, mask, quad, rng.uniform(0.55, 0.85))
    texture, mask = face_texture(value, body, pip, rng)
    _paste(canvas, texture, mask, top, top_shade)
    pips = _pip_extent(value, top)
    return RenderedDie(
        value, _box(pips), _box(np.vstack([top, base])), (float(centre[0]), float(centre[1])), colour
    )


def _pip_extent(value: int, quad: np.ndarray) -> np.ndarray:
    """The image points around the pips of ``value`` on the face ``quad``: what a label draws."""
    n = TEXTURE_PX
    source = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, quad.astype(np.float32))
    r = 0.13
    points = [(px + dx, py + dy) for px, py in PIPS[value] for dx in (-r, r) for dy in (-r, r)]
    unit = np.array(points, np.float32).reshape(-1, 1, 2) * n
    return np.asarray(cv2.perspectiveTransform(unit, matrix).reshape(-1, 2), np.float64)


def _draw_cocked(
    canvas: np.ndarray,
    rng: np.random.Generator,
    centre: np.ndarray,
    side: float,
    colour: str,
    body: BGR,
    pip: BGR,
    angle: float,
) -> RenderedDie:
    """A die leaning about 25-65 degrees: two faces show, each foreshortened, neither on top."""
    tilt = rng.uniform(math.radians(25), math.radians(65))
    along = np.array([math.cos(angle), math.sin(angle)])
    across = np.array([-along[1], along[0]])
    first, second = side * math.cos(tilt), side * math.sin(tilt)
    # the two faces meet along one edge through the centre of the die's outline
    ridge = centre + across * (first - second) / 2
    a, b = ridge - along * side / 2, ridge + along * side / 2
    faces = [
        np.array([a - across * first, b - across * first, b, a]),
        np.array([a, b, b + across * second, a + across * second]),
    ]
    for quad, shade in zip(faces, (rng.uniform(0.8, 1.0), rng.uniform(0.6, 0.9)), strict=True):
        texture, mask = face_texture(int(rng.integers(1, 7)), body, pip, rng)
        _paste(canvas, texture, mask, quad, shade)
    outline = np.vstack(faces)
    box = _box(outline)
    middle = outline.mean(axis=0)
    return RenderedDie(None, box, box, (float(middle[0]), float(middle[1])), colour)
