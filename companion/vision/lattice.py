"""The tile lattice in the rectified view: where each cell is, and which cells hold a tile.

Tiles are laid by hand, so they sit a few millimetres off a perfect grid; the reader works on
a window larger than a tile (``CROP_PX``) centred on each cell, and the models were trained on
tiles lying that way. The lattice's phase is found from the tiles themselves: the offset that
makes every cell either clearly felt or clearly tile.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.base import Cell
from companion.vision.mat import CROP_PX, PX_PER_MM, STANDARD_MAT, TILE_PX, MatSpec

FELT_DISTANCE = 28.0  # Lab distance beyond which a pixel is not the mat's felt
TILE_FRACTION = 0.5  # a cell more than half covered holds a tile
# Printed art whose colour is near the felt's (a town's tan on grey-green felt, 24 Lab apart) is
# told from felt by its texture: in real scans of classic tiles the grey varies by 12 to 14 levels
# (median over a cell), on felt by 1.3, under the simulated camera (models/training/real_art.py)
FELT_TEXTURE = 6.0
TEXTURE_WINDOW = 7
# Light falls unevenly on a mat: the felt's colour drifts across it (on the simulated tables of
# models/training/enrol_proposals.py, by up to 47 Lab from one side to the other, and bare felt
# was then taken for tiles). The felt is modelled as a colour that changes smoothly over the mat,
# a quadratic in x and y for each Lab channel, fitted to the untextured pixels near the felt's
# colour, those far from the fit left out in turn: a tile or a marker is too small and too far
# off to bend it.
FELT_SAMPLE_PX = 8  # the fit reads every so many pixels each way
FELT_NEAR = 2.0  # a pixel is fitted on if this many FELT_DISTANCEs near the felt's median at most
FELT_ROUNDS = 3
# A cast shadow darkens felt without changing its hue: where a pixel is darker than the felt,
# its lightness counts less than its colour in how far it is from the felt (an arm's shadow
# across the felt was otherwise taken for two tiles on a simulated enrolment table). At 0.5,
# fewer shadows were taken for tiles and one dark tile more was missed in `board read`'s 30
# tables (models/training/box_bars.py); 0.7 keeps that tile.
LIGHTNESS_WEIGHT = 0.7


@dataclass(frozen=True)
class Lattice:
    origin_px: tuple[float, float]  # centre of cell (0, 0) in the rectified view

    def centre(self, cell: Cell) -> tuple[float, float]:
        return (self.origin_px[0] + cell[0] * TILE_PX, self.origin_px[1] + cell[1] * TILE_PX)

    def cell_at(self, x: float, y: float) -> Cell:
        return (round((x - self.origin_px[0]) / TILE_PX), round((y - self.origin_px[1]) / TILE_PX))

    def board_cells(self, mat: MatSpec = STANDARD_MAT, slack: float = 0.25) -> list[Cell]:
        """Every cell whose tile would lie on the board area (``slack``: tiles may overhang)."""
        b = mat.board
        left, top = b.x_mm * PX_PER_MM, b.y_mm * PX_PER_MM
        right, bottom = (b.x_mm + b.w_mm) * PX_PER_MM, (b.y_mm + b.h_mm) * PX_PER_MM
        half = TILE_PX * (0.5 - slack)
        ox, oy = self.origin_px
        xs = range(
            int(np.ceil((left + half - ox) / TILE_PX)), int(np.floor((right - half - ox) / TILE_PX)) + 1
        )
        ys = range(
            int(np.ceil((top + half - oy) / TILE_PX)), int(np.floor((bottom - half - oy) / TILE_PX)) + 1
        )
        return [(x, y) for y in ys for x in xs]


def crop(view: np.ndarray, centre: tuple[float, float]) -> np.ndarray:
    """The window read for one cell (sub-pixel centre; edges of the view repeat outwards)."""
    return cv2.getRectSubPix(view, (CROP_PX, CROP_PX), (float(centre[0]), float(centre[1])))


def crops(view: np.ndarray, lattice: Lattice, cells: list[Cell]) -> np.ndarray:
    if not cells:
        return np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8)
    return np.stack([crop(view, lattice.centre(cell)) for cell in cells])


def felt_colour(view: np.ndarray, mat: MatSpec = STANDARD_MAT) -> np.ndarray:
    """The felt's colour in this view (Lab), from the strips between the markers and the board."""
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB)
    b = mat.board
    s = PX_PER_MM
    strips = [
        lab[round(8 * s) : round((b.y_mm - 4) * s), round(60 * s) : round(400 * s)],
        lab[
            round((b.y_mm + b.h_mm + 4) * s) : round((mat.height_mm - 8) * s), round(60 * s) : round(400 * s)
        ],
        lab[round(60 * s) : round(250 * s), round(8 * s) : round((b.x_mm - 4) * s)],
    ]
    pixels = np.concatenate([strip.reshape(-1, 3) for strip in strips if strip.size])
    colour: np.ndarray = np.median(pixels, axis=0).astype(np.float32)
    return colour


def _quadratic_terms(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """1, x, y, x², xy, y² of positions scaled to about -1 to 1 (N, 6)."""
    return np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys], axis=-1)


def felt_surface(
    view: np.ndarray, lab: np.ndarray, spread: np.ndarray, mat: MatSpec = STANDARD_MAT
) -> np.ndarray:
    """The felt's colour at every pixel (Lab, float32, view-sized), as light falls on the mat:
    see FELT_SAMPLE_PX. ``lab``: the view in Lab (float32); ``spread``: its ``texture``."""
    height, width = lab.shape[:2]
    step = FELT_SAMPLE_PX
    ys, xs = np.mgrid[step // 2 : height : step, step // 2 : width : step]
    sx, sy = 2.0 / width, 2.0 / height
    samples = lab[ys, xs].reshape(-1, 3)
    terms = _quadratic_terms((xs.ravel() * sx - 1.0), (ys.ravel() * sy - 1.0))
    median = felt_colour(view, mat)
    fitted = np.broadcast_to(median, samples.shape)
    plain = spread[ys, xs].ravel() <= FELT_TEXTURE
    bound = FELT_NEAR * FELT_DISTANCE
    coefficients = None
    for _ in range(FELT_ROUNDS):
        near = plain & (np.linalg.norm(samples - fitted, axis=1) < bound)
        if near.sum() < 4 * terms.shape[1]:
            break
        coefficients = np.linalg.lstsq(terms[near], samples[near], rcond=None)[0]  # (6, 3)
        fitted = terms @ coefficients
        bound = FELT_DISTANCE / 2  # after the first fit, only pixels that follow it
    if coefficients is None:
        return np.broadcast_to(median, lab.shape).astype(np.float32)
    # smooth enough to be worked out on the sample grid and stretched to the view
    grid = (terms @ coefficients).reshape(*xs.shape, 3).astype(np.float32)
    surface: np.ndarray = cv2.resize(grid, (width, height), interpolation=cv2.INTER_LINEAR)
    return surface


def texture(view: np.ndarray) -> np.ndarray:
    """How much the grey level varies around each pixel (its standard deviation over
    TEXTURE_WINDOW pixels, after a light blur takes off the sensor's noise), float32."""
    grey = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), (3, 3), 0).astype(np.float32)
    size = (TEXTURE_WINDOW, TEXTURE_WINDOW)
    mean = cv2.blur(grey, size)
    spread: np.ndarray = np.sqrt(np.maximum(cv2.blur(grey * grey, size) - mean * mean, 0.0))
    return spread


def looks_printed(window: np.ndarray) -> bool:
    """Whether more than half of the tile square at the middle of a cell's window (``crop``) is
    printed texture, not felt: some tile lies there, whatever its art."""
    rim = (window.shape[0] - TILE_PX) // 2
    spread = texture(window)[rim : rim + TILE_PX, rim : rim + TILE_PX] > FELT_TEXTURE
    return float(spread.mean()) > TILE_FRACTION


def tile_mask(view: np.ndarray, mat: MatSpec = STANDARD_MAT) -> np.ndarray:
    """1.0 where something other than felt lies, 0.0 on bare felt (float32, view-sized): a
    colour far from the felt's, or a printed texture on a colour near it."""
    lab = cv2.cvtColor(cv2.GaussianBlur(view, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    spread = texture(view)
    off = lab - felt_surface(view, lab, spread, mat)
    off[..., 0] *= np.where(off[..., 0] < 0, LIGHTNESS_WEIGHT, 1.0)  # only darker: a shadow
    distance = np.linalg.norm(off, axis=2)
    mask = ((distance > FELT_DISTANCE) | (spread > FELT_TEXTURE)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    return mask.astype(np.float32)


def find_lattice(view: np.ndarray, mat: MatSpec = STANDARD_MAT) -> tuple[Lattice, list[Cell]] | None:
    """The lattice of the tiles in view, cell (0, 0) being the tile nearest the board's centre,
    and the cells that hold tiles. None when no tile lies on the board."""
    mask = tile_mask(view, mat)
    b = mat.board
    s = PX_PER_MM
    # only the board area: the markers' white quiet zones and the tray are not felt either
    x0, y0 = max(0, round(b.x_mm * s)), max(0, round(b.y_mm * s))
    x1 = min(view.shape[1], round((b.x_mm + b.w_mm) * s))
    y1 = min(view.shape[0], round((b.y_mm + b.h_mm) * s))
    # a tile at the board's very edge may overhang it: the area is read with half a tile of
    # nothing around it, so that every phase of the lattice holds the edge rows whole
    pad = TILE_PX // 2
    area = np.pad(mask[y0:y1, x0:x1], pad)
    x0, y0, x1, y1 = x0 - pad, y0 - pad, x1 + pad, y1 + pad
    integral = cv2.integral(area, sdepth=cv2.CV_64F)
    nx, ny = (x1 - x0) // TILE_PX - 1, (y1 - y0) // TILE_PX - 1
    phases = np.arange(TILE_PX)
    xs = phases[:, None] + TILE_PX * np.arange(nx + 1)[None, :]  # (phase, edge)
    ys = phases[:, None] + TILE_PX * np.arange(ny + 1)[None, :]
    corner = integral[ys[:, None, :, None], xs[None, :, None, :]]  # (py, px, ey, ex)
    sums = corner[:, :, 1:, 1:] - corner[:, :, :-1, 1:] - corner[:, :, 1:, :-1] + corner[:, :, :-1, :-1]
    fraction = sums / (TILE_PX * TILE_PX)
    doubt = np.minimum(fraction, 1 - fraction).sum(axis=(2, 3))
    py, px = np.unravel_index(int(np.argmin(doubt)), doubt.shape)
    best = fraction[py, px]
    filled = np.argwhere(best > TILE_FRACTION)  # (row, column) of cells holding a tile
    if len(filled) == 0:
        return None
    centres = np.stack(
        [x0 + px + (filled[:, 1] + 0.5) * TILE_PX, y0 + py + (filled[:, 0] + 0.5) * TILE_PX], axis=1
    ).astype(np.float64)
    board_centre = np.array(mat.board.centre) * s
    nearest = centres[int(np.argmin(np.linalg.norm(centres - board_centre, axis=1)))]
    lattice = Lattice((float(nearest[0]), float(nearest[1])))
    cells = sorted((lattice.cell_at(x, y) for x, y in centres), key=lambda c: (c[1], c[0]))
    return lattice, cells


def tile_shaped_centres(changed: np.ndarray, mat: MatSpec = STANDARD_MAT) -> list[tuple[float, float]]:
    """The centres of the changes on the board that are one tile's size and shape (``changed``:
    1 where the view changed): tiles that appeared, whatever their art."""
    b = mat.board
    s = PX_PER_MM
    x0, y0 = max(0, round(b.x_mm * s)), max(0, round(b.y_mm * s))
    x1, y1 = round((b.x_mm + b.w_mm) * s), round((b.y_mm + b.h_mm) * s)
    area = np.zeros_like(changed)
    area[y0:y1, x0:x1] = changed[y0:y1, x0:x1]
    # art close to the felt's colour leaves holes, and may change little more than the tile's
    # rim and a few patches: closed first, so that a thin rim holds; then noise's specks go
    area = cv2.morphologyEx(area, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    area = cv2.morphologyEx(area, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    outlines, _ = cv2.findContours(area, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    # a tile turned by a few degrees, with its drop shadow and a pixel of blur each side;
    # other changes (a flicker of light, a shadow moving) are not tile-shaped. A tile whose
    # art is near the felt's colour changes in patches, some open to its rim: its outline's
    # hull is still square, and half its square changed
    low, high = TILE_PX * 0.85, TILE_PX * 1.25
    tiles = []
    for outline in outlines:
        left, top, width, height = cv2.boundingRect(outline)
        if not (low <= width <= high and low <= height <= high):
            continue
        filled = np.zeros((height, width), np.uint8)
        cv2.drawContours(filled, [outline], -1, 1, cv2.FILLED, offset=(-left, -top))
        hull = cv2.contourArea(cv2.convexHull(outline))
        if hull >= 0.8 * width * height and int(filled.sum()) >= 0.5 * width * height:
            tiles.append((left + width / 2 - 0.5, top + height / 2 - 0.5))
    return tiles


def lone_tile_centre(changed: np.ndarray, mat: MatSpec = STANDARD_MAT) -> tuple[float, float] | None:
    """The centre of the one tile that appeared on the board, from the pixels that changed.
    None unless the change is one tile's size and shape."""
    tiles = tile_shaped_centres(changed, mat)
    return tiles[0] if len(tiles) == 1 else None
