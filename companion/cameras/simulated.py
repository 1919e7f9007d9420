"""Any iterator of frames as a camera: the simulated table's frames, or a test's.

Faults can be injected to test what happens when a camera fails: ``faults(n)`` is asked
before read number ``n`` (counted from 0 over the camera's life) and a true answer makes that
read raise CameraError. The frame that would have come is lost, as it is when a real camera
drops out.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from companion.cameras.base import CameraError, Controls, EndOfSource, Frame


def disconnected(start: int, reads: int) -> Callable[[int], bool]:
    """A fault script: reads ``start`` to ``start + reads - 1`` fail, as while a cable is out."""
    return lambda n: start <= n < start + reads


class FramesCamera:
    def __init__(
        self,
        frames: Iterable[np.ndarray],
        name: str = "simulated table",
        faults: Callable[[int], bool] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self._frames: Iterator[np.ndarray] = iter(frames)
        self._faults = faults
        self._clock = clock
        self._open = False
        self.reads = 0  # read() calls so far, faulted or not
        self.opens = 0
        self._seq = 0

    def open(self) -> None:
        self._open = True
        self.opens += 1

    def read(self, timeout: float) -> Frame:
        if not self._open:
            raise CameraError(f"{self.name}: not open")
        number = self.reads
        self.reads += 1
        try:
            image = next(self._frames)
        except StopIteration:
            raise EndOfSource(f"{self.name}: no more frames") from None
        if self._faults is not None and self._faults(number):
            raise CameraError(f"{self.name}: no picture (fault injected on read {number})")
        self._seq += 1
        return Frame(image, self._seq, self._clock())

    def close(self) -> None:
        self._open = False

    def apply(self, controls: Controls) -> bool:
        return controls.automatic  # nothing to set on a stream of ready-made frames
