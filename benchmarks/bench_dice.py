"""Speed of reading one dice tray (companion/vision/dice.py): find, read, judge.

Run on one core:  taskset -c 0 .venv/bin/python benchmarks/bench_dice.py
  --trays N   rendered trays to read besides the real photographs (default: 30)
  --nine N    rendered wooden trays of nine coloured dice, seen from above in hard light (default: 20)
  --model M   a dice model to time instead of models/dice/dice.onnx; give it twice or more to time
              several in one run, each picture read by each in turn, and their ratios to the first

Reads every held-out real photograph (640 x 480) and N rendered trays of 1 to 6 dice, each
three times, with one onnxruntime thread, and gives the median and the slowest of the fastest
reading of each picture; the trays of nine dice are given on their own as well. Exits 1 if a
median (all pictures, or the trays of nine dice) is over 150 ms.
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
from companion.vision.dice_model import DEFAULT_MODEL, DiceModel, DiceModelMissing

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # models/ (the split) is not installed
from models.training.dice_data import SYNTHETIC_SEEDS, photos

TARGET_MS = 150.0
NINE_COLOURS = ("blue", "red", "green", "black", "yellow", "orange")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--trays", type=int, default=30, help="rendered trays to read as well")
    parser.add_argument("--nine", type=int, default=20, help="wooden trays of nine dice to read as well")
    parser.add_argument(
        "--model", action="append", type=Path, help="a dice ONNX file to time (again for several)"
    )
    args = parser.parse_args()
    try:
        readers = [DiceReader(DiceModel(path)) for path in args.model or [DEFAULT_MODEL]]
    except DiceModelMissing as error:
        print(f"bench_dice: {error}", file=sys.stderr)
        return 2
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
    for seed in range(first + 90_000, first + 90_000 + args.nine):
        nine = render_tray(
            seed, dice=9, colours=NINE_COLOURS, cocked=0.0, tray="wood", top_down=True, hard=True
        )
        pictures.append(("nine dice", nine.image))
    for reader in readers:
        reader.read(pictures[0][1])  # warm up: the first run of a session sets up its kernels
    times: list[dict[str, list[float]]] = [{"real": [], "rendered": [], "nine dice": []} for _ in readers]
    for kind, picture in pictures:
        for reader, found in zip(readers, times, strict=True):
            best = float("inf")
            for _ in range(3):
                started = time.perf_counter()
                reader.read(picture)
                best = min(best, (time.perf_counter() - started) * 1000)
            found[kind].append(best)
    medians: list[float] = []
    worst: list[float] = []  # each model's medians, to hold to the target
    for reader, found in zip(readers, times, strict=True):
        print(reader.model.path)
        for kind, each in found.items():
            if each:
                print(
                    f"  {kind}: {len(each)} pictures, one tray read in median "
                    f"{statistics.median(each):.1f} ms, slowest {max(each):.1f} ms"
                )
                worst.append(statistics.median(each) if kind == "nine dice" else 0.0)
        every = found["real"] + found["rendered"] + found["nine dice"]
        medians.append(statistics.median(every))
        worst.append(medians[-1])
        ratio = f", {medians[-1] / medians[0]:.2f} x the first's" if len(medians) > 1 else ""
        target = f"(target <= {TARGET_MS:g} ms, and for nine dice){ratio}"
        print(f"  all: median {medians[-1]:.1f} ms, slowest {max(every):.1f} ms {target}")
    return 0 if max(worst) <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
