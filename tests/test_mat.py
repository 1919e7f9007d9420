"""The printable play mat: the PNG at print size, the hand-made PDF, the command and docs/mat.md."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.vision.mat import CROP_PX, PX_PER_MM, STANDARD_MAT, TILE_MM, TILE_PX
from companion.vision.matfile import (
    PT_PER_MM,
    marker_cells,
    mat_image,
    mat_pdf,
    set_png_dpi,
    write_mat_pdf,
    write_mat_png,
)
from companion.vision.rectify import Rectifier

DOCS = Path(__file__).resolve().parent.parent / "docs"


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """(type, data) of every chunk, checking each CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        chunks.append((kind, body))
        at += 12 + length
    assert at == len(data)
    return chunks


@pytest.fixture(scope="module")
def png_150(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mat") / "mat.png"
    write_mat_png(path, dpi=150)
    return path


def test_png_has_print_size_and_phys(png_150: Path) -> None:
    image = cv2.imread(str(png_150), cv2.IMREAD_COLOR)
    assert image is not None
    assert image.shape[:2] == (round(600 / 25.4 * 150), round(900 / 25.4 * 150)) == (3543, 5315)
    chunks = png_chunks(png_150.read_bytes())
    assert chunks[0][0] == b"IHDR" and chunks[1][0] == b"pHYs" and chunks[-1][0] == b"IEND"
    assert [kind for kind, _ in chunks].count(b"pHYs") == 1
    assert struct.unpack(">IIB", chunks[1][1]) == (5906, 5906, 1)  # 150 dpi in pixels per metre, unit metre
    assert image[5, image.shape[1] // 3].tolist() == list(STANDARD_MAT.colour_bgr)  # the felt


def test_phys_is_replaced_not_doubled() -> None:
    ok, encoded = cv2.imencode(".png", np.zeros((4, 4, 3), np.uint8))
    assert ok
    once = set_png_dpi(encoded.tobytes(), 300)
    twice = set_png_dpi(once, 72)
    kinds = [kind for kind, _ in png_chunks(twice)]
    assert kinds.count(b"pHYs") == 1 and kinds[:2] == [b"IHDR", b"pHYs"]
    assert struct.unpack(">IIB", dict(png_chunks(twice))[b"pHYs"]) == (2835, 2835, 1)
    decoded = cv2.imdecode(np.frombuffer(twice, np.uint8), cv2.IMREAD_COLOR)
    assert decoded is not None and decoded.shape == (4, 4, 3)


def on_a_table(image: np.ndarray, pad: int) -> np.ndarray:
    """The mat as a camera sees it: on a table. A quiet zone 1 mm from the image's own edge
    defeats OpenCV's detector, which a mat lying on a table never meets."""
    return cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=60)


def test_markers_in_the_png_are_where_the_mat_says(png_150: Path) -> None:
    pad = 100
    grey = cv2.imread(str(png_150), cv2.IMREAD_GRAYSCALE)
    assert grey is not None
    image = on_a_table(grey, pad)
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(STANDARD_MAT.dictionary, parameters)
    corners, ids, _ = detector.detectMarkers(image)
    assert ids is not None
    assert sorted(ids.ravel().tolist()) == list(range(8))
    px_per_mm = 150 / 25.4
    for found, marker_id in zip(corners, ids.ravel(), strict=True):
        marker = STANDARD_MAT.marker(int(marker_id))
        assert marker is not None
        # A pixel's centre is its integer coordinate, so a pixel edge lies half a pixel before it.
        mm = (found.reshape(4, 2) - pad + 0.5) / px_per_mm
        assert np.abs(mm - marker.corners_mm()).max() < 1.0, (marker_id, mm)


@pytest.mark.parametrize("dpi", [71, 601, 150.0, True])
def test_png_refuses_a_bad_dpi(dpi: object, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dpi"):
        write_mat_png(tmp_path / "x.png", dpi=dpi)  # type: ignore[arg-type]
    assert not (tmp_path / "x.png").exists()


def test_unwritable_paths_raise_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_mat_pdf(tmp_path / "missing" / "x.pdf")
    with pytest.raises(OSError):
        write_mat_png(tmp_path, dpi=72)  # a directory


def pdf_objects(data: bytes) -> dict[int, bytes]:
    """A minimal reader: follows startxref to the xref table and checks every offset in it."""
    assert data.startswith(b"%PDF-1.")
    assert data.rstrip().endswith(b"%%EOF")
    xref_at = int(re.findall(rb"startxref\s+(\d+)\s+%%EOF", data)[-1])
    assert data[xref_at:].startswith(b"xref")
    head = re.match(rb"xref\r?\n(\d+) (\d+)\r?\n", data[xref_at:])
    assert head is not None and int(head.group(1)) == 0
    count, at = int(head.group(2)), xref_at + head.end()
    entries = [data[at + 20 * i : at + 20 * (i + 1)] for i in range(count)]
    assert all(len(e) == 20 and e[17:18] in (b"n", b"f") and e[18:20] in (b" \n", b"\r\n") for e in entries)
    assert entries[0][:17] == b"0000000000 65535 " and entries[0][17:18] == b"f"
    trailer = data[at + 20 * count :]
    assert trailer.startswith(b"trailer")
    size = re.search(rb"/Size (\d+)", trailer)
    assert size is not None and int(size.group(1)) == count
    objects = {}
    for number, entry in enumerate(entries[1:], start=1):
        offset = int(entry[:10])
        assert data[offset:].startswith(b"%d 0 obj" % number), number
        end = data.index(b"endobj", offset)
        objects[number] = data[offset + len(b"%d 0 obj" % number) : end].strip()
    root = re.search(rb"/Root (\d+) 0 R", trailer)
    assert root is not None and b"/Type /Catalog" in objects[int(root.group(1))]
    return objects


def page_and_content(data: bytes) -> tuple[bytes, bytes]:
    objects = pdf_objects(data)
    pages = [body for body in objects.values() if b"/Type /Page " in body or b"/Type /Page\n" in body]
    assert len(pages) == 1
    contents = re.search(rb"/Contents (\d+) 0 R", pages[0])
    assert contents is not None
    stream = objects[int(contents.group(1))]
    match = re.match(rb"<< /Length (\d+) >>\s*stream\r?\n", stream)
    assert match is not None
    length = int(match.group(1))
    body = stream[match.end() : match.end() + length]
    assert stream[match.end() + length :].strip() == b"endstream"  # /Length is exact
    return pages[0], body


def test_pdf_page_is_the_mat_and_its_xref_is_right(tmp_path: Path) -> None:
    path = tmp_path / "mat.pdf"
    write_mat_pdf(path)
    page, content = page_and_content(path.read_bytes())
    box = re.search(rb"/MediaBox \[([^\]]*)\]", page)
    assert box is not None
    x0, y0, x1, y1 = (float(v) for v in box.group(1).split())
    assert (x0, y0) == (0, 0)
    assert x1 == pytest.approx(900 * 72 / 25.4, abs=0.001) and y1 == pytest.approx(600 * 72 / 25.4, abs=0.001)
    assert b"/BaseFont /Helvetica" in path.read_bytes()
    # the em dash is WinAnsi's octal 227
    assert b"Table Companion play mat \\227 print at 100% (900 x 600 mm)" in content.replace(
        b"\\(", b"("
    ).replace(b"\\)", b")")
    for marker in STANDARD_MAT.markers:
        assert b"(marker %d) Tj" % marker.id in content


def black_rects(content: bytes) -> list[tuple[float, float, float, float]]:
    """Every rectangle filled in black, back in mat millimetres (y down)."""
    height_pt = STANDARD_MAT.height_mm * PT_PER_MM
    fill: tuple[float, ...] = ()
    pending: list[tuple[float, float, float, float]] = []
    found = []
    operands: list[bytes] = []
    in_text = False
    for token in re.findall(rb"\((?:\\.|[^\\)])*\)|[^\s()]+", content):
        if token == b"BT":
            in_text = True
        elif token == b"ET":
            in_text = False
        if in_text or token.startswith(b"(") or re.fullmatch(rb"-?[\d.]+|/\w+", token):
            operands.append(token)
            continue
        if token == b"rg":
            fill = tuple(float(v) for v in operands[-3:])
        elif token == b"re":
            x, y, w, h = (float(v) for v in operands[-4:])
            pending.append((x / PT_PER_MM, (height_pt - y - h) / PT_PER_MM, w / PT_PER_MM, h / PT_PER_MM))
        elif token == b"f":
            if fill == (0.0, 0.0, 0.0):
                found.extend(pending)
            pending = []
        elif token in (b"S", b"n"):
            pending = []
        operands = []
    return found


def test_pdf_has_one_black_rect_per_marker_cell() -> None:
    _, content = page_and_content(mat_pdf())
    rects = black_rects(content)
    dictionary = STANDARD_MAT.dictionary
    expected = 0
    for marker in STANDARD_MAT.markers:
        bits = cv2.aruco.generateImageMarker(dictionary, marker.id, 6)
        black = int((bits < 128).sum())
        expected += black
        side = marker.size_mm / 6
        inside = [
            r
            for r in rects
            if marker.x_mm - 0.01 <= r[0] <= marker.x_mm + marker.size_mm
            and marker.y_mm - 0.01 <= r[1] <= marker.y_mm + marker.size_mm
        ]
        assert len(inside) == black, marker.id
        for x, y, w, h in inside:  # each on the marker's 6 x 6 lattice, and black in the pattern
            col, row = round((x - marker.x_mm) / side), round((y - marker.y_mm) / side)
            assert abs(x - (marker.x_mm + col * side)) < 0.01 and abs(y - (marker.y_mm + row * side)) < 0.01
            assert w == pytest.approx(side, abs=0.01) and h == pytest.approx(side, abs=0.01)
            assert bits[row, col] == 0
    assert len(rects) == expected == sum(len(marker_cells(STANDARD_MAT, m.id)) for m in STANDARD_MAT.markers)


def test_pdf_and_png_draw_the_same_markers() -> None:
    image = mat_image(dpi=72)
    s = 72 / 25.4
    for marker in STANDARD_MAT.markers:
        cells = marker_cells(STANDARD_MAT, marker.id)
        for cell in cells:
            cx, cy = (cell.x_mm + cell.w_mm / 2) * s, (cell.y_mm + cell.h_mm / 2) * s
            assert image[round(cy), round(cx)].tolist() == [0, 0, 0]
        q = (marker.x_mm - 2) * s, (marker.y_mm - 2) * s  # in the quiet zone
        assert image[round(q[1]), round(q[0])].tolist() == [255, 255, 255]


@pytest.mark.skipif(shutil.which("qpdf") is None, reason="qpdf is not installed")
def test_qpdf_finds_the_pdf_sound(tmp_path: Path) -> None:
    path = tmp_path / "mat.pdf"
    write_mat_pdf(path)
    result = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm is not installed")
def test_pdftoppm_renders_the_markers(tmp_path: Path) -> None:
    path = tmp_path / "mat.pdf"
    write_mat_pdf(path)
    subprocess.run(["pdftoppm", "-r", "50", "-png", str(path), str(tmp_path / "page")], check=True)
    (page,) = tmp_path.glob("page*.png")
    image = cv2.imread(str(page), cv2.IMREAD_GRAYSCALE)
    assert image is not None
    assert image.shape == (round(600 / 25.4 * 50), round(900 / 25.4 * 50))
    _, ids, _ = cv2.aruco.ArucoDetector(STANDARD_MAT.dictionary).detectMarkers(on_a_table(image, 40))
    assert ids is not None and sorted(ids.ravel().tolist()) == list(range(8))


def test_cli_writes_png_and_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png, pdf = tmp_path / "x.png", tmp_path / "x.pdf"
    assert main(["mat", "--out", str(png), "--dpi", "72"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"wrote {png}: 900 x 600 mm at 72 dpi (2551 x 1701 px), 8 ArUco markers")
    assert "(DICT_4X4_50, ids 0-7); print at 100% scale" in err
    written = cv2.imread(str(png))
    assert written is not None and written.shape == (1701, 2551, 3)
    assert dict(png_chunks(png.read_bytes()))[b"pHYs"] == struct.pack(">IIB", 2835, 2835, 1)

    assert main(["mat", "--out", str(pdf)]) == 0
    err = capsys.readouterr().err
    assert err.strip() == (
        f"wrote {pdf}: 900 x 600 mm, 8 ArUco markers (DICT_4X4_50, ids 0-7); print at 100% scale"
    )
    assert pdf.read_bytes() == mat_pdf()


def test_cli_default_is_play_mat_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["mat"]) == 0
    assert (tmp_path / "play-mat.pdf").read_bytes() == mat_pdf()
    assert capsys.readouterr().err.startswith("wrote play-mat.pdf: 900 x 600 mm")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--out", "x.gif"], "written as .pdf or .png, not 'x.gif'"),
        (["--out", "x"], "written as .pdf or .png"),
        (["--out", "x.png", "--dpi", "50"], "72 to 600 dots per inch, not 50"),
        (["--out", "x.png", "--dpi", "lots"], "a whole number of dots per inch"),
    ],
)
def test_cli_refuses_bad_options(
    args: list[str],
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(["mat", *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert words in err and "usage: companion mat" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["x.pdf", "x.png"])
def test_cli_says_when_it_cannot_write(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no-such-dir" / name
    assert main(["mat", "--out", str(target), "--dpi", "72"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == f"companion mat: cannot write {target}: No such file or directory"
    assert "Traceback" not in err


def test_docs_give_the_geometry_of_the_code() -> None:
    text = (DOCS / "mat.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", text, re.MULTILINE)
    assert [(int(i), float(x), float(y), float(s)) for i, x, y, s in rows] == [
        (m.id, m.x_mm, m.y_mm, m.size_mm) for m in STANDARD_MAT.markers
    ]
    b, t = STANDARD_MAT.board, STANDARD_MAT.tray
    for words in (
        f"{STANDARD_MAT.width_mm:g} x {STANDARD_MAT.height_mm:g} mm",
        f"x {b.x_mm:g} to {b.x_mm + b.w_mm:g} mm, y {b.y_mm:g} to {b.y_mm + b.h_mm:g} mm",
        f"x {t.x_mm:g} to {t.x_mm + t.w_mm:g} mm, y {t.y_mm:g} to {t.y_mm + t.h_mm:g} mm",
        f"BGR {STANDARD_MAT.colour_bgr}",
        f"`TILE_MM` = {TILE_MM:g}",
        f"`TILE_PX` = {TILE_PX}",
        f"`CROP_PX` = {CROP_PX}",
        f"{PX_PER_MM:.4f}",
    ):
        assert words in text, words
    assert "[mat.md](mat.md)" in (DOCS / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("width", [640, 1280, 1920, 4000])
def test_the_mat_file_itself_is_located_at_any_size(png_150: Path, width: int) -> None:
    # the file's razor-sharp markers, with no table round them, defeat ArUco's thresholds at
    # most sizes; the rectifier looks again at a softened copy
    image = cv2.imread(str(png_150))
    assert image is not None
    scale = width / image.shape[1]
    picture = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    view = Rectifier().locate(picture)
    assert view.homography is not None, view.message
    assert view.markers == tuple(range(8))
