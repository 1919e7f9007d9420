"""Camera-like views of a gallery picture: what the picture is kept as.

A picture given to ``companion enroll`` is a clean scan; the camera sees the same tile shifted,
turned and scaled a little, blurred, lit and blotched as a lamp and a table make it. The gallery
keeps each picture as the mean of the likeness's vectors for a few such views of it, not the
vector of the clean picture alone, which brings it nearer what the camera will show. On the box
art no model was trained on, 20 enrolled games recorded 904 tiles right of 1 519 against 879,
with the same 2 wrong; on the art it was trained near, 572 right and 5 wrong against 575 and 5
(docs/research.md, "Gallery"). The views' randomness is seeded
by the picture itself, so a gallery read again is the same. The training's camera look
(models/training/train_gallery.py) is the same code.
"""

from __future__ import annotations

import zlib

import cv2
import numpy as np

# camera-like views of each picture as it lies; 8 and 16 were compared only with the whitening
# that was not kept (within 0.2 points on an unseen family's windows: models/starwars/gallery.md)
VIEWS = 8
SHIFT_PX = 1.5  # a view's tile lies this far off, at most, each way
TURN_DEGREES = 3.0
SCALE = 0.05


def camera_look(squares: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, contrast, blur and noise per square, as cameras and lamps vary."""
    n = len(squares)
    out = squares.astype(np.float32, copy=True)
    for k in range(n):
        if rng.random() < 0.3:
            out[k] = cv2.GaussianBlur(out[k], (0, 0), rng.uniform(0.4, 1.2))
    gain = rng.uniform(0.75, 1.25, (n, 1, 1, 1)) * rng.uniform(0.92, 1.08, (n, 1, 1, 3))
    mean = out.mean(axis=(1, 2, 3), keepdims=True)
    out = (out - mean) * rng.uniform(0.8, 1.2, (n, 1, 1, 1)) + mean
    out = out * gain + rng.normal(0, 6, (n, 1, 1, 1))
    out += rng.normal(0, 1, out.shape).astype(np.float32) * rng.uniform(0, 5, (n, 1, 1, 1))
    return np.asarray(np.clip(out, 0, 255), np.float32)


def mottle(squares: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """A soft blotch of colour over ``share`` of the squares, each its own: copies of one tile
    are printed on their own patch of sky, and a lamp lights each a little unevenly."""
    out = squares.astype(np.float32, copy=True)
    side = squares.shape[1]
    for k in np.nonzero(rng.random(len(squares)) < share)[0]:
        cells = int(rng.integers(3, 9))
        field = cv2.resize(
            rng.random((cells, cells)).astype(np.float32), (side, side), interpolation=cv2.INTER_CUBIC
        )
        colour = rng.normal(0, 1, 3).astype(np.float32) * rng.uniform(8, 35)
        out[k] += (field - field.mean())[..., None] * colour
    return np.asarray(np.clip(out, 0, 255), np.float32)


def views(square: np.ndarray, count: int = VIEWS) -> np.ndarray:
    """(count, S, S, 3) float32: camera-like views of one tile's square (S a side, BGR)."""
    rng = np.random.default_rng(zlib.crc32(np.ascontiguousarray(square).tobytes()))
    side = square.shape[0]
    moved = []
    for _ in range(count):
        centre = (side / 2 + rng.uniform(-SHIFT_PX, SHIFT_PX), side / 2 + rng.uniform(-SHIFT_PX, SHIFT_PX))
        matrix = cv2.getRotationMatrix2D(
            centre, rng.uniform(-TURN_DEGREES, TURN_DEGREES), rng.uniform(1 - SCALE, 1 + SCALE)
        )
        matrix[:, 2] = matrix[:, 2] + rng.uniform(-SHIFT_PX, SHIFT_PX, 2)
        moved.append(cv2.warpAffine(square, matrix, (side, side), borderMode=cv2.BORDER_REFLECT))
    return camera_look(mottle(np.stack(moved).astype(np.float32), rng, 0.5), rng)


def unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), np.float32)
