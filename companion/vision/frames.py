"""Per-frame quality checks: the pipeline reads a camera frame only if it passes them.

``check_frame`` says whether a frame is fit to read and, if not, why, in a code for the program
and a sentence for the people at the table. All checks together take 2 to 3 ms for a 1280x720
frame on one core of a desktop machine (benchmarks/bench_motion.py): the grey conversion, then
most work on a grey copy at half or quarter size; only the tear check needs every row.

``FrozenDetector`` notices a camera that keeps sending the same picture.

Frames are BGR ``uint8`` arrays of shape (height, width, 3), as OpenCV gives them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# --- exposure, measured on a grey copy about THUMB_WIDTH pixels wide ---------------------------
THUMB_WIDTH = 320
# Black: a covered lens or the light off. The mean grey level is below this (of 255) ...
BLACK_MEAN_MAX = 12.0
# ... and the picture has hardly any contrast (standard deviation of the grey levels): a dim
# table still shows its tiles, a capped lens shows nothing.
BLACK_SPREAD_MAX = 8.0
# Overexposed: at least this share of the picture is at or above SATURATED_LEVEL.
SATURATED_LEVEL = 250
OVEREXPOSED_FRACTION = 0.6

# --- noise --------------------------------------------------------------------------------------
# Sensor noise is estimated with Immerkaer's fast method (the 3x3 mask below sums to zero and
# removes flat areas and straight ramps; what is left of white noise of standard deviation s
# has mean |response| 6 * s * sqrt(2 / pi)). The grey picture is first halved with area
# averaging: the finest-grained noise is what JPEG removes, so at full size the estimate
# depends more on the JPEG quality than on the noise; at half size it hardly does. The response
# is averaged over blocks of NOISE_BLOCK pixels and the median block is taken, so tile edges
# and art (which raise the response where they are) do not count; blocks near black or white,
# where the noise is clipped, are left out. The result is scaled back to full-size grey levels.
NOISE_MASK = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
_SECOND_DIFFERENCE = np.array([1, -2, 1], np.float32)  # NOISE_MASK is its outer product
NOISE_BLOCK = 16
# Frames noisier than this (grey levels, full size) are refused. For Gaussian noise of
# standard deviation s drawn independently in each colour channel, the grey noise is 0.67 s,
# so sigma 6 measures about 4 and sigma 20 about 13.4 (with or without JPEG at quality 55 to
# 95, and with a little lens blur). 8 sits between them with a margin both ways (sigma 12 per
# channel); tests/test_frames.py checks both sides. Such noise comes from too little light.
NOISE_SIGMA_MAX = 8.0

# --- torn frames --------------------------------------------------------------------------------
# A torn frame (a buffer half written) changes from one row to the next everywhere across the
# width: below some row lies other content, garbage, or the same picture shifted sideways. The
# check works on the differences between consecutive rows of the full-size grey picture,
# averaged over TEAR_SEGMENTS vertical strips; for each strip the usual difference is the
# median over TEAR_WINDOW rows on each side (taken separately, so garbage below a boundary does
# not hide the boundary). A strip shows a break at a row when
#   - the difference there exceeds the usual difference on both sides by TEAR_MIN_JUMP grey
#     levels and by TEAR_JUMP_RATIO times the usual difference, all in that one row (the rows
#     just above and below do not jump with it, as they do at a lens-blurred edge), or
#   - the rows turn from calm to TEAR_REGIME_RATIO times busier (or back) exactly at that row,
#     as when noise-like garbage starts.
# The frame is torn when at least TEAR_WIDTH_FRACTION of the strips break at the same row: the
# edge of a tile, the mat or a ruler spans less, or is tilted enough to cross rows (0.1 degree
# across 1280 pixels is enough), or is blurred over two rows by the lens. (On 40 rendered and
# 36 synthetic pictures of the table the most strips breaking at one row was 4 of 16.) A
# perfectly level, razor-sharp edge across most of the frame counts as a tear: with
# ``previous`` it is recognised as part of the scene, since it stays where it is. A tear shows
# only where the two parts differ: a lower part from a frame of nearly the same scene (the same
# plain mat under most of the width) can pass, and is then nearly harmless.
# A sideways shift is recognised on its own: the row below the boundary matches the row above
# it moved by a few pixels (up to TEAR_MAX_SHIFT) far better than unmoved.
TEAR_SEGMENTS = 16
TEAR_WINDOW = 6
TEAR_CANDIDATES = 6
TEAR_MIN_JUMP = 6.0
TEAR_JUMP_RATIO = 2.0
TEAR_REGIME_RATIO = 3.0
TEAR_WIDTH_FRACTION = 0.6
TEAR_MAX_SHIFT = 96
# The moved row must match this many times better (RMS difference) than unmoved. On the rows
# that stand out in ordinary pictures of the table a sideways move helps at most 1.6 times (the
# lattice of tiles repeats); in torn frames it helped 1.7 to 40 times (2.4 or more for shifts
# of 40 pixels).
TEAR_SHIFT_GAIN = 2.0

MESSAGES = {
    "not-an-image": "The camera gave no usable picture: is it connected and working?",
    "black": "The camera sees only black: is the lens covered or the light off?",
    "overexposed": "The picture is washed out white: is a lamp or the sun shining straight into the camera?",
    "noisy": "The picture is very grainy: the table is probably too dark. Please turn on more light.",
    "torn": (
        "The camera sent a broken picture (its lower part does not fit the upper part). "
        "If this keeps happening, check the camera cable."
    ),
}


@dataclass(frozen=True)
class FrameCheck:
    """Whether a frame is fit to read; if not, ``problem`` is a short code and ``message`` says
    what a person at the table could do about it."""

    ok: bool
    problem: str | None
    message: str


GOOD = FrameCheck(True, None, "")


def _refuse(problem: str, message: str | None = None) -> FrameCheck:
    return FrameCheck(False, problem, message or MESSAGES[problem])


def image_problem(frame: object) -> str | None:
    """Why ``frame`` is not a BGR image (a plain reason), or None when it is one."""
    if frame is None:
        return "no frame"
    if not isinstance(frame, np.ndarray):
        return f"a {type(frame).__name__}, not an image array"
    if frame.dtype != np.uint8:
        return f"pixels of type {frame.dtype}, not uint8"
    if frame.ndim != 3 or frame.shape[2] != 3:
        return f"shape {frame.shape}, not (height, width, 3)"
    if frame.size == 0:
        return "an empty image"
    return None


def grey_of(frame: np.ndarray) -> np.ndarray:
    """The grey picture of a BGR frame, full size."""
    if not frame.flags.c_contiguous:
        frame = np.ascontiguousarray(frame)
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def halve(grey: np.ndarray) -> np.ndarray:
    """Half the size, each pixel the mean of a 2x2 block (OpenCV's fast path)."""
    h, w = grey.shape[:2]
    return cv2.resize(grey, (max(w // 2, 1), max(h // 2, 1)), interpolation=cv2.INTER_AREA)


def shrink(grey: np.ndarray, width: int) -> np.ndarray:
    """About ``width`` pixels wide, by area averaging: halvings first (fast), then one resize."""
    while grey.shape[1] >= 2 * width:
        grey = halve(grey)
    h, w = grey.shape[:2]
    if w > width:
        grey = cv2.resize(grey, (width, max(round(h * width / w), 1)), interpolation=cv2.INTER_AREA)
    return grey


def noise_sigma(grey: np.ndarray) -> float:
    """Estimated standard deviation of the sensor noise, in grey levels of the full-size picture."""
    half = halve(grey) if min(grey.shape) >= 4 * NOISE_BLOCK else grey
    scale: float = grey.shape[1] / half.shape[1]
    # the mask is separable: [1, -2, 1] down the columns times [1, -2, 1] along the rows
    response = cv2.sepFilter2D(
        half, cv2.CV_16S, _SECOND_DIFFERENCE, _SECOND_DIFFERENCE, borderType=cv2.BORDER_REFLECT
    )
    blocks = cv2.convertScaleAbs(response).astype(np.float32)  # |response|, at most 255: plenty
    levels = half
    size = 1
    while size < NOISE_BLOCK and min(blocks.shape) >= 4:  # block means by halvings (fast)
        blocks, levels, size = halve(blocks), halve(levels), size * 2
    unclipped = (levels > 16) & (levels < 240)
    values = blocks[unclipped] if np.count_nonzero(unclipped) >= 8 else blocks.ravel()
    return float(np.median(values)) * math.sqrt(math.pi / 2) / 6 * scale


def _strip_differences(grey: np.ndarray) -> np.ndarray:
    """(rows - 1, TEAR_SEGMENTS): mean |row r+1 - row r| over each vertical strip."""
    h, w = grey.shape
    strip = w // TEAR_SEGMENTS
    diff = cv2.absdiff(grey[1:], grey[:-1])
    if strip * TEAR_SEGMENTS != w:
        diff = np.ascontiguousarray(diff[:, : strip * TEAR_SEGMENTS])
    means = cv2.reduce(diff.reshape((h - 1) * TEAR_SEGMENTS, strip), 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F)
    return means.reshape(h - 1, TEAR_SEGMENTS)


def _break_fraction(strips: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each index i in ``rows`` (a boundary between rows i and i+1), the share of strips
    that break there. ``rows`` must leave TEAR_WINDOW + 1 differences on each side."""
    win = TEAR_WINDOW
    windows = sliding_window_view(strips, win, axis=0)  # [k] = strips[k : k + win], (n, S, win)
    above = np.median(windows[rows - win], axis=-1)
    below = np.median(windows[rows + 1], axis=-1)
    here, up, down = strips[rows], strips[rows - 1], strips[rows + 1]
    usual = np.maximum(above, below)
    jump = here - usual
    single = (
        (jump > np.maximum(TEAR_MIN_JUMP, TEAR_JUMP_RATIO * usual))
        & (up - above < jump / 3)
        & (down - below < jump / 3)
    )
    busier_below = (
        (below > TEAR_REGIME_RATIO * above + TEAR_MIN_JUMP)
        & (here > below / 2)
        & (up - above < (below - above) / 4)
    )
    busier_above = (
        (above > TEAR_REGIME_RATIO * below + TEAR_MIN_JUMP)
        & (here > above / 2)
        & (down - below < (above - below) / 4)
    )
    broken: np.ndarray = (single | busier_below | busier_above).mean(axis=1)
    return broken


def _shifted(grey: np.ndarray, row: int) -> bool:
    """Whether row ``row + 1`` is row ``row`` moved sideways (a tear with the lower part shifted)."""
    w = grey.shape[1]
    reach = min(TEAR_MAX_SHIFT, w // 4)
    if reach < 2:
        return False
    upper = grey[row : row + 1, reach : w - reach].astype(np.float32)
    lower = grey[row + 1 : row + 2].astype(np.float32)
    cost = cv2.matchTemplate(lower, upper, cv2.TM_SQDIFF).ravel()
    rms = np.sqrt(np.maximum(cost, 0) / upper.size)
    best = int(np.argmin(rms))
    unmoved = float(rms[reach])
    return best != reach and unmoved > TEAR_MIN_JUMP and rms[best] * TEAR_SHIFT_GAIN < unmoved


def _tear_rows(grey: np.ndarray) -> list[int]:
    """Rows (first row of the lower part) where ``grey`` looks torn, most likely first."""
    h, w = grey.shape
    win = TEAR_WINDOW
    if h < 2 * win + 4 or w < TEAR_SEGMENTS:
        return []
    strips = _strip_differences(grey)
    n = strips.shape[0]
    level = strips.mean(axis=1)
    medians = np.median(sliding_window_view(level, win), axis=1)  # [k] = median(level[k : k + win])
    rows = np.arange(win + 1, n - win - 1)
    calm = np.minimum(medians[rows - win], medians[rows + 1])
    score = (level[rows] - calm) / (calm + 1.0)
    count = min(TEAR_CANDIDATES, rows.size)
    if count == 0:
        return []
    top = np.argpartition(score, -count)[-count:]
    candidates = rows[top[np.argsort(score[top])[::-1]]]
    fractions = _break_fraction(strips, candidates)
    return [
        int(row) + 1
        for row, fraction in zip(candidates, fractions, strict=True)
        if fraction >= TEAR_WIDTH_FRACTION or _shifted(grey, int(row))
    ]


def _drop_lasting(rows: list[int], previous_grey: np.ndarray) -> list[int]:
    """``rows`` less those where the previous picture has the same boundary (within a row)."""
    before = _tear_rows(previous_grey)
    return [row for row in rows if all(abs(row - other) > 1 for other in before)]


def find_tear(grey: np.ndarray, previous_grey: np.ndarray | None = None) -> int | None:
    """The first row of the lower, wrong part of a torn frame, or None when it is not torn.

    ``grey`` is a full-size grey picture. With the grey picture of the previous good frame, a
    boundary that is also there, at the same row, is taken as part of the scene.
    """
    rows = _tear_rows(grey)
    if rows and previous_grey is not None and previous_grey.shape == grey.shape:
        rows = _drop_lasting(rows, previous_grey)
    return rows[0] if rows else None


def light_problem(grey: np.ndarray, overexposed: float = OVEREXPOSED_FRACTION) -> str | None:
    """Whether a grey picture shows nothing for the light: "black", "overexposed" (at least the
    share ``overexposed`` of it saturated), or None."""
    thumb = shrink(grey, THUMB_WIDTH)
    mean, spread = (float(v[0][0]) for v in cv2.meanStdDev(thumb))
    if mean < BLACK_MEAN_MAX and spread < BLACK_SPREAD_MAX:
        return "black"
    saturated = np.count_nonzero(thumb >= SATURATED_LEVEL) / thumb.size
    if saturated >= overexposed:
        return "overexposed"
    return None


def check_frame(frame: np.ndarray | None, previous: np.ndarray | None = None) -> FrameCheck:
    """Whether ``frame`` is fit to read: not-an-image, black, overexposed, torn or noisy.

    Anything may be passed as ``frame`` (None, a list, a grey image ...): what is not a BGR
    ``uint8`` image is refused as "not-an-image", never raised.

    ``previous``, the last frame that passed, is optional. It is looked at only when ``frame``
    seems torn, to tell a level, sharp edge across the whole scene (which stays where it is)
    from a tear.
    """
    reason = image_problem(frame)
    if reason is not None:
        return _refuse("not-an-image", f"{MESSAGES['not-an-image']} (The program got {reason}.)")
    assert isinstance(frame, np.ndarray)
    grey = grey_of(frame)
    light = light_problem(grey)
    if light is not None:
        return _refuse(light)
    # torn before noisy: garbage in the lower half is noise to the noise check
    rows = _tear_rows(grey)
    if rows and previous is not None and image_problem(previous) is None and previous.shape == frame.shape:
        rows = _drop_lasting(rows, grey_of(previous))
    if rows:
        return _refuse("torn")
    if noise_sigma(grey) > NOISE_SIGMA_MAX:
        return _refuse("noisy")
    return GOOD


class FrozenDetector:
    """Says the camera is frozen once ``frames`` consecutive frames are byte-identical.

    A working sensor's noise changes some pixels in every frame, so identical frames mean a
    stuck camera or driver. By default ``frames`` covers ``seconds`` at ``fps``. Each frame is
    first compared on a sparse sample of its pixels; only when the sample is unchanged is it
    compared in full, so a live camera costs little more than one copy of the frame.
    """

    def __init__(self, fps: float = 15.0, seconds: float = 3.0, frames: int | None = None) -> None:
        if frames is None:  # a slow camera (under a frame a second) still needs two to compare
            frames = max(2, round(fps * seconds))
        if frames < 2:
            raise ValueError("a frozen camera needs at least 2 identical frames to be seen")
        self.frames = frames
        self.identical = 0  # frames in the current run of identical frames (0 before the first)
        self._last: np.ndarray | None = None
        self._sample: np.ndarray | None = None

    @property
    def frozen(self) -> bool:
        return self.identical >= self.frames

    def reset(self) -> None:
        self.identical = 0
        self._last = None
        self._sample = None

    def update(self, frame: np.ndarray) -> bool:
        """Take the next frame; True while the camera is frozen."""
        sample = np.ascontiguousarray(frame[::7, ::11])
        last = self._last
        if last is not None and last.shape == frame.shape and last.dtype == frame.dtype:
            assert self._sample is not None
            same = np.array_equal(sample, self._sample) and np.array_equal(frame, last)
        else:
            same = False
            last = None
        if same:
            self.identical += 1
            return self.frozen
        self.identical = 1
        if last is None:
            self._last = frame.copy()
        else:
            np.copyto(last, frame)
        self._sample = sample
        return self.frozen
