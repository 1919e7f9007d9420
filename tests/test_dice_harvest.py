"""What the dice reader is trained on (models/training/dice_data.py, ``harvest``): with a ring, spots
around each labelled die's top face, off it, are added as "none" where no other die lies, and
the dice's own crops stay as they were."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.dice_model import NONE
from models.training.dice_data import BARE_KEPT, PATCH_PER_CROP, FinderSample, ReadSample, TrayDie, harvest

FACE = 28.0  # each die's top face, a side in pixels: drawn as a disc this wide
TRAY = 90  # the tray's grey; each die's face has a grey of its own
DICE = ((120.0, 4, 150), (150.0, 2, 255), (180.0, 5, 200))  # x, class, grey: in a row, 30 px apart


def _tray() -> FinderSample:
    picture = np.full((300, 300, 3), TRAY, np.uint8)
    dice = []
    for x, label, grey in DICE:
        cv2.circle(picture, (int(x), 150), int(FACE / 2), (grey,) * 3, -1)
        box = (x - 10, 140.0, 20.0, 20.0)
        dice.append(TrayDie(x=x, y=150.0, body=0.0, read_box=box, label=label, face=FACE))
    return FinderSample(picture, picture, 1.0, [], None, dice)


def _centre(sample: ReadSample) -> int:
    middle = sample.patch.shape[0] // 2
    return int(sample.patch[middle, middle].mean())


def _rings(crops: list[ReadSample]) -> list[list[ReadSample]]:
    """The crops after each die's own, up to the next die's (the last die's up to the bare
    tray's patches): harvest keeps them in that order."""
    starts = [k for k, crop in enumerate(crops) if crop.label != NONE]
    ends = [*starts[1:], len(crops) - BARE_KEPT]
    return [crops[start + 1 : end] for start, end in zip(starts, ends, strict=True)]


def test_a_ring_adds_spots_off_the_top_faces_as_none_and_never_on_a_neighbour() -> None:
    tray = _tray()
    plain = harvest([tray], lambda picture: [], 48)
    ringed = harvest([tray], lambda picture: [], 48, ring=8)
    assert all(crop.patch.shape[0] == int(48 * PATCH_PER_CROP) for crop in ringed)
    # the dice's own crops, at their top faces' centres, are the same either way
    for (_, label, grey), before, after in zip(
        DICE, [c for c in plain if c.label != NONE], [c for c in ringed if c.label != NONE], strict=True
    ):
        assert before.label == after.label == label
        np.testing.assert_array_equal(before.patch, after.patch)
        assert _centre(after) == grey
    assert _rings(plain) == [[], [], []]
    rings = _rings(ringed)
    # every spot kept is "none", centred on the tray between or beside the dice, never on a face
    for ring in rings:
        assert all(crop.label == NONE and crop.box is None and _centre(crop) == TRAY for crop in ring)
    # the middle die is hemmed in: spots towards its neighbours land on them, or too near their
    # centres to be called either, and are dropped; the outer dice keep more of theirs
    assert 0 < len(rings[1]) < 8
    assert len(rings[1]) < min(len(rings[0]), len(rings[2]))


def test_the_share_of_cocked_training_dice_is_as_asked() -> None:
    # a cocked rendered die has no value; the same seed with no share cocks none, and with the
    # whole share cocks every die
    from models.training.dice_data import synthetic_tray

    seeds = [s for s in range(40) if synthetic_tray(s, cocked=0.0).dice][:6]
    assert seeds
    for seed in seeds:
        assert all(d.value is not None for d in synthetic_tray(seed, cocked=0.0).dice)
        assert all(d.value is None for d in synthetic_tray(seed, cocked=1.0).dice)
