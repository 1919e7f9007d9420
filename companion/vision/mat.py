"""The play mat: its size, its ArUco markers and the areas printed on it, in millimetres.

One definition serves everything that must agree on the mat: the printable file
(``companion mat``), the renderer of the simulated table and the rectifier that reads camera
frames. The geometry is documented in docs/mat.md; change both together.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

# Real Carcassonne tiles are 45 mm square (measured on the boxes; shared/FACTS.md has no figure).
TILE_MM = 45.0
# The rectified view draws a tile 48 pixels wide: enough for symbols and meeples, little to compute.
TILE_PX = 48
PX_PER_MM = TILE_PX / TILE_MM
# Each cell is read from a window a little larger than the tile, so a tile laid a few
# millimetres off the lattice, or slightly turned, is still whole in it.
CROP_PX = 64

MARKER_DICTIONARY = "DICT_4X4_50"
QUIET_ZONE_MM = 4.0  # the white margin printed round each marker's black square


@dataclass(frozen=True)
class Marker:
    id: int
    x_mm: float  # top-left corner of the black square, mat coordinates (x east, y south)
    y_mm: float
    size_mm: float

    def corners_mm(self) -> np.ndarray:
        """Corners in ArUco's order: top-left, top-right, bottom-right, bottom-left."""
        x, y, s = self.x_mm, self.y_mm, self.size_mm
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float32)


@dataclass(frozen=True)
class Rect:
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x_mm + self.w_mm / 2, self.y_mm + self.h_mm / 2)

    def corners_mm(self) -> np.ndarray:
        """Top-left, top-right, bottom-right, bottom-left."""
        x, y, w, h = self.x_mm, self.y_mm, self.w_mm, self.h_mm
        return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], dtype=np.float32)

    def contains(self, x: float, y: float) -> bool:
        return self.x_mm <= x <= self.x_mm + self.w_mm and self.y_mm <= y <= self.y_mm + self.h_mm


@dataclass(frozen=True)
class MatSpec:
    width_mm: float
    height_mm: float
    markers: tuple[Marker, ...]
    board: Rect  # where tiles go
    tray: Rect  # where the dice are rolled
    colour_bgr: tuple[int, int, int]  # the felt's printed colour

    @cached_property
    def dictionary(self) -> cv2.aruco.Dictionary:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))

    def marker(self, marker_id: int) -> Marker | None:
        return next((m for m in self.markers if m.id == marker_id), None)

    @property
    def size_px(self) -> tuple[int, int]:
        """The rectified view's size (width, height) in pixels."""
        return (round(self.width_mm * PX_PER_MM), round(self.height_mm * PX_PER_MM))

    @property
    def centre_mm(self) -> tuple[float, float]:
        return self.board.centre


def _standard_mat() -> MatSpec:
    width, height, size, inset = 900.0, 600.0, 40.0, 5.0
    far_x, far_y = width - inset - size, height - inset - size
    mid_x, mid_y = (width - size) / 2, (height - size) / 2
    places = [
        (inset, inset),
        (mid_x, inset),
        (far_x, inset),
        (far_x, mid_y),
        (far_x, far_y),
        (mid_x, far_y),
        (inset, far_y),
        (inset, mid_y),
    ]
    markers = tuple(Marker(i, x, y, size) for i, (x, y) in enumerate(places))
    # 16 x 11 tiles of board and a tray strip on the right, all inside the markers' frame.
    board = Rect(50.0, 52.5, 16 * TILE_MM, 11 * TILE_MM)
    tray = Rect(785.0, 60.0, 60.0, 480.0)
    return MatSpec(width, height, markers, board, tray, colour_bgr=(150, 170, 160))


STANDARD_MAT = _standard_mat()
