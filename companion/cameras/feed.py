"""The camera supervisor: fresh frames when the camera works, a status line when it does not.

``CameraFeed.next()`` never raises. It opens the camera on first use; on a fault it closes the
camera, says so in ``status`` at once, and tries again after a back-off delay (0.5 s, then 1,
2, 5, 10, 30 s and 30 s from then on), reset by the next good frame. While it waits, each call
sleeps at most ``POLL_SLEEP`` and returns None, so the caller's loop (which feeds the systemd
watchdog) keeps turning.

It never hands out a stale frame: one whose ``seq`` is not newer than the last one handed out,
or one older than ``max_age`` (a picture a driver kept from before a cable wiggle). A frozen
camera that keeps numbering the same picture is ``FrozenDetector``'s business, not this one's.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Sequence

from companion.cameras.base import BadFrame, Camera, CameraError, EndOfSource, Frame

BACKOFF = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
# The longest one call sleeps while waiting to reconnect: short next to a watchdog's period.
POLL_SLEEP = 0.1
# Stale frames in a row that count as a fault (the camera is closed and opened again).
STALE_LIMIT = 25
DUE = 1e-6  # seconds: a retry this close is due now (sums of sleeps are not exact)


class CameraFeed:
    def __init__(
        self,
        camera: Camera,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        backoff: Sequence[float] = BACKOFF,
        max_age: float = 1.0,
        read_timeout: float = 2.0,
    ) -> None:
        if not backoff:
            raise ValueError("backoff needs at least one delay")
        self.camera = camera
        self._clock = clock
        self._sleep = sleep
        self._backoff = tuple(backoff)
        self.max_age = max_age
        self.read_timeout = read_timeout
        self.status: str | None = None
        self.connected = False
        self.ended = False
        self.frames = 0  # good frames handed out
        self.faults = 0  # failed opens and reads, each followed by a reconnect
        self.stale = 0  # frames dropped for an old seq or age
        self.skipped = 0  # bad frames skipped without reconnecting (BadFrame)
        self._attempt = 0  # index into the back-off delays; 0 after a good frame
        self._retry_at: float | None = None
        self._last_seq: int | None = None
        self._stale_run = 0  # stale frames since the last good one
        self._last_problem = ""
        self._ever_seen = False

    def next(self) -> Frame | None:
        """A fresh frame, or None (lost, waiting to reconnect, just opened, stale frame dropped,
        ended). A call that opens the camera reads in the next call: opening and reading can
        each take a while, and the caller's loop should turn between them."""
        if self.ended:
            return None
        if not self.connected:
            self._connect()
            return None
        try:
            frame = self.camera.read(self.read_timeout)
        except EndOfSource as error:
            self._end(error)
            return None
        except BadFrame:
            self.skipped += 1
            return None
        except Exception as error:  # a backend's bug must not stop the loop either
            self._fault(error)
            return None
        old_seq = self._last_seq is not None and frame.seq <= self._last_seq
        if not old_seq:
            self._last_seq = frame.seq
        if old_seq or self._clock() - frame.captured > self.max_age:
            self.stale += 1
            self._stale_run += 1
            if self._stale_run >= STALE_LIMIT:  # only old pictures: something is wrong upstream
                self._fault(CameraError(f"{self.camera.name}: gave {self._stale_run} old pictures in a row"))
            return None
        self._stale_run = 0
        self.frames += 1
        self._attempt = 0
        self._ever_seen = True
        self.status = None
        return frame

    def close(self) -> None:
        if self.connected:
            self._close_camera()

    # --- the states -------------------------------------------------------------------------

    def _connect(self) -> None:
        """Open the camera when it is time."""
        if self._retry_at is not None:
            left = self._retry_at - self._clock()
            if left > 0:
                self._sleep(min(left, POLL_SLEEP))
                left = self._retry_at - self._clock()
            if left > DUE:  # not yet: try again in a later call (the status said when, once)
                return
        try:
            self.camera.open()
        except Exception as error:  # CameraError, or a backend's own failure
            self._fault(error)
            return
        self.connected = True
        self._retry_at = None
        if self._attempt:  # a reconnect: said at once, until the first good frame clears it
            self.status = f"Camera reconnected: waiting for a picture from {self.camera.name}."

    def _fault(self, error: BaseException) -> None:
        self.faults += 1
        if isinstance(error, CameraError):
            self._last_problem = _sentence(error)
        else:  # a backend's own failure: its text may not say which camera
            self._last_problem = f"{self.camera.name} failed ({_sentence(error) or type(error).__name__})"
        if self.connected:
            self._close_camera()
        delay = self._backoff[min(self._attempt, len(self._backoff) - 1)]
        self._attempt += 1
        self._retry_at = self._clock() + delay
        self.status = self._lost_message(delay)

    def _end(self, error: EndOfSource) -> None:
        self.ended = True
        self.status = f"The camera has no more pictures: {_sentence(error)}."
        self._close_camera()

    def _close_camera(self) -> None:
        self.connected = False
        with contextlib.suppress(Exception):  # closing a broken camera may fail; to us it is closed
            self.camera.close()

    def _lost_message(self, wait: float) -> str:
        what = "Camera lost" if self._ever_seen else "No picture from the camera yet"
        # said once per fault, not counted down: every change of it reaches every phone, MQTT
        # and systemd, which must not hear from a lost camera every second for hours
        return f"{what}: {self._last_problem}. Trying again in {math.ceil(wait)} s."


def _sentence(error: BaseException) -> str:
    """The error's text without a closing full stop, so it can sit inside a sentence."""
    return str(error).strip().rstrip(".")
