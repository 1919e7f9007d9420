"""A folder of pictures as a camera: PNG and JPEG files in name order, at ``fps`` or as fast as
they are read, once or round and round (``loop``).

A file that cannot be read is a BadFrame naming it: the feed skips it and goes on with the
next. The place in the folder survives a close and reopen, so a reconnect does not start over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import cv2

from companion.cameras.base import BadFrame, CameraError, Controls, EndOfSource, Frame, Pace

PICTURES = (".png", ".jpg", ".jpeg")


class FolderCamera:
    def __init__(
        self,
        folder: Path,
        fps: float = 5.0,
        loop: bool = False,
        realtime: bool = True,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = f"frames in {folder}"
        self.folder = folder
        self.loop = loop
        self._pace = Pace(fps, realtime, clock, sleep)
        self._clock = clock
        self._files: list[Path] | None = None
        self._next = 0  # index of the next file to deliver
        self._seq = 0

    def open(self) -> None:
        if not self.folder.is_dir():
            raise CameraError(f"{self.name}: there is no such folder")
        files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in PICTURES and p.is_file())
        if not files:
            raise CameraError(f"{self.name}: the folder has no PNG or JPEG pictures")
        self._files = files

    def read(self, timeout: float) -> Frame:
        files = self._files
        if files is None:
            raise CameraError(f"{self.name}: not open")
        if self._next >= len(files):
            if not self.loop:
                raise EndOfSource(f"{self.name}: all {len(files)} pictures have been shown")
            self._next = 0
        path = files[self._next]
        self._next += 1  # past a broken file too, so the next read goes on to the next one
        self._pace.wait(timeout)
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise BadFrame(f"{self.name}: cannot read {path.name} (not a PNG or JPEG picture?)")
        self._seq += 1
        return Frame(image, self._seq, self._clock())

    def close(self) -> None:
        self._files = None

    def apply(self, controls: Controls) -> bool:
        return controls.automatic  # pictures already taken have nothing to set
