"""Enrolment at the table: the camera sees the user's tiles on the mat, a person says on the
phone what each one is, and each picture goes into the gallery with that tile.

A person lays one tile of every kind on the mat, side by side in rows as in a game (as many as
fit, or a few at a time), and the phone shows the camera's picture of each in turn to be
described by tapping its sides. Nothing is guessed: a tile is learnt only as a person describes
it, as it lies in the picture the phone showed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.errors import UserError
from companion.games.base import Cell
from companion.games.starwars.tiles import Tile
from companion.vision.gallery import ENROLLED, Gallery, tile_of_window
from companion.vision.lattice import crop, find_lattice
from companion.vision.mat import STANDARD_MAT, TILE_PX, MatSpec
from companion.vision.rectify import Rectifier
from companion.vision.watcher import Observation, SettledScenes

# Mean absolute difference (0-255) of two blurred pictures of the tile at a place above which
# another tile lies there. Measured on the simulated box: the same tile seen again differs by
# 1.1 (median; 1.9 for 9 in 10), another tile by 8 or more.
OTHER_TILE = 5.0
SAME_TILE_BLUR = 2.0  # pixels: a pixel's shift between two looks is not a new tile
PICTURE_SCALE = 5  # the phone shows a tile's picture this many times the camera's size


@dataclass
class LaidTile:
    cell: Cell
    centre: tuple[float, float]  # where it lies in the rectified view, pixels
    window: np.ndarray  # the camera window centred on the cell
    enrolled: str | None = None  # its picture's name in the gallery, once described
    tile: Tile | None = None  # as the person described it


@dataclass
class Enrolment:
    """The tiles on the mat and which of them are enrolled. ``look`` is called with each settled,
    rectified view of the mat; the web layer asks and answers from other threads."""

    gallery: Gallery[Tile]
    mat: MatSpec = STANDARD_MAT
    laid: dict[Cell, LaidTile] = field(default_factory=dict)
    message: str = "Lay one tile of each kind on the mat, side by side in rows, face up."
    views: int = 0  # settled views seen, so that a page can tell the camera is there
    game_under_way: bool = False  # the camera reads the game then, and enrols nothing
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def look(self, view: np.ndarray) -> None:
        """A settled view of the mat: which cells hold a tile now, and their windows."""
        found = find_lattice(view, self.mat)
        with self._lock:
            self.views += 1
            if found is None:
                self.laid = {}
                self.message = "No tile on the mat: lay one tile of each kind, side by side in rows."
                return
            lattice, cells = found
            laid: dict[Cell, LaidTile] = {}
            # cells are kept by where they lie on the mat, not by lattice number: a tile laid
            # nearer the centre renumbers the lattice, and the tiles did not move
            for cell in cells:
                centre = lattice.centre(cell)
                window = crop(view, centre)
                before = self._lying_at(centre)
                if before is not None and _same_tile(before.window, window):
                    laid[cell] = LaidTile(cell, centre, window, before.enrolled, before.tile)
                else:
                    laid[cell] = LaidTile(cell, centre, window)
            self.laid = laid
            waiting = sum(1 for t in laid.values() if t.enrolled is None)
            self.message = (
                f"{len(laid)} tile(s) on the mat, {waiting} to describe."
                if waiting
                else f"All {len(laid)} tile(s) on the mat are enrolled: lay the next ones, or you are done."
            )

    def game_started_or_ended(self, under_way: bool) -> None:
        """Whether a game has the camera now: tiles are enrolled only between games."""
        with self._lock:
            self.game_under_way = under_way

    def say(self, message: str) -> None:
        """What the camera cannot see, for the page (a frame problem, the mat not found)."""
        with self._lock:
            self.message = message

    def _lying_at(self, centre: tuple[float, float]) -> LaidTile | None:
        """The tile seen before at that place of the mat, if any (a quarter of a tile off at most)."""
        for laid in self.laid.values():
            if max(abs(laid.centre[0] - centre[0]), abs(laid.centre[1] - centre[1])) < TILE_PX / 4:
                return laid
        return None

    def state(self) -> dict[str, object]:
        with self._lock:
            tiles = sorted(self.laid.values(), key=lambda t: (t.cell[1], t.cell[0]))
            return {
                "camera": self.views > 0,
                "game_under_way": self.game_under_way,
                "message": self.message,
                "enrolled": len(self.gallery),
                "tiles": [
                    {
                        "at": [t.cell[0], t.cell[1]],
                        "enrolled": t.enrolled,
                        "tile": t.tile.to_json() if t.tile is not None else None,
                    }
                    for t in tiles
                ],
            }

    def picture(self, cell: Cell) -> bytes:
        """The tile at ``cell`` as the phone shows it: cut from its window, enlarged, JPEG."""
        with self._lock:
            laid = self._laid_at(cell)
            tile_picture = tile_of_window(laid.window)
        size = tile_picture.shape[0] * PICTURE_SCALE
        large = cv2.resize(tile_picture, (size, size), interpolation=cv2.INTER_CUBIC)
        ok, jpeg = cv2.imencode(".jpg", large, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            raise UserError("the tile's picture could not be encoded")
        return bytes(jpeg)

    def enrol(self, cell: Cell, tile: Tile) -> str:
        """Learn the tile at ``cell`` as ``tile`` (as it lies in its picture); a tile described
        again replaces its picture. Returns the picture's name in the gallery."""
        with self._lock:
            laid = self._laid_at(cell)
            name = laid.enrolled or self.gallery.free_name(ENROLLED)
            self.gallery.add(tile_of_window(laid.window).copy(), tile, name=name)
            laid.enrolled, laid.tile = name, tile
            return name

    def forget(self, cell: Cell) -> None:
        """Take back what was said of the tile at ``cell``."""
        with self._lock:
            laid = self._laid_at(cell)
            if laid.enrolled is not None:
                self.gallery.remove(laid.enrolled)
            laid.enrolled, laid.tile = None, None

    def _laid_at(self, cell: Cell) -> LaidTile:
        laid = self.laid.get(cell)
        if laid is None:
            raise UserError(
                f"the camera sees no tile at {cell[0]}, {cell[1]} now: was it moved? Reload the page"
            )
        return laid


def _same_tile(before: np.ndarray, after: np.ndarray) -> bool:
    def blurred(window: np.ndarray) -> np.ndarray:
        return cv2.GaussianBlur(tile_of_window(window).astype(np.float32), (0, 0), SAME_TILE_BLUR)

    return float(np.abs(blurred(before) - blurred(after)).mean()) < OTHER_TILE


class EnrolmentCamera:
    """Camera frames into an enrolment: each settled scene is rectified and looked at."""

    def __init__(self, enrolment: Enrolment, fps: float = 10.0) -> None:
        self.enrolment = enrolment
        self.scenes = SettledScenes(fps)
        self.rectifier = Rectifier(enrolment.mat)

    def game_started_or_ended(self, in_play: bool) -> None:
        self.enrolment.game_started_or_ended(in_play)

    def step(self, frame: object) -> None:
        scene = self.scenes.feed(frame)
        if scene is None:
            return
        if isinstance(scene, Observation):  # a frame problem: say so, keep what was seen
            self.enrolment.say(scene.message or "The camera picture cannot be read.")
            return
        located = self.rectifier.locate(scene)
        if located.homography is None:
            self.enrolment.say(located.message or "The camera does not see the mat's markers.")
            return
        self.enrolment.look(self.rectifier.rectify(scene, located.homography))
