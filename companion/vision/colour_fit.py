"""How well a picture's colours fit a camera window, apart from its light and dark.

The gallery finds each picture in a window by its grey picture, which holds where routes,
fields and planets lie but not what colour a faction's badge is. This compares the two
colour-opponent channels of CIE Lab (a: green to red, b: blue to yellow), blurred, the same
way: the normalised correlation of each at the best place near the cell's centre. Needs no
model, so it holds for any art.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.mat import TILE_PX

COLOUR_BLUR = 1.0  # pixels: as the grey aligner's blur


def colour_aligner(square: np.ndarray) -> np.ndarray:
    """A BGR picture's a and b channels, blurred (float32, 2 planes)."""
    lab = cv2.cvtColor(square, cv2.COLOR_BGR2LAB).astype(np.float32)
    return np.stack([cv2.GaussianBlur(lab[..., c], (0, 0), COLOUR_BLUR) for c in (1, 2)])


def colour_fit(window_colour: np.ndarray, picture_colour: np.ndarray, within: int) -> float:
    """How well a picture's colours fit a window (both from ``colour_aligner``), -1 to 1: the
    mean over the two channels of the best correlation within ``within`` px of the centre. A
    channel the picture holds no variation in (grey art) counts 0."""
    rim = (window_colour.shape[1] - TILE_PX) // 2
    total = 0.0
    for seen, drawn in zip(window_colour, picture_colour, strict=True):
        if float(drawn.std()) < 1e-3:
            continue
        fit = cv2.matchTemplate(seen, drawn, cv2.TM_CCOEFF_NORMED)
        total += float(fit[rim - within : rim + within + 1, rim - within : rim + within + 1].max())
    return total / len(picture_colour)
