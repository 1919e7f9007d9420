"""The dice model (models/dice/dice.onnx) and the picture geometry it shares with its training.

One ONNX file holds two small networks: the *finder* looks at the whole tray shrunk to
FIND_PX on its long side and gives, every STRIDE pixels, how likely a die's top face is centred
there, where exactly, how big the die is, and how likely a hand covers the spot; the *reader*
looks at each die found, cut out at full resolution and scaled to CROP_PX, and gives the top
face's value (or ``unreadable``: cocked, cut, or not a face; or ``none``: not a die at all) and
the box around the face's pips. Each network has its own input; the one not wanted is fed an
empty batch, which onnxruntime runs in no time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.model_files import model_path
from companion.vision.onnx import open_session

# ordinary dice (pips 1-6), whatever game throws them: models/dice/ beside the games' folders
DEFAULT_MODEL = model_path("dice", "dice.onnx")

FIND_PX = 320  # the finder sees the tray at this many pixels on its long side
STRIDE = 4  # finder map cell, in finder pixels
PAD_TO = 16  # the finder's input sides are a multiple of this
CROP_PX = 48  # the reader's input side
CROP_SCALE = 1.7  # a crop's side, in die bodies: the die and a ring of tray around it
READ_CLASSES = ("1", "2", "3", "4", "5", "6", "unreadable", "none")
UNREADABLE, NONE = 6, 7


class DiceModelMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class Candidate:
    """A spot where the finder sees a die: top face centre and body size in picture pixels."""

    x: float
    y: float
    width: float
    height: float
    score: float


def finder_input(picture: np.ndarray) -> tuple[np.ndarray, float]:
    """The picture shrunk to FIND_PX on its long side, padded (edge pixels repeated) to a
    multiple of PAD_TO, as float32 NHWC; and the scale from picture to finder pixels."""
    height, width = picture.shape[:2]
    scale = FIND_PX / max(height, width)
    small = cv2.resize(
        picture, (max(1, round(width * scale)), max(1, round(height * scale))), interpolation=cv2.INTER_AREA
    )
    pad_h, pad_w = -small.shape[0] % PAD_TO, -small.shape[1] % PAD_TO
    if pad_h or pad_w:
        small = cv2.copyMakeBorder(small, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE)
    return small[None].astype(np.float32), scale


def peaks(maps: np.ndarray, scale: float, threshold: float) -> list[Candidate]:
    """Candidates from one finder output (channels: face centre, x and y offsets, log body
    width and height in cells, hand), at local maxima of the centre map above ``threshold``."""
    heat = maps[0]
    dilated = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= dilated) & (heat > threshold))
    found = []
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        cx = (x + float(maps[1, y, x])) * STRIDE / scale
        cy = (y + float(maps[2, y, x])) * STRIDE / scale
        w = float(np.exp(maps[3, y, x])) * STRIDE / scale
        h = float(np.exp(maps[4, y, x])) * STRIDE / scale
        found.append(Candidate(cx, cy, w, h, float(heat[y, x])))
    return sorted(found, key=lambda c: -c.score)


def crop_side(width: float, height: float) -> float:
    return CROP_SCALE * max(width, height, 4.0)


def cut_out(picture: np.ndarray, x: float, y: float, side: float, size: int = CROP_PX) -> np.ndarray:
    """The square of ``side`` picture pixels centred on (x, y), scaled to ``size``; beyond the
    picture's edge, its edge pixels repeated."""
    half = side / 2
    x0, y0 = int(np.floor(x - half)), int(np.floor(y - half))
    x1, y1 = int(np.ceil(x + half)), int(np.ceil(y + half))
    height, width = picture.shape[:2]
    region = picture[max(y0, 0) : max(min(y1, height), 0), max(x0, 0) : max(min(x1, width), 0)]
    if region.size == 0:
        return np.zeros((size, size, 3), np.uint8)
    pads = (max(-y0, 0), max(y1 - height, 0), max(-x0, 0), max(x1 - width, 0))
    if any(pads):
        region = cv2.copyMakeBorder(region, *pads, cv2.BORDER_REPLICATE)
    interpolation = cv2.INTER_AREA if region.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(region, (size, size), interpolation=interpolation)


class DiceModel:
    """models/dice/dice.onnx, loaded once; one onnxruntime thread by default, as on the Pi."""

    def __init__(self, path: Path = DEFAULT_MODEL, threads: int = 1) -> None:
        labels_path = path.with_suffix(".labels.json")
        if not path.is_file() or not labels_path.is_file():
            raise DiceModelMissing(f"the dice model is missing: {path} and {labels_path} must both exist")
        try:
            labels = json.loads(labels_path.read_text(encoding="utf-8"))
        except (ValueError, OSError) as error:  # not JSON, not UTF-8, unreadable
            raise DiceModelMissing(f"{labels_path} is not the dice model's labels: {error}") from None
        classes = labels.get("read_classes") if isinstance(labels, dict) else None
        if not isinstance(classes, list) or tuple(classes) != READ_CLASSES:
            raise DiceModelMissing(f"{labels_path} does not match this reader's classes {READ_CLASSES}")
        self._session = open_session(path, threads)
        # the reader's input side is the model's own (older files, without it, read CROP_PX)
        self.crop_px = int(labels.get("crop_px", CROP_PX))
        crops = next((i for i in self._session.get_inputs() if i.name == "crops"), None)
        if crops is None or list(crops.shape[1:]) != [self.crop_px, self.crop_px, 3]:
            raise DiceModelMissing(
                f"{path} reads crops of shape {None if crops is None else crops.shape[1:]}, "
                f"but {labels_path} says {self.crop_px} px: the two files are not one export"
            )
        self._no_tray = np.zeros((1, PAD_TO, PAD_TO, 3), np.float32)
        self._no_crops = np.zeros((0, self.crop_px, self.crop_px, 3), np.float32)
        self.path = path

    def find(self, picture: np.ndarray) -> tuple[np.ndarray, float]:
        """The finder's maps (6, H / STRIDE, W / STRIDE), after the sigmoid on the centre and
        hand maps, and the picture-to-finder scale."""
        tray, scale = finder_input(picture)
        (maps,) = self._session.run(["maps"], {"tray": tray, "crops": self._no_crops})
        return np.asarray(maps[0], np.float32), scale

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities (N, READ_CLASSES) and pip boxes (N, 4: x0, y0, x1, y1 as
        fractions of the crop) of N crops (N, crop_px, crop_px, 3)."""
        if len(crops) == 0:
            return np.zeros((0, len(READ_CLASSES)), np.float32), np.zeros((0, 4), np.float32)
        probs, boxes = self._session.run(
            ["read_probs", "read_boxes"], {"tray": self._no_tray, "crops": crops.astype(np.float32)}
        )
        return np.asarray(probs, np.float32), np.asarray(boxes, np.float32)
