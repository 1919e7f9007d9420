"""Pips counted as blobs (companion/vision/pips.py) and the rule that lets a count vouch for a
value the reader is only fairly sure of (companion/vision/dice.py, ``pips_fair``)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from companion.vision import dice as dice_module
from companion.vision.dice import THRESHOLDS, DiceReader
from companion.vision.dice_model import CROP_PX, NONE, UNREADABLE, Candidate, crop_side
from companion.vision.pips import count_pips

# Where a die's pips lie on its face, in face widths from its centre (a 6 in two columns).
LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}
CENTRE, FACE = (150, 120), 50  # the die's top face centre and side, in pixels


def _tray(value: int, face: tuple[int, int, int], pip: tuple[int, int, int], blur: float = 0.8) -> np.ndarray:
    """A wooden-looking tray with one die seen from straight above."""
    picture = np.full((240, 300, 3), (120, 160, 190), np.uint8)
    picture[::6, ::7] = (60, 90, 120)  # the wood's grain, so that the frame is not judged blurred
    x, y = CENTRE
    half = FACE // 2
    cv2.rectangle(picture, (x - half, y - half), (x + half, y + half), face, -1)
    radius = 6 if value == 1 else 4
    for dx, dy in LAYOUT[value]:
        cv2.circle(
            picture, (round(x + dx * FACE * 0.27), round(y + dy * FACE * 0.27)), radius, pip, -1, cv2.LINE_AA
        )
    return cv2.GaussianBlur(picture, (0, 0), blur)


SIDE = crop_side(FACE, FACE)
# the reader's box around the pips, as fractions of its crop (the pips span 0.27 + a pip's
# radius each side of the centre)
PIP_BOX = tuple(0.5 + k * (0.27 * FACE + 7) / SIDE for k in (-1, -1, 1, 1))
WHITE, BLACK, RED = (235, 235, 235), (20, 20, 20), (40, 40, 200)


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize(
    ("face", "pip"), [(WHITE, BLACK), (RED, WHITE)], ids=["black-on-white", "white-on-red"]
)
def test_the_pips_of_a_face_are_counted_whatever_the_die_s_colours(
    value: int, face: tuple[int, int, int], pip: tuple[int, int, int]
) -> None:
    picture = _tray(value, face, pip)
    assert count_pips(picture, *CENTRE, SIDE, PIP_BOX) == value  # type: ignore[arg-type]


def test_pips_outside_the_reader_s_box_are_not_counted() -> None:
    picture = _tray(2, WHITE, BLACK)
    # the pips' box of one corner only: one of the two pips
    corner = (PIP_BOX[0], PIP_BOX[1], 0.5, 0.5)
    assert count_pips(picture, *CENTRE, SIDE, corner) == 1
    # a smear (a scratch, a shadow's edge) is no pip
    cv2.line(picture, (CENTRE[0] - 5, CENTRE[1]), (CENTRE[0] + 15, CENTRE[1]), BLACK, 2)
    assert count_pips(picture, *CENTRE, SIDE, PIP_BOX) == 2  # type: ignore[arg-type]


class _Reads:
    """A dice model that finds one die at CENTRE and reads it as given, with PIP_BOX."""

    crop_px = CROP_PX

    def __init__(self, probs: list[float]) -> None:
        self.probs = np.array([probs], np.float32)

    def find(self, picture: np.ndarray) -> tuple[np.ndarray, float]:
        return np.zeros((6, 1, 1), np.float32), 1.0

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        boxes = np.tile(np.array(PIP_BOX, np.float32), (len(crops), 1))
        return np.tile(self.probs, (len(crops), 1)), boxes


def _reading(
    monkeypatch: pytest.MonkeyPatch, read_as: int, likely: float, unread: float, pips_fair: float
) -> int | None:
    monkeypatch.setattr(
        dice_module, "peaks", lambda maps, scale, threshold: [Candidate(*CENTRE, FACE, FACE, 0.9)]
    )
    probs = [0.0] * 8
    probs[read_as - 1], probs[UNREADABLE], probs[NONE] = likely, unread, 0.01
    probs[5 if read_as != 6 else 4] += 1.0 - likely - unread - 0.01
    rules = dataclasses.replace(THRESHOLDS, pips_fair=pips_fair, pips_unread=0.2)
    reading = DiceReader(_Reads(probs), rules).read(_tray(3, WHITE, BLACK))  # type: ignore[arg-type]
    (die,) = reading.dice
    assert (reading.status == "ok") == (die.value is not None), reading.message
    return die.value


@pytest.mark.parametrize(
    ("read_as", "likely", "unread", "pips_fair", "value"),
    [
        (3, 0.7, 0.05, 0.6, 3),  # the count agrees: the value is given
        (4, 0.7, 0.05, 0.6, None),  # the count says 3, the reader 4: asked about
        (3, 0.55, 0.05, 0.6, None),  # below the bar
        (3, 0.7, 0.25, 0.6, None),  # the reader sees too much chance of a lean
        (3, 0.7, 0.05, 2.0, None),  # the rule off
        (3, 0.95, 0.05, 2.0, 3),  # sure without it
    ],
)
def test_a_count_of_pips_vouches_only_for_the_value_it_agrees_with(
    monkeypatch: pytest.MonkeyPatch,
    read_as: int,
    likely: float,
    unread: float,
    pips_fair: float,
    value: int | None,
) -> None:
    assert _reading(monkeypatch, read_as, likely, unread, pips_fair) == value
