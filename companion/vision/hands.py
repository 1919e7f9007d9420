"""Whether a hand is over a tray in one still picture, by its shape, not its colour.

A tray's wooden frame, a box lid's art and an orange die can all have the colour of skin; what
tells a hand apart is that it reaches in from outside the tray (from the picture's edge, or
over the frame), that it is large and thick next to a die, and that it has fingers. So:

1. The floor is the tray's commonest colour; whatever differs from it, dice aside, may be more.
2. Rows or columns near a side that are nearly all such (the frame, its wall, the shadow the
   wall casts) are outside the floor: the floor's edge moves in past them.
3. Of what differs from the floor, the part in a wide range of skin tones is looked at (a first
   sieve only: wood passes it too). A hand is a region of it that reaches the floor's edge, is
   no strip along a side, takes a hand's share of the picture, has a palm (a part a palm-wide
   disc fits in, reaching the edge) and at least two fingers (long, finger-wide pieces beside
   the palm whose tips lie inside the floor).

The trays' flow sees motion as well (companion/table/trays.py): a hand moving over a tray is
seen by the vibration sensor and the frames long before it is still.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

# Skin in YCrCb, wide (light to dark skin under warm or cold light): only a first sieve, since
# wood, card and orange dice pass it too; the floor's colour and the shape decide.
SKIN_LOW, SKIN_HIGH = (40, 138, 77), (255, 175, 122)
# Pictures are judged at this long side: a finger is still a few pixels wide.
WORK_PX = 240
# A region's colour differs from the floor's by this much (Lab; lightness counts half, so that
# light falling off across the floor is not a region).
FLOOR_DISTANCE = 22.0
LIGHTNESS = 0.35
# A row or column this full of regions, from the picture's edge inwards, is the frame's band.
BAND_FULL = 0.8
BAND_DEEPEST = 0.3  # of the picture's side, at most
STRIP = 0.8  # a region this long along the floor's side is a strip of frame, not a hand
# A hand: between these shares of the picture, and at least HAND_DICE dice big.
HAND_SHARE = (0.03, 0.6)
HAND_DICE = 3.0
# A palm is at least this thick (the radius of the largest disc inside, of the short side).
PALM = 0.04
PALM_SHARE = 0.015  # and the part that thick takes at least this share of the picture
# Fingers: at least FINGERS pieces beside the palm, each FINGER_WIDTH wide (of the short side)
# and FINGER_LENGTH times as long as it is wide.
FINGERS = 2
FINGER_WIDTH = (0.025, 0.1)
FINGER_LENGTH = 1.5


def hand_over(picture: np.ndarray, dice: Sequence[tuple[int, int, int, int]]) -> bool:
    """Whether a hand is over the tray in a BGR ``picture`` whose dice read (x, y, w, h boxes)
    are ``dice``: those are never part of a hand, and a hand is far bigger than the middle one."""
    height, width = picture.shape[:2]
    factor = min(1.0, WORK_PX / max(height, width))
    small = (
        cv2.resize(picture, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        if factor < 1
        else picture
    )
    small = cv2.GaussianBlur(small, (0, 0), 1.0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    mask = _not_floor(lab)
    x0, y0, x1, y1 = _inside_bands(mask)  # the frame, its wall and shadow differ from the floor
    mask &= cv2.inRange(cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb), SKIN_LOW, SKIN_HIGH)
    for x, y, w, h in dice:  # a die and its shadow are not a hand
        cx, cy, r = (x + w / 2) * factor, (y + h / 2) * factor, max(w, h) * factor * 0.9
        cv2.rectangle(mask, (int(cx - r), int(cy - r)), (int(cx + r), int(cy + r)), 0, -1)
    # a cable or a crack is thinner than a finger
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return False
    inner = np.zeros_like(mask)
    inner[y0:y1, x0:x1] = mask[y0:y1, x0:x1]
    count, labels, stats, _ = cv2.connectedComponentsWithStats(inner)
    short = min(mask.shape)
    die_area = float(np.median([w * h for _, _, w, h in dice])) * factor * factor if dice else 0.0
    for k in range(1, count):
        left, top, w, h, area = (int(v) for v in stats[k])
        share = area / mask.size
        if not (HAND_SHARE[0] < share < HAND_SHARE[1] and area > HAND_DICE * die_area):
            continue
        if not (left <= x0 + 1 or top <= y0 + 1 or left + w >= x1 - 1 or top + h >= y1 - 1):
            continue  # it lies inside the tray: a hand reaches in from outside it
        if w > STRIP * (x1 - x0) or h > STRIP * (y1 - y0):
            continue  # a strip along a side of the tray: its frame or the shadow of its wall
        region = (labels == k).astype(np.uint8)
        if cv2.distanceTransform(region, cv2.DIST_L2, 5).max() < PALM * short:
            continue  # thin: a cable, a pencil, a strip of shadow
        if _fingers(region, short, (x0, y0, x1, y1)):
            return True
    return False


def _not_floor(lab: np.ndarray) -> np.ndarray:
    """What differs from the floor: the floor's colour is the commonest (coarsely) in the
    middle of the picture, where the tray's floor lies."""
    height, width = lab.shape[:2]
    middle = lab[height // 5 : height - height // 5, width // 5 : width - width // 5].reshape(-1, 3)
    bins = (middle // np.array([24.0, 8.0, 8.0], np.float32)).astype(np.int32)
    keys = bins[:, 0] * 10_000 + bins[:, 1] * 100 + bins[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    floor = np.median(middle[keys == values[int(np.argmax(counts))]], axis=0)
    weight = np.array([LIGHTNESS, 1.0, 1.0], np.float32)
    distance = np.sqrt((((lab - floor) * weight) ** 2).sum(axis=2))
    return np.asarray((distance > FLOOR_DISTANCE).astype(np.uint8) * 255)


def _inside_bands(mask: np.ndarray) -> tuple[int, int, int, int]:
    """The floor's rectangle: each side moved in past the rows (columns) near it that are
    nearly all region, as a frame's are."""
    full = mask > 0
    rows, cols = full.mean(axis=1), full.mean(axis=0)
    height, width = mask.shape

    def depth(line: np.ndarray, deepest: int) -> int:
        # past the innermost full row near the side: a frame's outer rim may match the floor
        full_rows = np.flatnonzero(line[:deepest] >= BAND_FULL)
        return int(full_rows.max()) + 1 if len(full_rows) else 0

    top = depth(rows, int(height * BAND_DEEPEST))
    bottom = height - depth(rows[::-1], int(height * BAND_DEEPEST))
    left = depth(cols, int(width * BAND_DEEPEST))
    right = width - depth(cols[::-1], int(width * BAND_DEEPEST))
    return left, top, right, bottom


def _fingers(region: np.ndarray, short: int, floor: tuple[int, int, int, int]) -> bool:
    """Whether the region is an arm and palm reaching in over the floor's edge, with fingers:
    what a palm-wide disc cannot reach, beside the palm, falls into at least FINGERS long,
    finger-wide pieces whose tips lie inside the floor (a cable or a frame's strip runs on out
    of it)."""
    radius = max(2, int(PALM * short))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    palm = cv2.morphologyEx(region, cv2.MORPH_OPEN, disc)
    if palm.sum() < PALM_SHARE * palm.size or not _touches(palm, floor):
        return False
    near_palm = cv2.dilate(palm, np.ones((5, 5), np.uint8))
    rest = region & (1 - cv2.dilate(palm, np.ones((3, 3), np.uint8)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(rest)
    fingers = 0
    for k in range(1, count):
        piece = (labels == k).astype(np.uint8)
        area = int(stats[k, cv2.CC_STAT_AREA])
        width = 2 * float(cv2.distanceTransform(piece, cv2.DIST_L2, 3).max())
        if not (FINGER_WIDTH[0] * short <= width <= FINGER_WIDTH[1] * short):
            continue
        if area / max(width, 1.0) < FINGER_LENGTH * width:
            continue  # a stub, not a finger
        if (piece & near_palm).any() and not _touches(piece, floor):
            fingers += 1
    return fingers >= FINGERS


def _touches(part: np.ndarray, floor: tuple[int, int, int, int]) -> bool:
    """Whether ``part`` reaches the floor's edge (within 2 pixels)."""
    x0, y0, x1, y1 = floor
    return bool(
        part[y0 : y0 + 2, x0:x1].any()
        or part[y1 - 2 : y1, x0:x1].any()
        or part[y0:y1, x0 : x0 + 2].any()
        or part[y0:y1, x1 - 2 : x1].any()
    )
