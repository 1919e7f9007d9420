"""Read a dice tray: find each die, read its top face and its colour, or say why not.

The finder (models/dice/dice.onnx) marks where dice lie; each die is cut out at full resolution and
the reader gives its value with a probability. (The finder's hand map did not learn, so a hand
is found by its shape: companion/vision/hands.py.) Around the model
stay a few plain rules that say when a reading must not be used: a hand, a blurred frame, no
dice, more dice than expected, a die cut by the picture's edge, a die that leans or that the
reader is not sure of. A value is given only when it is sure (or fairly sure, of a die the
reader sees no lean in); otherwise the die is kept with ``value`` None and the tray's status
tells a person what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.vision.dice_model import (
    NONE,
    UNREADABLE,
    Candidate,
    DiceModel,
    crop_side,
    cut_out,
    peaks,
)
from companion.vision.dice_reading import PIPS, Die, FaceSet, TrayReading
from companion.vision.frames import grey_of, light_problem
from companion.vision.hands import hand_over
from companion.vision.mat import STANDARD_MAT
from companion.vision.pips import count_pips


@dataclass(frozen=True)
class Thresholds:
    """The reader's thresholds. Set with models/training/tune_dice.py on the training photographs and
    the tuning trays, never on the held-out ones (models/dice/dice.md)."""

    # How sure the finder must be that a die is centred here to look closer (kept low: the
    # reader then throws out what is not a die).
    find: float = 0.2
    # How likely a spot must be a die (anything but "none") to count as one: when its value is
    # read, and when it is not (a spot the reader can neither read nor rule out is more often a
    # laptop's key or a side face than a die: at 0.5-0.8 the training photographs gave 0.9-2.3 %
    # extra dice against 0.6 %, and a rendered tray of 4 dice read as 5).
    die: float = 0.5
    die_unread: float = 0.9
    # How likely the value must be to be given; below it the die is unreadable. At 0.8 the
    # training photographs read 2 % more dice, but a side face was read as a value in one of
    # them and twice as many cocked tuning dice were given a value (the fair rule below gave
    # neither: no wrong value on the training photographs, the same on the tuning trays).
    sure: float = 0.9
    # A value from ``fair`` (below ``sure``) is given too when the reader gives the die almost
    # no chance of being unreadable (cocked, cut, covered): below ``fair_unread``. Set on real
    # photographs the reader had not seen (a reader trained without fold 0 of the training
    # split): 0.06-0.08 read 2 more of the fold's 179 dice than 0.05, and 0.07 is the highest
    # that gave the tuning trays nothing more wrong (at 0.08, one more tray `ok` with a value no
    # die shows; with the shipped reader, 0.12 gave four more wrong values: models/dice/dice.md).
    fair: float = 0.8
    fair_unread: float = 0.07
    # A value from ``pips_fair`` is given too when the pips counted as blobs in the reader's box
    # (companion/vision/pips.py) are that many and the reader gives the die under
    # ``pips_unread`` of being unreadable: a count that learns nothing agrees with the reader. Set on
    # the four folds (two more of their 699 dice; looser bars on "unreadable" read more real dice
    # but vouched for the rendered trays' cocked dice: docs/research.md, "Dice").
    pips_fair: float = 0.5
    pips_unread: float = 0.07
    # Two spots are one die when the weaker lies within this many die bodies of the stronger:
    # before reading (``apart``, finder scores) and after (``same_die``, the reader's say).
    apart: float = 0.0
    same_die: float = 0.6
    # How many quarter turns of each crop the reader reads (1: the crop only).
    views: int = 4
    # A die seen from low shows a side face that can outread its own top face: when another
    # spot on the same die, taken for a die, reads another value at least this likely, the die
    # is asked about rather than given the likelier (above 1: never). At 0.5 three fold-0
    # readers no longer read a side face's 4 as sure, for one training photograph's die and no
    # tuning tray's (docs/research.md, "Dice").
    rival: float = 0.5
    # A die is read only when this share of its body as found, about its top face's centre,
    # stays EDGE_PX inside the picture: seen at a slant, the body is found centred on the top
    # face and runs past the die on its far side. 0.6-0.8 read 3 more dice of the training
    # photographs than 1.0 (the whole body) and the same tuning trays (models/dice/dice.md).
    edge_face: float = 0.8


THRESHOLDS = Thresholds()

# Sharpness (see ``sharpness``) below which a die, or a whole frame, is blurred. Set by
# models/training/tune_dice.py on the training photographs and tuning trays: sharp dice read there never
# fell below 0.18 and sharp frames (bare trays included) never below 0.124, while frames blurred
# by 3-4 px stayed under 0.11.
BLURRED_DIE = 0.15
BLURRED_FRAME = 0.115
# A tray's picture is washed out when this share of it is saturated: a pale tray in bright light
# saturates most of its picture and its dice still read (a rendered tray at 61 % did).
TRAY_OVEREXPOSED = 0.95
LIGHT_MESSAGES = {
    "black": "the picture is black: is the tray's light off, or the camera's lens covered?",
    "overexposed": "the picture is washed out white: is a lamp or the sun shining into the camera?",
}
# The smallest picture a tray is read from, pixels a side.
MIN_SIDE_PX = 16
# A die whose body comes this close (pixels) to the picture's edge may be cut by it.
EDGE_PX = 2.0

# The mat's markers: looked for in the picture shrunk to this long side at most; a spot within
# MARKER_REACH times a marker's half side of its middle lies on it or on its printed white margin.
MARKER_SEARCH_PX = 1280
MARKER_REACH = 1.6
_MARKERS = cv2.aruco.ArucoDetector(STANDARD_MAT.dictionary, cv2.aruco.DetectorParameters())

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")


@dataclass(frozen=True)
class _Seen:
    """What the reader makes of one spot the finder marked."""

    die: Die
    centre_x: float
    leans: bool  # the reader sees no top face (cocked, or not lying flat)
    unsure: bool  # a face, but not one value surely
    blurred: bool
    on_edge: bool
    centre: tuple[float, float]  # the top face's, as found
    body: tuple[float, float, float, float]  # x0, y0, x1, y1 of the die's body, as found
    rank: tuple[bool, float]  # which of two spots on one die to keep: a read value, then sureness
    likeliest: tuple[int, float]  # the value the reader finds likeliest here, and how likely
    counts: bool = True  # read, or surely a die; else only a rival reading of a die (``_doubted``)

    def covers(self, x: float, y: float) -> bool:
        return self.body[0] <= x <= self.body[2] and self.body[1] <= y <= self.body[3]

    def near(self, other: _Seen, reach: float) -> bool:
        size = max(self.body[2] - self.body[0], self.body[3] - self.body[1], other.body[2] - other.body[0])
        size = max(size, other.body[3] - other.body[1])
        return bool(
            np.hypot(self.centre[0] - other.centre[0], self.centre[1] - other.centre[1]) < reach * size
        )


class DiceReader:
    """Reads BGR pictures of a tray of ordinary dice with the dice model (the ReadsDice protocol)."""

    faces: FaceSet = PIPS

    def __init__(self, model: DiceModel | None = None, thresholds: Thresholds = THRESHOLDS) -> None:
        self.model = model if model is not None else DiceModel()
        self.thresholds = thresholds

    def read(self, picture: np.ndarray, expected: int | None = None) -> TrayReading:
        picture = _as_bgr(picture)
        maps, scale = self.model.find(picture)
        candidates = _apart(peaks(maps, scale, self.thresholds.find), self.thresholds.apart)
        candidates = _off_markers(picture, candidates)
        spots = self._look(picture, candidates)
        seen = _one_per_die([s for s in spots if s.counts], self.thresholds.same_die)
        height, width = picture.shape[:2]
        seen = [_doubted(s, spots, self.thresholds, width, height) for s in seen]
        seen.sort(key=lambda s: s.centre_x)
        return _judge(picture, seen, expected)

    def _look(self, picture: np.ndarray, candidates: list[Candidate]) -> list[_Seen]:
        if not candidates:
            return []
        sides = [crop_side(c.width, c.height) for c in candidates]
        crops = np.stack(
            [
                cut_out(picture, c.x, c.y, side, self.model.crop_px)
                for c, side in zip(candidates, sides, strict=True)
            ]
        )
        probs, boxes = self.model.read(crops)
        if self.thresholds.views > 1:
            # the same crops turned by quarter turns: a die's value does not turn with it, and
            # the mean of the readings is steadier than one (the box is the upright reading's)
            turned = [np.rot90(crops, k, axes=(1, 2)) for k in range(1, self.thresholds.views)]
            more, _ = self.model.read(np.ascontiguousarray(np.concatenate(turned)))
            probs = (probs + more.reshape(len(turned), *probs.shape).sum(axis=0)) / self.thresholds.views
        height, width = picture.shape[:2]
        seen = []
        rules = self.thresholds
        for c, side, p, box, crop in zip(candidates, sides, probs, boxes, crops, strict=True):
            if 1.0 - float(p[NONE]) < rules.die:
                continue
            best = int(np.argmax(p[:UNREADABLE]))
            confidence = float(p[best])
            leans = float(p[UNREADABLE]) > confidence
            blurred = sharpness(crop) < BLURRED_DIE
            # a face cut by the edge is not read; a die whose face is whole is read even when
            # its body (a side face, at a slant) reaches the edge
            face_cut = _near_edge(c, rules.edge_face, width, height)
            unsure = confidence < rules.sure and not (
                confidence >= rules.fair and float(p[UNREADABLE]) < rules.fair_unread
            )
            if (
                unsure
                and not (leans or blurred or face_cut)  # given no value whatever the count says
                and confidence >= rules.pips_fair
                and float(p[UNREADABLE]) < rules.pips_unread
            ):
                x0, y0, x1, y1 = (float(v) for v in box)  # the upright crop's box
                unsure = count_pips(picture, c.x, c.y, side, (x0, y0, x1, y1)) != best + 1
            value = None if (leans or unsure or blurred or face_cut) else best + 1
            # a die left unread there is named as at the edge: moving it in is what helps
            on_edge = value is None and (face_cut or _near_edge(c, 1.0, width, height))
            # a spot neither read nor surely a die is no die, but may still be a rival reading
            counts = value is not None or 1.0 - float(p[NONE]) >= rules.die_unread
            if value is None:
                # the box of the die as found; the confidence is that of it being a die at all
                box_px = _box(c.x - c.width / 2, c.y - c.height / 2, c.x + c.width / 2, c.y + c.height / 2)
                confidence = 1.0 - float(p[NONE])
            else:
                # the reader's box around the face's pips, in the picture's pixels
                left, top = c.x - side / 2, c.y - side / 2
                box_px = _box(
                    *(left + box[0] * side, top + box[1] * side, left + box[2] * side, top + box[3] * side)
                )
            box_px = _inside(box_px, width, height)
            colour = colour_name(crop) if counts else None  # a rival only is never reported
            body = (c.x - c.width / 2, c.y - c.height / 2, c.x + c.width / 2, c.y + c.height / 2)
            rank = (value is not None, 1.0 - float(p[NONE]))
            die = Die(None if value is None else str(value), box_px, round(confidence, 4), colour)
            likeliest = (best + 1, float(p[best]))
            seen.append(
                _Seen(die, c.x, leans, unsure, blurred, on_edge, (c.x, c.y), body, rank, likeliest, counts)
            )
        return seen


def _off_markers(picture: np.ndarray, candidates: list[Candidate]) -> list[Candidate]:
    """The spots that do not lie on one of the mat's printed markers (or its white margin): a
    black square of black and white cells reads as a die that cannot be read, and a picture of
    the blank mat must give no die. The dictionary's codes are not pip patterns, and only the
    mat's own ids count, so a die is never taken for one."""
    if not candidates:
        return candidates
    grey = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    factor = min(1.0, MARKER_SEARCH_PX / max(grey.shape))  # big photographs looked at smaller
    if factor < 1:
        grey = cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    found = _marker_quads(grey)
    if not found:
        # edges sharper than a camera draws them (the mat's own file) are missed until softened
        found = _marker_quads(cv2.GaussianBlur(grey, (0, 0), 1.3))
    quads = []
    for quad in found:
        quad = quad.reshape(4, 2) / factor
        middle = quad.mean(axis=0)
        quads.append((middle + (quad - middle) * MARKER_REACH).astype(np.float32))
    return [c for c in candidates if all(cv2.pointPolygonTest(q, (c.x, c.y), False) < 0 for q in quads)]


def _marker_quads(grey: np.ndarray) -> list[np.ndarray]:
    corners, ids, _ = _MARKERS.detectMarkers(grey)
    if ids is None:
        return []
    return [
        np.asarray(quad, np.float32)
        for quad, marker_id in zip(corners, ids.ravel(), strict=True)
        if STANDARD_MAT.marker(int(marker_id)) is not None
    ]


def _near_edge(spot: Candidate, share: float, width: int, height: int) -> bool:
    """Whether ``share`` of the die's body as found, about its top face's centre, comes within
    EDGE_PX of the picture's edge."""
    reach_x, reach_y = spot.width * share / 2, spot.height * share / 2
    box = (spot.x - reach_x, spot.y - reach_y, spot.x + reach_x, spot.y + reach_y)
    return _reaches_edge(box, width, height)


def _reaches_edge(box: tuple[float, float, float, float], width: int, height: int) -> bool:
    """Whether the box (x0, y0, x1, y1) comes within EDGE_PX of the picture's edge."""
    x0, y0, x1, y1 = box
    return x0 < EDGE_PX or y0 < EDGE_PX or x1 > width - EDGE_PX or y1 > height - EDGE_PX


def _judge(picture: np.ndarray, seen: list[_Seen], expected: int | None) -> TrayReading:
    """The tray's status and message, the most pressing first: what a person must do before
    anything else can be read comes first."""
    dice = tuple(s.die for s in seen)
    grey = grey_of(picture)  # once, for the light and the frame's sharpness
    light = light_problem(grey, TRAY_OVEREXPOSED)
    if light is not None:
        # nothing in such a picture can be told from the tray: what was found there is no reading
        return TrayReading((), "dark" if light == "black" else "overexposed", LIGHT_MESSAGES[light])
    # only dice read are surely dice: a spot left unread may be a knuckle of the hand itself
    if hand_over(picture, [s.die.box for s in seen if s.die.value is not None]):
        return TrayReading(dice, "hand", "a hand is over the tray: take it away and let the dice settle")
    if any(s.blurred for s in seen) or sharpness(grey) < BLURRED_FRAME:
        return TrayReading(
            dice, "blurred", "the picture is blurred: wait until the dice lie still, or clean the lens"
        )
    if not seen:
        return TrayReading(dice, "no-dice", "no dice in the tray: roll the dice into it")
    if expected is not None and len(seen) > expected:
        return TrayReading(
            dice,
            "too-many-dice",
            f"{len(seen)} dice in the tray but {expected} rolled: take out the dice not in this roll",
        )
    if expected is not None and len(seen) < expected:
        # a die may be hidden, out of the picture or not rolled: a smaller roll is never read
        return TrayReading(
            dice,
            "too-few-dice",
            f"{len(seen)} {'die' if len(seen) == 1 else 'dice'} in the tray but {expected} rolled: "
            "roll the missing dice into the tray, or move a hidden die into sight",
        )
    edge = [k for k, s in enumerate(seen) if s.on_edge]
    if edge:
        return TrayReading(
            dice,
            "die-on-edge",
            f"{_which(edge[0], len(seen))} is at the edge of the picture: move it into the tray",
        )
    for k, s in enumerate(seen):
        if s.leans:
            return TrayReading(dice, "unreadable-die", f"{_which(k, len(seen))} leans: roll it again")
        if s.die.value is None:
            return TrayReading(
                dice, "unreadable-die", f"{_which(k, len(seen))} cannot be read: roll it again"
            )
    return TrayReading(dice)


def _which(index: int, count: int) -> str:
    """A die named by its place: "the die", "the second die from the left", ...."""
    if count == 1:
        return "the die"
    if index == count - 1:
        return "the die on the right" if count == 2 else "the last die on the right"
    ordinal = ORDINALS[index] if index < len(ORDINALS) else f"die number {index + 1}"
    return f"the {ordinal} die from the left"


def sharpness(image: np.ndarray) -> float:
    """How sharp a picture is, whatever its contrast: the spread of the Laplacian (the finest
    detail) over the spread of a once-blurred copy's gradient (the coarse detail). A blurred
    picture has lost the first and kept the second; plain noise on a bare tray has little of
    either, and the small constant keeps it from counting as sharp or blurred."""
    grey = (
        cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        if image.ndim == 3
        else image.astype(np.float32)
    )
    if max(grey.shape) > 320:  # a whole frame: judged at the finder's scale, where dice are a few pixels
        factor = 320 / max(grey.shape)
        grey = np.asarray(
            cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA), np.float32
        )
    fine = float(cv2.Laplacian(grey, cv2.CV_32F).std())
    smooth = cv2.GaussianBlur(grey, (0, 0), 2.0)
    coarse = float(np.hypot(cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1)).std())
    return fine / (fine + coarse + 8.0) if coarse > 0 else 1.0


def colour_name(crop: np.ndarray) -> str:
    """The body colour of the die in the middle of a crop: the middle's pixels split in two by
    brightness (body and pips), the bigger part's mean colour named by hue, or by brightness
    when it has little colour."""
    size = crop.shape[0]
    # the middle of the crop lies on the top face (a die fills 1/CROP_SCALE of the crop)
    inner = crop[size * 3 // 10 : size * 7 // 10, size * 3 // 10 : size * 7 // 10].reshape(-1, 3)
    grey = inner.astype(np.float32).mean(axis=1)
    threshold = float(grey.mean())
    bright, dark = inner[grey >= threshold], inner[grey < threshold]
    body = bright if len(bright) >= len(dark) else dark
    mean = body.astype(np.float32).mean(axis=0)
    hsv = cv2.cvtColor(np.array([[np.clip(mean, 0, 255)]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0]
    hue, saturation, value = int(hsv[0]), int(hsv[1]), int(hsv[2])
    if saturation < 70 or value < 50:
        if value >= 140:
            return "white"
        return "black" if value < 80 else "grey"
    for limit, name in (
        (8, "red"),
        (20, "orange"),
        (35, "yellow"),
        (85, "green"),
        (130, "blue"),
        (165, "purple"),
    ):
        if hue < limit:
            return name
    return "red"


def _apart(candidates: list[Candidate], reach: float) -> list[Candidate]:
    """One spot per die: a weaker spot within ``reach`` bodies of a stronger one is the same die."""
    kept: list[Candidate] = []
    for c in candidates:  # strongest first
        if all(
            np.hypot(c.x - k.x, c.y - k.y) > reach * max(c.width, c.height, k.width, k.height) for k in kept
        ):
            kept.append(c)
    return kept


def _one_per_die(seen: list[_Seen], reach: float) -> list[_Seen]:
    """A die seen at a slant shows a side face beside its top face, and the finder may mark
    both: of two spots where either lies on the other's body, or within ``reach`` bodies of
    it, the one read (then the surer) is the die."""
    kept: list[_Seen] = []
    for s in sorted(seen, key=lambda s: s.rank, reverse=True):
        if not any(k.covers(*s.centre) or s.covers(*k.centre) or s.near(k, reach) for k in kept):
            kept.append(s)
    return kept


def _doubted(kept: _Seen, spots: list[_Seen], rules: Thresholds, width: int, height: int) -> _Seen:
    """``kept`` made unsure when another spot on the same die reads another value at least
    ``rules.rival`` likely: a side face seen from low can be read as surely as its top face."""
    value = kept.die.value
    if value is None:
        return kept
    for other in spots:
        if other is kept:
            continue
        same = kept.covers(*other.centre) or other.covers(*kept.centre) or kept.near(other, rules.same_die)
        rival_value, likely = other.likeliest
        if same and rival_value != value and likely >= rules.rival:
            x0, y0, x1, y1 = kept.body
            box = _inside(_box(x0, y0, x1, y1), width, height)
            die = replace(kept.die, face=None, box=box, confidence=round(kept.rank[1], 4))
            # unread now, so named as at the edge when its body reaches it, as any unread die is
            on_edge = kept.on_edge or _reaches_edge(kept.body, width, height)
            return replace(kept, die=die, unsure=True, on_edge=on_edge)
    return kept


def _box(x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
    left, top = round(x0), round(y0)
    return left, top, max(1, round(x1) - left), max(1, round(y1) - top)


def _inside(box: tuple[int, int, int, int], width: int, height: int) -> tuple[int, int, int, int]:
    x, y, w, h = box
    x0, y0 = min(max(x, 0), width - 1), min(max(y, 0), height - 1)
    x1, y1 = min(max(x + w, x0 + 1), width), min(max(y + h, y0 + 1), height)
    return x0, y0, x1 - x0, y1 - y0


def _as_bgr(picture: np.ndarray) -> np.ndarray:
    if picture.ndim == 2:
        return cv2.cvtColor(picture, cv2.COLOR_GRAY2BGR)
    if picture.ndim == 3 and picture.shape[2] == 4:
        return cv2.cvtColor(picture, cv2.COLOR_BGRA2BGR)
    if picture.ndim != 3 or picture.shape[2] != 3 or min(picture.shape[:2]) < MIN_SIDE_PX:
        raise ValueError(
            f"a tray picture is a BGR image at least {MIN_SIDE_PX} pixels a side, "
            f"not an array of shape {picture.shape}"
        )
    return picture
