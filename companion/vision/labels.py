"""What the cell model's outputs mean: its tile classes and its meeple classes.

The tile classes ship beside the model (``models/starwars/cells.labels.json``), written by the training
code: each is an inline tile as it lies (records.md), or one of the special classes below.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EMPTY = "empty"  # bare felt: no tile in the cell
UNKNOWN = "unknown"  # a tile, but none of the structures the model knows
SPECIALS = (EMPTY, UNKNOWN)

MEEPLE_COLOURS = ("red", "green", "black", "white", "orange")
MEEPLE_SIZES = ("small", "large")
NO_MEEPLE, FALLEN = "none", "fallen"
MEEPLE_CLASSES: tuple[str, ...] = (
    NO_MEEPLE,
    FALLEN,
    *(f"{colour}/{size}" for colour in MEEPLE_COLOURS for size in MEEPLE_SIZES),
)


@dataclass(frozen=True)
class TileLabels:
    """Class index -> an inline tile (a dict as in records.md) or a special class name."""

    classes: tuple[str | dict[str, Any], ...]
    spots: tuple[str, ...]  # the meeple spots, in the order of the model's meeple output

    def is_tile(self, index: int) -> bool:
        return not isinstance(self.classes[index], str)

    def is_tile_like(self, index: int) -> bool:
        """A tile, known or not (anything but bare felt)."""
        return self.classes[index] != EMPTY

    def index_of(self, name: str) -> int:
        return self.classes.index(name)

    def to_json(self) -> dict[str, Any]:
        return {"tiles": list(self.classes), "spots": list(self.spots), "meeples": list(MEEPLE_CLASSES)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TileLabels:
        if list(data.get("meeples", [])) != list(MEEPLE_CLASSES):
            raise ValueError("the model's meeple classes are not the ones this companion knows")
        return cls(tuple(data["tiles"]), tuple(data["spots"]))

    @classmethod
    def load(cls, path: Path) -> TileLabels:
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))


def meeple_class(colour: str, size: str) -> int:
    return MEEPLE_CLASSES.index(f"{colour}/{size}")
