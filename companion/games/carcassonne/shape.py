"""A fixed board shape as data: the spaces that may hold a tile, and the start segments.

Without a shape a board is unbounded (Star Wars). With one (The Castle) only the interior
spaces take tiles; every other cell is wall, and a part facing the wall is closed. A start
segment is a fixed piece lying across one side of an interior space (on the wall): its features
are written with that space's part names for that side, as castle.md writes them, and it joins
what faces it like a placed tile, counts as one tile and is laid before every tile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Self

from companion.games.base import Cell
from companion.games.carcassonne.geometry import SIDES, neighbour
from companion.games.carcassonne.tiles import F


@dataclass(frozen=True, slots=True)
class StartSegment(Generic[F]):
    cell: Cell  # the interior space it lies against
    side: int  # which side of that space
    features: tuple[F, ...]  # touching parts of ``cell``'s side ``side``, by their names there

    @property
    def lies_at(self) -> Cell:
        """The cell across the edge, on the wall, where the segment itself lies."""
        return neighbour(self.cell, self.side)


@dataclass(frozen=True, slots=True, eq=False)
class BoardShape:
    interior: frozenset[Cell]
    starts: tuple[StartSegment[Any], ...] = ()

    def __post_init__(self) -> None:
        seen: set[tuple[Cell, int]] = set()
        for start in self.starts:
            where = f"the start segment on side {SIDES[start.side]} of {list(start.cell)}"
            if start.cell not in self.interior:
                raise ValueError(f"{where} lies against a cell that is not an interior space")
            if start.lies_at in self.interior:
                raise ValueError(
                    f"{where} would lie on an interior space; a start segment is part of the wall"
                )
            if (start.cell, start.side) in seen:
                raise ValueError(f"two start segments lie on side {SIDES[start.side]} of {list(start.cell)}")
            seen.add((start.cell, start.side))

    # A shape never changes: copies of a board share it.
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self


def interior_from_rows(rows: Sequence[str]) -> frozenset[Cell]:
    """The spaces drawn as rows of ``#`` (a space for a tile) and ``.`` (none): row y, column x
    is the cell [x, y]."""
    cells = set()
    for y, row in enumerate(rows):
        for x, mark in enumerate(row):
            if mark == "#":
                cells.add((x, y))
            elif mark != ".":
                raise ValueError(f'row {y} of the interior holds "{mark}"; only "#" and "." are allowed')
    return frozenset(cells)


def shape_from_rows(rows: Sequence[str], starts: Iterable[StartSegment[Any]] = ()) -> BoardShape:
    return BoardShape(interior_from_rows(rows), tuple(starts))
