"""Real printed tile art drawn through the simulated camera: a box to enrol and tables to read.

The art is ../shared/data/tile-art-dev (scans of another edition, one upright picture per type);
models/training/tile_art_dev.json says what each picture shows as a Star Wars inline tile and how
many a box holds. A table is a legal board dealt from that box (the rules' fit on every side),
each tile its type's scan turned as it lies, nudged and twisted a little, seen by a held-out
camera. A box is enrolled from one picture per type, the scan itself.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from companion.games.base import Cell
from companion.games.starwars.board import Board
from companion.games.starwars.catalog import Catalog, CatalogTile
from companion.games.starwars.sim.render import Camera, PlacedTile, Renderer, Scene, register_printed_box
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.gallery import Gallery, enrolled_name
from companion.vision.mat import STANDARD_MAT
from models.training.cell_data import HELD_OUT_CAMERAS

LABELS = Path(__file__).with_name("tile_art_dev.json")
# beside the project's checkout, as the shared data is laid out
ART = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tile-art-dev"
# the cells a table may use: the mat's board area holds 15 x 11 tiles
SPAN_X, SPAN_Y = 7, 5


@dataclass(frozen=True)
class BoxType:
    name: str
    tile: Tile  # upright, as the scan shows it
    count: int
    picture: np.ndarray  # the scan, BGR


@dataclass(frozen=True)
class LaidTile:
    name: str
    quarter_turns: int
    tile: Tile  # as it lies


# the art style the simulator draws a box of real art in (companion/games/starwars/sim/render.py)
REAL_ART_STYLE = 900_000


def art_missing() -> str | None:
    """Why the real art cannot be used here, or None when it can."""
    if not ART.is_dir():
        return f"the real tile art is not at {ART}"
    return None


@cache
def load_box() -> tuple[BoxType, ...]:
    """Every type of the box, in the labels' order."""
    labels = json.loads(LABELS.read_text())["types"]
    box = []
    for name, entry in labels.items():
        picture = cv2.imread(str(ART / f"{name}.png"), cv2.IMREAD_COLOR)
        if picture is None:
            raise FileNotFoundError(f"{ART / name}.png cannot be read")
        box.append(BoxType(name, parse_tile(entry["tile"], name), int(entry["count"]), picture))
    return tuple(box)


def real_catalog() -> Catalog:
    """The box as a catalog to deal games from: one of the start type's tiles is the start."""
    start = json.loads(LABELS.read_text())["start"]
    tiles = []
    for kind in load_box():
        count = kind.count - (kind.name == start)
        if count:
            tiles.append(CatalogTile(kind.name, kind.name, count, kind.tile))
        if kind.name == start:
            tiles.append(CatalogTile(f"{kind.name}-start", kind.name, 1, kind.tile, start=True))
    return Catalog("real printed art: ../shared/data/tile-art-dev", tuple(tiles))


def draw_real_art() -> int:
    """Make the simulator draw REAL_ART_STYLE from the box's scans; the style."""
    register_printed_box(REAL_ART_STYLE, [(kind.tile, kind.picture) for kind in load_box()])
    return REAL_ART_STYLE


def deal_board(rng: random.Random, tiles: int) -> dict[Cell, LaidTile]:
    """A legal board of up to ``tiles`` tiles dealt from one box, within the mat's board area."""
    box = load_box()
    pool = [kind for kind in box for _ in range(kind.count)]
    rng.shuffle(pool)
    board = Board()
    laid: dict[Cell, LaidTile] = {}
    while pool and len(laid) < tiles:
        kind = pool.pop()
        places = [
            (cell, turns, turned)
            for cell, turns, turned in board.legal_placements(kind.tile)
            if abs(cell[0]) <= SPAN_X and abs(cell[1]) <= SPAN_Y
        ]
        if not places:
            continue
        cell, turns, turned = rng.choice(places)
        board.place(cell, turned)
        laid[cell] = LaidTile(kind.name, turns, turned)
    return laid


def turned_picture(picture: np.ndarray, quarter_turns: int) -> np.ndarray:
    """A scan turned clockwise by quarter turns (np.rot90 turns the other way)."""
    return np.ascontiguousarray(np.rot90(picture, -quarter_turns))


def photograph(rng: random.Random, laid: dict[Cell, LaidTile], camera_seed: int | None = None) -> np.ndarray:
    """The board as a held-out camera sees it, each tile a little off its place and turned."""
    pictures = {kind.name: kind.picture for kind in load_box()}
    board = STANDARD_MAT.board
    scene = Scene((board.centre[0] + rng.uniform(-8, 8), board.centre[1] + rng.uniform(-8, 8)))
    for cell, tile in laid.items():
        scene.tiles[cell] = PlacedTile(
            tile.tile,
            0,
            offset_mm=(rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)),
            angle_deg=rng.uniform(-3.0, 3.0),
            printed=turned_picture(pictures[tile.name], tile.quarter_turns),
            printed_name=f"{tile.name}/{tile.quarter_turns}",
        )
    seed = camera_seed if camera_seed is not None else rng.choice(HELD_OUT_CAMERAS)
    return Renderer(Camera.from_seed(seed)).render(scene, rng.randrange(1 << 30))


def enrol_box(gallery: Gallery[Tile]) -> None:
    """One picture per type into ``gallery``, as ``companion enroll`` keeps it: the scan,
    upright, with its tile."""
    for kind in load_box():
        gallery.add(kind.picture, kind.tile, enrolled_name(kind.name))
