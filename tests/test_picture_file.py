"""Picture files named on the command line or kept in a gallery: a damaged one is refused with
its reason, never decoded into half a picture."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import UserError
from companion.games.starwars.reader.board_read import load_image
from companion.vision.picture_file import (
    UnreadablePicture,
    jpeg_is_whole,
    read_picture_file,
    stated_size,
)


def _jpeg(progressive: bool = False, restarts: int = 0) -> bytes:
    rng = np.random.default_rng(3)
    picture = cv2.GaussianBlur(rng.integers(0, 256, (90, 120, 3), dtype=np.uint8), (0, 0), 2)
    ok, data = cv2.imencode(
        ".jpg",
        picture,
        [cv2.IMWRITE_JPEG_PROGRESSIVE, int(progressive), cv2.IMWRITE_JPEG_RST_INTERVAL, restarts],
    )
    assert ok
    return data.tobytes()


@pytest.mark.parametrize(("progressive", "restarts"), [(False, 0), (True, 0), (False, 2)])
def test_a_jpeg_is_whole_only_to_its_end_marker(progressive: bool, restarts: int) -> None:
    data = _jpeg(progressive, restarts)
    assert jpeg_is_whole(data)
    # cut anywhere before its end, it is not whole
    assert not any(jpeg_is_whole(data[:cut]) for cut in range(2, len(data) - 1, 7))
    assert not jpeg_is_whole(data[:-2])
    # what a phone appends after the end (a motion photo's video) does not matter
    assert jpeg_is_whole(data + b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8)


def test_an_end_marker_inside_a_segment_is_not_the_picture_s_end() -> None:
    """An EXIF thumbnail is a whole JPEG inside the APP1 segment: its end marker comes early."""
    data = _jpeg()
    thumbnail = b"Exif\x00\x00" + b"\xff\xd8" + bytes(40) + b"\xff\xd9"
    app1 = b"\xff\xe1" + (len(thumbnail) + 2).to_bytes(2, "big") + thumbnail
    with_thumbnail = data[:2] + app1 + data[2:]
    assert jpeg_is_whole(with_thumbnail)
    assert not jpeg_is_whole(with_thumbnail[: len(app1) + 200])


def test_stray_bytes_before_a_marker_are_skipped_as_libjpeg_skips_them() -> None:
    data = _jpeg()
    stray = data[:2] + b"\x00\x17" + data[2:]  # between the start marker and the first segment
    assert jpeg_is_whole(stray)
    assert not jpeg_is_whole(stray[: len(stray) // 2])


def test_read_picture_file_says_why_it_cannot_use_a_file(tmp_path: Path) -> None:
    data = _jpeg()
    good = tmp_path / "good.jpg"
    good.write_bytes(data)
    assert read_picture_file(good).shape == (90, 120, 3)
    cases = {
        "cut.jpg": (data[: len(data) // 2], "stops before its end"),
        "text.png": (b"not a picture", "not an image OpenCV can read"),
        "empty.png": (b"", "not an image OpenCV can read"),
    }
    for name, (content, reason) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(UnreadablePicture, match=reason):
            read_picture_file(tmp_path / name)
    with pytest.raises(UnreadablePicture, match="a folder, not a picture"):
        read_picture_file(tmp_path)
    with pytest.raises(UnreadablePicture, match="no such file"):
        read_picture_file(tmp_path / "missing.png")


def test_board_read_refuses_a_cut_short_jpeg_rather_than_reading_half_a_mat(tmp_path: Path) -> None:
    cut = tmp_path / "table.jpg"
    data = _jpeg()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(UserError, match="stops before its end"):
        load_image(str(cut))
    with pytest.raises(UserError, match="a folder, not a picture"):
        load_image(str(tmp_path))
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.full((20, 30, 3), 128, np.uint8))
    with pytest.raises(UserError, match="30x20 px is too small to show the mat"):
        load_image(str(tiny))


def test_a_picture_under_the_smallest_side_asked_for_is_refused_with_its_size(tmp_path: Path) -> None:
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.full((20, 30, 3), 128, np.uint8))
    assert read_picture_file(small).shape == (20, 30, 3)  # no smallest side: read as it is
    assert read_picture_file(small, 20).shape == (20, 30, 3)
    with pytest.raises(UnreadablePicture, match=r"30x20 px is too small for a test \(at least 21 px"):
        read_picture_file(small, 21, "for a test")


def test_stated_size_is_read_from_the_header_of_a_jpeg_and_a_png() -> None:
    picture = np.zeros((30, 70, 3), np.uint8)
    for extension in (".jpg", ".png"):
        ok, encoded = cv2.imencode(extension, picture)
        assert ok and stated_size(encoded.tobytes()) == (70, 30)
    assert stated_size(b"GIF89a....") is None


def test_a_large_jpeg_is_read_shrunk_to_the_longest_side_asked_for(tmp_path: Path) -> None:
    picture = np.zeros((3000, 4000, 3), np.uint8)
    picture[:, 2000:] = (0, 0, 255)  # its right half red: shrinking keeps what is where
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), picture)
    read = read_picture_file(path, max_side=1000)
    assert read.shape == (750, 1000, 3)
    assert read[:, :490, 2].max() < 40 and read[:, 510:, 2].min() > 200
    assert read_picture_file(path).shape == (3000, 4000, 3)  # no longest side: as it is
    # the smallest side is judged on the picture as taken, not as shrunk
    assert read_picture_file(path, 2000, max_side=1000).shape == (750, 1000, 3)


def test_a_png_too_large_to_open_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    _, encoded = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))
    data = bytearray(encoded.tobytes())
    data[16:24] = (16000).to_bytes(4, "big") + (12000).to_bytes(4, "big")  # what its header says
    path = tmp_path / "huge.png"
    path.write_bytes(bytes(data))
    with pytest.raises(UnreadablePicture, match=r"16000x12000 px is too large a picture.*save it as a JPEG"):
        read_picture_file(path, max_side=4096)
    # read whole (a tray's photograph, a gallery's picture), it is refused all the same
    data[16:24] = (60000).to_bytes(4, "big") + (60000).to_bytes(4, "big")
    path.write_bytes(bytes(data))
    with pytest.raises(UnreadablePicture, match=r"60000x60000 px is too large a picture.*use a smaller copy"):
        read_picture_file(path)
