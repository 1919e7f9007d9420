"""A Raspberry Pi camera on its CSI ribbon, through picamera2.

picamera2 is an apt package on Raspberry Pi OS (python3-picamera2), not on PyPI for the Pi's
libcamera, so it is imported only when a Pi camera is opened; a venv must be made with
--system-site-packages to see it.

Pixel order: the main stream asks for "RGB888". libcamera names formats after DRM's fourcc
codes, where RGB888 is a 24-bit little-endian word [23:0] R:G:B (include/uapi/drm/drm_fourcc.h),
so the bytes in memory run B, G, R: exactly OpenCV's BGR, with no conversion. picamera2's
maintainer says the same of the 32-bit XRGB8888 (pixels come out [B, G, R, X]:
github.com/raspberrypi/picamera2/issues/191). docs/cameras.md has the sources.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from companion.cameras.base import CameraError, Controls, Frame

MISSING = (
    "picamera2 is not installed: on Raspberry Pi OS run sudo apt install python3-picamera2, "
    "and make the venv with --system-site-packages"
)
AF_MODE_MANUAL = 0  # libcamera's AfModeManual: the lens stays at LensPosition
AF_MODE_CONTINUOUS = 2


def _picamera2() -> Any:
    try:
        return importlib.import_module("picamera2")
    except ImportError:
        raise CameraError(MISSING) from None


class PiCamera:
    def __init__(
        self,
        camera_num: int = 0,
        size: tuple[int, int] = (1280, 720),
        fps: float = 5.0,
        controls: Controls | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = f"Pi camera {camera_num} (picamera2)"
        self.camera_num = camera_num
        self.size = size
        self.fps = fps
        self.controls = controls or Controls()
        self._clock = clock
        self._camera: Any = None
        self._seq = 0

    def open(self) -> None:
        if self._camera is not None:
            return
        picamera2 = _picamera2()
        try:
            found = len(picamera2.Picamera2.global_camera_info())
        except Exception as error:
            raise CameraError(f"{self.name}: libcamera cannot list the cameras ({error})") from None
        if self.camera_num >= found:
            raise CameraError(
                f"{self.name}: not found ({found} camera{'' if found == 1 else 's'} connected; "
                "is the ribbon cable in, and is camera_num right?)"
            )
        try:
            camera = picamera2.Picamera2(self.camera_num)
        except Exception as error:
            raise CameraError(
                f"{self.name}: cannot be opened ({error}; is another program using it?)"
            ) from None
        try:
            frame_us = round(1_000_000 / self.fps)
            config = camera.create_video_configuration(
                main={"format": "RGB888", "size": self.size},
                controls={"FrameDurationLimits": (frame_us, frame_us)},
                # only frames that start after we ask: no picture waiting from before a fault
                queue=False,
            )
            camera.configure(config)
            camera.set_controls(self._control_values(camera))
            camera.start()
        except Exception as error:
            _close_quietly(camera)
            raise CameraError(f"{self.name}: cannot be started ({error})") from None
        self._camera = camera

    def read(self, timeout: float) -> Frame:
        camera = self._camera
        if camera is None:
            raise CameraError(f"{self.name}: not open")
        try:
            # wait=False gives a job; Picamera2.wait(job, timeout) raises TimeoutError when no
            # frame comes in time (a plain capture_array would wait for ever on a dead camera)
            job = camera.capture_array("main", wait=False)
            image = camera.wait(job, timeout=timeout)
        except TimeoutError:
            raise CameraError(
                f"{self.name}: no picture for {timeout:g} s (is the ribbon cable loose?)"
            ) from None
        except Exception as error:
            raise CameraError(f"{self.name}: the capture failed ({error})") from None
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
            shape = getattr(image, "shape", type(image).__name__)
            raise CameraError(f"{self.name}: gave a picture of shape {shape}, not (height, width, 3)")
        self._seq += 1
        return Frame(image, self._seq, self._clock())

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            _close_quietly(camera)

    def apply(self, controls: Controls) -> bool:
        """Set now if open, and again at every reopen. Focus is ignored by a camera without
        autofocus (only the Camera Module 3 has a lens to move)."""
        if (
            controls.focus_dioptres is not None
            and self._camera is not None
            and "LensPosition" not in getattr(self._camera, "camera_controls", {})
        ):
            return False  # a fixed-focus module (Camera Module 2, HQ): nothing to set
        self.controls = controls
        if self._camera is not None:
            try:
                self._camera.set_controls(self._control_values(self._camera))
            except Exception as error:
                raise CameraError(f"{self.name}: cannot set the controls ({error})") from None
        return True

    def _control_values(self, camera: Any) -> dict[str, Any]:
        """libcamera's controls for ``self.controls`` on this camera."""
        values: dict[str, Any] = {}
        wanted = self.controls
        if "AfMode" in getattr(camera, "camera_controls", {}):
            if wanted.focus_dioptres is None:
                values["AfMode"] = AF_MODE_CONTINUOUS
            else:
                # a fixed overhead camera: focus once on the table, never hunt when a hand passes
                values["AfMode"] = AF_MODE_MANUAL
                values["LensPosition"] = wanted.focus_dioptres
        if wanted.exposure_us is None and wanted.gain is None:
            values["AeEnable"] = True
        else:
            values["AeEnable"] = False
            if wanted.exposure_us is not None:
                values["ExposureTime"] = wanted.exposure_us
            if wanted.gain is not None:
                values["AnalogueGain"] = wanted.gain
        return values


def _close_quietly(camera: Any) -> None:
    for step in ("stop", "close"):
        try:
            getattr(camera, step)()
        except Exception:  # a camera that failed may fail to stop too; it is given up either way
            continue
