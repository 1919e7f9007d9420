"""How sure the tracker must be before it records a meeple by itself, measured on pairs drawn
from calibration styles and cameras: neither trained on nor part of the held-out suite.

The tracker records a new meeple only where the player of the turn may place one, and takes
the colour from the turn order. What is left to the camera is one of two questions:

* the player holds both sizes: which size stands there (the chance of that size, standing,
  summed over the colours);
* the player holds one size: whether a meeple is there at all (one minus the chance of
  nothing: the chance that it lies rather than stands does not count against it).

For each rule and threshold this prints how many readings would be recorded, and of those how
many wrongly; the tracker's MEEPLE_ACCEPT is chosen from it (docs/vision.md). The pairs are
single frames; games are read from the mean of 4 still frames, which is steadier.

    python -m models.training.meeple_data --frames 150 --calibration --out build/meeples-calibration.npz
    python -m models.training.calibrate build/meeples-calibration.npz
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from companion.vision.labels import FALLEN, MEEPLE_CLASSES, NO_MEEPLE
from models.training.evaluate import LARGE, SMALL, pair_probs

THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
NONE, LYING = MEEPLE_CLASSES.index(NO_MEEPLE), MEEPLE_CLASSES.index(FALLEN)


def calibrate(probs: np.ndarray, truth: np.ndarray) -> dict[str, Any]:
    """Recorded and wrong at each threshold, for both questions, over the spots where the model
    sees a standing meeple (elsewhere the tracker looks for no new meeple)."""
    probs, truth = probs.reshape(-1, probs.shape[-1]), truth.reshape(-1)
    standing_seen = np.isin(probs.argmax(1), SMALL + LARGE)
    small, large = probs[:, SMALL].sum(1), probs[:, LARGE].sum(1)
    seen_large = large > small
    size_chance = np.where(seen_large, large, small)
    other_size = np.isin(truth, SMALL + LARGE) & (np.isin(truth, LARGE) != seen_large)
    meeple_chance = probs.sum(1) - probs[:, NONE]
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
        "pairs", help="calibration (now, bare) pairs (npz from models.training.meeple_data --calibration)"
    )
    args = parser.parse_args(argv)
    print(json.dumps(calibrate(*pair_probs(args.pairs)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
