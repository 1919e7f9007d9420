"""What every camera gives the pipeline: frames, numbered, with the time they arrived.

A camera is a picamera2 camera, a USB camera or video file through OpenCV, a folder of
pictures, or any iterator of frames (the simulated table). ``CameraFeed`` (feed.py) wraps one
and keeps the loop turning when it fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np


class CameraError(Exception):
    """A camera fault, in a sentence for people, naming the camera:
    ``USB camera /dev/video0: no picture for 2 s (is it unplugged?)``."""


class EndOfSource(CameraError):
    """A finite source (a video file, a folder without ``loop``) has given all its frames."""


class BadFrame(CameraError):
    """One frame could not be read (a broken file in a folder), but the camera itself is fine:
    the feed skips it and goes on without reconnecting."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR uint8, (height, width, 3), as OpenCV gives it
    seq: int  # grows with every frame a camera object delivers, across close and open
    captured: float  # time.monotonic() seconds when the camera delivered it


@dataclass(frozen=True)
class Controls:
    """Fixed settings for an overhead camera; None leaves that one automatic."""

    focus_dioptres: float | None = None  # 1 / distance in metres: 1.25 focuses at 80 cm
    exposure_us: int | None = None
    gain: float | None = None

    @property
    def automatic(self) -> bool:
        return self.focus_dioptres is None and self.exposure_us is None and self.gain is None


class Camera(Protocol):
    name: str  # "Pi camera 0 (picamera2)", "USB camera /dev/video0", "video file x.mp4", ...

    def open(self) -> None:
        """Start the camera; raises CameraError. Opening a closed camera again reconnects it."""

    def read(self, timeout: float) -> Frame:
        """The next new frame; raises CameraError on a fault or after ``timeout`` seconds
        without one, EndOfSource when a finite source is exhausted."""

    def close(self) -> None:
        """Stop the camera and free it; does nothing when already closed."""

    def apply(self, controls: Controls) -> bool:
        """Use ``controls`` from now on (and after every reopen); False, with nothing changed,
        when this camera cannot set them."""


class Pace:
    """Holds a recorded source (a video file, a folder) to ``fps`` frames a second, as a live
    camera would deliver them; with ``realtime`` off it never waits (tests, benchmarks)."""

    def __init__(
        self,
        fps: float,
        realtime: bool,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.fps = fps
        self.realtime = realtime
        self._clock = clock
        self._sleep = sleep
        self._last: float | None = None

    def wait(self, timeout: float) -> None:
        """Wait until the next frame is due, but never longer than ``timeout``."""
        if self.realtime and self._last is not None:
            left = self._last + 1 / self.fps - self._clock()
            if left > 0:
                self._sleep(min(left, timeout))
        self._last = self._clock()
