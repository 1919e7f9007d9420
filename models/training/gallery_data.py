"""Data for the gallery's matcher: camera windows of tiles beside clean pictures of their box.

The matcher compares a tile seen by the camera with the user's own pictures of each tile type,
so it learns from pairs of one art style: each tile square cut from a rendered camera frame
(``tile_of_window``, as the gallery cuts it) and, for every style in the file, one clean
picture of each catalog tile type drawn upright, as ``companion enroll`` would be given.

    python -m models.training.gallery_data --wide --frames 760 --out build/gallery-wide-train.npz
"""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.sim.render import tile_picture
from companion.vision.mat import CROP_PX, TILE_PX
from companion.vision.tile_window import square_of_picture, tile_of_window
from models.training.cell_data import (
    MARGIN,
    board_sample,
    data_parser,
    labels,
    split_of,
    style_of_frame,
    write_data,
)

ENROL_PX = 96  # an enrolled picture's side


def enrolment_pictures(style: int) -> np.ndarray:
    """(types, ENROL_PX, ENROL_PX, 3): each catalog tile type drawn upright, alone, in ``style``,
    as a scan of the user's own tile would show it (what ``companion enroll`` is given)."""
    return np.stack([tile_picture(entry.tile, style, ENROL_PX) for entry in load_catalog().tiles])


def frame_job(args: tuple[int, str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One frame's tile squares (N, TILE_PX, TILE_PX, 3), cell-model classes (N,), styles (N,);
    bare felt and tiles outside the catalog left out."""
    seed, split = args
    crops, tiles, _ = board_sample(seed, split)
    label_set = labels()
    keep = [k for k, index in enumerate(tiles) if label_set.is_tile(int(index))]
    squares = [tile_of_window(crops[k, MARGIN : MARGIN + CROP_PX, MARGIN : MARGIN + CROP_PX]) for k in keep]
    empty = np.zeros((0, TILE_PX, TILE_PX, 3), np.uint8)
    style = style_of_frame(seed, split)
    return (
        np.stack(squares) if squares else empty,
        tiles[keep].astype(np.int64),
        np.full(len(keep), style, np.int64),
    )


def generate(frames: int, split: str, workers: int, first_seed: int = 0) -> dict[str, np.ndarray]:
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    with ProcessPoolExecutor(workers) as pool:
        seeds = range(first_seed, first_seed + frames)
        jobs = [(seed, split) for seed in seeds]
        for done, part in enumerate(pool.map(frame_job, jobs, chunksize=2), start=1):
            parts.append(part)
            if done % 25 == 0 or done == frames:
                print(f"  {done}/{frames} frames", file=sys.stderr, flush=True)
        styles = sorted({style_of_frame(seed, split) for seed in seeds})
        pictures = list(pool.map(enrolment_pictures, styles))
    small = [np.stack([square_of_picture(p) for p in per_style]) for per_style in pictures]
    return {
        "squares": np.concatenate([p[0] for p in parts]),
        "tiles": np.concatenate([p[1] for p in parts]),
        "styles": np.concatenate([p[2] for p in parts]),
        "enrol_styles": np.array(styles, np.int64),
        "enrol_pictures": np.stack(small),  # (styles, types, TILE_PX, TILE_PX, 3)
    }


def main(argv: list[str] | None = None) -> int:
    parser = data_parser(__doc__, frames=760)
    args = parser.parse_args(argv)
    split = split_of(args)
    data = generate(args.frames, split, args.workers, args.first_seed)
    data["split"] = np.array(split)
    write_data(args.out, data, f"tile squares, of {len(data['enrol_styles'])} styles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
