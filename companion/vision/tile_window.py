"""Where a tile lies in a camera window, and its square cut out: what the gallery compares.

A camera window is ``CROP_PX`` square and centred on a cell of the mat; the tile in it may lie a
few pixels off the centre. These find it (by the square outline along the strongest edges, or by
how well each of the gallery's pictures fits at each place near the centre) and cut out its
``TILE_PX`` square. Also: whether a cell's window still shows what it showed before
(``same_sight``, for a tile gone) and whether a picture is one flat colour, no tile
(``flat_picture``, for enrolment). They need no model and know no game.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.mat import CROP_PX, TILE_PX

# A picture none of whose colour channels spreads this much shows no tile (a covered lens, a
# blank scan). Of 10 500 tiles drawn in 300 styles of the third family of art the flattest, an
# asteroid field in a near-black style, spreads 2.9 levels in its liveliest channel; the box
# art's flattest 14.9.
FLAT_SPREAD = 2.0


def edges(image: np.ndarray) -> np.ndarray:
    """Gradient magnitude of the grey image, a little blurred: the structure, not the colours."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    dx = cv2.Sobel(grey, cv2.CV_32F, 1, 0)
    dy = cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    return cv2.GaussianBlur(cv2.magnitude(dx, dy), (0, 0), 1.5)


# how far from its cell's centre a tile may lie and still be found, pixels each way
FIND_PX = 6
# A camera's picture is softer than a print's: both are blurred alike before they are aligned.
ALIGN_BLUR = 1.0
NUDGE_PX = 3  # how far a tile may be nudged and still be the same sight
PLACES = 6  # squares cut from one window at most: where the best-fitting pictures lie


def _outline() -> np.ndarray:
    frame = np.zeros((TILE_PX + 2, TILE_PX + 2), np.float32)
    cv2.rectangle(frame, (1, 1), (TILE_PX, TILE_PX), 1.0, 1)
    return frame


OUTLINE = _outline()


def tile_corner(window_edges: np.ndarray) -> tuple[int, int]:
    """Where the tile's own square starts in a window (x, y): the square outline of a tile's
    size that lies along the strongest edges, within ``FIND_PX`` of the centre."""
    rim = (window_edges.shape[0] - TILE_PX) // 2
    near = window_edges[
        rim - FIND_PX - 1 : rim + TILE_PX + FIND_PX + 1, rim - FIND_PX - 1 : rim + TILE_PX + FIND_PX + 1
    ]
    fit = cv2.matchTemplate(near, OUTLINE, cv2.TM_CCORR)
    _, _, _, (x, y) = cv2.minMaxLoc(fit)
    return rim - FIND_PX + x, rim - FIND_PX + y


def check_window(window: np.ndarray) -> None:
    """Refuse a camera window that is not ``CROP_PX`` square, saying what it is."""
    if window.shape[:2] != (CROP_PX, CROP_PX):
        raise ValueError(f"a window is {CROP_PX} px square, not {window.shape[:2]}")


def tile_of_window(window: np.ndarray) -> np.ndarray:
    """The tile's own square from a camera window centred on its cell."""
    check_window(window)
    x, y = tile_corner(edges(window))
    return window[y : y + TILE_PX, x : x + TILE_PX]


def aligner(square: np.ndarray) -> np.ndarray:
    """What a tile's square is aligned by: its grey picture, blurred (grey is as good as colour
    for where a tile lies, at a third of the cost)."""
    return cv2.GaussianBlur(cv2.cvtColor(square, cv2.COLOR_BGR2GRAY), (0, 0), ALIGN_BLUR)


def unit_aligners(aligners: list[np.ndarray]) -> np.ndarray:
    """(ways, TILE_PX * TILE_PX) float32: each picture's aligner less its mean, of unit length,
    as ``corners_for`` compares them."""
    if not aligners:
        return np.zeros((0, TILE_PX * TILE_PX), np.float32)
    flat = np.stack(aligners).reshape(len(aligners), -1).astype(np.float32)
    flat -= flat.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(flat, axis=1, keepdims=True)
    result: np.ndarray = flat / np.maximum(norms, 1e-6)
    return result


def corners_for(window_aligner: np.ndarray, units: np.ndarray) -> list[tuple[tuple[int, int], float]]:
    """Where each picture's tile would start in a window (x, y) if the window showed that tile,
    and how well it fits there: each picture's best fit within ``FIND_PX`` of the centre, by the
    normalised correlation coefficient (OpenCV's TM_CCOEFF_NORMED), for every picture at once
    (``units`` from ``unit_aligners``) as one matrix product: three times faster than a
    template match a picture."""
    rim = (window_aligner.shape[0] - TILE_PX) // 2
    low, span = rim - FIND_PX, 2 * FIND_PX + 1
    near = window_aligner[low : low + span + TILE_PX - 1, low : low + span + TILE_PX - 1].astype(np.float32)
    patches = np.lib.stride_tricks.sliding_window_view(near, (TILE_PX, TILE_PX)).reshape(span * span, -1)
    centred = np.linalg.norm(patches - patches.mean(axis=1, keepdims=True), axis=1)
    fits = (patches @ units.T) / np.maximum(centred, 1e-6)[:, None]  # (places, ways)
    best = fits.argmax(axis=0)
    return [((low + int(k) % span, low + int(k) // span), float(fits[k, way])) for way, k in enumerate(best)]


def nearest(place: tuple[int, int], kept: list[tuple[int, int]]) -> tuple[int, int]:
    """The place in ``kept`` fewest pixels from ``place``, along either axis."""
    return min(kept, key=lambda other: max(abs(other[0] - place[0]), abs(other[1] - place[1])))


def same_sight(before: np.ndarray, after: np.ndarray) -> float:
    """How alike two camera windows of one cell are, -1 to 1: the normalised correlation of the
    cell's middle before, grey and blurred, with the window after, at the best of the places up
    to ``NUDGE_PX`` off (a tile is nudged as people lay tiles beside it). Needs no model, so it
    holds for any art: a tile still lying there scores high (a meeple stood on it hides a little
    of it), bare felt where it lay about 0."""
    rim = (CROP_PX - TILE_PX) // 2
    middle = aligner(before)[rim : rim + TILE_PX, rim : rim + TILE_PX]
    around = aligner(after)[
        rim - NUDGE_PX : rim + TILE_PX + NUDGE_PX, rim - NUDGE_PX : rim + TILE_PX + NUDGE_PX
    ]
    if float(middle.std()) == 0.0:
        return 0.0
    return float(cv2.matchTemplate(around, middle, cv2.TM_CCOEFF_NORMED).max())


def flat_picture(picture: np.ndarray) -> bool:
    """Whether a picture is one flat colour, no tile: judged on each colour channel, as two
    colours of one brightness (a route on a ground as light) are flat in grey."""
    square = square_of_picture(picture).reshape(-1, 3).astype(np.float32)
    return float(square.std(axis=0).max()) < FLAT_SPREAD


def square_of_picture(picture: np.ndarray) -> np.ndarray:
    """A picture of one tile, any size, as a tile's square."""
    return cv2.resize(picture, (TILE_PX, TILE_PX), interpolation=cv2.INTER_AREA)
