"""What reading a dice tray gives: the contract between the dice reader (vision) and the trays.

The reader finds each die in a picture of a tray and reads its top face, one of the faces of its
face set (the pips 1-6 of ordinary dice are one face set; a game's custom dice bring another);
a game's table reader turns readings into record events, or into a prompt when a reading cannot
be trusted. Nothing here knows the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

# Why a tray's reading cannot be used as it is; "ok" is the only status that gives values.
TRAY_STATUSES = (
    "ok",
    "dark",
    "overexposed",
    "no-dice",
    "blurred",
    "hand",
    "die-on-edge",
    "unreadable-die",
    "too-many-dice",
    "too-few-dice",
)


@dataclass(frozen=True)
class FaceSet:
    """The faces a kind of die shows, by name. ``turns``: a face is read with its rotation
    (0-3 clockwise quarter turns), as custom city faces must be."""

    name: str
    faces: tuple[str, ...]
    turns: bool = False

    def __contains__(self, face: object) -> bool:
        return face in self.faces


PIPS = FaceSet("pips", ("1", "2", "3", "4", "5", "6"))


@dataclass(frozen=True)
class Die:
    # a face of the reader's face set; None when this die cannot be read (cocked, blurred, half hidden)
    face: str | None
    box: tuple[int, int, int, int]  # x, y, width, height in pixels of the picture read
    confidence: float  # 0-1, of the face (of finding the die, when face is None)
    colour: str | None = None  # the body's colour name ("red", "green", "white", ...), if told
    rotation: int | None = None  # clockwise quarter turns, for a face set that ``turns``

    @property
    def value(self) -> int | None:
        """The face as a number of pips, for dice of the pips face set (None otherwise)."""
        return int(self.face) if self.face is not None and self.face in PIPS else None


@dataclass(frozen=True)
class TrayReading:
    dice: tuple[Die, ...]
    status: str = "ok"  # one of TRAY_STATUSES
    message: str = ""  # what a person should do, when status is not "ok"

    @property
    def faces(self) -> tuple[str, ...] | None:
        """The dice's faces, or None unless every die was read and the status is ok."""
        if self.status != "ok" or any(die.face is None for die in self.dice):
            return None
        return tuple(die.face for die in self.dice if die.face is not None)

    @property
    def values(self) -> tuple[int, ...] | None:
        """The dice's values, or None unless every die was read and the status is ok."""
        if self.status != "ok" or any(die.value is None for die in self.dice):
            return None
        return tuple(die.value for die in self.dice if die.value is not None)


class ReadsDice(Protocol):
    faces: FaceSet  # the faces this reader tells apart

    def read(self, picture: np.ndarray, expected: int | None = None) -> TrayReading:
        """Read a BGR picture of one tray; ``expected``, when known, is how many dice should
        lie there (more is reported as ``too-many-dice``, never cut down to a guess; fewer as
        ``too-few-dice``, never read as a smaller roll)."""
        ...
