"""Speed of reading a new tile with the user's gallery (companion/vision/gallery.py).

Run on one core:  taskset -c 0 .venv/bin/python benchmarks/bench_gallery.py
  --pictures N   how many tile types are enrolled (default: every catalog type)
  --load N       how many pictures the gallery folder read at start-up holds (default 300)

A new tile of art the model does not know is read by the gallery on top of the settle-to-event
path (benchmarks/bench_vision.py, about 57 ms of its 100 ms budget), so one match must stay
well inside the rest. Exits 1 if the median match takes more than 40 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from companion.games.starwars.art.box import BOX_STYLES, BoxStyle, draw_box_tile
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.reader.gallery import tile_gallery
from companion.vision.gallery_cache import SUFFIX as CACHE_SUFFIX
from companion.vision.mat import CROP_PX, TILE_PX

TARGET_MS = 40.0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pictures", type=int, default=0, help="tile types enrolled (default: all)")
    parser.add_argument("--load", type=int, default=300, help="pictures in the folder read at start-up")
    args = parser.parse_args()
    style = BoxStyle.from_seed(BOX_STYLES[0])
    tiles = [entry.tile for entry in load_catalog().tiles]
    if args.pictures:
        tiles = tiles[: args.pictures]
    gallery = tile_gallery()
    for tile in tiles:
        gallery.add(draw_box_tile(tile, style, 96), tile)
    rng = np.random.default_rng(0)
    windows = []
    for tile in tiles:
        window = np.full((CROP_PX, CROP_PX, 3), (70, 120, 80), np.uint8)
        rim = (CROP_PX - TILE_PX) // 2
        window[rim : rim + TILE_PX, rim : rim + TILE_PX] = cv2.resize(
            draw_box_tile(tile, style, 96), (TILE_PX, TILE_PX)
        )
        windows.append(np.clip(window + rng.normal(0, 2, window.shape), 0, 255).astype(np.uint8))
    gallery.match(windows[0])  # warm up
    times = []
    for window in windows * 3:
        started = time.perf_counter()
        gallery.match(window)
        times.append((time.perf_counter() - started) * 1000)
    median = statistics.median(times)
    print(f"gallery of {len(tiles)} pictures ({4 * len(tiles)} ways of lying), {len(times)} matches")
    print(f"  one match: median {median:.1f} ms, slowest {max(times):.1f} ms (target <= {TARGET_MS:g} ms)")
    # at start-up the gallery folder is read and every picture turned into vectors; it grows by a
    # picture each tile a person enters
    with tempfile.TemporaryDirectory() as folder:
        kept = tile_gallery(Path(folder))
        for number in range(args.load):
            tile = tiles[number % len(tiles)]
            kept.add(draw_box_tile(tile, style, 96, variant=number), tile, name=f"p{number}")
        started = time.perf_counter()
        loaded = tile_gallery(Path(folder))
        took = time.perf_counter() - started
        # the first start after an update of the model works every picture's vectors out again
        for kept_vectors in Path(folder).glob(f"*{CACHE_SUFFIX}"):
            kept_vectors.unlink()
        started = time.perf_counter()
        tile_gallery(Path(folder))
        first = time.perf_counter() - started
    print(
        f"  reading a gallery folder of {len(loaded)} pictures: {took:.2f} s "
        f"({first:.2f} s with no vectors kept)"
    )
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
