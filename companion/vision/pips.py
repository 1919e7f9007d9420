"""Count a die's pips as blobs: a second opinion on a value the reader is only fairly sure of.

The reader (a network) gives a value and the box around the top face's pips. Here the pips
inside that box are counted by plain image rules: the face's own tone is the middle of the die,
the pips are the blobs of the other tone (dark on a white die, light on a red one), of a pip's
size and roundness for a die that size. The count learns nothing: it uses only where the finder
put the die and where the reader put its pips, so it errs in other ways than the reader does, and
a value both agree on, that the reader alone was not sure enough of, can be given (the bars, and
what they gained, in docs/research.md, "Dice"; the counter's own figures in models/dice/dice.md).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.dice_model import CROP_SCALE, cut_out

# The crop the pips are counted in: the reader's crop (the same centre and side) at this many
# pixels, so that a pip is some 10 px across.
PIP_CROP_PX = 96
# The face's tone and the pips' are taken within this many die bodies of the top face's centre
# (a side face, seen at a slant, lies farther out). When no pip lies that near (a 2 with its pips
# far out), which tone is the pips' is a guess; a count in the wrong tone seldom equals the
# reader's value, so such a die is most often asked about.
FACE_REACH = 0.35
# Blobs are counted within this many die bodies of the centre: a corner pip farther out (a 2 seen
# large) is lost, which again errs towards asking.
PIP_REACH = 0.5
# The tones: the face's is the median there, the pips' the darkest (or lightest) 1 %; a pixel
# is a pip's when it lies nearer the pips' tone than the face's.
TONE_PERCENTILE = 1.0
# A pip's area, in die bodies squared (a 6's pips near the low end, a 1's large pip near the
# high end), how much of its bounding box it fills, and how long it may be (seen at a slant).
PIP_AREA = (0.004, 0.12)
PIP_FILL = 0.5
PIP_ASPECT = 2.2
# The reader's box is shrunk by this share of its side, then grown by this many pixels: its
# edge often runs through a side face's nearest pips. (A blob's centre is in pixel indices, half
# a pixel up-left of the box's continuous coordinates; the pixel of slack covers that, and the
# bars were chosen with it so.)
BOX_SHRINK = 0.05
BOX_SLACK_PX = 1.0


def count_pips(
    picture: np.ndarray, x: float, y: float, side: float, box: tuple[float, float, float, float]
) -> int:
    """How many pips lie in ``box`` (x0, y0, x1, y1 as fractions of the crop) of the die whose
    crop is ``side`` pixels of ``picture`` (BGR) centred on (x, y): the reader's crop."""
    crop = cut_out(picture, x, y, side, PIP_CROP_PX)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    size = PIP_CROP_PX
    body = size / CROP_SCALE
    rows, cols = np.mgrid[:size, :size]
    reach = np.hypot(cols - size / 2 + 0.5, rows - size / 2 + 0.5)
    face = grey[reach < FACE_REACH * body]
    middle = float(np.median(face))
    darkest = float(np.percentile(face, TONE_PERCENTILE))
    lightest = float(np.percentile(face, 100.0 - TONE_PERCENTILE))
    if middle - darkest >= lightest - middle:  # dark pips on a light face
        pip = grey < (middle + darkest) / 2
    else:
        pip = grey > (middle + lightest) / 2
    mask = (pip & (reach < PIP_REACH * body)).astype(np.uint8)
    count, _, stats, centres = cv2.connectedComponentsWithStats(mask)
    x0, y0, x1, y1 = (float(v) * size for v in box)
    grow_x = BOX_SLACK_PX - BOX_SHRINK * (x1 - x0)
    grow_y = BOX_SLACK_PX - BOX_SHRINK * (y1 - y0)
    pips = 0
    for k in range(1, count):
        area = float(stats[k, cv2.CC_STAT_AREA])
        wide, high = float(stats[k, cv2.CC_STAT_WIDTH]), float(stats[k, cv2.CC_STAT_HEIGHT])
        if not PIP_AREA[0] * body**2 <= area <= PIP_AREA[1] * body**2:
            continue
        if area < PIP_FILL * wide * high or max(wide, high) > PIP_ASPECT * min(wide, high):
            continue
        cx, cy = centres[k]
        if x0 - grow_x <= cx <= x1 + grow_x and y0 - grow_y <= cy <= y1 + grow_y:
            pips += 1
    return pips
