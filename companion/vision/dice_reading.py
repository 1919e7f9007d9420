"""What reading a dice tray gives: the contract between the dice reader (vision) and the trays.

The reader finds each die in a picture of a tray and reads its top face; the trays' battle flow
turns readings into roll events, or into a prompt when a reading cannot be trusted. Nothing here
knows the rules.
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
)


@dataclass(frozen=True)
class Die:
    value: int | None  # 1-6; None when this die cannot be read (cocked, blurred, half hidden)
    box: tuple[int, int, int, int]  # x, y, width, height in pixels of the picture read
    confidence: float  # 0-1, of the value (of finding the die, when value is None)
    colour: str | None = None  # the body's colour name ("red", "green", "white", ...), if told


@dataclass(frozen=True)
class TrayReading:
    dice: tuple[Die, ...]
    status: str = "ok"  # one of TRAY_STATUSES
    message: str = ""  # what a person should do, when status is not "ok"

    @property
    def values(self) -> tuple[int, ...] | None:
        """The dice's values, or None unless every die was read and the status is ok."""
        if self.status != "ok" or any(die.value is None for die in self.dice):
            return None
        return tuple(die.value for die in self.dice if die.value is not None)


class ReadsDice(Protocol):
    def read(self, picture: np.ndarray, expected: int | None = None) -> TrayReading:
        """Read a BGR picture of one tray; ``expected``, when known, is how many dice should
        lie there (more is reported as ``too-many-dice``, never cut down to a guess)."""
        ...
