"""The rectified view with what was read drawn on it: the scoreboard's camera picture, and a
score's evidence (the part of the table that was counted, outlined)."""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from companion.games.base import Cell
from companion.vision.lattice import Lattice
from companion.vision.mat import TILE_PX

READ, ASK = (80, 200, 80), (0, 170, 255)


def annotate(
    view: np.ndarray, lattice: Lattice | None, tiles: Iterable[Cell], asking: Iterable[Cell]
) -> bytes:
    """JPEG of ``view`` with each known tile framed green and each cell awaiting a person orange."""
    picture = view.copy()
    half = TILE_PX // 2
    if lattice is not None:
        for cells, colour, width in ((tiles, READ, 1), (asking, ASK, 3)):
            for cell in cells:
                x, y = lattice.centre(cell)
                cv2.rectangle(
                    picture,
                    (round(x) - half, round(y) - half),
                    (round(x) + half, round(y) + half),
                    colour,
                    width,
                )
    ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise ValueError("could not encode the camera view")
    return bytes(data)


# A score's picture: the counted tiles outlined, the rest of the table dimmed a little, and the
# picture at least this many tiles across, so that a small feature is seen among its neighbours.
COUNTED = (0, 140, 255)
AROUND_TILES = 1.0  # tiles of table kept round the counted ones
SCALE = 2  # the rectified view has 48 px a tile; a phone shows the picture larger, sharper so


def score_picture(view: np.ndarray, lattice: Lattice, cells: Iterable[Cell], quality: int = 75) -> bytes:
    """JPEG of the part of ``view`` round ``cells``, each counted tile outlined."""
    cells = list(cells)
    centres = np.array([lattice.centre(cell) for cell in cells], np.float32)
    half = TILE_PX * (0.5 + AROUND_TILES)
    height, width = view.shape[:2]
    left = max(0, int(centres[:, 0].min() - half))
    top = max(0, int(centres[:, 1].min() - half))
    right = min(width, int(np.ceil(centres[:, 0].max() + half)))
    bottom = min(height, int(np.ceil(centres[:, 1].max() + half)))
    part = cv2.resize(view[top:bottom, left:right], None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_CUBIC)
    dimmed = (part * 0.6).astype(np.uint8)
    mask = np.zeros(part.shape[:2], np.uint8)
    edge = TILE_PX // 2 * SCALE
    for x, y in centres:
        cx, cy = round((x - left) * SCALE), round((y - top) * SCALE)
        cv2.rectangle(mask, (cx - edge, cy - edge), (cx + edge, cy + edge), 255, -1)
    picture = np.where(mask[:, :, None] > 0, part, dimmed)
    for x, y in centres:
        cx, cy = round((x - left) * SCALE), round((y - top) * SCALE)
        cv2.rectangle(picture, (cx - edge, cy - edge), (cx + edge, cy + edge), COUNTED, 2)
    return jpeg(picture, quality)


def table_picture(view: np.ndarray, quality: int = 70) -> bytes:
    """JPEG of the whole rectified view: the table as a moment left it."""
    return jpeg(view, quality)


def jpeg(picture: np.ndarray, quality: int) -> bytes:
    ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode a picture")
    return bytes(data)
