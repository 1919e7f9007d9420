"""A picture of the tray read with the user's enrolled dice: the dice thrown, and the city laid.

The tray's picture has two parts (``Areas``): the floor the dice are thrown on, and the city
area, a part of the tray marked off where the player lays the city dice edge to edge. The
thrown dice come back as the dice contract's ``TrayReading`` (a face of the Dice Game's face set
and, for a city face, its rotation; a status that says what is wrong, never a guessed face). The
city comes back as its dice on a grid (``CityReading``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.dicegame.reader.enrolment import EnrolledDice, window
from companion.vision.dice import sharpness
from companion.vision.dice_bodies import Bodies, Body, find_bodies, grey, grid_of
from companion.vision.dice_reading import Die, TrayReading

# The city area, as fractions of the picture (x0, y0, x1, y1): the right part of the tray.
CITY_AREA = (0.62, 0.0, 1.0, 1.0)
DARK = 12.0  # mean grey of a black picture
OVEREXPOSED = 0.95  # share of saturated pixels of a washed-out picture
# The dice's median sharpness (companion.vision.dice.sharpness) below which a tray is blurred: on
# rendered trays (floors 0-2) sharp ones gave 0.36-0.48, blurred by 0.8 px 0.25, by 1.5 px 0.14-0.17.
BLURRED = 0.2

MESSAGES = {
    "dark": "the picture is black: is the tray's light off, or the camera's lens covered?",
    "overexposed": "the picture is washed out white: is a lamp or the sun shining into the camera?",
    "hand": "a hand, or something not a die, is over the tray: take it away and let the dice settle",
    "blurred": "the picture is blurred: wait until the dice lie still, or clean the lens",
    "no-dice": "no dice in the tray: roll the dice into it",
    "die-on-edge": "a die lies at the edge of the tray's picture: move it into the middle",
}


@dataclass(frozen=True)
class Areas:
    """Where the dice are thrown and where the city is laid, in pixels (x0, y0, x1, y1)."""

    throw: tuple[int, int, int, int]
    city: tuple[int, int, int, int] | None

    @classmethod
    def of(cls, picture: np.ndarray, city: tuple[float, float, float, float] | None = CITY_AREA) -> Areas:
        height, width = picture.shape[:2]
        if city is None:
            return cls((0, 0, width, height), None)
        x0, y0, x1, y1 = (round(f * n) for f, n in zip(city, (width, height, width, height), strict=True))
        return cls((0, 0, x0, height), (x0, y0, x1, y1))


def _light_problem(picture: np.ndarray) -> str | None:
    g = grey(picture)
    if g.mean() < DARK and g.std() < 8:
        return "dark"
    if (picture.min(axis=2) >= 250).mean() > OVEREXPOSED:
        return "overexposed"
    return None


def _read(enrolled: EnrolledDice, picture: np.ndarray, body: Body) -> Die:
    assert enrolled.matcher is not None
    if body.on_edge:
        return Die(None, body.box, 0.0)
    seen = enrolled.matcher.read(window(picture, body))
    rotation = seen.rotation if seen.face is not None else None
    return Die(seen.face, body.box, seen.confidence, None, rotation)


def _blurred(picture: np.ndarray, bodies: tuple[Body, ...]) -> bool:
    """The dice's middle sharpness is low: one die's alone says little (noise on a blurred
    die reads as detail, a plain face has little of either)."""
    values = []
    for x, y, w, h in (body.box for body in bodies):
        crop = picture[max(y, 0) : y + h, max(x, 0) : x + w]
        if crop.size:
            values.append(sharpness(crop))
    return bool(values) and float(np.median(values)) < BLURRED


def read_throw(
    enrolled: EnrolledDice, picture: np.ndarray, expected: int | None = None, areas: Areas | None = None
) -> TrayReading:
    """The dice thrown on the tray's floor (left to right), with a status: ``ok`` only when
    every die found is read surely and, if ``expected`` is given, no more than that lie there."""
    return read_throw_bodies(enrolled, picture, expected, areas)[0]


def read_throw_bodies(
    enrolled: EnrolledDice, picture: np.ndarray, expected: int | None = None, areas: Areas | None = None
) -> tuple[TrayReading, Bodies]:
    """``read_throw``, with the bodies found (each die's angle: where its north points)."""
    light = _light_problem(picture)
    if light is not None:
        return TrayReading((), light, MESSAGES[light]), Bodies(())
    where = (areas or Areas.of(picture)).throw
    bodies = find_bodies(picture, enrolled.empty, enrolled.side, where)
    return _judge(enrolled, picture, bodies, expected), bodies


def _judge(enrolled: EnrolledDice, picture: np.ndarray, bodies: Bodies, expected: int | None) -> TrayReading:
    if bodies.hand:
        return TrayReading((), "hand", MESSAGES["hand"])
    if bodies.clumps and any(w * h > 12 * enrolled.side**2 for _, _, w, h in bodies.clumps):
        return TrayReading((), "hand", MESSAGES["hand"])
    if _blurred(picture, bodies.dice):
        dice = tuple(Die(None, b.box, 0.0) for b in bodies.dice)
        return TrayReading(dice, "blurred", MESSAGES["blurred"])
    if not bodies.dice:
        return TrayReading((), "no-dice", MESSAGES["no-dice"])
    dice = tuple(_read(enrolled, picture, body) for body in bodies.dice)
    if expected is not None and len(dice) > expected:
        message = f"{len(dice)} dice in the tray but {expected} rolled: take out the dice not in this roll"
        return TrayReading(dice, "too-many-dice", message)
    if any(body.on_edge for body in bodies.dice):
        return TrayReading(dice, "die-on-edge", MESSAGES["die-on-edge"])
    unsure = [n for n, die in enumerate(dice) if die.face is None]
    if unsure:
        which = ", ".join(str(n + 1) for n in unsure)
        message = f"die {which} from the left cannot be read surely (cocked, or half hidden?): roll it again"
        return TrayReading(dice, "unreadable-die", message)
    return TrayReading(dice)


class ThrowReader:
    """The thrown dice of a tray, for the trays' flow (``companion/table/trays.py``, the
    ``ReadsDice`` protocol): faces of the Dice Game's face set, the city area left out."""

    def __init__(self, enrolled: EnrolledDice, city: tuple[float, float, float, float] | None = CITY_AREA):
        self.enrolled = enrolled
        self.city = city
        self.faces = enrolled.face_set

    def read(self, picture: np.ndarray, expected: int | None = None) -> TrayReading:
        return read_throw(self.enrolled, picture, expected, Areas.of(picture, self.city))


@dataclass(frozen=True)
class CityReading:
    """The city area's dice on the grid they are laid on: cell -> (face, rotation), cells in the
    picture's frame (x east, y south, north up the picture). ``status`` as a tray's."""

    dice: dict[tuple[int, int], tuple[str, int | None]]
    status: str = "ok"
    message: str = ""


def read_city(enrolled: EnrolledDice, picture: np.ndarray, areas: Areas | None = None) -> CityReading:
    """The dice laid in the city area: each die read, and its cell on the grid they make."""
    light = _light_problem(picture)
    if light is not None:
        return CityReading({}, light, MESSAGES[light])
    where = (areas or Areas.of(picture)).city
    if where is None:
        return CityReading({})
    bodies = find_bodies(picture, enrolled.empty, enrolled.side, where)
    if bodies.hand:
        return CityReading({}, "hand", MESSAGES["hand"])
    if not bodies.dice:
        return CityReading({})
    if _blurred(picture, bodies.dice):
        return CityReading({}, "blurred", MESSAGES["blurred"])
    if any(body.on_edge for body in bodies.dice):
        return CityReading(
            {}, "die-on-edge", "a city die lies at the edge of the city area: move the city in"
        )
    grid = grid_of(picture, enrolled.empty, enrolled.side, where)
    cells: dict[tuple[int, int], tuple[str, int | None]] = {}
    half = int(enrolled.side / 2)
    for cell, (x, y) in grid.cells.items():
        box = (int(x) - half, int(y) - half, 2 * half, 2 * half)
        die = _read(enrolled, picture, Body((x, y), enrolled.side, grid.angle, box, False))
        if die.face is None:
            return CityReading(
                {},
                "unreadable-die",
                "a city die cannot be read surely: lay the city's dice edge to edge, face up",
            )
        cells[cell] = (die.face, die.rotation)
    return CityReading(cells)


def draw(picture: np.ndarray, reading: TrayReading) -> np.ndarray:
    """The picture with each die's box and what it was read as, for the phone's evidence."""
    out = picture.copy()
    for die in reading.dice:
        x, y, w, h = die.box
        colour = (0, 200, 0) if die.face is not None else (0, 0, 230)
        cv2.rectangle(out, (x, y), (x + w, y + h), colour, 2)
        text = die.face or "?"
        if die.rotation:
            text += f" r{die.rotation}"
        cv2.putText(out, text, (x, max(y - 4, 10)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    return out
