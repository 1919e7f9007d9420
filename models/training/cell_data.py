"""Training and test data for the cell model, drawn by the simulated table.

Each sample is one rendered camera frame of a board of random tiles and meeples, rectified by
the companion's own rectifier; every cell becomes a crop with its labels. Art styles, cameras
and seeds come from disjoint ranges for training, for the held-out suite and for calibration.

    python -m models.training.cell_data --frames 600 --out build/cells-train.npz
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.games.starwars.art.box import BOX_STYLES
from companion.games.starwars.art.invented import INVENTED_STYLES
from companion.games.starwars.art.wide import WIDE_STYLES
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.sim.render import Camera, PlacedMeeple, PlacedTile, Renderer, Scene
from companion.games.starwars.spots import PLANET_SPOTS, SPOTS
from companion.games.starwars.tiles import ASTEROID, PLANET, ROUTE, SIDES, Feature, Tile
from companion.vision.labels import EMPTY, FALLEN, MEEPLE_CLASSES, UNKNOWN, TileLabels, meeple_class
from companion.vision.mat import CROP_PX, PX_PER_MM, STANDARD_MAT, TILE_PX
from companion.vision.rectify import Rectifier

# Disjoint seed ranges: what trains never tests, and what sets the tracker's thresholds is
# neither trained on nor tested.
TRAIN_STYLES = range(0, 400)
HELD_OUT_STYLES = range(10_000, 10_100)
CALIBRATION_STYLES = range(20_000, 20_100)
TRAIN_CAMERAS = range(0, 100_000)
HELD_OUT_CAMERAS = range(500_000, 600_000)
CALIBRATION_CAMERAS = range(700_000, 800_000)
# The third family of art (companion/sim/art_wide.py), drawn every part several ways: trained on,
# with a held-out part of its own, each with its own cameras.
WIDE_TRAIN_STYLES = range(WIDE_STYLES.start, WIDE_STYLES.start + 100_000)
WIDE_HELD_OUT_STYLES = range(WIDE_STYLES.start + 100_000, WIDE_STYLES.stop)
WIDE_TRAIN_CAMERAS = range(100_000, 200_000)
WIDE_HELD_OUT_CAMERAS = range(200_000, 300_000)
# The fourth family (companion/sim/art_invented.py), each style inventing its own emblems: a part
# to train the gallery's likeness on and a held-out part, each with its own cameras.
INVENTED_TRAIN_STYLES = range(INVENTED_STYLES.start, INVENTED_STYLES.start + 50_000)
INVENTED_HELD_OUT_STYLES = range(INVENTED_STYLES.start + 50_000, INVENTED_STYLES.stop)
INVENTED_TRAIN_CAMERAS = range(300_000, 400_000)
INVENTED_HELD_OUT_CAMERAS = range(400_000, 500_000)
# The second family (companion/sim/art_box.py) stands in for a user's box: only ever a test.
BOX_ART_CAMERAS = range(800_000, 900_000)


@dataclass(frozen=True)
class Split:
    """Which art styles and cameras a data set draws from; ``key`` seeds its draws (the first
    two keep the keys they had when there were only two, so their data stays the same)."""

    name: str
    key: str
    styles: range
    cameras: range


SPLITS = {
    split.name: split
    for split in (
        Split("train", "False", TRAIN_STYLES, TRAIN_CAMERAS),
        Split("held-out", "True", HELD_OUT_STYLES, HELD_OUT_CAMERAS),
        Split("calibration", "calibration", CALIBRATION_STYLES, CALIBRATION_CAMERAS),
        Split("wide-train", "wide-train", WIDE_TRAIN_STYLES, WIDE_TRAIN_CAMERAS),
        Split("wide-held-out", "wide-held-out", WIDE_HELD_OUT_STYLES, WIDE_HELD_OUT_CAMERAS),
        Split("invented-train", "invented-train", INVENTED_TRAIN_STYLES, INVENTED_TRAIN_CAMERAS),
        Split("invented-held-out", "invented-held-out", INVENTED_HELD_OUT_STYLES, INVENTED_HELD_OUT_CAMERAS),
    )
}
# Test only: kept out of SPLITS, which is what the training scripts may draw from; a data file
# made from it says so (its "split"), and train_cells refuses it.
BOX_ART = Split("box-art", "box-art", BOX_STYLES, BOX_ART_CAMERAS)
TEST_ONLY = {BOX_ART.name: BOX_ART}
# The fourth family's held-out styles are the unseen art the gallery's likeness is judged on
# before the box art (models/starwars/gallery.md): train_gallery refuses them as training data.
UNSEEN_DEV = {"invented-held-out"}


def split_named(name: str) -> Split:
    return SPLITS[name] if name in SPLITS else TEST_ONLY[name]


MARGIN = 4  # extra pixels round each crop, so training can shift it
FACTION_LIST = ("rebels", "empire", "bounty")


def tile_classes() -> list[Tile]:
    """Every way a catalog tile can lie, once, in a stable order."""
    seen: dict[str, Tile] = {}
    for entry in load_catalog().tiles:
        for _, lying in entry.tile.distinct_rotations():
            seen.setdefault(repr(lying.to_json()), lying)
    return [seen[key] for key in sorted(seen)]


def labels() -> TileLabels:
    return TileLabels((*[t.to_json() for t in tile_classes()], EMPTY, UNKNOWN), SPOTS)


def random_unknown_tile(rng: random.Random, known: set[Tile]) -> Tile:
    """A well-formed tile that is not in the catalog: stands in for a tile we never saw."""
    while True:
        kinds = [rng.choice((None, ROUTE, ASTEROID)) for _ in range(4)]
        features: list[Feature] = []
        asteroid = [s for s in range(4) if kinds[s] == ASTEROID]
        if asteroid:
            if rng.random() < 0.5:
                features.append(Feature(ASTEROID, tuple(asteroid)))
            else:
                features += [Feature(ASTEROID, (s,)) for s in asteroid]
        routes = [s for s in range(4) if kinds[s] == ROUTE]
        planet = rng.random() < 0.3
        if len(routes) == 2 and not planet and rng.random() < 0.6:
            features.append(Feature(ROUTE, tuple(routes)))
        else:
            features += [Feature(ROUTE, (s,)) for s in routes]
        if planet:
            features.append(Feature(PLANET, (), (rng.choice(FACTION_LIST),)))
        features = [
            Feature(f.kind, f.sides, (rng.choice(FACTION_LIST),))
            if f.kind != PLANET and rng.random() < 0.2
            else f
            for f in features
        ]
        tile = Tile(tuple(features))
        if tile.features and tile not in known:
            return tile


def meeple_spots(tile: Tile) -> list[str]:
    spots = [SIDES[s] for s in range(4) if tile.side_feature[s] >= 0]
    if tile.planet_index is not None:
        spots += list(PLANET_SPOTS)
    return spots


def put_meeple(
    scene: Scene, cell: tuple[int, int], spot: str, colour: str, size: str, fallen: bool, rng: random.Random
) -> int:
    """Stand a meeple (or lay it down, fallen) on a spot, a little off and turned as a hand
    leaves it; its class, the label."""
    offset = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5))
    scene.meeples.append(PlacedMeeple(cell, spot, colour, size, fallen, offset, rng.uniform(-25, 25)))
    return MEEPLE_CLASSES.index(FALLEN) if fallen else meeple_class(colour, size)


def style_of_frame(seed: int, split: str) -> int:
    """The art style frame ``seed`` of ``split`` is drawn in: two frames per style, the second
    reusing the first's drawn tiles (a box is one style)."""
    styles = split_named(split).styles
    return styles[(seed // 2) % len(styles)]


def board_sample(seed: int, split: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One rendered frame's crops (N, CROP+2*MARGIN, same, 3), tile labels (N,), meeple labels (N, 6)."""
    drawn_from = split_named(split)
    rng = random.Random(f"cells-{drawn_from.key}-{seed}")
    classes = tile_classes()
    known = set(classes)
    label_set = labels()
    empty, unknown = label_set.index_of(EMPTY), label_set.index_of(UNKNOWN)
    cameras = drawn_from.cameras
    style = style_of_frame(seed, split)
    renderer = Renderer(Camera.from_seed(rng.choice(cameras), harsh=rng.random() < 0.15))
    board = STANDARD_MAT.board
    origin = (board.centre[0] + rng.uniform(-10, 10), board.centre[1] + rng.uniform(-10, 10))
    scene = Scene(origin)
    density = rng.uniform(0.4, 0.9)
    tile_label: dict[tuple[int, int], int] = {}
    meeple_label: dict[tuple[int, int], list[int]] = {}
    for y in range(-5, 6):
        for x in range(-7, 8):
            if rng.random() > density:
                tile_label[(x, y)] = empty
                continue
            if rng.random() < 0.08:
                tile, index = random_unknown_tile(rng, known), unknown
            else:
                index = rng.randrange(len(classes))
                tile = classes[index]
            scene.tiles[(x, y)] = PlacedTile(
                tile,
                style,
                rng.randrange(3),
                (rng.uniform(-2.5, 2.5), rng.uniform(-2.5, 2.5)),
                rng.uniform(-3.5, 3.5),
            )
            tile_label[(x, y)] = index
            spots = [0] * len(SPOTS)
            free = meeple_spots(tile)
            count = rng.choices((0, 1, 2), (0.6, 0.32, 0.08))[0]
            for spot in rng.sample(free, min(count, len(free))):
                if spot in PLANET_SPOTS and any(spots[SPOTS.index(p)] for p in PLANET_SPOTS):
                    continue
                fallen = rng.random() < 0.05
                colour = rng.choice(("red", "green", "black", "white", "orange"))
                size = rng.choice(("small", "large"))
                spots[SPOTS.index(spot)] = put_meeple(scene, (x, y), spot, colour, size, fallen, rng)
            meeple_label[(x, y)] = spots
    frame = renderer.render(scene, rng.randrange(1 << 30))
    rectifier = Rectifier()
    view = rectifier.locate(frame)
    if view.homography is None:
        return np.zeros((0, 1, 1, 3), np.uint8), np.zeros(0, np.int64), np.zeros((0, len(SPOTS)), np.int64)
    rectified = rectifier.rectify(frame, view.homography)
    # the live lattice is found from the tiles; allow for its error
    ox = origin[0] * PX_PER_MM + rng.uniform(-1.5, 1.5)
    oy = origin[1] * PX_PER_MM + rng.uniform(-1.5, 1.5)
    crops, tiles, meeples = [], [], []
    size = (CROP_PX + 2 * MARGIN,) * 2
    for (x, y), index in tile_label.items():
        if index == empty and rng.random() > 0.12:
            continue
        centre = (ox + x * TILE_PX + rng.uniform(-1, 1), oy + y * TILE_PX + rng.uniform(-1, 1))
        window = cv2.getRectSubPix(rectified, size, centre)
        crops.append(window)
        tiles.append(index)
        meeples.append(meeple_label.get((x, y), [0] * len(SPOTS)))
    return np.stack(crops), np.array(tiles, np.int64), np.array(meeples, np.int64)


def _job(args: tuple[int, str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return board_sample(*args)


def render_all(
    job: Callable[[tuple[int, str]], tuple[np.ndarray, ...]],
    keys: tuple[str, ...],
    frames: int,
    split: str,
    workers: int,
    first_seed: int = 0,
) -> dict[str, np.ndarray]:
    """Run ``job`` on seeds ``first_seed`` on, in ``workers`` processes, with progress on stderr;
    each job gives arrays in the order of ``keys``, concatenated here."""
    parts = []
    started = time.monotonic()
    jobs = [(seed, split) for seed in range(first_seed, first_seed + frames)]
    with ProcessPoolExecutor(workers) as pool:
        for done, part in enumerate(pool.map(job, jobs, chunksize=2), start=1):
            if len(part[0]):
                parts.append(part)
            if done % 25 == 0 or done == frames:
                rate = done / (time.monotonic() - started)
                print(f"  {done}/{frames} frames ({rate:.1f}/s)", file=sys.stderr, flush=True)
    return {key: np.concatenate([p[k] for p in parts]) for k, key in enumerate(keys)}


def generate(frames: int, split: str, workers: int, first_seed: int = 0) -> dict[str, np.ndarray]:
    return render_all(_job, ("crops", "tiles", "meeples"), frames, split, workers, first_seed)


def data_parser(doc: str | None, frames: int) -> argparse.ArgumentParser:
    """The options every data script takes: how many frames, which styles, where to write."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=frames, help="frames (boards) to render")
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--held-out",
        dest="split",
        action="store_const",
        const="held-out",
        default="train",
        help="draw from the held-out styles and cameras (the test sets)",
    )
    which.add_argument(
        "--calibration",
        dest="split",
        action="store_const",
        const="calibration",
        help="draw from the calibration styles and cameras (what sets the tracker's thresholds)",
    )
    which.add_argument(
        "--box-art",
        dest="split",
        action="store_const",
        const="box-art",
        help="test only: draw the second family of art (companion/sim/art_box.py), never trained on",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help="draw the third family of art (companion/sim/art_wide.py): its training or held-out styles",
    )
    parser.add_argument(
        "--invented",
        action="store_true",
        help="draw the fourth family of art (companion/sim/art_invented.py): its training or held-out styles",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    return parser


def split_of(args: argparse.Namespace) -> str:
    """The split the options name: ``--wide`` turns the training and held-out splits into the
    third family's, ``--invented`` into the fourth's."""
    if args.wide and args.invented:
        raise SystemExit("--wide or --invented, not both")
    family = "wide" if args.wide else "invented" if args.invented else None
    if family is None:
        return str(args.split)
    if args.split not in ("train", "held-out"):
        raise SystemExit(f"--{family} has no {args.split} split")
    return f"{family}-{args.split}"


def write_data(out: str, data: dict[str, np.ndarray], what: str) -> None:
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **data)
    print(f"wrote {out}: {len(next(iter(data.values())))} {what}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = data_parser(__doc__, 760).parse_args(argv)
    split = split_of(args)
    data = generate(args.frames, split, args.workers, args.first_seed)
    data["split"] = np.array(split)
    write_data(args.out, data, "crops")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
