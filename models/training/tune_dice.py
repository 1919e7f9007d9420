"""What the dice reader's thresholds (companion/vision/dice.py) were set from: the training
split of the real photographs and the tuning trays, never the held-out ones.

    python -m models.training.tune_dice --trays 200
    python -m models.training.tune_dice --sweep --trays 100
    python -m models.training.tune_dice --sweep --trays 200 --try fair=0.7,0.8 --try fair_unread=0,0.05
    python -m models.training.tune_dice --sweep --photos fold --fold 0 --model build/dice-fold0.onnx \
        --try fair_unread=0.05,0.07

``--sweep`` reads the training photographs (or, with ``--photos fold --fold K``, fold K of them,
for a model trained without it: ``train_dice --photos fit --fold K``), ``--trays`` tuning trays
and a third as many with a die cut by the edge with each combination of SWEEP, the thresholds
that decide which spots are dice (companion.vision.dice.Thresholds), and prints the figures of
models/training/evaluate_dice.py (matched by die) for each, best first: the networks run once per
picture and crop, only the rules are run again. ``--try NAME=V,V,...`` sweeps only the
thresholds named, over the values given, the others as shipped; it is how ``edge_face``,
``fair``, ``fair_unread`` and ``rival``, not in SWEEP, are swept.

Prints, for each rule, the figure on pictures where the rule must stay quiet and on pictures
where it must speak: the sharpness of dice read right against that of dice under a heavy blur,
a frame's sharpness (bare trays against blurred ones), the hand share of the picture with and
without a hand, and how sure the reader was of the values it got right and wrong.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.sim.dice_tray import render_tray
from companion.vision.dice import THRESHOLDS, DiceReader, Thresholds, sharpness
from companion.vision.dice_model import (
    DEFAULT_MODEL,
    NONE,
    STRIDE,
    UNREADABLE,
    DiceModel,
    crop_side,
    cut_out,
    peaks,
)
from models.training.dice_data import FOLDS, SYNTHETIC_SEEDS, evaluation_tray, iou, photos
from models.training.evaluate_dice import Tally

# What --sweep tries.
SWEEP = {
    "die": (0.5, 0.8, 0.95),
    "die_unread": (0.5, 0.7, 0.8, 0.9, 0.97),
    "sure": (0.7, 0.8, 0.9),
    "apart": (0.0, 0.5),
    "same_die": (0.0, 0.4, 0.6, 0.8),
}


class CachedModel(DiceModel):
    """A dice model that remembers what its networks gave for each picture and each crop."""

    def __init__(self, model: DiceModel) -> None:
        # shares the model's session: no second one is loaded
        self.inner = model
        self.path = model.path
        self.crop_px = model.crop_px
        self._maps: dict[bytes, tuple[np.ndarray, float]] = {}
        self._reads: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def find(self, picture: np.ndarray) -> tuple[np.ndarray, float]:
        key = hashlib.blake2b(picture.tobytes(), digest_size=16).digest()
        if key not in self._maps:
            self._maps[key] = self.inner.find(picture)
        return self._maps[key]

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(crops) == 0:
            return self.inner.read(crops)
        keys = [hashlib.blake2b(c.tobytes(), digest_size=16).digest() for c in crops]
        new = [k for k, key in enumerate(keys) if key not in self._reads]
        if new:
            probs, boxes = self.inner.read(crops[new])
            for k, p, b in zip(new, probs, boxes, strict=True):
                self._reads[keys[k]] = (p, b)
        return np.stack([self._reads[k][0] for k in keys]), np.stack([self._reads[k][1] for k in keys])


Labelled = list[tuple[int | None, tuple[float, ...]]]


def sweep(
    trays: int,
    path: Path = DEFAULT_MODEL,
    grid: dict[str, tuple[float, ...]] | None = None,
    split: str = "train",
    fold: int = 0,
) -> None:
    """Each combination of ``grid`` (SWEEP when None) on the photographs of ``split`` (the
    training split, or its fold ``fold``) and ``trays`` tuning trays."""
    grid = SWEEP if grid is None else grid
    model = CachedModel(DiceModel(path))
    pictures: list[tuple[str, np.ndarray, Labelled]] = []
    for photo in photos(split, fold=fold):
        picture = cv2.imread(str(photo.path))
        pictures.append(("photo", picture, [(d.value, d.box) for d in photo.dice]))
    first = SYNTHETIC_SEEDS["tune"].start
    for seed in range(first, first + trays):
        tray = evaluation_tray(seed)
        truth: Labelled = [
            (d.value, tuple(float(v) for v in (d.read_box if d.value is not None else d.body)))
            for d in tray.dice
        ]
        pictures.append(("tray", tray.image, truth))
    # and trays with a die cut by the picture's edge, whose right reading is no value
    for seed in range(first + 60_000, first + 60_000 + trays // 3):
        tray = render_tray(seed, dice=3, cut=True, cocked=0.1)
        truth = [
            (
                None if d.cut else d.value,
                tuple(float(v) for v in (d.read_box if d.value and not d.cut else d.body)),
            )
            for d in tray.dice
        ]
        pictures.append(("tray", tray.image, truth))
    rows = []
    names = list(grid)
    for values in itertools.product(*grid.values()):
        thresholds = dataclasses.replace(THRESHOLDS, **dict(zip(names, values, strict=True)))
        reader = DiceReader(model, thresholds)
        tallies = {"photo": Tally(), "tray": Tally()}
        for kind, picture, truth in pictures:
            tallies[kind].add(kind, reader.read(picture), truth, picture.shape[:2])
        rows.append((thresholds, tallies["photo"], tallies["tray"]))

    def cost(row: tuple[Thresholds, Tally, Tally]) -> float:
        # a value given wrong, or a picture read "ok" with a value none of its dice shows, is
        # the worst; a die not read and an extra die count alike (a picture read "ok" with a
        # die short is counted as that die not read: the battle flow sees the count)
        _, photo, tray = row
        return sum(
            (t.labelled - t.by_die.right + t.by_die.extra + 5 * (t.by_die.wrong + t.trays_ok_wrong_value))
            / max(t.labelled, 1)
            for t in (photo, tray)
        )

    photographs = "training photographs" if split == "train" else f"fold {fold} of the training photographs"
    print(
        f"thresholds: {photographs} | tuning trays (matched by die: right, extra, wrong;"
        " pictures read ok with a value no die shows)"
    )
    for thresholds, photo, tray in sorted(rows, key=cost)[:25]:
        line = ", ".join(f"{n} {getattr(thresholds, n)}" for n in names)
        figures = " | ".join(
            f"{t.by_die.right / n:.2%} {t.by_die.extra / n:.2%} {t.by_die.wrong} {t.trays_ok_wrong_value}"
            for t, n in ((photo, max(photo.labelled, 1)), (tray, max(tray.labelled, 1)))
        )
        print(f"  {line}: {figures}")


def _percentiles(name: str, values: list[float]) -> str:
    if not values:
        return f"  {name}: none"
    p = np.percentile(values, [0, 1, 5, 50, 95, 99, 100])
    names = ("min", "1%", "5%", "median", "95%", "99%", "max")
    return f"  {name} ({len(values)}): " + ", ".join(f"{n} {v:.3f}" for n, v in zip(names, p, strict=True))


def _spots(
    reader: DiceReader, picture: np.ndarray
) -> tuple[list[tuple[float, np.ndarray, np.ndarray]], float]:
    """Each spot found: how sure the reader is it is a die, its probabilities and its crop;
    and the hand map's share of the picture."""
    maps, scale = reader.model.find(picture)
    found = peaks(maps, scale, 0.3)
    height, width = picture.shape[:2]
    cells = maps[5, : int(np.ceil(height * scale / STRIDE)), : int(np.ceil(width * scale / STRIDE))]
    hand = float((cells > 0.5).mean())
    if not found:
        return [], hand
    crops = np.stack(
        [cut_out(picture, c.x, c.y, crop_side(c.width, c.height), reader.model.crop_px) for c in found]
    )
    probs, _ = reader.model.read(crops)
    return [(1 - float(p[NONE]), p, crop) for p, crop in zip(probs, crops, strict=True)], hand


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--trays", type=int, default=200, help="tuning trays of each kind")
    parser.add_argument(
        "--sweep", action="store_true", help="try each combination of SWEEP (or of the --try values)"
    )
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="the dice model to tune for")
    parser.add_argument(
        "--photos",
        choices=("train", "fold"),
        default="train",
        help="with --sweep: the real photographs to sweep on, the training split or one fold of it "
        "(for a model trained without that fold: train_dice --photos fit --fold K)",
    )
    parser.add_argument("--fold", type=int, choices=range(FOLDS), help="with --photos fold: which fold")
    parser.add_argument(
        "--try",
        dest="tries",
        action="append",
        default=[],
        metavar="NAME=V,V",
        help="with --sweep: sweep only this threshold over these values (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.tries and not args.sweep:
        parser.error("--try is for --sweep: give both")
    if args.photos != "train" and not args.sweep:
        parser.error("--photos is for --sweep: give both")
    if (args.fold is None) == (args.photos == "fold"):
        parser.error("--photos fold and --fold K go together: the fold is to be named")
    try:
        args.grid = _grid(args.tries)
    except ValueError as error:
        parser.error(str(error))
    try:
        return _tune(args)
    except FileNotFoundError as error:  # the shared photographs are not where they are looked for
        print(f"tune_dice: {error}", file=sys.stderr)
        return 2


def _grid(tries: list[str]) -> dict[str, tuple[float, ...]] | None:
    """``--try`` options as a sweep's grid; None when there are none."""
    if not tries:
        return None
    known = {field.name for field in dataclasses.fields(Thresholds)} - {"views"}
    grid = {}
    for text in tries:
        name, _, values = text.partition("=")
        if name in grid:
            raise ValueError(f"--try {text!r}: {name} is given twice; list its values once, split by commas")
        if name not in known:
            raise ValueError(
                f"--try {text!r}: no threshold {name!r}; the thresholds are {', '.join(sorted(known))}"
            )
        try:
            grid[name] = tuple(float(v) for v in values.split(","))
        except ValueError:
            raise ValueError(f"--try {text!r}: the values must be numbers split by commas") from None
    return grid


def _tune(args: argparse.Namespace) -> int:
    if args.sweep:
        sweep(args.trays, args.model, args.grid, args.photos, args.fold or 0)
        return 0
    reader = DiceReader(DiceModel(args.model))
    sure_right, sure_wrong, sharp_dice, hand_none = [], [], [], []
    for photo in photos("train"):
        picture = cv2.imread(str(photo.path))
        reading = reader.read(picture)
        for label in photo.dice:
            best = max(reading.dice, key=lambda d: iou(d.box, label.box), default=None)
            if best is None or iou(best.box, label.box) < 0.5 or best.value is None:
                continue
            (sure_right if best.value == label.value else sure_wrong).append(best.confidence)
        spots, hand = _spots(reader, picture)
        hand_none.append(hand)
        sharp_dice += [sharpness(crop) for die, p, crop in spots if die > 0.5 and np.argmax(p) < UNREADABLE]
    first = SYNTHETIC_SEEDS["tune"].start
    blurred_dice, bare, blurred_frames, hand_some, hand_synthetic_none = [], [], [], [], []
    for seed in range(first, first + args.trays):
        spots, _ = _spots(
            reader, render_tray(seed, dice=3, blur=float(np.random.default_rng(seed).uniform(2.5, 5))).image
        )
        blurred_dice += [sharpness(crop) for die, _, crop in spots if die > 0.5]
        blank = render_tray(seed + 10_000, dice=0).image
        bare.append(sharpness(blank))
        blurred_frames.append(
            sharpness(cv2.GaussianBlur(render_tray(seed + 20_000, dice=3).image, (0, 0), 4))
        )
        hand_some.append(_spots(reader, render_tray(seed + 30_000, dice=3, hand=True).image)[1])
        tray = render_tray(seed + 40_000, dice=4)
        hand_synthetic_none.append(_spots(reader, tray.image)[1])
        spots, _ = _spots(reader, tray.image)
        sharp_dice += [sharpness(crop) for die, p, crop in spots if die > 0.5 and np.argmax(p) < UNREADABLE]
    print("die sharpness (BLURRED_DIE)")
    print(_percentiles("dice read on training photographs and tuning trays", sharp_dice))
    print(_percentiles("dice on tuning trays blurred with sigma 2.5-5 px", blurred_dice))
    print("frame sharpness (BLURRED_FRAME)")
    print(_percentiles("bare tuning trays", bare))
    print(_percentiles("tuning trays blurred with sigma 4 px", blurred_frames))
    print("hand share of the picture (HAND_SHARE)")
    print(_percentiles("training photographs (no hand)", hand_none))
    print(_percentiles("tuning trays without a hand", hand_synthetic_none))
    print(_percentiles("tuning trays with a hand", hand_some))
    print("value confidence (SURE), training photographs")
    print(_percentiles("values read right", sure_right))
    print(_percentiles("values read wrong", sure_wrong))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
