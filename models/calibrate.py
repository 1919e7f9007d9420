"""How sure the tracker must be before it records a meeple by itself, measured on pairs drawn
from calibration styles and cameras: neither trained on nor part of the held-out suite.

The tracker records a new meeple only where the player of the turn may place one, and takes
the colour from the turn order. What is left to the camera is one of two questions:

* the player holds both sizes: which size stands there (the chance of that size, standing,
  summed over the colours);
* the player holds one size: whether a meeple stands there at all (one minus the chance of
  nothing; a meeple lying on its side was placed all the same).

For each rule and threshold this prints how many readings would be recorded, and of those how
many wrongly; the tracker's MEEPLE_ACCEPT is chosen from it (docs/vision.md).

    python -m models.meeple_data --frames 150 --calibration --out build/meeples-calibration.npz
    python -m models.calibrate build/meeples-calibration.npz
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from companion.vision.labels import FALLEN, MEEPLE_CLASSES, NO_MEEPLE
from companion.vision.mat import CROP_PX
from companion.vision.meeples import MeepleModel
from models.cell_data import MARGIN

THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
NONE, LYING = MEEPLE_CLASSES.index(NO_MEEPLE), MEEPLE_CLASSES.index(FALLEN)


def pair_probs(path: str) -> tuple[np.ndarray, np.ndarray]:
    """The meeple model's probabilities (pairs, spots, classes) on a pair file, and its labels."""
    data = np.load(path)
    model = MeepleModel()
    window = slice(MARGIN, MARGIN + CROP_PX)
    probs = np.concatenate(
        [
            model.run(data["now"][i : i + 512, window, window], data["bare"][i : i + 512, window, window])
            for i in range(0, len(data["meeples"]), 512)
        ]
    )
    return probs, data["meeples"]


def calibrate(probs: np.ndarray, truth: np.ndarray) -> dict[str, Any]:
    """Recorded and wrong at each threshold, for both questions, over the spots where the model
    sees a standing meeple (elsewhere the tracker looks for no new meeple)."""
    probs, truth = probs.reshape(-1, probs.shape[-1]), truth.reshape(-1)
    standing_seen = probs.argmax(1) > LYING
    small, large = probs[:, 2::2].sum(1), probs[:, 3::2].sum(1)
    seen_large = large > small
    size_chance = np.where(seen_large, large, small)
    other_size = (truth > LYING) & (((truth - 2) % 2 == 1) != seen_large)
    meeple_chance = 1.0 - probs[:, NONE]
    report: dict[str, Any] = {
        "spots_seen_standing": int(standing_seen.sum()),
        "two_sizes": {},
        "one_size": {},
    }
    for threshold in THRESHOLDS:
        for name, chance in (("two_sizes", size_chance), ("one_size", meeple_chance)):
            recorded = standing_seen & (chance >= threshold)
            report[name][f"{threshold:.2f}"] = {
                "asked": int((standing_seen & ~recorded).sum()),
                "recorded": int(recorded.sum()),
                "where_nothing_stands": int((recorded & (truth == NONE)).sum()),
                "where_one_lies": int((recorded & (truth == LYING)).sum()),
                "of_the_other_size": int((recorded & other_size).sum()),
            }
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "pairs", help="calibration (now, bare) pairs (npz from models.meeple_data --calibration)"
    )
    args = parser.parse_args(argv)
    print(json.dumps(calibrate(*pair_probs(args.pairs)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
