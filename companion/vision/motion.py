"""Change between consecutive camera frames, and the moment the table is still again.

A hand reaching over the mat changes many pixels from one frame to the next; once nothing has
changed for a few frames the scene has settled and is worth reading. Each frame is compared with
the one before it (not with a fixed reference), so light that drifts slowly (a cloud, a lamp
warming up) never counts as motion, while anything that moves does.

The work is done on a small grey copy (320 pixels wide by default): under 1 ms per 1280x720
frame on one core of a desktop machine (over 1000 frames/s, benchmarks/bench_motion.py), most
of it the colour to grey conversion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.frames import grey_of, shrink

# Width of the grey copy the frames are compared on. A 1280x720 frame becomes 320x180: each
# pixel the mean of 4x4, which divides the sensor noise by 4 and still shows a fingertip.
DOWNSCALE_WIDTH = 320
# Gaussian blur of the small copy (kernel size, odd; 0 or 1 for none): smooths what is left of
# the noise and of JPEG's blocks.
BLUR_KERNEL = 5
# A pixel of the small copy has changed when it differs from the previous frame by more than
# this (grey levels, of 255). Between two frames of a still table the differences stay at 3 or
# less even with sensor noise of sigma 6 and JPEG at quality 55 (the downscale and the blur
# average the noise away), and light drifting by 0.5 % a frame moves a pixel by at most 1.3; a
# hand, its shadow or a tile against the mat differs by tens of levels.
PIXEL_THRESHOLD = 16
# The frame shows motion when more than this share of the pixels changed: 0.1 % of 320x180 is
# 58 pixels, a patch of about 30x30 pixels of a 1280x720 frame, half a tile.
MOVING_FRACTION = 0.001
# Consecutive frames without motion after which the scene has settled: 4 frames are 0.4 s at
# 10 frames/s, long enough to skip a hand that pauses for a moment, short enough to feel prompt.
SETTLE_FRAMES = 4


@dataclass(frozen=True)
class MotionState:
    """What one frame showed.

    ``moving``: this frame differs from the previous one. ``settled``: this frame completes
    ``settle_frames`` still frames after some motion (or after start-up); True once per settling.
    ``changed_fraction``: the share of pixels that changed. ``still_frames``: frames without
    motion in a row, this one included (0 for the very first frame, which has nothing to be
    compared with).
    """

    moving: bool
    settled: bool
    changed_fraction: float
    still_frames: int


class SettleDetector:
    """Follows motion frame by frame and says when the scene has settled."""

    def __init__(
        self,
        downscale: int = DOWNSCALE_WIDTH,
        blur: int = BLUR_KERNEL,
        pixel_threshold: float = PIXEL_THRESHOLD,
        moving_fraction: float = MOVING_FRACTION,
        settle_frames: int = SETTLE_FRAMES,
    ) -> None:
        if downscale < 8:
            raise ValueError(f"downscale must be at least 8 pixels wide, not {downscale}")
        if blur > 1 and blur % 2 == 0:
            raise ValueError(f"blur must be an odd kernel size (or 0), not {blur}")
        if not 0 <= moving_fraction < 1:
            raise ValueError(f"moving_fraction must be in [0, 1), not {moving_fraction}")
        if settle_frames < 1:
            raise ValueError(f"settle_frames must be at least 1, not {settle_frames}")
        self.downscale = downscale
        self.blur = blur
        self.pixel_threshold = pixel_threshold
        self.moving_fraction = moving_fraction
        self.settle_frames = settle_frames
        self._previous: np.ndarray | None = None
        self._still = 0
        self._waiting = True  # for a settling to report: at start-up, and after motion

    def reset(self) -> None:
        """Forget the past frames, as at start-up (the next settling is reported again)."""
        self._previous = None
        self._still = 0
        self._waiting = True

    def small(self, frame: np.ndarray) -> np.ndarray:
        """The small, blurred grey copy that frames are compared on."""
        if frame.dtype != np.uint8 or not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 3)):
            raise ValueError(f"expected a BGR or grey uint8 image, not {frame.dtype} of shape {frame.shape}")
        grey = grey_of(frame) if frame.ndim == 3 else np.ascontiguousarray(frame)
        small = shrink(grey, self.downscale)
        if self.blur > 1:
            small = cv2.GaussianBlur(small, (self.blur, self.blur), 0)
        return small

    def update(self, frame: np.ndarray) -> MotionState:
        """Take the next frame (BGR, or grey) and say whether it moved and whether all settled."""
        small = self.small(frame)
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:
            self._still = 0
            return MotionState(moving=False, settled=False, changed_fraction=0.0, still_frames=0)
        diff = cv2.absdiff(small, previous)
        _, changed = cv2.threshold(diff, self.pixel_threshold, 255, cv2.THRESH_BINARY)
        fraction = cv2.countNonZero(changed) / changed.size
        moving = fraction > self.moving_fraction
        if moving:
            self._still = 0
            self._waiting = True
        else:
            self._still += 1
        settled = self._waiting and self._still >= self.settle_frames
        if settled:
            self._waiting = False
        return MotionState(
            moving=moving, settled=settled, changed_fraction=fraction, still_frames=self._still
        )


class StillAverage:
    """The mean of the frames of a scene held still.

    Each frame brings its own sensor noise; the mean of the still frames the settle detector
    waited for has half of it (four frames; JPEG's blocks follow the picture and average out
    less), so a small dark meeple stands clearer of the art at no cost in waiting. Summed in
    float32 as the frames come, so settling costs one division.
    """

    def __init__(self) -> None:
        self._sum: np.ndarray | None = None
        self.count = 0

    def reset(self) -> None:
        self._sum = None
        self.count = 0

    def add(self, frame: np.ndarray) -> None:
        if self._sum is None or self._sum.shape != frame.shape:
            self._sum = np.zeros(frame.shape, np.float32)
            self.count = 0
        cv2.accumulate(frame, self._sum)
        self.count += 1

    def mean(self) -> np.ndarray:
        """The mean frame (uint8, rounded); raises if no frame was added."""
        if self._sum is None or self.count == 0:
            raise ValueError("no still frame to average")
        mean: np.ndarray = cv2.convertScaleAbs(self._sum, alpha=1.0 / self.count)
        return mean


def mean_frame(frames: Sequence[np.ndarray]) -> np.ndarray:
    """The mean of the frames of one still scene (see ``StillAverage``)."""
    average = StillAverage()
    for frame in frames:
        average.add(frame)
    return average.mean()
