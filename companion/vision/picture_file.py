"""Reading a picture a person names on the command line or puts in a gallery folder.

OpenCV decodes what it can of a damaged file: ``cv2.imread`` gives a JPEG cut short while it was
copied back whole-sized with its lower part grey (``cv2.imdecode`` may refuse it), and a reader
would then say "no dice" or "the mat is not in view" about a picture that was never whole. So a
JPEG is first walked marker by marker to its end-of-image marker, and a file that stops before it
is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

SOI, EOI, SOS = 0xD8, 0xD9, 0xDA
# markers that stand alone, with no length after them: TEM and the restart markers
STANDALONE = {0x01, *range(0xD0, 0xD8)}
# start-of-frame markers, which carry the picture's size (not DHT C4, JPG C8 or DAC CC)
START_OF_FRAME = {*range(0xC0, 0xD0)} - {0xC4, 0xC8, 0xCC}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# libjpeg decodes a JPEG straight at 1/2, 1/4 or 1/8 of its size, without the whole in memory
REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4), (2, cv2.IMREAD_REDUCED_COLOR_2))
# any other kind of file is decoded whole before it can be shrunk: 64 megapixels is 192 MB
MAX_WHOLE_PIXELS = 64_000_000


class UnreadablePicture(ValueError):
    """A picture file that cannot be used; the message names the file and says why."""


def jpeg_is_whole(data: bytes) -> bool:
    """Whether JPEG ``data`` reaches its end-of-image marker; what follows the end (a phone's
    motion photo appends a video) does not matter."""
    return any(marker == EOI for marker, _ in _markers(data))


def _markers(data: bytes) -> Iterator[tuple[int, int]]:
    """Each marker of JPEG ``data`` after its start-of-image, with where it starts, up to the
    end-of-image or the end of the data. Segments are skipped by their lengths (an EXIF
    thumbnail's own end marker lies inside one), and the coded data after each start-of-scan
    is read to the next marker."""
    position = 2  # after the start-of-image marker
    while position + 1 < len(data):
        if data[position] != 0xFF:
            # stray bytes before a marker: libjpeg skips them with a warning, and so does this
            position = data.find(b"\xff", position)
            if position < 0:
                return
            continue
        marker = data[position + 1]
        if marker == 0xFF:  # fill bytes before a marker
            position += 1
            continue
        yield marker, position
        if marker == EOI:
            return
        if marker in STANDALONE:
            position += 2
            continue
        if position + 3 >= len(data):
            return
        position += 2 + int.from_bytes(data[position + 2 : position + 4], "big")
        if marker == SOS:
            position = _after_scan(data, position)


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


def stated_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) as a JPEG's or PNG's header states it, before anything is decoded; None
    for another kind of file or a header that does not say."""
    if data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] != bytes((0xFF, SOI)):
        return None
    for marker, position in _markers(data):
        if marker in START_OF_FRAME:
            if position + 9 > len(data):
                return None
            height = int.from_bytes(data[position + 5 : position + 7], "big")
            width = int.from_bytes(data[position + 7 : position + 9], "big")
            return (width, height) if width and height else None
        if marker in (SOS, EOI):
            return None
    return None


def _decode(data: bytes, max_side: int | None) -> np.ndarray | None:
    """The picture, its longer side brought down to ``max_side`` (when given and larger): a JPEG
    decoded at the largest reduction that keeps it at least that long, then shrunk to it."""
    buffer = np.frombuffer(data, np.uint8)
    flag = cv2.IMREAD_COLOR
    size = stated_size(data) if max_side is not None else None
    if max_side is not None and size is not None and data[:2] == bytes((0xFF, SOI)):
        flag = next((f for factor, f in REDUCED if max(size) // factor >= max_side), flag)
    picture = cv2.imdecode(buffer, flag)
    if picture is None or max_side is None:
        return picture
    longest = max(picture.shape[:2])
    if longest <= max_side:
        return picture
    scale = max_side / longest
    return cv2.resize(picture, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def read_picture_file(
    path: str | Path, min_side: int = 1, purpose: str = "to read", max_side: int | None = None
) -> np.ndarray:
    """The picture at ``path`` as BGR; UnreadablePicture saying why when it cannot be used,
    including when it is less than ``min_side`` pixels a side (too small ``purpose``). With
    ``max_side`` a larger picture comes back shrunk to that longer side (a phone's 50-megapixel
    photo would otherwise take more memory than a Pi has)."""
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
    size = stated_size(data)
    # only a JPEG shrunk as it is decoded (``max_side``) may be larger than that
    shrunk = max_side is not None and data[:2] == bytes((0xFF, SOI))
    if size is not None and not shrunk and size[0] * size[1] > MAX_WHOLE_PIXELS:
        advice = "save it as a JPEG, or a smaller copy" if max_side is not None else "use a smaller copy"
        raise UnreadablePicture(
            f"{path}: {size[0]}x{size[1]} px is too large a picture to open here (more than "
            f"{MAX_WHOLE_PIXELS // 1_000_000} megapixels): {advice}"
        )
    try:
        picture = _decode(data, max_side) if data else None
    except cv2.error:  # a size OpenCV refuses (its own bound), or a file it chokes on
        picture = None
    if picture is None:
        raise UnreadablePicture(f"{path}: not an image OpenCV can read (PNG, JPEG, ...)")
    # the picture's own size (before any shrinking) is what a person knows it by
    height, width = picture.shape[:2]
    width, height = size or (width, height)
    if min(height, width) < min_side:
        raise UnreadablePicture(
            f"{path}: {width}x{height} px is too small {purpose} (at least {min_side} px a side)"
        )
    return np.asarray(picture)
