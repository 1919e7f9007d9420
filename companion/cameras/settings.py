"""The ``[camera]`` section of the config: checked key by key, then turned into a camera.

Every problem names its key, as in ``[camera] fps: a number of frames a second above 0, not
-1``, so a typo is found at start-up and not when the game begins. The keys are described in
docs/cameras.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.cameras.base import Camera, Controls
from companion.errors import ConfigError, refuse_unknown_keys

SOURCES = ("picamera2", "opencv", "folder", "none", "simulator")
KEYS = (
    "source",
    "camera_num",
    "device",
    "folder",
    "loop",
    "width",
    "height",
    "fps",
    "realtime",
    "focus_dioptres",
    "exposure_us",
    "gain",
)
MAX_SIDE = 8192  # pixels; far above any camera the companion would use
MAX_FPS = 120.0
MAX_DIOPTRES = 100.0  # 1 cm away: beyond any lens's closest focus
MAX_EXPOSURE_US = 60_000_000
MAX_GAIN = 64.0
MAX_DEVICE = 255  # a camera index (/dev/videoN); far above any Pi's


@dataclass(frozen=True)
class CameraSettings:
    source: str = "picamera2"
    camera_num: int = 0  # picamera2: which CSI camera (1 for the second one on a Pi 5)
    device: str | int = 0  # opencv: an index, /dev/videoN, or a video file's path
    folder: Path | None = None  # folder: where the pictures are
    loop: bool = False  # video file, folder: start again at the end instead of ending
    width: int = 1280
    height: int = 720
    fps: float = 5.0  # table pace: a hand moves a tile in about a second
    realtime: bool = True  # video file, folder: no faster than their pace (false: as fast as read)
    controls: Controls = field(default_factory=Controls)


def _shown(value: Any) -> str:
    """A value as it is written in TOML, for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _refuse(key: str, wanted: str, value: Any) -> ConfigError:
    return ConfigError(f"[camera] {key}: {wanted}, not {_shown(value)}")


def _whole(section: Mapping[str, Any], key: str, default: int, low: int, high: int, wanted: str) -> int:
    value = section.get(key, default)
    # bool is an int in Python; "width = true" is a mistake, not 1
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _refuse(key, wanted, value)
    return value


def _number(section: Mapping[str, Any], key: str, low: float, high: float, wanted: str) -> float | None:
    value = section.get(key)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value <= high:
        raise _refuse(key, wanted, value)
    return float(value)


def _flag(section: Mapping[str, Any], key: str, default: bool) -> bool:
    value = section.get(key, default)
    if not isinstance(value, bool):
        raise _refuse(key, "true or false", value)
    return value


def _device(section: Mapping[str, Any]) -> str | int:
    value = section.get("device", 0)
    wanted = "a camera index (0, 1, ...), a device such as /dev/video0, or a video file"
    if isinstance(value, str) and value.strip().isdecimal() and value.strip().isascii():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= MAX_DEVICE:
            return value
        raise _refuse("device", f"a camera index from 0 to {MAX_DEVICE}", value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise _refuse("device", wanted, value)


def camera_settings(section: Mapping[str, Any] | None) -> CameraSettings:
    """Check a ``[camera]`` section (already parsed to a dict); None gives the defaults."""
    if section is None:
        return CameraSettings()
    if not isinstance(section, Mapping):
        raise ConfigError(f"[camera] must be a table of settings, not {_shown(section)}")
    refuse_unknown_keys(section, KEYS, "[camera] ")
    source = section.get("source", "picamera2")
    if source not in SOURCES:
        raise _refuse("source", f"one of {', '.join(SOURCES)}", source)
    folder = section.get("folder")
    if folder is not None and (not isinstance(folder, str) or not folder.strip()):
        raise _refuse("folder", "the path of a folder of pictures", folder)
    if source == "folder" and folder is None:
        raise ConfigError('[camera] folder: needed when source is "folder" (the folder of pictures)')
    width = _whole(section, "width", 1280, 16, MAX_SIDE, f"a width in pixels from 16 to {MAX_SIDE}")
    height = _whole(section, "height", 720, 16, MAX_SIDE, f"a height in pixels from 16 to {MAX_SIDE}")
    fps = _number(section, "fps", 0.0, MAX_FPS, f"a number of frames a second above 0, at most {MAX_FPS:g}")
    if fps == 0:
        raise _refuse("fps", "a number of frames a second above 0", 0)
    exposure = section.get("exposure_us")
    if exposure is not None and (
        not isinstance(exposure, int) or isinstance(exposure, bool) or not 1 <= exposure <= MAX_EXPOSURE_US
    ):
        raise _refuse("exposure_us", f"an exposure in microseconds from 1 to {MAX_EXPOSURE_US}", exposure)
    controls = Controls(
        focus_dioptres=_number(
            section, "focus_dioptres", 0.0, MAX_DIOPTRES, "1 / the distance in metres, 0 (infinity) to 100"
        ),
        exposure_us=exposure,
        gain=_number(section, "gain", 1.0, MAX_GAIN, f"an analogue gain from 1 to {MAX_GAIN:g}"),
    )
    return CameraSettings(
        source=source,
        camera_num=_whole(section, "camera_num", 0, 0, 15, "a camera number from 0 (the first) to 15"),
        device=_device(section),
        folder=Path(folder) if folder is not None else None,
        loop=_flag(section, "loop", False),
        width=width,
        height=height,
        fps=5.0 if fps is None else fps,
        realtime=_flag(section, "realtime", True),
        controls=controls,
    )


def open_camera(settings: CameraSettings) -> Camera:
    """The camera ``settings`` describe, built but not opened (``CameraFeed`` opens it)."""
    if settings.source == "picamera2":
        from companion.cameras.picam import PiCamera

        return PiCamera(
            settings.camera_num, (settings.width, settings.height), settings.fps, settings.controls
        )
    if settings.source == "opencv":
        from companion.cameras.opencv import opencv_camera

        return opencv_camera(settings)
    if settings.source == "folder":
        from companion.cameras.folder import FolderCamera

        assert settings.folder is not None  # camera_settings insists on it
        return FolderCamera(settings.folder, settings.fps, loop=settings.loop, realtime=settings.realtime)
    if settings.source == "simulator":
        raise ValueError("the simulated table is built by its caller (FramesCamera over its frames)")
    raise ValueError(f'source "{settings.source}" has no camera to open')
