"""The rectified view with what was read drawn on it, for the scoreboard's camera picture."""

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
