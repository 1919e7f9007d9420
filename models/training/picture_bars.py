"""Where `board read` should refuse a picture: simulated tables read shrunk and blurred.

    python -m models.training.picture_bars [--tables 8]

Each table is 30 tiles of the shipped catalog in a held-out art style, seen by a held-out
camera. Every picture is read as `board read` reads it, but past the picture checks
(``picture_checks.mat_problem``), and the tiles are counted: read right and sure (confidence at
least ``--sure``), read sure and wrong, and the tables whose mat was not found. Beside each row,
what the checks measure: a tile's width in pixels and the edge blur as a share of a tile. The
bars in companion/vision/picture_checks.py sit between the rows still read and the rows lost.
"""

from __future__ import annotations

import argparse
import random
import statistics
from functools import partial

import cv2
import numpy as np

from companion.games.starwars import models as starwars_models
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.reader.board_read import read_located
from companion.games.starwars.sim.render import Camera, PlacedTile, Renderer, Scene
from companion.games.starwars.tiles import Tile
from companion.vision.mat import STANDARD_MAT
from companion.vision.picture_checks import edge_blur_px, tile_px
from companion.vision.rectify import Rectifier
from models.training.cell_data import HELD_OUT_CAMERAS, HELD_OUT_STYLES

SCALES = (1.0, 0.5, 0.3, 0.25, 0.2, 0.15)
BLURS = (0.0, 1.0, 1.5, 2.0, 2.5, 3.0)


def table(seed: int) -> tuple[np.ndarray, dict[tuple[int, int], Tile]]:
    """A picture of 30 tiles in rows around the board's centre, and the tiles as laid."""
    rng = random.Random(f"picture-bars-{seed}")
    tiles = [entry.tile for entry in load_catalog().tiles]
    board = STANDARD_MAT.board
    scene = Scene((board.centre[0], board.centre[1]))
    laid = {}
    style = rng.choice(HELD_OUT_STYLES)
    for k in range(30):
        cell = (k % 6 - 3, k // 6 - 2)
        laid[cell] = rng.choice(tiles).rotated(rng.randrange(4))
        scene.tiles[cell] = PlacedTile(laid[cell], style, rng.randrange(3))
    picture = Renderer(Camera.from_seed(rng.choice(HELD_OUT_CAMERAS))).render(scene, seed)
    return picture, laid


def count(picture: np.ndarray, laid: dict[tuple[int, int], Tile], sure: float) -> tuple[int, int, bool]:
    """(right and sure, wrong and sure, mat found) for one picture, read past the checks."""
    located = Rectifier().locate(picture)
    if located.homography is None:
        return 0, 0, False
    result = read_located(picture, located, starwars_models.cell_model())
    read = {tuple(c["at"]): c["tile"] for c in result["cells"] if c["confidence"] >= sure}
    # the lattice numbers its own cells: the shift that lines most tiles up is the numbering's
    shifts = [
        (at[0] - cell[0], at[1] - cell[1])
        for at, json in read.items()
        for cell, tile in laid.items()
        if tile.to_json() == json
    ]
    if not shifts:
        return 0, len(read), True
    dx, dy = statistics.mode(shifts)
    right = sum(
        1
        for (x, y), json in read.items()
        if (x - dx, y - dy) in laid and laid[(x - dx, y - dy)].to_json() == json
    )
    return right, len(read) - right, True


def shrunk(picture: np.ndarray, scale: float) -> np.ndarray:
    return cv2.resize(picture, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def blurred(picture: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(picture, (0, 0), sigma) if sigma else picture


def measures(picture: np.ndarray) -> tuple[float, float]:
    """(a tile's width in pixels, edge blur as a share of it); NaN where the mat is not found."""
    located = Rectifier().locate(picture)
    blur = edge_blur_px(picture)
    if located.homography is None or blur is None:
        return float("nan"), float("nan")
    tile = tile_px(located)
    return tile, blur / tile


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--sure", type=float, default=0.5, help="the confidence counted as sure")
    args = parser.parse_args()
    tables = [table(seed) for seed in range(args.tables)]
    total = sum(len(laid) for _, laid in tables)
    rows = [(f"scale {s}", partial(shrunk, scale=s)) for s in SCALES]
    rows += [(f"blur {b}", partial(blurred, sigma=b)) for b in BLURS]
    print(f"{args.tables} tables, {total} tiles")
    print(f"{'picture':<12} {'right':>7} {'wrong':>7} {'no mat':>7} {'tile px':>8} {'blur/tile':>9}")
    for name, change in rows:
        right = wrong = lost = 0
        tile_widths, blurs = [], []
        for picture, laid in tables:
            changed = change(picture)
            r, w, found = count(changed, laid, args.sure)
            right, wrong, lost = right + r, wrong + w, lost + (not found)
            tile, blur = measures(changed)
            tile_widths.append(tile)
            blurs.append(blur)
        print(
            f"{name:<12} {right / total:>7.1%} {wrong / total:>7.1%} {lost:>7} "
            f"{np.nanmedian(tile_widths):>8.1f} {np.nanmedian(blurs):>9.3f}"
        )


if __name__ == "__main__":
    main()
