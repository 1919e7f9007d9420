"""Enrolment at the table: the camera sees the user's tiles on the mat, a person says on the
phone what each one is, and each picture goes into the gallery with that tile.

A person lays the box's tiles on the mat, side by side in rows as in a game (as many as fit,
a mat-full at a time), and the phone shows the camera's picture of each in turn to be described
by tapping its sides. The form comes filled in from the most alike picture already kept: a copy
of a type already saved is proposed as that copy (one tap to save), and a new type as the
nearest one, to be put right side by side. Nothing is guessed: a tile is learnt only as a
person confirms it, as it lies in the picture the phone showed.

Every tile saved counts one of its type. When the whole box has been laid out, the person says
so and the counts are kept (box_counts.py): the readers then know how many of each type the box
holds.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.errors import UserError
from companion.games.base import Cell
from companion.games.starwars.reader.box_counts import load_counts, save_counts
from companion.games.starwars.reader.box_read import tile_type
from companion.games.starwars.tiles import Tile
from companion.vision.gallery import ENROLLED, Gallery
from companion.vision.lattice import crop, find_lattice
from companion.vision.mat import STANDARD_MAT, TILE_PX, MatSpec
from companion.vision.rectify import Rectifier
from companion.vision.tile_window import tile_of_window
from companion.vision.watcher import Observation, SettledScenes

# Mean absolute difference (0-255) of two blurred pictures of the tile at a place above which
# another tile lies there. Measured on the simulated box: the same tile seen again differs by
# 1.1 (median; 1.9 for 9 in 10), another tile by 8 or more.
OTHER_TILE = 5.0
SAME_TILE_BLUR = 2.0  # pixels: a pixel's shift between two looks is not a new tile
PICTURE_SCALE = 5  # the phone shows a tile's picture this many times the camera's size
# A laid tile is proposed as a copy of a type already saved when its picture is at least this
# alike to one of that type's pictures itself, and this much more than to any other way of
# lying. On the real art of tile-art-dev laid out a box at a time (12 boxes of 86 tiles,
# models/training/enrol_proposals.py): 82 % of the copies proposed as the right copy, 1 of 672
# as a wrong one, and 0 to 1 of 396 first tiles of a type as a copy of another over the runs
# measured. The page shows the two pictures side by side, and the person saves.
COPY_SCORE = 0.9
COPY_MARGIN = 0.05


@dataclass(frozen=True)
class Proposal:
    """What the form is filled in with for a laid tile: the most alike way of lying among the
    pictures kept, and whether it is sure enough to be called a copy of that type."""

    tile: Tile  # as it would lie in the picture
    copy: bool
    likeness: float
    version: int  # the gallery's version it was worked out on

    def to_json(self) -> dict[str, object]:
        return {"tile": self.tile.to_json(), "copy": self.copy, "likeness": round(self.likeness, 3)}


@dataclass
class LaidTile:
    cell: Cell
    centre: tuple[float, float]  # where it lies in the rectified view, pixels
    window: np.ndarray  # the camera window centred on the cell
    enrolled: str | None = None  # its picture's name in the gallery, once described
    tile: Tile | None = None  # as the person described it
    copy: bool = False  # saved as a copy of a type already pictured: counted, no picture of its own
    proposal: Proposal | None = None  # the last proposal worked out for it

    @property
    def saved(self) -> bool:
        return self.tile is not None


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
    state_dir: Path | None = None  # where the box's counts are kept
    on_counts: Callable[[dict[Tile, int]], None] | None = None  # told the counts kept
    counted: dict[Tile, int] = field(default_factory=dict)  # tiles saved, by type
    # a picture of each type saved here, upright as its type lies: what a copy is shown beside
    examples: dict[Tile, np.ndarray] = field(default_factory=dict)
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
                    laid[cell] = dataclasses.replace(before, cell=cell, centre=centre, window=window)
                else:
                    laid[cell] = LaidTile(cell, centre, window)
            self.laid = laid
            waiting = sum(1 for t in laid.values() if not t.saved)
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
                "counted": {"types": len(self.counted), "tiles": sum(self.counted.values())},
                "can_keep_counts": self.state_dir is not None,
                "tiles": [
                    {
                        "at": [t.cell[0], t.cell[1]],
                        "saved": t.saved,
                        "enrolled": t.enrolled,
                        "copy": t.copy,
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
        return _jpeg(tile_picture)

    def propose(self, cell: Cell) -> Proposal | None:
        """What to fill the form in with for the tile at ``cell``: None while the gallery holds
        no picture. Worked out again only when the gallery has changed."""
        with self._lock:
            laid = self._laid_at(cell)
            window, kept = laid.window, laid.proposal
        version = self.gallery.version
        if kept is not None and kept.version == version:
            return kept
        # outside the lock: a match takes a few tens of milliseconds, and the camera goes on
        match = self.gallery.match(window, second_opinions=False)
        if match is None:
            return None
        copy = match.near_copy(COPY_SCORE, COPY_MARGIN)
        proposal = Proposal(match.tile, copy, match.copy_score if copy else match.score, version)
        with self._lock:
            if self.laid.get(cell) is laid:
                laid.proposal = proposal
        return proposal

    def example(self, cell: Cell) -> bytes | None:
        """The picture saved of the type proposed for the tile at ``cell``, turned as the tile
        is proposed to lie (JPEG, as ``picture``); None when no picture of it was saved here."""
        proposal = self.propose(cell)
        if proposal is None:
            return None
        kind = tile_type(proposal.tile)
        with self._lock:
            upright = self.examples.get(kind)
        if upright is None:
            return None
        turns = _turns(kind, proposal.tile)
        # np.rot90 turns anticlockwise: -k turns the picture clockwise as Tile.rotated(k) does
        return _jpeg(np.ascontiguousarray(np.rot90(upright, -turns)))

    def enrol(self, cell: Cell, tile: Tile) -> str | None:
        """Learn the tile at ``cell`` as ``tile`` (as it lies in its picture); a tile described
        again replaces what was said of it. A tile proposed as a copy and confirmed as that copy
        is counted, and its picture is not kept (its type's is). Returns the picture's name in
        the gallery, None for a copy."""
        with self._lock:
            laid = self._laid_at(cell)
            proposal = laid.proposal
        proposed = proposal is not None and proposal.copy and proposal.tile == tile
        copy = proposed and tile in self.gallery.ways()
        name: str | None = None
        picture = tile_of_window(laid.window).copy()
        if copy:
            if laid.enrolled is not None:
                self.gallery.remove(laid.enrolled)
        else:
            name = laid.enrolled or self.gallery.free_name(ENROLLED)
            self.gallery.add(picture, tile, name=name)
        with self._lock:
            self._uncount(laid)
            laid.enrolled, laid.tile, laid.copy = name, tile, copy
            kind = tile_type(tile)
            self.counted[kind] = self.counted.get(kind, 0) + 1
            if kind not in self.examples:
                turns = _turns(kind, tile)
                self.examples[kind] = np.ascontiguousarray(np.rot90(picture, turns))
        return name

    def forget(self, cell: Cell) -> None:
        """Take back what was said of the tile at ``cell``."""
        with self._lock:
            laid = self._laid_at(cell)
            if laid.enrolled is not None:
                self.gallery.remove(laid.enrolled)
            self._uncount(laid)
            laid.enrolled, laid.tile, laid.copy = None, None, False

    def _uncount(self, laid: LaidTile) -> None:
        if laid.tile is None:
            return
        kind = tile_type(laid.tile)
        left = self.counted.get(kind, 0) - 1
        if left > 0:
            self.counted[kind] = left
        else:
            self.counted.pop(kind, None)

    def keep_counts(self) -> dict[Tile, int]:
        """The person says the tiles saved are the whole box: keep how many of each type it holds
        (over what was kept before for the same types). Returns every type's count now kept."""
        if self.state_dir is None:
            raise UserError("this companion keeps no state folder: the box's counts cannot be kept")
        with self._lock:
            counted = dict(self.counted)
        if not counted:
            raise UserError("no tile has been saved yet: save the box's tiles first, then say it is whole")
        save_counts(self.state_dir, counted)
        kept = load_counts(self.state_dir) or {}
        if self.on_counts is not None:
            self.on_counts(kept)
        return kept

    def _laid_at(self, cell: Cell) -> LaidTile:
        laid = self.laid.get(cell)
        if laid is None:
            raise UserError(
                f"the camera sees no tile at {cell[0]}, {cell[1]} now: was it moved? Reload the page"
            )
        return laid


def _turns(kind: Tile, tile: Tile) -> int:
    """The quarter turns clockwise that lay ``kind`` (a type as ``tile_type`` gives it) as ``tile``."""
    return next(k for k in range(4) if kind.rotated(k) == tile)


def _jpeg(tile_picture: np.ndarray) -> bytes:
    """A tile's picture as the phone shows it: enlarged, JPEG."""
    size = tile_picture.shape[0] * PICTURE_SCALE
    large = cv2.resize(tile_picture, (size, size), interpolation=cv2.INTER_CUBIC)
    ok, jpeg = cv2.imencode(".jpg", large, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise UserError("the tile's picture could not be encoded")
    return bytes(jpeg)


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
