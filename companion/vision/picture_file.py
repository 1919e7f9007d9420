"""Reading a picture a person names on the command line or puts in a gallery folder.

OpenCV decodes what it can of a damaged file: ``cv2.imread`` gives a JPEG cut short while it was
copied back whole-sized with its lower part grey (``cv2.imdecode`` may refuse it), and a reader
would then say "no dice" or "the mat is not in view" about a picture that was never whole. So a
JPEG is first walked marker by marker to its end-of-image marker, and a file that stops before it
is refused.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

SOI, EOI, SOS = 0xD8, 0xD9, 0xDA
# markers that stand alone, with no length after them: TEM and the restart markers
STANDALONE = {0x01, *range(0xD0, 0xD8)}


class UnreadablePicture(ValueError):
    """A picture file that cannot be used; the message names the file and says why."""


def jpeg_is_whole(data: bytes) -> bool:
    """Whether JPEG ``data`` reaches its end-of-image marker. Segments are skipped by their
    lengths (an EXIF thumbnail's own end marker lies inside one), and the coded data after
    each start-of-scan is read to the next marker; what follows the end (a phone's motion
    photo appends a video) does not matter."""
    position = 2  # after the start-of-image marker
    while position + 1 < len(data):
        if data[position] != 0xFF:
            # stray bytes before a marker: libjpeg skips them with a warning, and so does this
            position = data.find(b"\xff", position)
            if position < 0:
                return False
            continue
        marker = data[position + 1]
        if marker == 0xFF:  # fill bytes before a marker
            position += 1
            continue
        if marker == EOI:
            return True
        if marker in STANDALONE:
            position += 2
            continue
        if position + 3 >= len(data):
            return False
        length = int.from_bytes(data[position + 2 : position + 4], "big")
        position += 2 + length
        if marker == SOS:
            position = _after_scan(data, position)
    return False


def _after_scan(data: bytes, position: int) -> int:
    """Where the marker after a scan's coded data starts (len(data) if none): in coded data
    0xFF is followed by 0x00 (a stuffed byte) or a restart marker."""
    while True:
        position = data.find(b"\xff", position)
        if position < 0 or position + 1 >= len(data):
            return len(data)
        following = data[position + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            position += 1 if following == 0xFF else 2
            continue
        return position


def read_picture_file(path: str | Path, min_side: int = 1, purpose: str = "to read") -> np.ndarray:
    """The picture at ``path`` as BGR; UnreadablePicture saying why when it cannot be used,
    including when it is less than ``min_side`` pixels a side (too small ``purpose``)."""
    file = Path(path)
    if file.is_dir():
        raise UnreadablePicture(f"{path}: a folder, not a picture")
    if not file.is_file():
        raise UnreadablePicture(f"{path}: no such file")
    try:
        data = file.read_bytes()
    except OSError as error:
        raise UnreadablePicture(f"{path}: cannot be read ({error.strerror or error})") from None
    if data[:2] == bytes((0xFF, SOI)) and not jpeg_is_whole(data):
        raise UnreadablePicture(
            f"{path}: the JPEG stops before its end (cut short while it was copied or written): "
            "copy it again, or take the picture again"
        )
    picture = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if picture is None:
        raise UnreadablePicture(f"{path}: not an image OpenCV can read (PNG, JPEG, ...)")
    height, width = picture.shape[:2]
    if min(height, width) < min_side:
        raise UnreadablePicture(
            f"{path}: {width}x{height} px is too small {purpose} (at least {min_side} px a side)"
        )
    return np.asarray(picture)
