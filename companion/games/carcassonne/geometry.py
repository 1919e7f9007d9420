"""Sides and cells: the square grid every Carcassonne board lies on.

Sides are numbered N=0, E=1, S=2, W=3, clockwise, so a clockwise quarter turn moves side i to
side i+1. x grows to the east and y to the south, as the records write cells.
"""

from __future__ import annotations

from companion.games.base import Cell

SIDES = "NESW"
# y grows to the south, so north is one row up.
OFFSETS: tuple[Cell, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))


def opposite(side: int) -> int:
    return (side + 2) % 4


def neighbour(cell: Cell, side: int) -> Cell:
    dx, dy = OFFSETS[side]
    return (cell[0] + dx, cell[1] + dy)
