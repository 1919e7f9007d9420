"""The dice reader's data: the shared real photographs, split once for all, and rendered trays.

The real photographs (../shared/data/dice-photos, MIT, (c) 2021 Matteo Anthony Penlington) are
split by a hash of the file name: about 22 % are held out, never trained or tuned on, and only
``models.training.evaluate_dice --split held-out`` reads them. The split does not depend on the order of
files, on what else is in the folder or on a random seed.

Rendered trays (companion/sim/dice_tray.py) come from disjoint seed ranges: training,
tuning the reader's thresholds, and the held-out figures.
"""

from __future__ import annotations

import hashlib
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.sim.dice_tray import RenderedTray, render_tray
from companion.sim.tray_parts import TRAY_KINDS
from companion.vision.dice_model import Candidate

ROOT = Path(__file__).resolve().parents[2]  # the repository
# the shared photographs beside the checkout, or wherever COMPANION_DICE_PHOTOS points
PHOTOS = Path(os.environ.get("COMPANION_DICE_PHOTOS") or ROOT.parent / "shared" / "data" / "dice-photos")
HELD_OUT_PERCENT = 22
# The training photographs cut into FOLDS folds: a reader trained without one fold is judged
# on it, so its rules and recipe are chosen on real photographs it has not seen, leaving the
# held-out split untouched.
FOLDS = 4

# Seeds of rendered trays: training, tuning (thresholds), held-out figures.
SYNTHETIC_SEEDS = {
    "train": range(0, 100_000),
    "tune": range(200_000, 300_000),
    "held-out": range(500_000, 600_000),
}


@dataclass(frozen=True)
class LabelledDie:
    value: int  # 1-6
    box: tuple[float, float, float, float]  # x, y, w, h in pixels (the labels' box: around the pips)


@dataclass(frozen=True)
class Photo:
    path: Path
    dice: tuple[LabelledDie, ...]


def held_out(name: str) -> bool:
    """Whether a photograph (by its file name) belongs to the held-out split."""
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % 100 < HELD_OUT_PERCENT


def fold_of(name: str) -> int:
    """Which of the FOLDS folds a training photograph (by its file name) belongs to: bits of
    the hash the held-out split does not use, so each fold is a fair sample of the training split."""
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()
    return int(digest[8:16], 16) % 100 * FOLDS // 100


# the splits of one fold of the training photographs: the fold, and the rest of them
FOLD_SPLITS = ("fold", "fit")
SPLITS = ("train", "held-out", "all", *FOLD_SPLITS)


def photos(split: str, folder: Path = PHOTOS, fold: int = 0) -> list[Photo]:
    """The labelled photographs of ``split``, sorted by name: "train" or "held-out", "all",
    or the training split cut in two, the photographs of fold ``fold`` ("fold", see
    ``fold_of``) and the rest ("fit"). Labels are YOLO lines (class = value - 1, centre and
    size as fractions); a photograph without a label file shows no die."""
    if split not in SPLITS:
        raise ValueError(f"no split {split!r}")
    if not 0 <= fold < FOLDS:
        raise ValueError(f"no fold {fold}: the training photographs are cut into folds 0 to {FOLDS - 1}")
    if not folder.is_dir():
        # an empty list would read as a split of no photographs: figures of nothing
        raise FileNotFoundError(
            f"no dice photographs at {folder}: put the shared dice-photos folder there, "
            "or point COMPANION_DICE_PHOTOS at it"
        )
    result = []
    for path in sorted(folder.glob("*.jpg")):
        if split != "all" and held_out(path.name) != (split == "held-out"):
            continue
        if split in FOLD_SPLITS and (fold_of(path.name) == fold) != (split == "fold"):
            continue
        image = cv2.imread(str(path))
        if image is None:
            continue
        height, width = image.shape[:2]
        dice = []
        label_path = path.with_suffix(".txt")
        if label_path.is_file():
            for line in label_path.read_text().split("\n"):
                parts = line.split()
                if len(parts) != 5:
                    continue
                klass, cx, cy, w, h = int(parts[0]), *map(float, parts[1:])
                box = ((cx - w / 2) * width, (cy - h / 2) * height, w * width, h * height)
                dice.append(LabelledDie(klass + 1, box))
        result.append(Photo(path, tuple(dice)))
    return result


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Intersection over union of two x, y, w, h boxes."""
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


# --- training samples (numpy and OpenCV only; dice_batches.py adds torch) ------------------

HEAVY_BLUR = 2.5  # a rendered die blurred more than this (sigma, px) is labelled unreadable
BARE_KEPT = 3  # patches of bare tray (or of whatever lies there) kept per picture as "none"
STRAYS_KEPT = 10  # spots the finder takes for dice where none lies, kept per picture as "none"


@dataclass(frozen=True)
class TrayDie:
    """A die of a training tray in picture pixels: top face centre (the body's, when it has no
    top face), body size (0 when not known: the real labels draw only the pips), the top face's
    side (estimated from the pip box; 0 when it has none: cocked, cut, hidden), the pip box (None
    when it has no value) and the reader's class (0-5 for 1-6, or UNREADABLE)."""

    x: float
    y: float
    body: float
    read_box: tuple[float, float, float, float] | None
    label: int
    face: float = 0.0
    side: tuple[float, float] | None = None  # where a side face shows, when one clearly does
    face_max: float = 0.0  # the face's side at most, when the labels leave it unsure (0: face)

    @property
    def widest(self) -> float:
        return max(self.face, self.face_max)


@dataclass
class FinderSample:
    picture: np.ndarray  # full size, BGR
    image: np.ndarray  # the finder's view: shrunk to FIND_PX on the long side
    scale: float
    dice: list[tuple[float, float, float, float, bool]]  # in finder pixels: x, y, w, h, size known
    hand: np.ndarray | None  # finder-scale mask
    tray_dice: list[TrayDie]


# reader samples are cut this many crops wide (1.5 crops: an even crop size gives whole pixels),
# so that augmenting can shift and turn them and still fill the crop
PATCH_PER_CROP = 1.5


@dataclass(frozen=True)
class ReadSample:
    patch: np.ndarray  # PATCH_PER_CROP crops wide, centred on the spot
    label: int
    box: tuple[float, float, float, float] | None  # x0, y0, x1, y1 in the patch's pixels
    real: bool = False  # cut from a photograph, not a rendered tray


def _shrink(picture: np.ndarray) -> tuple[np.ndarray, float]:
    from companion.vision.dice_model import FIND_PX

    height, width = picture.shape[:2]
    scale = FIND_PX / max(height, width)
    size = (round(width * scale), round(height * scale))
    return cv2.resize(picture, size, interpolation=cv2.INTER_AREA), scale


# The pips of a 2 to 6 span this share of the face, a lone 1's pip (with the labels' margin)
# this share (companion/sim/dice_tray.py); the real labels draw a 1 now around its pip, now
# around its face: a small square box is the pip (as in models/training/evaluate_dice.py).
PIPS_PER_FACE = 0.72
PIP_PER_FACE = 0.26
PIP_OF_ONE = 0.05


def face_side(
    value: int, box: tuple[float, ...], short_side: float, rendered: bool = False
) -> tuple[float, float]:
    """The side of a die's top face, from the box around its pips: at least and at most."""
    longest = max(box[2], box[3])
    if value != 1:
        return longest / PIPS_PER_FACE, longest / PIPS_PER_FACE
    if rendered:
        return longest / PIP_PER_FACE, longest / PIP_PER_FACE
    if longest <= PIP_OF_ONE * short_side and longest <= 1.5 * max(min(box[2], box[3]), 1.0):
        return 2.5 * longest, 2.5 * longest  # the labels' pip boxes are looser than the renderer's
    # a box drawn around the face, just inside it, or a loose box around the pip
    return longest / 0.9, 2.0 * longest


def real_finder_samples(split: str = "train", fold: int = 0) -> list[FinderSample]:
    """The real photographs to train on: the training split, or its part outside fold
    ``fold`` ("fit"); never the held-out one."""
    if split not in ("train", "fit"):
        raise ValueError(f"the photographs trained on are the training split or its fit part, not {split!r}")
    samples = []
    for photo in photos(split, fold=fold):
        picture = cv2.imread(str(photo.path))
        image, scale = _shrink(picture)
        dice, tray_dice = [], []
        for die in photo.dice:
            x, y, w, h = die.box
            cx, cy = x + w / 2, y + h / 2
            dice.append((cx * scale, cy * scale, w * scale, h * scale, False))
            face, face_max = face_side(die.value, die.box, min(picture.shape[:2]))
            tray_dice.append(TrayDie(cx, cy, 0.0, die.box, die.value - 1, face, None, face_max))
        samples.append(FinderSample(picture, image, scale, dice, None, tray_dice))
    return samples


COCKED = 0.1  # the share of rendered training dice drawn cocked, unless told otherwise


def synthetic_tray(seed: int, cocked: float = COCKED) -> RenderedTray:
    """The rendered training or tuning tray of ``seed``: how many dice, hands, cut dice, blur
    and cocked dice (each with the chance ``cocked``) are drawn by the seed."""
    rng = np.random.default_rng([seed, 7])
    dice = int(rng.integers(0, 7)) if rng.random() < 0.9 else int(rng.integers(7, 11))
    return render_tray(
        seed,
        dice=dice,
        cocked=cocked,
        cut=bool(rng.random() < 0.12),
        hand=bool(rng.random() < 0.12),
        blur=float(rng.uniform(HEAVY_BLUR, 5)) if rng.random() < 0.06 else None,
    )


# Seeds of the framed training trays, apart from the plain ones (a framed tray of seed N is
# another picture than the plain tray of seed N, and both may be trained on).
FRAMED_FIRST = 50_000


def framed_tray(seed: int, cocked: float = COCKED) -> RenderedTray:
    """A rendered training or tuning tray of a kind real tables have: a floor of wood, felt,
    card or a printed box lid with a frame round it, mostly seen from above, often in a hard
    light; 0 to 12 dice of any colour, often small; sometimes a hand, a cut or a blurred die."""
    rng = np.random.default_rng([seed, 13])
    kind = TRAY_KINDS[int(rng.choice(len(TRAY_KINDS), p=[0.45, 0.25, 0.15, 0.15]))]
    side = rng.uniform(0.025, 0.12) * 480
    return render_tray(
        seed,
        dice=int(rng.integers(0, 13)),
        cocked=cocked,
        cut=bool(rng.random() < 0.08),
        hand=bool(rng.random() < 0.12),
        blur=float(rng.uniform(HEAVY_BLUR, 5)) if rng.random() < 0.05 else None,
        tray=kind,
        top_down=bool(rng.random() < 0.7),
        hard=bool(rng.random() < 0.6),
        die_px=(side * 0.9, side * 1.1),
    )


def evaluation_tray(seed: int) -> RenderedTray:
    """The rendered tray of ``seed`` that the figures read (tuning or held-out seeds): 1 to 6 dice
    of every colour, a tenth of them cocked, in random light."""
    rng = np.random.default_rng([seed, 11])
    return render_tray(seed, dice=int(rng.integers(1, 7)), cocked=0.1)


def wooden_tray(seed: int) -> RenderedTray:
    """A rendered tray the issue's real photographs failed on: 1 to 12 dice of colours other
    than white in a wooden tray with its frame, seen from straight above, under a small strong
    light (hard shadows, uneven light); dice 3-8 % of the short side, none cocked."""
    rng = np.random.default_rng([seed, 12])
    dice, colours = int(rng.integers(1, 13)), ("blue", "red", "green", "black", "yellow", "orange")
    side = rng.uniform(0.03, 0.08) * 480
    return flat_in_wood(seed, dice, colours, die_px=(side * 0.95, side * 1.05))


def flat_in_wood(seed: int, dice: int, colours: tuple[str, ...], **more: Any) -> RenderedTray:
    """Flat dice of ``colours`` in a framed wooden tray, seen from straight above in a hard light;
    ``more``: render_tray's other settings (sizes, a hand, blur)."""
    return render_tray(
        seed, dice=dice, colours=colours, cocked=0.0, tray="wood", top_down=True, hard=True, **more
    )


def tray_sample(tray: RenderedTray) -> FinderSample:
    from companion.vision.dice_model import UNREADABLE

    image, scale = _shrink(tray.image)
    dice, tray_dice = [], []
    for die in tray.dice:
        x, y, w, h = die.body
        if w < 2 or h < 2:
            continue
        if die.cut:  # the finder is to mark what shows of it
            cx, cy = x + w / 2, y + h / 2
        else:
            cx, cy = die.centre
        dice.append((cx * scale, cy * scale, w * scale, h * scale, True))
        hidden = (
            tray.hand is not None
            and tray.hand[
                int(min(max(cy, 0), tray.hand.shape[0] - 1)), int(min(max(cx, 0), tray.hand.shape[1] - 1))
            ]
            > 0
        )
        readable = die.value is not None and not die.cut and not hidden and tray.blur < HEAVY_BLUR
        label = die.value - 1 if readable and die.value is not None else UNREADABLE
        box = tuple(float(v) for v in die.read_box) if readable else None
        face, side = 0.0, None
        if readable and die.value is not None:
            face = face_side(die.value, die.read_box, 0, rendered=True)[0]
            # the body reaches past the top face towards the side faces that show: the middle
            # of those lies about half a face and that reach from the top face's centre
            away = np.array([x + w / 2 - cx, y + h / 2 - cy])
            reach = float(np.hypot(*away))
            if reach > 0.1 * face:
                at = np.array([cx, cy]) + away / reach * (0.4 * face + reach)
                side = (float(at[0]), float(at[1]))
        tray_dice.append(TrayDie(cx, cy, float(max(w, h)), box, label, face, side))  # type: ignore[arg-type]
    hand = None
    if tray.hand is not None:
        hand = cv2.resize(tray.hand, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_AREA)
    return FinderSample(tray.image, image, scale, dice, hand, tray_dice)


def synthetic_finder_samples(
    count: int, split: str = "train", cocked: float = COCKED, framed: bool = False
) -> list[FinderSample]:
    """``count`` rendered trays of ``split``'s seeds, cached in build/ (they take a while); each
    die is cocked with the chance ``cocked``. ``framed``: trays with frames (``framed_tray``)."""
    import pickle

    first = SYNTHETIC_SEEDS[split].start + (FRAMED_FIRST if framed else 0)
    # the cache of the usual share keeps its old name, so trays rendered before are used again
    share = "" if cocked == COCKED else f"-cocked{cocked:g}"
    kind = "-framed" if framed else ""
    cache = ROOT / "build" / f"dice-{split}{kind}-{first}-{count}{share}.pickle"
    if cache.is_file():
        with cache.open("rb") as file:
            trays: list[RenderedTray] = pickle.load(file)
    else:
        from concurrent.futures import ProcessPoolExecutor
        from functools import partial

        started = time.monotonic()
        draw = partial(framed_tray if framed else synthetic_tray, cocked=cocked)
        # one tray per seed, whichever process draws it: the same trays on 2 cores or 16
        with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
            trays = list(pool.map(draw, range(first, first + count), chunksize=16))
        print(f"rendered {len(trays)} trays, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        cache.parent.mkdir(exist_ok=True)
        with cache.open("wb") as file:
            pickle.dump(trays, file)
    return [tray_sample(tray) for tray in trays]


def harvest(
    samples: list[FinderSample],
    find: Callable[[np.ndarray], list[Candidate]],
    crop_px: int,
    ring: int = 0,
) -> list[ReadSample]:
    """What the reader is trained on: every spot the finder finds, labelled by what it lands on
    (``spot_label``), every labelled die at its own centre, the side face of every rendered die
    that shows one (as ``none``: a die's top face is what is read, and a die seen at a slant
    shows a face beside it), and a few patches of bare tray per picture; each cut as the reader
    will see it at ``crop_px`` (an even number), PATCH_PER_CROP times as wide so it can be
    shifted. With ``ring``, that many spots more around each die's top face, beyond half a face
    from its centre (where a side face shows, whichever way the camera looks), kept as ``none``
    where ``spot_label`` calls them so: the real labels mark no side faces, so the reader
    otherwise sees one only where the finder marked it."""
    from companion.vision.dice_model import NONE, crop_side, cut_out

    if crop_px <= 0 or crop_px % 2:
        raise ValueError(f"the reader's crops are an even number of pixels a side, not {crop_px}")
    patch = int(crop_px * PATCH_PER_CROP)
    rng = np.random.default_rng(3)
    result: list[ReadSample] = []

    def keep(picture: np.ndarray, x: float, y: float, side: float, label: int, die: TrayDie | None) -> None:
        wide = side * PATCH_PER_CROP
        box = None
        if die is not None and die.read_box is not None and label == die.label:
            bx, by, bw, bh = die.read_box
            k = patch / wide
            left, top = x - wide / 2, y - wide / 2
            box = ((bx - left) * k, (by - top) * k, (bx + bw - left) * k, (by + bh - top) * k)
        result.append(ReadSample(cut_out(picture, x, y, wide, patch), label, box))

    for sample in samples:
        found = find(sample.picture)
        sizes = [crop_side(c.width, c.height) for c in found]
        typical = float(np.median(sizes)) if sizes else 80.0
        matched: dict[int, float] = {}
        strays = 0
        for candidate, side in zip(found, sizes, strict=True):
            label, die_index = spot_label(sample.tray_dice, candidate.x, candidate.y)
            if label is None:
                continue  # near a top face but off its centre: neither the die nor "none"
            if label == NONE and die_index is None:
                strays += 1
                if strays > STRAYS_KEPT:  # the likeliest are the ones worth learning from
                    continue
            die = sample.tray_dice[die_index] if die_index is not None else None
            if die is not None and label == die.label:
                matched.setdefault(die_index, side)  # type: ignore[arg-type]
            keep(sample.picture, candidate.x, candidate.y, side, label, die)
        for index, die in enumerate(sample.tray_dice):
            side = matched.get(index, crop_side(die.body, die.body) if die.body else typical)
            keep(sample.picture, die.x, die.y, side, die.label, die)
            if die.side is not None:
                keep(sample.picture, *die.side, side, NONE, None)
            # no numbers are drawn without a ring, so the bare patches below stay as they were
            for _ in range(ring if die.face else 0):
                turn, reach = rng.uniform(0, 2 * math.pi), rng.uniform(RING_NEAR, RING_FAR) * die.widest
                x, y = die.x + reach * math.cos(turn), die.y + reach * math.sin(turn)
                if spot_label(sample.tray_dice, x, y)[0] == NONE:
                    keep(sample.picture, x, y, side, NONE, None)
        height, width = sample.picture.shape[:2]
        bare = 0
        for _ in range(60):
            x, y = rng.uniform(0, width), rng.uniform(0, height)
            if all(math.hypot(x - d.x, y - d.y) > typical for d in sample.tray_dice):
                keep(sample.picture, x, y, typical * rng.uniform(0.7, 1.4), NONE, None)
                bare += 1
                if bare == BARE_KEPT:
                    break
    return result


# Where a spot lies against a die's top face, in face sides from its centre: the die itself
# within ON_FACE, a side face (or the tray) beyond OFF_FACE, not labelled between.
ON_FACE = 0.3
OFF_FACE = 0.5
# How far from a top face's centre ``harvest``'s ring spots lie, in the face's widest side (as
# ``spot_label`` measures, round the centre): beyond OFF_FACE and within the 1.2 a real die's
# body is taken to reach. Towards a corner of a square face 0.6 is still on the face (a corner
# lies 0.71 out); ``spot_label`` calls such a spot none, as it does a finder's spot there.
RING_NEAR = 0.6
RING_FAR = 1.1


def spot_label(dice: list[TrayDie], x: float, y: float) -> tuple[int | None, int | None]:
    """The reader's class for a crop centred on (x, y) and the die it belongs to: the die's
    class near its top face's centre; UNREADABLE anywhere on a die with no top face to read
    (cocked, cut, hidden, blurred); NONE on the side of a die read (its side faces) and off
    every die; None (not to be used) just off a top face's centre, where either would be wrong.
    A real die's body is not labelled: it is taken to reach 1.2 faces from the top face's
    centre."""
    from companion.vision.dice_model import NONE

    distances = [math.hypot(d.x - x, d.y - y) for d in dice]
    order = sorted(range(len(dice)), key=lambda k: distances[k])
    for k in order:
        die, distance = dice[k], distances[k]
        if die.face and distance <= ON_FACE * die.face:
            return die.label, k
    for k in order:
        die, distance = dice[k], distances[k]
        if die.face and distance <= OFF_FACE * die.widest:
            return None, None
        if not die.face and distance <= max(die.body / 3, 6.0):
            return die.label, k
    for k in order:
        die, distance = dice[k], distances[k]
        if distance <= (die.body * 0.6 if die.body else 1.2 * die.widest):
            return (NONE, k) if die.face else (die.label, k)
    return NONE, None
