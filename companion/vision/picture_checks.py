"""What is wrong with a photograph of the mat, in words a person can act on: too dark, washed
out, no mat in it, the mat too small in it, blurred.

A camera's frame is judged by the watcher (frames.py), whose words speak of the camera; a
picture a person chose is judged here, and its words speak of the picture. The bars come from
reading simulated tables shrunk and blurred (models/training/picture_bars.py): every tile was
read right at 14 px a tile and half were lost at 12; 99.6% were read right, none wrong, at an
edge blur of 3.7% of a tile, and 4% were read wrong at 4.2%.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.vision.frames import check_frame, grey_of, noise_sigma
from companion.vision.mat import PX_PER_MM, STANDARD_MAT, TILE_MM, MatSpec
from companion.vision.rectify import View

# a tile must be at least this wide in the picture to be read (read at 14, lost at 12: a margin
# for art less plain than the simulator's)
MIN_TILE_PX = 16.0
# the sharpest edges may be at most this blurred (their Gaussian width, as a share of a tile)
MAX_BLUR_OF_TILE = 0.039
# edges this blurred (pixels) lose the mat's markers in a picture of 1280 x 720 (a blur of 3 px
# found 2 of 8 markers, 2 px all of them: picture_bars.py)
MARKERS_LOST_BLUR_PX = 2.0
# below this noise (grey levels) a picture was drawn by a program, not taken by a camera
DRAWN_NOISE = 0.25
# strong edges: a step of at least this many grey levels within EDGE_WINDOW pixels
EDGE_CONTRAST = 60.0
EDGE_WINDOW = 15
SHARPEST = 99.5  # the percentile of edges judged: the sharpest of the picture's own
# a perfect step reads this wide (pixels) through the gradient's own width; taken off in quadrature
STEP_WIDTH_PX = 0.8


def edge_blur_px(image: np.ndarray) -> float | None:
    """How blurred the picture's sharpest strong edges are: the width (sigma, pixels) of the
    Gaussian that would blur a clean step into them; None with too few strong edges to say.

    A step of contrast C blurred by sigma rises at most C / (sigma * sqrt(2 pi)) a pixel, so the
    steepest rise of each strong edge, over its contrast, gives sigma. It reads the same on an
    empty mat and a full one (the mat's markers are edges enough). A perfectly sharp step would
    read STEP_WIDTH_PX through the gradient's own width, which is taken off."""
    grey = grey_of(image).astype(np.float32)
    rise_x = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8
    rise_y = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8
    kernel = np.ones((EDGE_WINDOW, EDGE_WINDOW), np.uint8)
    contrast = cv2.dilate(grey, kernel) - cv2.erode(grey, kernel)
    strong = contrast > EDGE_CONTRAST
    if int(strong.sum()) < 50:
        return None
    steepest = float(np.percentile(np.hypot(rise_x, rise_y)[strong] / contrast[strong], SHARPEST))
    if steepest <= 0:
        return None
    width = 1.0 / (steepest * math.sqrt(2 * math.pi))
    return math.sqrt(max(width**2 - STEP_WIDTH_PX**2, 0.0))


def tile_px(located: View, mat: MatSpec = STANDARD_MAT) -> float:
    """How many pixels wide a tile at the board's centre is in the picture."""
    assert located.homography is not None
    to_image = np.linalg.inv(located.homography)
    cx, cy = mat.board.centre
    centre = np.array([[[cx * PX_PER_MM, cy * PX_PER_MM]]], np.float32)
    step = TILE_MM * PX_PER_MM
    across = np.array([[[cx * PX_PER_MM + step, cy * PX_PER_MM]]], np.float32)
    down = np.array([[[cx * PX_PER_MM, cy * PX_PER_MM + step]]], np.float32)
    a, b, c = (cv2.perspectiveTransform(p, to_image).reshape(2) for p in (centre, across, down))
    (ux, uy), (vx, vy) = b - a, c - a
    return float(math.sqrt(abs(ux * vy - uy * vx)))


def looks_drawn(image: np.ndarray) -> bool:
    """A picture with no sensor noise at all was drawn by a program (the mat's own file), not
    taken by a camera."""
    return noise_sigma(grey_of(image)) < DRAWN_NOISE


def light_problem(image: np.ndarray) -> str | None:
    """Too dark, washed out or too grainy to read, in words for a picture; None when fit."""
    problem = check_frame(image).problem
    words = {
        "not-an-image": "the picture has nothing in it to read",
        "black": "the picture is almost black: take it again with more light on the table",
        "overexposed": (
            "the picture is washed out white: take it again without a lamp or the sun shining into the camera"
        ),
        "noisy": "the picture is very grainy, as in poor light: take it again with more light on the table",
    }
    return words.get(problem or "")


def mat_problem(image: np.ndarray, located: View, mat: MatSpec = STANDARD_MAT) -> str | None:
    """Why the tiles cannot be read from this picture of the mat (no mat, the mat too small,
    the picture blurred), or None when they can."""
    height, width = image.shape[:2]
    blur = edge_blur_px(image)
    if located.homography is None:
        # where the mat would fill the picture, how wide a tile would be at most
        widest_tile = max(width, height) / max(mat.width_mm, mat.height_mm) * TILE_MM
        if widest_tile < MIN_TILE_PX:
            return (
                f"the picture is too small ({width}x{height} px) to read tiles from: take it at a "
                "higher resolution, with the whole mat filling it"
            )
        # some markers found and the rest lost to blur: sharp markers are found whole or not at all
        lost_to_blur = bool(located.markers) and blur is not None and blur > MARKERS_LOST_BLUR_PX
        if lost_to_blur or (blur is not None and blur / widest_tile > MAX_BLUR_OF_TILE):
            return (
                "the picture is too blurred to find the mat in it: hold the camera still, focus "
                "and take it again"
            )
        found, total = len(located.markers), len(mat.markers)
        return (
            f"no play mat in the picture ({found} of its {total} markers found): the picture must "
            "show the whole mat, its markers uncovered"
        )
    tile = tile_px(located, mat)
    if tile < MIN_TILE_PX:
        return (
            f"the mat is too small in the picture: a tile is {tile:.0f} px across, at least "
            f"{MIN_TILE_PX:.0f} are needed; come closer or take it at a higher resolution"
        )
    if blur is not None and blur / tile > MAX_BLUR_OF_TILE and not looks_drawn(image):
        return (
            f"the picture is blurred (its sharpest edges are {blur / tile * TILE_MM:.2f} mm wide "
            f"on the mat, {MAX_BLUR_OF_TILE * TILE_MM:.2f} at most): hold the camera still, focus "
            "on the mat and take it again"
        )
    return None
