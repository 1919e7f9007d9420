"""The camera pipeline: frames in, observations of what changed on the mat out.

Each frame is checked (black, overexposed, noisy, torn, frozen), motion is followed, and only
when the scene has settled is the frame rectified, compared cell by cell with the last settled
view, and the cells that changed read by the model. Knows no rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.games.base import Cell
from companion.vision.frames import FrozenDetector, check_frame
from companion.vision.lattice import Lattice, find_lattice, lone_tile_centre, tile_shaped_centres
from companion.vision.mat import STANDARD_MAT, TILE_PX, MatSpec
from companion.vision.meeples import BareLooks, MeepleModel
from companion.vision.motion import SettleDetector, StillAverage
from companion.vision.reader import CellModel, CellReading
from companion.vision.rectify import Rectifier

# A pixel changed when one of its colour channels moved by more than light and noise do; a cell
# changed when enough of its pixels did. Measured on held-out (now, bare) pairs of the meeple
# data: these miss 2 in 8 597 meeples, and re-read about one cell in ten that did not change
# (re-reading costs a few milliseconds; missing a meeple costs a prompt).
CHANGE_LEVEL = 20
CHANGE_FRACTION = 0.011  # of a tile's pixels: a small black meeple on dark art shows about 2 %


@dataclass
class Observation:
    """What one settled frame showed, or why it could not be read."""

    readings: list[CellReading] = field(default_factory=list)  # the cells that changed
    view: np.ndarray | None = None  # the rectified mat
    lattice: Lattice | None = None
    problem: str | None = None  # a short code when the frame could not be read
    message: str | None = None  # for a person
    # cells where the change is a tile's size and shape: a tile was laid there, whatever the
    # model reads (on a box it never saw, it may take a pale tile for felt)
    appeared: frozenset[Cell] = frozenset()


def changed_pixels(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """1 where a pixel changed between two rectified views, else 0 (uint8)."""
    # the largest change in any colour channel: a black meeple on dark art barely changes
    # the grey level, but its lit rim and its colour do
    blurred_before = cv2.GaussianBlur(before, (3, 3), 0)
    blurred_after = cv2.GaussianBlur(after, (3, 3), 0)
    blue, green, red = cv2.split(cv2.absdiff(blurred_before, blurred_after))
    diff = cv2.max(cv2.max(blue, green), red).astype(np.int16)
    diff -= int(np.median(diff[::4, ::4]))  # the light as a whole may have changed a little
    changed: np.ndarray = (diff > CHANGE_LEVEL).astype(np.uint8)
    return changed


class SettledScenes:
    """Frames in; out, the mean of a scene's still frames once it has settled, or a frame
    problem to show (black, overexposed, noisy, torn, frozen)."""

    def __init__(self, fps: float = 10.0) -> None:
        self.motion = SettleDetector()
        self.still = StillAverage()  # the frames since motion stopped, read as their mean
        self.frozen = FrozenDetector(fps=fps)

    def feed(self, frame: object) -> np.ndarray | Observation | None:
        check = check_frame(frame)  # type: ignore[arg-type]
        if not check.ok:
            self.motion.reset()
            self.still.reset()
            return Observation(problem=check.problem, message=check.message)
        assert isinstance(frame, np.ndarray)
        if self.frozen.update(frame):
            return Observation(
                problem="frozen", message="The camera picture has stopped changing: is it frozen?"
            )
        state = self.motion.update(frame)
        if state.still_frames == 0:
            self.still.reset()
        elif state.still_frames <= self.motion.settle_frames:
            self.still.add(frame)
        if not state.settled:
            return None
        return self.still.mean()


class Watcher:
    def __init__(
        self,
        model: CellModel,
        mat: MatSpec = STANDARD_MAT,
        fps: float = 10.0,
        meeple_model: MeepleModel | None = None,
        laid: Callable[[], set[Cell]] = set,
    ) -> None:
        """``laid``: the cells that hold a tile in the game so far (a game resumed after a restart
        has some), so a lattice found from the tiles in view is numbered as the game's board."""
        self.model = model
        self.bare = BareLooks(model.labels, meeple_model)
        self.mat = mat
        self.rectifier = Rectifier(mat)
        self.scenes = SettledScenes(fps)
        self.laid = laid
        self.lattice: Lattice | None = None
        self.reference: np.ndarray | None = None  # the last settled rectified view
        self.last_view: np.ndarray | None = None

    def feed(self, frame: object) -> Observation | None:
        """One camera frame. Returns an observation when the scene has just settled (or a frame
        problem to show), None while things move or nothing new happened."""
        scene = self.scenes.feed(frame)
        if scene is None or isinstance(scene, Observation):
            return scene
        return self.look(scene)

    def look(self, frame: np.ndarray) -> Observation:
        """Read a settled frame (or the mean of a still scene's frames): rectify it and read every
        cell that changed since the last one."""
        located = self.rectifier.locate(frame)
        if located.homography is None:
            return Observation(problem="no-mat", message=located.message)
        view = self.rectifier.rectify(frame, located.homography)
        self.last_view = view
        if self.lattice is None:
            found = self._first_lattice(view)
            if found is None:
                self.reference = view
                return Observation(view=view, message=located.message)
            lattice, cells, tile_shaped = found
            readings = self.model.read(view, lattice, cells)
            if not tile_shaped:
                readings = [r for r in readings if self.model.labels.is_tile_like(r.best()[0])]
            if not readings:  # a shadow or a stray object on the felt, no tile
                self.reference = view
                return Observation(view=view, message=located.message)
            self.lattice = lattice
            self.reference = view
            appeared = frozenset(cells) if tile_shaped else frozenset()
            return Observation(
                self.bare.update(readings), view, lattice, message=located.message, appeared=appeared
            )
        cells, appeared = self.changed_cells(view)
        readings = self.bare.update(self.model.read(view, self.lattice, cells))
        self.reference = view
        return Observation(readings, view, self.lattice, message=located.message, appeared=appeared)

    def _first_lattice(self, view: np.ndarray) -> tuple[Lattice, list[Cell], bool] | None:
        """The lattice, from the first tile laid on the mat that was seen bare: the change
        between the two is the tile, whatever the light does to the felt. From the felt alone
        (a game already under way when the companion starts) otherwise. The flag says the
        lattice came from a tile-shaped change: a tile lies there, whatever the model reads
        (on a box it never saw it may read felt, and waiting for the next tile would number
        the board from that one, a cell off)."""
        if self.reference is not None:
            centre = lone_tile_centre(changed_pixels(self.reference, view), self.mat)
            if centre is not None:
                return Lattice(centre), [(0, 0)], True
        found = find_lattice(view, self.mat)
        return None if found is None else (*aligned(*found, self.laid()), False)

    def changed_cells(self, view: np.ndarray) -> tuple[list[Cell], frozenset[Cell]]:
        """The cells that changed since the last settled view, and those of them where the change
        is a tile's size and shape (``Observation.appeared``)."""
        assert self.lattice is not None
        cells = self.lattice.board_cells(self.mat)
        if self.reference is None:
            return cells, frozenset()
        changed = changed_pixels(self.reference, view)
        integral = cv2.integral(changed)
        half = TILE_PX // 2
        found = []
        height, width = changed.shape
        for cell in cells:
            x, y = self.lattice.centre(cell)
            x0, y0 = max(0, round(x) - half), max(0, round(y) - half)
            x1, y1 = min(width, round(x) + half), min(height, round(y) + half)
            if x1 <= x0 or y1 <= y0:
                continue
            count = integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]
            if count > CHANGE_FRACTION * TILE_PX * TILE_PX:
                found.append(cell)
        if not found:  # most settled scenes: nothing moved on the board
            return found, frozenset()
        laid = {self.lattice.cell_at(x, y) for x, y in tile_shaped_centres(changed, self.mat)}
        return found, frozenset(laid & set(found))

    def reread(self, cells: list[Cell]) -> list[CellReading]:
        """Read cells again on the last view (after a correction, say)."""
        if self.last_view is None or self.lattice is None:
            return []
        return self.bare.update(self.model.read(self.last_view, self.lattice, cells))


def aligned(lattice: Lattice, cells: list[Cell], laid: set[Cell]) -> tuple[Lattice, list[Cell]]:
    """The lattice found from the tiles in view, shifted so that they fall on the cells the game
    has laid (the shift that covers most of them, the smallest of equals). Without laid cells,
    or when no shift covers at least half of them (or of the tiles seen, if fewer), it stays as
    found: cell (0, 0) the tile nearest the centre, and the tracker asks about what does not fit."""
    if not laid or not cells:
        return lattice, cells
    seen = set(cells)

    def covered(shift: Cell) -> int:
        return len({(x + shift[0], y + shift[1]) for x, y in seen} & laid)

    shifts = {(lx - cx, ly - cy) for lx, ly in laid for cx, cy in cells}
    best = max(shifts, key=lambda d: (covered(d), -abs(d[0]) - abs(d[1])))
    if 2 * covered(best) < min(len(seen), len(laid)):
        return lattice, cells
    dx, dy = best
    origin = (lattice.origin_px[0] - dx * TILE_PX, lattice.origin_px[1] - dy * TILE_PX)
    return Lattice(origin), [(x + dx, y + dy) for x, y in cells]
