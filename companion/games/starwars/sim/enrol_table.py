"""A box laid out for enrolment: one tile of every type in the catalog, face up in rows on the
mat, each turned and placed by hand, under a simulated camera. The demo's enrolment page and the
enrolment tests read it as they would a real table."""

from __future__ import annotations

import random

import numpy as np

from companion.games.base import Cell
from companion.games.starwars.art.box import BOX_STYLES
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.sim.render import Camera, PlacedTile, Renderer, Scene
from companion.games.starwars.tiles import Tile
from companion.vision.mat import STANDARD_MAT

ROW = 7  # tiles a row; the catalog's 35 types make 5 rows, well inside the board
DEMO_COPIES = 7  # the demo's box adds a row of second copies: the page proposes them as copies


class EnrolTable:
    def __init__(
        self, style: int = BOX_STYLES.start, camera_seed: int = 700_000, seed: int = 0, copies: int = 0
    ) -> None:
        """One tile of each catalog type in rows, and a second copy of the first ``copies`` types
        (the same print) in the rows after them, each turned its own way."""
        rng = random.Random(f"enrol-{seed}")
        board = STANDARD_MAT.board
        self.scene = Scene((board.centre[0] + rng.uniform(-4, 4), board.centre[1] + rng.uniform(-4, 4)))
        self.renderer = Renderer(Camera.from_seed(camera_seed))
        self.truth: dict[Cell, Tile] = {}  # each tile as it lies
        types = load_catalog().tiles
        first = -(ROW // 2), -(len(types) // ROW // 2)
        prints = [rng.randrange(6) for _ in types]  # a type's copies share one print
        laid = [*range(len(types)), *range(min(copies, len(types)))]
        for k, kind in enumerate(laid):
            cell = (first[0] + k % ROW, first[1] + k // ROW)
            lying = types[kind].tile.rotated(rng.randrange(4))  # laid whichever way it came out of the box
            self.truth[cell] = lying
            self.scene.tiles[cell] = PlacedTile(
                lying, style, prints[kind], (rng.uniform(-2, 2), rng.uniform(-2, 2)), rng.uniform(-3, 3)
            )
        self._frame_seed = seed * 100_000

    def frame(self) -> np.ndarray:
        """The next camera frame of the still table (each with its own sensor noise)."""
        self._frame_seed += 1
        return self.renderer.render(self.scene, self._frame_seed)
