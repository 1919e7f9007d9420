"""USB cameras and video files through OpenCV's VideoCapture.

A USB camera is read by a thread of its own that keeps taking the newest picture, so the
driver's queue never holds old ones and ``read`` can give up after its timeout even when
VideoCapture.read blocks (an unplugged camera can block it for seconds). The first pictures
after opening are dropped: they may be left over in the driver from before a reconnect, and a
UVC camera's exposure is still settling on them.

A video file is read on demand, at the file's own frame rate (``realtime``) or as fast as it
is asked, and ends with EndOfSource unless it loops.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.cameras.base import CameraError, Controls, EndOfSource, Frame, Pace
from companion.cameras.settings import CameraSettings

FLUSH_FRAMES = 2  # pictures dropped after opening a USB camera
JOIN_SECONDS = 1.0  # how long close() waits for the reader thread


def _v4l2(device: str | int) -> Any:
    return cv2.VideoCapture(device, cv2.CAP_V4L2)


def opencv_camera(settings: CameraSettings) -> UsbCamera | VideoFileCamera:
    """A USB camera for an index or /dev/videoN, a video file for any other path."""
    device = settings.device
    if isinstance(device, int) or device.startswith("/dev/"):
        return UsbCamera(device, (settings.width, settings.height), settings.fps)
    return VideoFileCamera(Path(device), settings.fps, loop=settings.loop, realtime=settings.realtime)


class UsbCamera:
    def __init__(
        self,
        device: str | int,
        size: tuple[int, int] = (1280, 720),
        fps: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        opener: Callable[[str | int], Any] = _v4l2,
    ) -> None:
        """``opener`` makes the VideoCapture (V4L2 on Linux); tests give another source."""
        self.name = f"USB camera {device}"
        self.device = device
        self.size = size
        self.fps = fps
        self._clock = clock
        self._opener = opener
        self._changed = threading.Condition()
        self._latest: tuple[np.ndarray, float] | None = None
        self._taken = 0  # pictures the reader had taken when read() last handed one out
        self._grabbed = 0
        self._problem: str | None = None
        self._stop: threading.Event | None = None
        self._reader: threading.Thread | None = None
        self._seq = 0

    def open(self) -> None:
        if self._reader is not None:
            return
        capture = self._opener(self.device)
        if not capture.isOpened():
            capture.release()
            raise CameraError(
                f"{self.name}: cannot be opened (is it plugged in, or used by another program?)"
            )
        # MJPG: most UVC cameras give 720p over USB 2 only compressed; fall back if refused
        capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        capture.set(cv2.CAP_PROP_FPS, self.fps)
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # where the backend allows: fewer old pictures
        with self._changed:
            self._latest, self._problem = None, None
            self._taken = self._grabbed = 0
        self._stop = threading.Event()
        self._reader = threading.Thread(
            target=self._run, args=(capture, self._stop), daemon=True, name=f"camera {self.device}"
        )
        self._reader.start()

    def _run(self, capture: Any, stop: threading.Event) -> None:
        """The reader thread: owns ``capture`` from open to release."""
        dropped = 0
        try:
            while not stop.is_set():
                ok, image = capture.read()
                if ok and image is not None and dropped < FLUSH_FRAMES:
                    dropped += 1
                    continue
                with self._changed:
                    if stop.is_set():  # closed meanwhile: this picture belongs to no one
                        break
                    if not ok or image is None:
                        self._problem = "gave no picture (is it unplugged?)"
                        self._changed.notify_all()
                        break
                    self._latest = (image, self._clock())
                    self._grabbed += 1
                    self._changed.notify_all()
        finally:
            capture.release()

    def read(self, timeout: float) -> Frame:
        if self._reader is None:
            raise CameraError(f"{self.name}: not open")
        with self._changed:
            self._changed.wait_for(lambda: self._grabbed > self._taken or self._problem is not None, timeout)
            if self._grabbed > self._taken and self._latest is not None:
                image, captured = self._latest
                self._taken = self._grabbed
                self._seq += 1
                return Frame(image, self._seq, captured)
            if self._problem is not None:
                raise CameraError(f"{self.name} {self._problem}")
        raise CameraError(f"{self.name}: no picture for {timeout:g} s (is it unplugged?)")

    def close(self) -> None:
        reader, stop = self._reader, self._stop
        self._reader = self._stop = None
        if reader is None or stop is None:
            return
        stop.set()
        # a read blocked on a dead device returns within the driver's timeout; the thread then
        # releases the capture itself, so a slow one is left to finish on its own
        reader.join(JOIN_SECONDS)

    def apply(self, controls: Controls) -> bool:
        # UVC focus, exposure and gain come in each camera's own units, not dioptres and
        # microseconds; set them with v4l2-ctl (docs/cameras.md)
        return controls.automatic


class VideoFileCamera:
    def __init__(
        self,
        path: Path,
        fps: float = 5.0,
        loop: bool = False,
        realtime: bool = True,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """``fps`` is the pace for a file that does not say its own frame rate."""
        self.name = f"video file {path.name}"
        self.path = path
        self.loop = loop
        self.realtime = realtime
        self._fallback_fps = fps
        self._clock = clock
        self._sleep = sleep
        self._capture: Any = None
        self._pace: Pace | None = None
        self._position = 0  # frames of the file delivered since its start (or the last loop)
        self._seq = 0

    def open(self) -> None:
        if self._capture is not None:
            return
        if not self.path.is_file():
            raise CameraError(f"{self.name}: there is no such file ({self.path})")
        capture = cv2.VideoCapture(str(self.path))
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"{self.name}: cannot be read (not a video OpenCV can decode?)")
        if self._position:  # reopened: go on where it was
            capture.set(cv2.CAP_PROP_POS_FRAMES, self._position)
        own_fps = capture.get(cv2.CAP_PROP_FPS)
        fps = own_fps if own_fps and own_fps > 0 else self._fallback_fps
        self._pace = Pace(fps, self.realtime, self._clock, self._sleep)
        self._capture = capture

    def read(self, timeout: float) -> Frame:
        capture, pace = self._capture, self._pace
        if capture is None or pace is None:
            raise CameraError(f"{self.name}: not open")
        pace.wait(timeout)
        ok, image = capture.read()
        if not ok and self.loop and self._position > 0:
            capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            self._position = 0
            ok, image = capture.read()
        if not ok or image is None:
            if self._position == 0:
                raise CameraError(f"{self.name}: has no frames OpenCV can decode")
            raise EndOfSource(f"{self.name}: ended after {self._position} frames")
        self._position += 1
        self._seq += 1
        return Frame(image, self._seq, self._clock())

    def close(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()

    def apply(self, controls: Controls) -> bool:
        return controls.automatic  # a recording has nothing to set
