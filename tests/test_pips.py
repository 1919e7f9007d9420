"""Pips counted as blobs (companion/vision/pips.py) and the rule that lets a count vouch for a
value the reader is only fairly sure of (companion/vision/dice.py, ``pips_fair``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision import dice as dice_module
from companion.vision.dice import THRESHOLDS, DiceReader, Thresholds
from companion.vision.dice_model import NONE, UNREADABLE, Candidate, DiceModel, crop_side
from companion.vision.pips import count_pips
from models.training.count_pips import main, real
from models.training.dice_data import photos
from tests.test_dice_read import _TwoSpots

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


class _Reads(_TwoSpots):
    """test_dice_read's reader of the spots patched in, each crop read as given, with PIP_BOX
    for the upright crops and a box off the die for the turned ones (only the upright crop's
    box may be used)."""

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        probs, _ = super().read(crops)
        box = PIP_BOX if len(crops) == len(self.readings) else (0.0, 0.0, 0.1, 0.1)
        return probs, np.tile(np.array(box, np.float32), (len(crops), 1))


def _probs(value: int, likely: float, unread: float, none: float = 0.01) -> list[float]:
    """A reading: ``value`` at ``likely``, the rest on another value."""
    probs = [0.0] * 8
    probs[value - 1], probs[UNREADABLE], probs[NONE] = likely, unread, none
    probs[5 if value != 6 else 4] += 1.0 - likely - unread - none
    return probs


def _reading(
    monkeypatch: pytest.MonkeyPatch, read_as: int, likely: float, unread: float, rules: Thresholds
) -> int | None:
    monkeypatch.setattr(
        dice_module, "peaks", lambda maps, scale, threshold: [Candidate(*CENTRE, FACE, FACE, 0.9)]
    )
    model = _Reads([_probs(read_as, likely, unread)])
    reading = DiceReader(model, rules).read(_tray(3, WHITE, BLACK))  # type: ignore[arg-type]
    (die,) = reading.dice
    assert (reading.status == "ok") == (die.value is not None), reading.message
    return die.value


OFF = dataclasses.replace(THRESHOLDS, pips_fair=2.0)


@pytest.mark.parametrize(
    ("read_as", "likely", "unread", "rules", "value"),
    [
        (3, 0.7, 0.05, THRESHOLDS, 3),  # the count agrees: the value is given
        (3, 0.5, 0.03, THRESHOLDS, 3),  # at the bar
        (4, 0.7, 0.05, THRESHOLDS, None),  # the count says 3, the reader 4: asked about
        (3, 0.45, 0.05, THRESHOLDS, None),  # below the bar
        (3, 0.7, 0.08, THRESHOLDS, None),  # the reader sees too much chance of a lean
        (3, 0.7, 0.05, OFF, None),  # the rule off
        (3, 0.95, 0.03, OFF, 3),  # sure without it
    ],
)
def test_a_count_of_pips_vouches_only_for_the_value_it_agrees_with(
    monkeypatch: pytest.MonkeyPatch,
    read_as: int,
    likely: float,
    unread: float,
    rules: Thresholds,
    value: int | None,
) -> None:
    assert _reading(monkeypatch, read_as, likely, unread, rules) == value


def test_a_side_face_the_count_vouches_for_is_still_asked_about_when_the_top_face_reads_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # two_29 from low: the finder marks the side face (a 4, its pips drawn) and, 20 px above
    # it, the die's top face, which the reader reads as a 2 unsurely
    picture = _tray(4, WHITE, BLACK)
    side = Candidate(*CENTRE, FACE, FACE, 0.5)
    top = Candidate(CENTRE[0], CENTRE[1] - 20, FACE, FACE, 0.4)
    monkeypatch.setattr(dice_module, "peaks", lambda maps, scale, threshold: [side, top])
    model = _Reads([_probs(4, 0.6, 0.03), _probs(2, 0.6, 0.03, none=0.3)])
    reading = DiceReader(model).read(picture)  # type: ignore[arg-type]
    assert [d.value for d in reading.dice] == [None]
    assert reading.status == "unreadable-die", reading.message
    # the rival rule off, the count's 4 stands: it is that rule that asks
    rules = dataclasses.replace(THRESHOLDS, rival=1.01)
    assert [d.value for d in DiceReader(model, rules).read(picture).dice] == [4]  # type: ignore[arg-type]


def test_the_counter_s_own_figures_take_every_labelled_die_once(capsys: pytest.CaptureFixture[str]) -> None:
    # the six real photographs copied into tests/data (five held-out, one training): every label
    # taken once, and on these the counter counts every die right
    photos_here = Path(__file__).resolve().parent / "data" / "dice-photos"
    tally = real(DiceModel(), "all", photos_here)
    labelled = [d.value for p in photos("all", photos_here) for d in p.dice]
    assert sum(tally.values()) == len(labelled) == 16
    assert sorted(v for (v, count), n in tally.items() for _ in range(n) if count == v) == sorted(labelled)
    with pytest.raises(SystemExit):  # nothing named to count on
        main([])
    assert "name --split, --trays or both" in capsys.readouterr().err
