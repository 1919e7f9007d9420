"""How often the pip counter alone (companion/vision/pips.py) counts a die right.

    python -m models.training.count_pips --split train            # the training photographs
    python -m models.training.count_pips --trays 200              # rendered tuning trays, by body colour

Each labelled die is taken where the finder marks it (the surest spot whose body holds the
label's centre; on a rendered tray, the spot within 0.3 bodies of its top face), the reader
gives its pip box there, and the counter counts the pips in it, as the dice reader does when it
asks for a second opinion. Dice the finder does not mark, cocked dice and dice cut by the edge
are left out. These are the pip counter's figures in models/dice/dice.md; they say how far
the count alone can be trusted, not how the reader reads (models/training/evaluate_dice.py). Needs only
onnxruntime.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.vision.dice_model import DEFAULT_MODEL, Candidate, DiceModel, crop_side, cut_out, peaks
from companion.vision.pips import count_pips
from models.training.dice_data import PHOTOS, SYNTHETIC_SEEDS, evaluation_tray, photos

FIND = 0.2  # the finder's bar, as the reader's (Thresholds.find)
NEAR = 0.3  # a rendered die's spot lies within this many bodies of its top face


def counted(model: DiceModel, picture: np.ndarray, spot: Candidate) -> int:
    """The pips counted at ``spot`` in the reader's box, as the dice reader counts them."""
    side = crop_side(spot.width, spot.height)
    _, boxes = model.read(cut_out(picture, spot.x, spot.y, side, model.crop_px)[None])
    x0, y0, x1, y1 = (float(v) for v in boxes[0])
    return count_pips(picture, spot.x, spot.y, side, (x0, y0, x1, y1))


def real(model: DiceModel, split: str, folder: Path = PHOTOS) -> collections.Counter[tuple[int, int | None]]:
    """(value, count) for each labelled die of the photographs of ``split``; count None where
    the finder marks no spot on it."""
    tally: collections.Counter[tuple[int, int | None]] = collections.Counter()
    for photo in photos(split, folder):
        picture = cv2.imread(str(photo.path))
        maps, scale = model.find(picture)
        spots = peaks(maps, scale, FIND)
        for die in photo.dice:
            x, y, w, h = die.box
            cx, cy = x + w / 2, y + h / 2
            on = [s for s in spots if abs(s.x - cx) < s.width / 2 and abs(s.y - cy) < s.height / 2]
            count = counted(model, picture, max(on, key=lambda s: s.score)) if on else None
            tally[(die.value, count)] += 1
    return tally


def rendered(model: DiceModel, trays: int) -> dict[str, list[int]]:
    """Body colour: [counted right, dice] on ``trays`` rendered tuning trays."""
    tally: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    first = SYNTHETIC_SEEDS["tune"].start
    for seed in range(first, first + trays):
        tray = evaluation_tray(seed)
        maps, scale = model.find(tray.image)
        spots = peaks(maps, scale, FIND)
        for die in tray.dice:
            if die.value is None or die.cut:
                continue
            near = [
                s
                for s in spots
                if np.hypot(s.x - die.centre[0], s.y - die.centre[1]) < NEAR * max(s.width, 4)
            ]
            if not near:
                continue
            right = counted(model, tray.image, max(near, key=lambda s: s.score)) == die.value
            tally[die.colour][0] += right
            tally[die.colour][1] += 1
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("train", "held-out", "all"), help="real photographs to count on")
    parser.add_argument("--trays", type=int, default=0, help="rendered tuning trays to count on")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="the dice model whose boxes to use")
    args = parser.parse_args(argv)
    if args.split is None and not args.trays:
        parser.error("name --split, --trays or both: what to count on")
    model = DiceModel(args.model)
    if args.split:
        try:
            tally = real(model, args.split)
        except FileNotFoundError as error:
            print(f"count_pips: {error}", file=sys.stderr)
            return 2
        found = sum(n for (_, count), n in tally.items() if count is not None)
        right = sum(n for (value, count), n in tally.items() if count == value)
        print(f"real photographs, {args.split} split: {right} of {found} dice the finder marks counted right")
        for value in range(1, 7):
            counts = {count: n for (v, count), n in sorted(tally.items(), key=str) if v == value}
            print(
                f"  {value}s counted as: "
                + ", ".join(f"{c if c is not None else 'not marked'}: {n}" for c, n in counts.items())
            )
    if args.trays:
        colours = rendered(model, args.trays)
        right, dice = (sum(t[k] for t in colours.values()) for k in (0, 1))
        share = right / max(dice, 1)
        print(f"rendered tuning trays, {args.trays}: {right} of {dice} flat dice counted right ({share:.1%})")
        for colour, (a, b) in sorted(colours.items()):
            print(f"  {colour}: {a} of {b} ({a / b:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
