"""Training and test data for the meeple model: pairs of windows of the same cell.

The meeple model compares a cell as it looks now with the same cell as it looked when its tile
was laid, bare (the watcher keeps that look). Each sample here is such a pair: the board is
rendered once with no meeple and once, with fresh noise, after meeples (standing or fallen, two
on some planets) have gone down; both frames are rectified by the companion's own rectifier.
Styles, cameras and seeds come from the same disjoint ranges as the cell model's data.

    python -m models.meeple_data --frames 900 --out build/meeples-train.npz
    python -m models.meeple_data --frames 150 --held-out --out build/meeples-heldout.npz
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.games.starwars.spots import SPOTS
from companion.sim.render import Camera, PlacedMeeple, PlacedTile, Renderer, Scene
from companion.vision.labels import FALLEN, MEEPLE_CLASSES, MEEPLE_COLOURS, MEEPLE_SIZES, meeple_class
from companion.vision.mat import CROP_PX, PX_PER_MM, STANDARD_MAT, TILE_PX
from companion.vision.rectify import Rectifier
from models.cell_data import (
    HELD_OUT_CAMERAS,
    HELD_OUT_STYLES,
    MARGIN,
    TRAIN_CAMERAS,
    TRAIN_STYLES,
    meeple_spots,
    render_all,
    tile_classes,
)

Pair = tuple[np.ndarray, np.ndarray, np.ndarray]  # now (N, W, W, 3), bare (N, W, W, 3), meeples (N, 6)


def _empty() -> Pair:
    window = CROP_PX + 2 * MARGIN
    return (
        np.zeros((0, window, window, 3), np.uint8),
        np.zeros((0, window, window, 3), np.uint8),
        np.zeros((0, len(SPOTS)), np.int64),
    )


def _meeples_for(tile_spots: list[str], rng: random.Random) -> list[tuple[str, str, str, bool]]:
    """(spot, colour, size, fallen) for the meeples on one tile: none on half of them."""
    count = rng.choices((0, 1, 2), (0.5, 0.4, 0.1))[0]
    chosen = rng.sample(tile_spots, min(count, len(tile_spots)))
    if "P1" in chosen and "P2" in chosen and rng.random() < 0.5:
        chosen.remove("P2")  # usually one meeple on a planet; two during a planet attack
    return [
        (spot, rng.choice(MEEPLE_COLOURS), rng.choice(MEEPLE_SIZES), rng.random() < 0.08) for spot in chosen
    ]


def pair_sample(seed: int, held_out: bool) -> Pair:
    """One board rendered bare and with meeples: every tiled cell as a (now, bare) pair."""
    rng = random.Random(f"meeples-{held_out}-{seed}")
    classes = tile_classes()
    styles = HELD_OUT_STYLES if held_out else TRAIN_STYLES
    cameras = HELD_OUT_CAMERAS if held_out else TRAIN_CAMERAS
    renderer = Renderer(Camera.from_seed(rng.choice(cameras), harsh=rng.random() < 0.15))
    board = STANDARD_MAT.board
    origin = (board.centre[0] + rng.uniform(-10, 10), board.centre[1] + rng.uniform(-10, 10))
    scene = Scene(origin)
    style = rng.choice(styles)
    density = rng.uniform(0.5, 0.9)
    for y in range(-5, 6):
        for x in range(-7, 8):
            if rng.random() < density:
                scene.tiles[(x, y)] = PlacedTile(
                    rng.choice(classes),
                    style,
                    rng.randrange(3),
                    (rng.uniform(-2.5, 2.5), rng.uniform(-2.5, 2.5)),
                    rng.uniform(-3.5, 3.5),
                )
    views = []
    labels: dict[tuple[int, int], list[int]] = {}
    for with_meeples in (False, True):
        if with_meeples:
            for cell, placed in scene.tiles.items():
                spots = [0] * len(SPOTS)
                for spot, colour, size, fallen in _meeples_for(meeple_spots(placed.tile), rng):
                    spots[SPOTS.index(spot)] = (
                        MEEPLE_CLASSES.index(FALLEN) if fallen else meeple_class(colour, size)
                    )
                    scene.meeples.append(
                        PlacedMeeple(
                            cell,
                            spot,
                            colour,
                            size,
                            fallen,
                            (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5)),
                            rng.uniform(-25, 25),
                        )
                    )
                labels[cell] = spots
        frame = renderer.render(scene, rng.randrange(1 << 30))
        rectifier = Rectifier()  # each frame located afresh, as the live loop does
        view = rectifier.locate(frame)
        if view.homography is None:
            return _empty()
        views.append(rectifier.rectify(frame, view.homography))
    # the lattice, found once from the tiles, is off the truth by a pixel or so
    ox = origin[0] * PX_PER_MM + rng.uniform(-1.5, 1.5)
    oy = origin[1] * PX_PER_MM + rng.uniform(-1.5, 1.5)
    size = (CROP_PX + 2 * MARGIN,) * 2
    now, bare, meeples = [], [], []
    for (x, y), spots in labels.items():
        centre = (ox + x * TILE_PX, oy + y * TILE_PX)
        bare.append(cv2.getRectSubPix(views[0], size, centre))
        now.append(cv2.getRectSubPix(views[1], size, centre))
        meeples.append(spots)
    return np.stack(now), np.stack(bare), np.array(meeples, np.int64)


def _job(args: tuple[int, bool]) -> Pair:
    return pair_sample(*args)


def generate(frames: int, held_out: bool, workers: int, first_seed: int = 0) -> dict[str, np.ndarray]:
    return render_all(_job, ("now", "bare", "meeples"), frames, held_out, workers, first_seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=900, help="boards to render (two frames each)")
    parser.add_argument("--held-out", action="store_true", help="draw from the held-out styles and cameras")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    data = generate(args.frames, args.held_out, args.workers, args.first_seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **data)
    print(f"wrote {args.out}: {len(data['meeples'])} pairs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
