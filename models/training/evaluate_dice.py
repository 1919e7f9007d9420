"""Figures of the dice reader: real photographs of a split, and rendered trays.

    python -m models.training.evaluate_dice --split held-out --trays 200 --bad 30
    python -m models.training.evaluate_dice --split train --trays 100 --mistakes
    python -m models.training.evaluate_dice --split train --model build/dice-new.onnx   # another model
    python -m models.training.evaluate_dice --split fold --fold 0 --trays 200 --model build/dice-fold0.onnx

``--split fold --fold K`` reads fold K of the training photographs (models/training/dice_data.py,
``fold_of``): real photographs a model trained with ``train_dice --photos fit --fold K`` has
not seen.

Every figure is given by two matchings of the reader's dice to the labelled ones (each die and
label matched once):

- **by IoU** (the first figure, kept as it was): intersection over union of the boxes >= 0.5,
  largest overlaps first. It also judges the box's *convention*: the photographs' labels draw
  a 1 now around its single pip, now around its whole face, and a 2 or a 3 around its diagonal
  pips, so a die read right can fail it.
- **by die** (fair to the reading): a die matches a label when either box holds the other's
  centre, nearest centres first; a label of a 1 drawn around its single pip (small and square)
  counts as its face (PIP_OF_ONE). The value is then judged, not the box.

A labelled die is read right when its match has its value; extra dice are the reader's dice
that match no label, as a share of the labelled dice. A picture given the status ``ok`` whose
values are not its labels' is counted too: a wrong reading given as sure, whatever the
matching. ``--mistakes`` lists each miss and extra of the matching by die, and each such
picture, with its kind (KINDS). Needs only onnxruntime.
"""

from __future__ import annotations

import argparse
import collections
import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.sim.dice_tray import RenderedTray, render_tray
from companion.sim.tray_parts import photographed_mat
from companion.vision.dice import DiceReader
from companion.vision.dice_model import DEFAULT_MODEL, DiceModel
from companion.vision.dice_reading import TrayReading
from models.training.dice_data import (
    FOLD_SPLITS,
    FOLDS,
    SYNTHETIC_SEEDS,
    evaluation_tray,
    flat_in_wood,
    iou,
    photos,
    wooden_tray,
)

Box = tuple[float, ...]
Truth = Sequence[tuple[int | None, Box]]

# A label of a 1 no bigger than this share of the picture's short side and about square is its
# single pip (the labels of dice_40 and later), not its face (dice_1 to dice_19); it is grown
# FACE_PER_PIP times about its centre to stand for the face. A 1's pip is its face's centre, so
# this moves no centre: it only lets a reading's centre fall inside.
PIP_OF_ONE = 0.05
FACE_PER_PIP = 2.5
# The pips of a 2 to 6 span about this share of the face (companion/sim/dice_tray.py's PIPS).
PIPS_PER_FACE = 0.72
EDGE_PX = 2  # a die whose box comes this close to the picture's edge may be cut by it

# The kinds of mistakes --mistakes names (matching by die).
KINDS = {
    "not found": "a labelled die the reader gave nothing for",
    "no value": "found, but given no value (leans, unsure, blurred or at the edge)",
    "wrong value": "found and given another value",
    "duplicate": "a second die given on a labelled die's top face",
    "side face": "a die given beside a labelled die's top face, on its body: a side face",
    "at the edge": "a die given at the picture's edge (a die cut by it: the labels leave those out)",
    "stray": "a die given where no labelled die lies (a cable, a key, a shadow)",
    "tray read wrong": "a picture given the status ok with a value that none of its dice shows",
    "tray short": "a picture given the status ok with its labels' values but fewer dice",
}


@dataclass
class Figures:
    """One matching's counts."""

    right: int = 0
    wrong: int = 0  # matched, another value
    unread: int = 0  # matched, no value given
    missed: int = 0
    extra: int = 0


@dataclass
class Tally:
    labelled: int = 0
    trays: int = 0
    trays_ok: int = 0  # given the status ok ...
    trays_ok_wrong: int = 0  # ... with values other than the labels': a wrong reading given as sure
    # ... of those, with a value that no labelled die shows; the others are only dice short,
    # which the battle flow sees by the count (docs/dice.md: fewer dice than expected)
    trays_ok_wrong_value: int = 0
    by_iou: Figures = field(default_factory=Figures)
    by_die: Figures = field(default_factory=Figures)
    statuses: collections.Counter[str] = field(default_factory=collections.Counter)
    kinds: collections.Counter[str] = field(default_factory=collections.Counter)
    # labelled dice missed by IoU but read right by die: a box convention, by value
    convention: collections.Counter[int | None] = field(default_factory=collections.Counter)
    mistakes: list[str] = field(default_factory=list)

    def add(self, name: str, reading: TrayReading, truth: Truth, size: tuple[int, int]) -> None:
        """One picture's reading against its labels; ``size`` is the picture's (height, width)."""
        self.statuses[reading.status] += 1
        self.labelled += len(truth)
        self.trays += 1
        if reading.status == "ok":
            self.trays_ok += 1
            # a die labelled with no value (cocked, cut) makes any "ok" wrong
            given = sorted(str(die.value) for die in reading.dice)
            if given != sorted(str(value) for value, _ in truth):
                self.trays_ok_wrong += 1
                values = [die.value for die in reading.dice]
                left = collections.Counter(value for value, _ in truth)
                left.subtract(values)
                kind = "tray read wrong" if any(n < 0 for n in left.values()) else "tray short"
                self.trays_ok_wrong_value += kind == "tray read wrong"
                self._mistake(kind, f"{name}: ok with {values}, labelled {[value for value, _ in truth]}")
        boxes = [tuple(float(v) for v in die.box) for die in reading.dice]
        faces = [face_box(value, box, min(size)) for value, box in truth]
        iou_pairs = match_by_iou(boxes, [box for _, box in truth])
        die_pairs = match_by_die(boxes, faces)
        _count(self.by_iou, reading, truth, iou_pairs)
        _count(self.by_die, reading, truth, die_pairs)
        right_by_die = {t for d, t in die_pairs.items() if reading.dice[d].value == truth[t][0]}
        for t in right_by_die - set(iou_pairs.values()):
            self.convention[truth[t][0]] += 1
        for d, t in die_pairs.items():
            given, wanted = reading.dice[d].value, truth[t][0]
            if given is None and wanted is not None:
                self._mistake(
                    "no value",
                    f"{name}: a {wanted} given no value (the tray: {reading.status}, {reading.message})",
                )
            elif given != wanted:
                self._mistake(
                    "wrong value", f"{name}: a {wanted} read as {given} ({reading.dice[d].confidence:.2f})"
                )
        for t in sorted(set(range(len(truth))) - set(die_pairs.values())):
            self._mistake("not found", f"{name}: the {truth[t][0]} at {_rounded(truth[t][1])} not found")
        for d in sorted(set(range(len(boxes))) - set(die_pairs)):
            kind = extra_kind(boxes[d], faces, truth, size)
            die = reading.dice[d]
            self._mistake(kind, f"{name}: {kind}, a die at {list(die.box)} (value {die.value})")

    def _mistake(self, kind: str, line: str) -> None:
        self.kinds[kind] += 1
        self.mistakes.append(line)

    def lines(self, title: str) -> list[str]:
        n = max(self.labelled, 1)
        result = [f"{title}: {self.labelled} labelled dice"]
        for name, f in (("by die", self.by_die), ("by IoU >= 0.5", self.by_iou)):
            result.append(
                f"  matched {name}: read right {f.right} ({f.right / n:.2%}); extra {f.extra} "
                f"({f.extra / n:.2%}); wrong value {f.wrong}, no value {f.unread}, not found {f.missed}"
            )
        result.append(
            f"  pictures: {self.trays}; status ok {self.trays_ok}, of which with other values than "
            f"the labels' {self.trays_ok_wrong}: with a value no die shows (a wrong reading given as "
            f"sure) {self.trays_ok_wrong_value}, dice short {self.trays_ok_wrong - self.trays_ok_wrong_value}"
        )
        if self.convention:
            result.append(
                "  read right by die, not by IoU (the box's convention), by value: "
                + ", ".join(f"{v}: {k}" for v, k in sorted(self.convention.items(), key=str))
            )
        result.append("  statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items())))
        if self.kinds:
            result.append(
                "  mistakes by die, by kind: "
                + ", ".join(f"{k} {self.kinds[k]}" for k in KINDS if self.kinds[k])
            )
        return result


def _count(figures: Figures, reading: TrayReading, truth: Truth, pairs: dict[int, int]) -> None:
    for d, t in pairs.items():
        given, wanted = reading.dice[d].value, truth[t][0]
        if given == wanted:
            figures.right += 1
        elif given is None:
            figures.unread += 1
        else:
            figures.wrong += 1
    figures.missed += len(truth) - len(pairs)
    figures.extra += len(reading.dice) - len(pairs)


def _rounded(box: Box) -> list[int]:
    return [round(v) for v in box]


def _centre(box: Box) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _holds(box: Box, point: tuple[float, float]) -> bool:
    return box[0] <= point[0] <= box[0] + box[2] and box[1] <= point[1] <= box[1] + box[3]


def face_box(value: int | None, box: Box, short_side: int) -> Box:
    """A label's box as its die's top face: a 1 drawn around its single pip (small and about
    square) grown FACE_PER_PIP times about its centre; any other box as it is."""
    w, h = box[2], box[3]
    small = max(w, h) <= PIP_OF_ONE * short_side
    if value == 1 and small and max(w, h) <= 1.5 * max(min(w, h), 1.0):
        side = FACE_PER_PIP * max(w, h)
        cx, cy = _centre(box)
        return cx - side / 2, cy - side / 2, side, side
    return box


def match_by_iou(dice: Sequence[Box], labels: Sequence[Box]) -> dict[int, int]:
    """Die index -> label index: IoU >= 0.5, largest overlaps first."""
    pairs = sorted(
        ((iou(a, b), d, t) for d, a in enumerate(dice) for t, b in enumerate(labels) if iou(a, b) >= 0.5),
        reverse=True,
    )
    return _greedy((d, t) for _, d, t in pairs)


def match_by_die(dice: Sequence[Box], faces: Sequence[Box]) -> dict[int, int]:
    """Die index -> label index: either box holds the other's centre, nearest centres first."""
    pairs = sorted(
        (math.dist(_centre(a), _centre(b)), d, t)
        for d, a in enumerate(dice)
        for t, b in enumerate(faces)
        if _holds(a, _centre(b)) or _holds(b, _centre(a))
    )
    return _greedy((d, t) for _, d, t in pairs)


def _greedy(pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
    matched: dict[int, int] = {}
    for d, t in pairs:
        if d not in matched and t not in matched.values():
            matched[d] = t
    return matched


def extra_kind(box: Box, faces: Sequence[Box], truth: Truth, size: tuple[int, int]) -> str:
    """What an extra die most likely is, by where it lies against the labelled dice."""
    height, width = size
    if (
        box[0] <= EDGE_PX
        or box[1] <= EDGE_PX
        or box[0] + box[2] >= width - EDGE_PX
        or box[1] + box[3] >= height - EDGE_PX
    ):
        return "at the edge"
    centre = _centre(box)
    for face, (value, label) in zip(faces, truth, strict=True):
        if _holds(face, centre):
            return "duplicate"
        # the face's side: a 2 to 6's pips span PIPS_PER_FACE of it (a 1 boxed around its face
        # comes out too big, which only widens the reach); a grown pip and a cocked die's body
        # are the die
        grown = tuple(face) != tuple(label)
        side = max(face[2:]) if grown or value is None else max(label[2:]) / PIPS_PER_FACE
        if math.dist(centre, _centre(face)) < 1.5 * side:
            return "side face"
    return "stray"


def real(reader: DiceReader, split: str, fold: int = 0) -> Tally:
    tally = Tally()
    for photo in photos(split, fold=fold):
        picture = cv2.imread(str(photo.path))
        truth = [(d.value, d.box) for d in photo.dice]
        tally.add(photo.path.name, reader.read(picture), truth, picture.shape[:2])
    return tally


def rendered(reader: DiceReader, split: str, count: int) -> Tally:
    """Trays of 1 to 6 dice of every colour, a tenth of them cocked (their right reading is no
    value: a cocked die is labelled by its body), in random light; the seeds of ``split``."""
    tally = Tally()
    first = SYNTHETIC_SEEDS[split].start
    for seed in range(first, first + count):
        tray = evaluation_tray(seed)
        truth = [(d.value, d.read_box if d.value is not None else d.body) for d in tray.dice]
        tally.add(f"tray {seed}", reader.read(tray.image), truth, tray.image.shape[:2])
    return tally


def wooden(reader: DiceReader, split: str, count: int) -> Tally:
    """Coloured dice in wooden trays from above under a hard light (``wooden_tray``)."""
    tally = Tally()
    first = SYNTHETIC_SEEDS[split].start + 80_000
    for seed in range(first, first + count):
        tray = wooden_tray(seed)
        truth = [(d.value, d.read_box) for d in tray.dice]
        tally.add(f"wooden tray {seed}", reader.read(tray.image), truth, tray.image.shape[:2])
    return tally


def bad_input(reader: DiceReader, split: str, count: int) -> list[str]:
    """How often each kind of bad tray gets its status, and how often values are given anyway
    (and of those, how many are the dice that lie there: a hand beside the dice hides none).
    Each tray is read without a count and, where the tray holds dice, with its own count, as
    the trays' flow reads it."""
    first = SYNTHETIC_SEEDS[split].start + 50_000
    cases: list[tuple[str, str, Callable[[int], RenderedTray | np.ndarray], int | None]] = [
        ("no-dice", "", lambda seed: render_tray(seed, dice=0), None),
        ("too-many-dice", "", lambda seed: render_tray(seed, dice=5), 3),
        ("die-on-edge", "", lambda seed: render_tray(seed, dice=2, cut=True, cocked=0.0), 2),
        ("hand", "", lambda seed: render_tray(seed, dice=3, hand=True), 3),
        ("blurred", "", lambda seed: render_tray(seed, dice=3, blur=4.0), 3),
        ("no-dice", "the blank mat", photographed_mat, None),
        ("no-dice", "an empty wooden tray", lambda seed: _wooden(seed, 0), None),
        ("too-few-dice", "5 dice, 10 expected", lambda seed: _wooden(seed, 5), 10),
        ("hand", "over a wooden tray", lambda seed: _wooden(seed, 4, hand=True), 4),
        ("blurred", "a wooden tray", lambda seed: _wooden(seed, 4, blur=4.0), 4),
    ]
    lines = []
    for k, (status, what, make, expected) in enumerate(cases):
        name = f"{status} ({what})" if what else status
        # a count is the point of these two; the others are read as `dice read` and as the trays do
        counts = (expected,) if status in ("too-few-dice", "too-many-dice") else (None, expected)
        for count_given in dict.fromkeys(counts):
            got: collections.Counter[str] = collections.Counter()
            valued = right = 0
            for seed in range(first + k * 1000, first + k * 1000 + count):
                made = make(seed)
                image = made if isinstance(made, np.ndarray) else made.image
                reading = reader.read(image, expected=count_given)
                got[reading.status] += 1
                if reading.values is not None:
                    valued += 1
                    truth = [] if isinstance(made, np.ndarray) else [d.value for d in made.dice]
                    right += sorted(reading.values) == sorted(v for v in truth if v is not None)
            share = got[status] / count
            others = ", ".join(f"{name} {n}" for name, n in got.most_common() if name != status)
            given = "no count given" if count_given is None else f"{count_given} expected"
            lines.append(
                f"  {name}, {given}: {got[status]} of {count} ({share:.0%})"
                + (f"; else {others}" if others else "")
                + f"; values given {valued} ({right} the dice there)"
            )
    return lines


def _wooden(seed: int, dice: int, hand: bool = False, blur: float | None = None) -> RenderedTray:
    """A wooden tray from above in hard light, of coloured dice lying flat."""
    return flat_in_wood(seed, dice, ("blue", "red", "green", "black"), hand=hand, blur=blur)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--split",
        choices=("held-out", "train", *FOLD_SPLITS, "tune"),
        default="held-out",
        help="the real photographs to read (tune: rendered trays only); the rendered trays are "
        "of the held-out seeds for held-out, else of the tuning seeds",
    )
    parser.add_argument("--fold", type=int, choices=range(FOLDS), help="with --split fold or fit: which fold")
    parser.add_argument(
        "--trays", type=int, default=0, help="rendered trays to read as well (seeds of the split)"
    )
    parser.add_argument(
        "--wooden", type=int, default=0, help="rendered coloured dice in wooden trays to read as well"
    )
    parser.add_argument("--bad", type=int, default=0, help="rendered bad trays of each kind to read")
    parser.add_argument("--mistakes", action="store_true", help="list every die not read right")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="the dice model to read with")
    args = parser.parse_args(argv)
    if (args.fold is None) == (args.split in FOLD_SPLITS):
        parser.error("--split fold or fit and --fold K go together: the fold is to be named")
    reader = DiceReader(DiceModel(args.model))
    started = time.monotonic()
    lines: list[str] = []
    mistakes: list[str] = []
    if args.split != "tune":
        try:
            tally = real(reader, args.split, args.fold or 0)
        except FileNotFoundError as error:
            print(f"evaluate_dice: {error}", file=sys.stderr)
            return 2
        name = f"{args.split} {args.fold}" if args.split in FOLD_SPLITS else args.split
        lines += tally.lines(f"real photographs, {name} split")
        mistakes += tally.mistakes
    if args.trays:
        synthetic_split = "held-out" if args.split == "held-out" else "tune"
        tally = rendered(reader, synthetic_split, args.trays)
        lines += tally.lines(f"rendered trays, {synthetic_split} seeds, {args.trays} trays")
        mistakes += tally.mistakes
    if args.wooden:
        synthetic_split = "held-out" if args.split == "held-out" else "tune"
        tally = wooden(reader, synthetic_split, args.wooden)
        lines += tally.lines(f"coloured dice in wooden trays, {synthetic_split} seeds, {args.wooden} trays")
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
