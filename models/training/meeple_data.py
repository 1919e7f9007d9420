"""Training and test data for the meeple model: pairs of windows of the same cell.

The meeple model compares a cell as it looks now with the same cell as it looked when its tile
was laid, bare (the watcher keeps that look). Each sample here is such a pair: the board is
rendered once with no meeple and once, with fresh noise, after meeples (standing or fallen, two
on some planets) have gone down; both frames are rectified by the companion's own rectifier.
Styles, cameras and seeds come from the same disjoint ranges as the cell model's data:
training, held out (the tests) and calibration (the tracker's thresholds).

    python -m models.training.meeple_data --frames 420 --out build/meeples-train.npz
    python -m models.training.meeple_data --frames 420 --first-seed 420 --hard --out build/meeples-hard.npz
    python -m models.training.meeple_data --frames 150 --held-out --out build/meeples-heldout.npz
    python -m models.training.meeple_data --frames 150 --calibration --out build/meeples-calibration.npz
"""

from __future__ import annotations

import random

import cv2
import numpy as np

from companion.games.starwars.sim.render import Camera, PlacedTile, Renderer, Scene
from companion.games.starwars.spots import PLANET_SPOTS, SPOTS
from companion.vision.labels import MEEPLE_COLOURS, MEEPLE_SIZES
from companion.vision.mat import CROP_PX, PX_PER_MM, STANDARD_MAT, TILE_PX
from companion.vision.rectify import Rectifier
from models.training.cell_data import (
    MARGIN,
    data_parser,
    meeple_spots,
    put_meeple,
    render_all,
    split_named,
    split_of,
    tile_classes,
    write_data,
)

Pair = tuple[np.ndarray, np.ndarray, np.ndarray]  # now (N, W, W, 3), bare (N, W, W, 3), meeples (N, 6)


def _empty() -> Pair:
    window = CROP_PX + 2 * MARGIN
    return (
        np.zeros((0, window, window, 3), np.uint8),
        np.zeros((0, window, window, 3), np.uint8),
        np.zeros((0, len(SPOTS)), np.int64),
    )


def _meeples_for(tile_spots: list[str], rng: random.Random, hard: bool) -> list[tuple[str, str, str, bool]]:
    """(spot, colour, size, fallen) for the meeples on one tile: none on half of them.

    ``hard`` draws more of what games show most and the model reads least well: meeples on
    planets (the planet spots of a tile hold one, or two in an attack, most of the time) and
    small ones, black above all (a small black meeple on dark art)."""
    count = rng.choices((0, 1, 2), (0.5, 0.4, 0.1))[0]
    chosen = rng.sample(tile_spots, min(count, len(tile_spots)))
    planets = [s for s in tile_spots if s in PLANET_SPOTS]
    if hard and count and planets and not set(chosen) & set(planets) and rng.random() < 0.6:
        chosen[0] = rng.choice(planets)
    if "P1" in chosen and "P2" in chosen and rng.random() < (0.3 if hard else 0.5):
        chosen.remove("P2")  # usually one meeple on a planet; two during a planet attack
    meeples = []
    for spot in chosen:
        if hard:
            colour = rng.choices(MEEPLE_COLOURS, (1, 1, 2, 1, 1))[0]  # black twice as often
            size = rng.choices(MEEPLE_SIZES, (2, 1))[0]  # small twice as often
        else:
            colour, size = rng.choice(MEEPLE_COLOURS), rng.choice(MEEPLE_SIZES)
        meeples.append((spot, colour, size, rng.random() < 0.08))
    return meeples


def pair_sample(seed: int, split: str, hard: bool = False) -> Pair:
    """One board rendered bare and with meeples: every tiled cell as a (now, bare) pair."""
    drawn_from = split_named(split)
    rng = random.Random(f"meeples-{drawn_from.key}-{seed}" + ("-hard" if hard else ""))
    classes = tile_classes()
    styles, cameras = drawn_from.styles, drawn_from.cameras
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
                for spot, colour, size, fallen in _meeples_for(meeple_spots(placed.tile), rng, hard):
                    spots[SPOTS.index(spot)] = put_meeple(scene, cell, spot, colour, size, fallen, rng)
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


def _job(args: tuple[int, str]) -> Pair:
    return pair_sample(*args)


def _hard_job(args: tuple[int, str]) -> Pair:
    return pair_sample(*args, hard=True)


def generate(
    frames: int, split: str, workers: int, first_seed: int = 0, hard: bool = False
) -> dict[str, np.ndarray]:
    job = _hard_job if hard else _job
    return render_all(job, ("now", "bare", "meeples"), frames, split, workers, first_seed)


def main(argv: list[str] | None = None) -> int:
    parser = data_parser(__doc__, 420)
    parser.add_argument(
        "--hard",
        action="store_true",
        help="more meeples on planets, more small ones and more black ones (what games misread most)",
    )
    args = parser.parse_args(argv)
    data = generate(args.frames, split_of(args), args.workers, args.first_seed, args.hard)
    write_data(args.out, data, "pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
