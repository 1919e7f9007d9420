"""The printable play mat: a vector PDF and a PNG at print size, both from ``mat.py``'s geometry.

The mat is described once as a list of drawing operations in millimetres (fills, outlines and
text); one backend writes them as a hand-made PDF, the other rasterises them with OpenCV. The
markers are drawn cell by cell from the dictionary's bit pattern, so the printed squares are
exactly where ``Marker.corners_mm()`` says. See docs/mat.md.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.mat import MARKER_DICTIONARY, QUIET_ZONE_MM, STANDARD_MAT, TILE_MM, MatSpec, Rect

PT_PER_MM = 72 / 25.4
MIN_DPI, MAX_DPI = 72, 600

_Colour = tuple[int, int, int]  # BGR, as everywhere in OpenCV and in MatSpec.colour_bgr
_WHITE: _Colour = (255, 255, 255)
_BLACK: _Colour = (0, 0, 0)
_OUTLINE: _Colour = (110, 125, 118)  # a darker felt: visible to people, far from a tile's colours
_INK: _Colour = (55, 65, 60)  # the labels
_LINE_MM = 0.5
_GAP_MM = 2.0  # between a label and what it labels
_TITLE_PT, _SUBTITLE_PT, _LABEL_PT = 12.0, 7.0, 7.0

# Helvetica's advance widths (its AFM metrics, 1/1000 em) for ASCII 32..126, to lay out text.
_HELVETICA = (
    (278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278)
    + (556,) * 10
    + (278, 278, 584, 584, 584, 556, 1015)
    + (667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833)
    + (722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611)
    + (278, 278, 278, 469, 556, 333)
    + (556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833)
    + (556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500)
    + (334, 260, 334, 584)
)
_WIDE = {"\u2014": 1000, "\u2013": 556}


@dataclass(frozen=True)
class _Fill:
    rects: tuple[Rect, ...]  # one path: a marker's black cells are filled together, without seams
    colour: _Colour


@dataclass(frozen=True)
class _Outline:
    rect: Rect
    colour: _Colour
    width_mm: float


@dataclass(frozen=True)
class _Text:
    x_mm: float  # left end of the baseline
    baseline_mm: float
    size_pt: float
    text: str
    colour: _Colour


_Op = _Fill | _Outline | _Text


def text_width_mm(text: str, size_pt: float) -> float:
    """The width of ``text`` set in Helvetica at ``size_pt``, in millimetres."""
    units = 0
    for char in text:
        code = ord(char)
        units += _HELVETICA[code - 32] if 32 <= code <= 126 else _WIDE.get(char, 556)
    return units / 1000 * size_pt / PT_PER_MM


def _text_box(x_mm: float, top_mm: float, text: str, size_pt: float) -> Rect:
    return Rect(x_mm, top_mm, text_width_mm(text, size_pt), size_pt * 0.95 / PT_PER_MM)


def _baseline(box: Rect) -> float:
    """The baseline of text whose box is ``box``: Helvetica's descender is about 0.21 em."""
    return box.y_mm + box.h_mm * (1 - 0.21 / 0.95)


def _grown(rect: Rect, by: float) -> Rect:
    return Rect(rect.x_mm - by, rect.y_mm - by, rect.w_mm + 2 * by, rect.h_mm + 2 * by)


def _overlaps(a: Rect, b: Rect) -> bool:
    return (
        a.x_mm < b.x_mm + b.w_mm
        and b.x_mm < a.x_mm + a.w_mm
        and a.y_mm < b.y_mm + b.h_mm
        and b.y_mm < a.y_mm + a.h_mm
    )


def _first_free(boxes: Iterable[Rect], obstacles: list[Rect], mat: MatSpec) -> Rect | None:
    """The first box that lies on the mat (1 mm in) and keeps 1 mm clear of every obstacle."""
    for box in boxes:
        inside = (
            box.x_mm >= 1
            and box.y_mm >= 1
            and box.x_mm + box.w_mm <= mat.width_mm - 1
            and box.y_mm + box.h_mm <= mat.height_mm - 1
        )
        if inside and not any(_overlaps(_grown(box, 1.0), other) for other in obstacles):
            return box
    return None


def quiet_zone(mat: MatSpec, marker_id: int) -> Rect:
    """The white square printed under a marker: its black square plus ``QUIET_ZONE_MM`` round it."""
    marker = mat.marker(marker_id)
    if marker is None:
        raise ValueError(f"the mat has no marker {marker_id}")
    q = QUIET_ZONE_MM
    return Rect(marker.x_mm - q, marker.y_mm - q, marker.size_mm + 2 * q, marker.size_mm + 2 * q)


def marker_cells(mat: MatSpec, marker_id: int) -> list[Rect]:
    """The black cells of a marker (its border included), from the dictionary's bit pattern."""
    marker = mat.marker(marker_id)
    if marker is None:
        raise ValueError(f"the mat has no marker {marker_id}")
    cells = mat.dictionary.markerSize + 2  # the bits and a one-cell black border each side
    bits = cv2.aruco.generateImageMarker(mat.dictionary, marker.id, cells)
    side = marker.size_mm / cells
    return [
        Rect(marker.x_mm + col * side, marker.y_mm + row * side, side, side)
        for row in range(cells)
        for col in range(cells)
        if bits[row, col] < 128
    ]


def marker_ids_text(mat: MatSpec) -> str:
    """The markers' ids for people: ``0-7`` when they run on, else ``0, 2, 5``."""
    ids = sorted(m.id for m in mat.markers)
    if len(ids) > 2 and ids == list(range(ids[0], ids[-1] + 1)):
        return f"{ids[0]}-{ids[-1]}"
    return ", ".join(str(i) for i in ids)


def _title(mat: MatSpec) -> tuple[str, str]:
    title = f"Table Companion play mat \u2014 print at 100% ({mat.width_mm:g} x {mat.height_mm:g} mm)"
    subtitle = (
        f"markers: ArUco {MARKER_DICTIONARY}, ids {marker_ids_text(mat)}; "
        f"tiles {TILE_MM:g} mm; geometry in docs/mat.md"
    )
    return title, subtitle


def _drawing(mat: MatSpec) -> list[_Op]:
    """Everything printed on the mat, in painting order."""
    ops: list[_Op] = [_Fill((Rect(0.0, 0.0, mat.width_mm, mat.height_mm),), mat.colour_bgr)]
    ops.append(_Outline(mat.board, _OUTLINE, _LINE_MM))
    ops.append(_Outline(mat.tray, _OUTLINE, _LINE_MM))
    zones = [quiet_zone(mat, m.id) for m in mat.markers]
    for marker, zone in zip(mat.markers, zones, strict=True):
        ops.append(_Fill((zone,), _WHITE))
        ops.append(_Fill(tuple(marker_cells(mat, marker.id)), _BLACK))
    obstacles = [*zones, _grown(mat.board, _LINE_MM), _grown(mat.tray, _LINE_MM)]

    # The title: two lines in the strip above the board, else below it, as far left as they fit.
    title, subtitle = _title(mat)
    high = _text_box(0.0, 0.0, title, _TITLE_PT)
    low = _text_box(0.0, 0.0, subtitle, _SUBTITLE_PT)
    block_w, block_h = max(high.w_mm, low.w_mm), high.h_mm + 1.0 + low.h_mm
    tops = [(mat.board.y_mm - block_h) / 2, (mat.board.y_mm + mat.board.h_mm + mat.height_mm - block_h) / 2]
    steps = range(round(mat.width_mm))
    block = _first_free(
        (Rect(float(x), top, block_w, block_h) for top in tops for x in steps), obstacles, mat
    )
    if block is not None:
        obstacles.append(block)
        ops.append(_Text(block.x_mm, _baseline(Rect(0, block.y_mm, 0, high.h_mm)), _TITLE_PT, title, _INK))
        second = block.y_mm + high.h_mm + 1.0
        ops.append(_Text(block.x_mm, _baseline(Rect(0, second, 0, low.h_mm)), _SUBTITLE_PT, subtitle, _INK))

    def label(text: str, boxes: Iterator[Rect]) -> None:
        box = _first_free(boxes, obstacles, mat)
        if box is not None:
            obstacles.append(box)
            ops.append(_Text(box.x_mm, _baseline(box), _LABEL_PT, text, _INK))

    for marker, zone in zip(mat.markers, zones, strict=True):
        text = f"marker {marker.id}"
        w, h = text_width_mm(text, _LABEL_PT), _text_box(0, 0, text, _LABEL_PT).h_mm
        middle = zone.y_mm + zone.h_mm / 2 - h / 2
        label(
            text,
            iter(
                [
                    Rect(zone.x_mm + zone.w_mm + _GAP_MM, middle, w, h),  # right
                    Rect(marker.x_mm, zone.y_mm + zone.h_mm + _GAP_MM, w, h),  # below
                    Rect(marker.x_mm, zone.y_mm - _GAP_MM - h, w, h),  # above
                    Rect(zone.x_mm - _GAP_MM - w, middle, w, h),  # left
                ]
            ),
        )
    for area, text in (
        (mat.board, f"board area: {mat.board.w_mm / TILE_MM:g} x {mat.board.h_mm / TILE_MM:g} tiles"),
        (mat.tray, "dice tray"),
    ):
        w, h = text_width_mm(text, _LABEL_PT), _text_box(0, 0, text, _LABEL_PT).h_mm
        label(
            text,
            iter(
                [
                    Rect(area.x_mm, area.y_mm - _GAP_MM - h, w, h),
                    Rect(area.x_mm, area.y_mm + area.h_mm + _GAP_MM, w, h),
                ]
            ),
        )
    return ops


def _check_mat(mat: MatSpec) -> None:
    if not (mat.width_mm > 0 and mat.height_mm > 0):
        raise ValueError(f"a mat must have a positive size, not {mat.width_mm:g} x {mat.height_mm:g} mm")
    if not mat.markers:
        raise ValueError("a mat without markers cannot be read by the camera")


# --- PDF ---------------------------------------------------------------------------------------


def _num(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _pdf_colour(colour: _Colour) -> str:
    b, g, r = colour
    return " ".join(_num(c / 255) for c in (r, g, b))


def _pdf_string(text: str) -> str:
    out = []
    for byte in text.encode("cp1252", errors="replace"):
        char = chr(byte)
        if char in "()\\":
            out.append("\\" + char)
        elif 32 <= byte <= 126:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return "(" + "".join(out) + ")"


def _content_stream(mat: MatSpec) -> bytes:
    k, height = PT_PER_MM, mat.height_mm

    def box(rect: Rect) -> str:  # PDF's origin is bottom-left, y up; the mat's is top-left, y down
        y = height - rect.y_mm - rect.h_mm
        return f"{_num(rect.x_mm * k)} {_num(y * k)} {_num(rect.w_mm * k)} {_num(rect.h_mm * k)} re"

    lines: list[str] = []
    for op in _drawing(mat):
        if isinstance(op, _Fill):
            lines.append(f"{_pdf_colour(op.colour)} rg")
            lines.extend(box(rect) for rect in op.rects)
            lines.append("f")
        elif isinstance(op, _Outline):
            lines.append(f"{_pdf_colour(op.colour)} RG {_num(op.width_mm * k)} w")
            lines.append(box(op.rect))
            lines.append("S")
        else:
            x, y = _num(op.x_mm * k), _num((height - op.baseline_mm) * k)
            lines.append(f"{_pdf_colour(op.colour)} rg")
            lines.append(f"BT /F1 {_num(op.size_pt)} Tf {x} {y} Td {_pdf_string(op.text)} Tj ET")
    return ("\n".join(lines) + "\n").encode("ascii")


def mat_pdf(mat: MatSpec = STANDARD_MAT) -> bytes:
    """The mat as a one-page PDF, the page exactly the mat's size, drawn entirely as vectors."""
    _check_mat(mat)
    width, height = _num(mat.width_mm * PT_PER_MM), _num(mat.height_mm * PT_PER_MM)
    content = _content_stream(mat)
    # The Info dictionary's strings are PDFDocEncoding, not WinAnsi: keep the title ASCII.
    title = _pdf_string(f"Table Companion play mat ({mat.width_mm:g} x {mat.height_mm:g} mm)")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] "
            "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
        ).encode("ascii"),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        f"<< /Title {title} /Creator (companion mat) >>".encode("ascii"),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")  # the binary comment tells tools it is binary
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n" % (len(objects) + 1)
    out += b"0000000000 65535 f\r\n"  # each entry is exactly 20 bytes
    for offset in offsets:
        out += b"%010d 00000 n\r\n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\n" % (len(objects) + 1, len(objects))
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def write_mat_pdf(path: str | os.PathLike[str], mat: MatSpec = STANDARD_MAT) -> None:
    """Write the mat as a vector PDF (raises OSError when the file cannot be written)."""
    Path(path).write_bytes(mat_pdf(mat))


# --- PNG ---------------------------------------------------------------------------------------


def _check_dpi(dpi: int) -> None:
    if isinstance(dpi, bool) or not isinstance(dpi, int):
        raise ValueError(f"dpi must be a whole number, not {dpi!r}")
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise ValueError(f"dpi must be {MIN_DPI} to {MAX_DPI}, not {dpi}")


def mat_image(mat: MatSpec = STANDARD_MAT, dpi: int = 150) -> np.ndarray:
    """The mat rasterised at print size: BGR, ``round(mm / 25.4 * dpi)`` pixels each way."""
    _check_mat(mat)
    _check_dpi(dpi)
    s = dpi / 25.4  # pixels per millimetre
    image = np.empty((round(mat.height_mm * s), round(mat.width_mm * s), 3), np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for op in _drawing(mat):
        if isinstance(op, _Fill):
            for r in op.rects:  # whole pixels; abutting cells round to the same edge
                x0, y0 = round(r.x_mm * s), round(r.y_mm * s)
                x1, y1 = round((r.x_mm + r.w_mm) * s), round((r.y_mm + r.h_mm) * s)
                image[max(y0, 0) : max(y1, 0), max(x0, 0) : max(x1, 0)] = op.colour
        elif isinstance(op, _Outline):
            r = op.rect
            corner = (round(r.x_mm * s), round(r.y_mm * s))
            far = (round((r.x_mm + r.w_mm) * s), round((r.y_mm + r.h_mm) * s))
            cv2.rectangle(image, corner, far, op.colour, max(1, round(op.width_mm * s)), cv2.LINE_AA)
        else:
            text = op.text.replace("\u2014", "-").replace("\u2013", "-")
            text = text.encode("ascii", errors="replace").decode("ascii")
            (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
            cap_px = 0.718 * op.size_pt / PT_PER_MM * s  # Helvetica's capital height
            scale = min(cap_px / h, text_width_mm(op.text, op.size_pt) * s / w)
            thickness = max(1, round(scale * 1.6))
            origin = (round(op.x_mm * s), round(op.baseline_mm * s))
            cv2.putText(image, text, origin, font, scale, op.colour, thickness, cv2.LINE_AA)
    return image


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def set_png_dpi(png: bytes, dpi: int) -> bytes:
    """``png`` with its pHYs chunk (pixels per metre) saying ``dpi``, right after IHDR."""
    signature = b"\x89PNG\r\n\x1a\n"
    if not png.startswith(signature):
        raise ValueError("not a PNG file")
    chunks: list[tuple[bytes, bytes]] = []
    at = len(signature)
    while at < len(png):
        if at + 12 > len(png):
            raise ValueError("a PNG chunk is cut short")
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        chunks.append((kind, png[at : at + 12 + length]))
        at += 12 + length
    if not chunks or chunks[0][0] != b"IHDR":
        raise ValueError("a PNG file must start with IHDR")
    per_metre = round(dpi / 0.0254)
    phys = _png_chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1))  # unit 1: the metre
    kept = [raw for kind, raw in chunks[1:] if kind != b"pHYs"]
    return signature + chunks[0][1] + phys + b"".join(kept)


def mat_png(mat: MatSpec = STANDARD_MAT, dpi: int = 150) -> bytes:
    image = mat_image(mat, dpi)
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise RuntimeError("OpenCV could not encode the mat as PNG")
    return set_png_dpi(encoded.tobytes(), dpi)


def write_mat_png(path: str | os.PathLike[str], mat: MatSpec = STANDARD_MAT, dpi: int = 150) -> None:
    """Write the mat as a PNG at print size for ``dpi``, with its pHYs chunk saying so.

    Raises ValueError for a dpi outside 72..600 and OSError when the file cannot be written.
    """
    Path(path).write_bytes(mat_png(mat, dpi))
