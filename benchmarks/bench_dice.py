"""Speed of reading one dice tray (companion/vision/dice.py): find, read, judge.

Run on one core:  taskset -c 0 .venv/bin/python benchmarks/bench_dice.py
  --trays N   rendered trays to read besides the real photographs (default: 30)

Reads every held-out real photograph (640 x 480) and N rendered trays of 1 to 6 dice, each
three times, with one onnxruntime thread, and gives the median and the slowest of the fastest
reading of each picture. Exits 1 if the median is over 150 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from companion.sim.dice_tray import render_tray
from companion.vision.dice import DiceReader

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # models/ (the split) is not installed
from models.dice_data import SYNTHETIC_SEEDS, photos

TARGET_MS = 150.0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--trays", type=int, default=30, help="rendered trays to read as well")
    args = parser.parse_args()
    reader = DiceReader()
    pictures: list[tuple[str, np.ndarray]] = []
    try:
        held_out = photos("held-out")
    except FileNotFoundError as error:
        print(f"bench_dice: {error}", file=sys.stderr)
        return 2
    for photo in held_out:
        picture = cv2.imread(str(photo.path))
        pictures.append(("real", picture))
    first = SYNTHETIC_SEEDS["held-out"].start
    for seed in range(first, first + args.trays):
        pictures.append(("rendered", render_tray(seed, dice=1 + seed % 6).image))
    reader.read(pictures[0][1])  # warm up: the first run of a session sets up its kernels
    times: dict[str, list[float]] = {"real": [], "rendered": []}
    for kind, picture in pictures:
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            reader.read(picture)
            best = min(best, (time.perf_counter() - started) * 1000)
        times[kind].append(best)
    every = times["real"] + times["rendered"]
    for kind, found in times.items():
        if found:
            print(
                f"{kind}: {len(found)} pictures, one tray read in median {statistics.median(found):.1f} ms, "
                f"slowest {max(found):.1f} ms"
            )
    median = statistics.median(every)
    print(f"all: median {median:.1f} ms, slowest {max(every):.1f} ms (target <= {TARGET_MS:g} ms)")
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
