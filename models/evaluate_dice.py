"""Figures of the dice reader: real photographs of a split, and rendered trays.

    python -m models.evaluate_dice --split held-out
    python -m models.evaluate_dice --split held-out --trays 300

A labelled die is read right when a die the reader gives matches it (intersection over union of
the boxes >= 0.5, each die and label matched once, largest overlaps first) and has its value.
Extra dice are the reader's dice that match no label, as a share of the labelled dice. The
labels of the real photographs draw the box around the top face's pips, and the reader gives
that box for every die it reads (models/dice.md). Needs only onnxruntime.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.sim.dice_tray import render_tray
from companion.vision.dice import DiceReader
from companion.vision.dice_reading import TrayReading
from models.dice_data import SYNTHETIC_SEEDS, iou, photos


@dataclass
class Tally:
    labelled: int = 0
    right: int = 0
    wrong: int = 0  # matched, another value
    unread: int = 0  # matched, no value given
    missed: int = 0
    extra: int = 0
    right_by_centre: int = 0  # read right, a die matched to a label when either box holds the other's centre
    statuses: collections.Counter[str] = field(default_factory=collections.Counter)
    mistakes: list[str] = field(default_factory=list)

    def add(
        self, name: str, reading: TrayReading, truth: Sequence[tuple[int | None, tuple[float, ...]]]
    ) -> None:
        self.statuses[reading.status] += 1
        pairs = sorted(
            (
                (iou(die.box, box), d, t)
                for d, die in enumerate(reading.dice)
                for t, (_, box) in enumerate(truth)
                if iou(die.box, box) >= 0.5
            ),
            reverse=True,
        )
        used_d, used_t = set(), set()
        for _, d, t in pairs:
            if d in used_d or t in used_t:
                continue
            used_d.add(d)
            used_t.add(t)
            given, wanted = reading.dice[d].value, truth[t][0]
            if given == wanted:
                self.right += 1
            elif given is None:
                self.unread += 1
                self.mistakes.append(f"{name}: a {wanted} not read ({reading.status}: {reading.message})")
            else:
                self.wrong += 1
                self.mistakes.append(f"{name}: a {wanted} read as {given} ({reading.dice[d].confidence:.2f})")
        self.right_by_centre += _by_centre(reading, truth)
        self.labelled += len(truth)
        self.missed += len(truth) - len(used_t)
        self.extra += len(reading.dice) - len(used_d)
        for t in set(range(len(truth))) - used_t:
            self.mistakes.append(
                f"{name}: the {truth[t][0]} at {[round(v) for v in truth[t][1]]} not matched"
            )
        for d in set(range(len(reading.dice))) - used_d:
            die = reading.dice[d]
            self.mistakes.append(f"{name}: an extra die at {list(die.box)} (value {die.value})")

    def lines(self, title: str) -> list[str]:
        n = max(self.labelled, 1)
        return [
            f"{title}: {self.labelled} labelled dice",
            f"  read right: {self.right} ({self.right / n:.2%})",
            f"  wrong value: {self.wrong}, no value: {self.unread}, not found at IoU 0.5: {self.missed}",
            f"  extra dice: {self.extra} ({self.extra / n:.2%})",
            f"  (read right when a die is matched by centre, not IoU: {self.right_by_centre / n:.2%})",
            "  statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items())),
        ]


def _by_centre(reading: TrayReading, truth: Sequence[tuple[int | None, tuple[float, ...]]]) -> int:
    """Labelled dice read right when a die matches a label because either box holds the centre
    of the other (each die used once): a figure that does not depend on how big the label's
    box is drawn."""

    def holds(box: Sequence[float], other: Sequence[float]) -> bool:
        x, y = other[0] + other[2] / 2, other[1] + other[3] / 2
        return box[0] <= x <= box[0] + box[2] and box[1] <= y <= box[1] + box[3]

    used: set[int] = set()
    right = 0
    for value, box in truth:
        for d, die in enumerate(reading.dice):
            if d not in used and die.value == value and (holds(die.box, box) or holds(box, die.box)):
                used.add(d)
                right += 1
                break
    return right


def real(reader: DiceReader, split: str) -> Tally:
    tally = Tally()
    for photo in photos(split):
        picture = cv2.imread(str(photo.path))
        truth = [(d.value, d.box) for d in photo.dice]
        tally.add(photo.path.name, reader.read(picture), truth)
    return tally


def rendered(reader: DiceReader, split: str, count: int) -> Tally:
    """Trays of 1 to 6 dice of every colour, a tenth of them cocked (their right reading is no
    value), in random light; the seeds of ``split``."""
    tally = Tally()
    first = SYNTHETIC_SEEDS[split].start
    for seed in range(first, first + count):
        rng = np.random.default_rng([seed, 11])
        tray = render_tray(seed, dice=int(rng.integers(1, 7)), cocked=0.1)
        truth = [(d.value, d.read_box if d.value is not None else d.body) for d in tray.dice]
        tally.add(f"tray {seed}", reader.read(tray.image), truth)
    return tally


def bad_input(reader: DiceReader, split: str, count: int) -> list[str]:
    """How often each kind of bad tray gets its status (and how often a value is given anyway)."""
    first = SYNTHETIC_SEEDS[split].start + 50_000
    cases = {
        "no-dice": dict(dice=0),
        "too-many-dice": dict(dice=5),
        "die-on-edge": dict(dice=2, cut=True, cocked=0.0),
        "hand": dict(dice=3, hand=True),
        "blurred": dict(dice=3, blur=4.0),
    }
    lines = []
    for k, (status, options) in enumerate(cases.items()):
        got: collections.Counter[str] = collections.Counter()
        for seed in range(first + k * 1000, first + k * 1000 + count):
            expected = 3 if status == "too-many-dice" else None
            got[reader.read(render_tray(seed, **options).image, expected=expected).status] += 1  # type: ignore[arg-type]
        share = got[status] / count
        others = ", ".join(f"{name} {n}" for name, n in got.most_common() if name != status)
        lines.append(
            f"  {status}: {got[status]} of {count} ({share:.0%})" + (f"; else {others}" if others else "")
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("held-out", "train", "tune"), default="held-out")
    parser.add_argument(
        "--trays", type=int, default=0, help="rendered trays to read as well (seeds of the split)"
    )
    parser.add_argument("--bad", type=int, default=0, help="rendered bad trays of each kind to read")
    parser.add_argument("--mistakes", action="store_true", help="list every die not read right")
    args = parser.parse_args(argv)
    reader = DiceReader()
    started = time.monotonic()
    lines: list[str] = []
    mistakes: list[str] = []
    if args.split != "tune":
        tally = real(reader, args.split)
        lines += tally.lines(f"real photographs, {args.split} split")
        mistakes += tally.mistakes
    if args.trays:
        synthetic_split = "held-out" if args.split == "held-out" else "tune"
        tally = rendered(reader, synthetic_split, args.trays)
        lines += tally.lines(f"rendered trays, {synthetic_split} seeds, {args.trays} trays")
        mistakes += tally.mistakes
    if args.bad:
        synthetic_split = "held-out" if args.split == "held-out" else "tune"
        lines.append(f"bad trays, {synthetic_split} seeds, {args.bad} of each kind: status given")
        lines += bad_input(reader, synthetic_split, args.bad)
    print("\n".join(lines))
    if args.mistakes:
        print("\n".join(mistakes))
    print(f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
