"""What the dice reader is trained on (models/dice_data.py, ``harvest``): with a ring, spots
around each labelled die's top face, off it, are added as "none", and nothing else changes."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.dice_model import NONE
from models.dice_data import PATCH_PER_CROP, FinderSample, ReadSample, TrayDie, harvest

FACE = 28.0  # the die's top face, a side in pixels: drawn as a white disc this wide


def _tray() -> FinderSample:
    picture = np.full((240, 240, 3), 90, np.uint8)
    cv2.circle(picture, (120, 120), int(FACE / 2), (255, 255, 255), -1)
    die = TrayDie(x=120.0, y=120.0, body=0.0, read_box=(110.0, 110.0, 20.0, 20.0), label=2, face=FACE)
    return FinderSample(picture, picture, 1.0, [], None, [die])


def _centre(sample: ReadSample) -> int:
    middle = sample.patch.shape[0] // 2
    return int(sample.patch[middle, middle].mean())


def test_a_ring_adds_spots_off_the_top_face_as_none_and_keeps_the_rest() -> None:
    tray = _tray()
    plain = harvest([tray], lambda picture: [], 48)
    ringed = harvest([tray], lambda picture: [], 48, ring=4)
    assert all(sample.patch.shape[0] == int(48 * PATCH_PER_CROP) for sample in ringed)
    # the die itself, at its top face's centre, is kept the same either way
    die_plain = [s for s in plain if s.label == 2]
    die_ringed = [s for s in ringed if s.label == 2]
    assert len(die_plain) == len(die_ringed) == 1
    np.testing.assert_array_equal(die_plain[0].patch, die_ringed[0].patch)
    assert _centre(die_ringed[0]) == 255
    # four spots more, each "none" and centred off the face (on the tray), a die in view
    extra = len(ringed) - len(plain)
    assert extra == 4
    ring = [s for s in ringed if s.label == NONE and s.box is None and (s.patch == 255).all(axis=2).any()]
    off_face = [s for s in ring if _centre(s) == 90]
    assert len(off_face) >= 4
