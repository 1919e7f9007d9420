"""Cameras behind one interface: picamera2, OpenCV (USB cameras, video files), a folder of
pictures, any iterator of frames (the simulated table); and the feed that keeps them going.
See docs/cameras.md."""

from companion.cameras.base import BadFrame, Camera, CameraError, Controls, EndOfSource, Frame
from companion.cameras.feed import CameraFeed
from companion.cameras.settings import CameraSettings, camera_settings, open_camera

__all__ = [
    "BadFrame",
    "Camera",
    "CameraError",
    "CameraFeed",
    "CameraSettings",
    "Controls",
    "EndOfSource",
    "Frame",
    "camera_settings",
    "open_camera",
]
