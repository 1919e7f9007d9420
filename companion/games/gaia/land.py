"""The land on the table: square land tiles on an unbounded grid, animal tokens, and cities.

A city meets one of its needs when a neighbouring tile (sharing a side) that no city covers
shows what the need asks for: that terrain, or for ``animals`` at least one animal token. Each
need is checked on its own, so one tile can meet several needs and a need printed twice counts
twice. A city's satisfaction is how many of its 4 needs are met.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from companion.games.base import Cell
from companion.games.gaia.rules import ANIMALS, neighbours, reading_order


@dataclass(eq=False)
class City:
    """A city card on a tile. ``pawns`` counts each player's pawns on it, in the order they
    came; ``met`` says which of the card's needs are met now (kept up to date by the land)."""

    at: Cell
    terrain: str  # the corner icon: a terrain or "star"
    needs: tuple[str, ...]
    pawns: dict[str, int] = field(default_factory=dict)
    met: tuple[bool, ...] = ()

    @property
    def satisfaction(self) -> int:
        return sum(self.met)

    def met_needs(self) -> list[str]:
        return [need for need, ok in zip(self.needs, self.met, strict=True) if ok]

    def pawns_of(self, player: str) -> int:
        return self.pawns.get(player, 0)


class Land:
    def __init__(self) -> None:
        self.tiles: dict[Cell, str] = {}  # cell -> terrain
        self.animals: dict[Cell, int] = {}  # cell -> tokens on it (only cells with some)
        self.cities: dict[Cell, City] = {}

    def is_free(self, cell: Cell) -> bool:
        """A laid tile with neither a city nor animals."""
        return cell in self.tiles and cell not in self.cities and cell not in self.animals

    def offers(self, cell: Cell) -> tuple[str, ...]:
        """What the tile at ``cell`` gives the cities beside it: nothing when no tile is there or
        a city covers it; else its terrain, and ``animals`` while it holds any."""
        terrain = self.tiles.get(cell)
        if terrain is None or cell in self.cities:
            return ()
        return (terrain, ANIMALS) if cell in self.animals else (terrain,)

    def needs_met(self, cell: Cell, needs: Iterable[str]) -> tuple[bool, ...]:
        around = {thing for side in neighbours(cell) for thing in self.offers(side)}
        return tuple(need in around for need in needs)

    def refresh(self, cities: Iterable[City]) -> None:
        for city in cities:
            city.met = self.needs_met(city.at, city.needs)

    def cities_beside(self, cells: Iterable[Cell]) -> list[City]:
        """The cities on the cells that share a side with any of ``cells``, in reading order."""
        found = {side for cell in cells for side in neighbours(cell) if side in self.cities}
        return [self.cities[cell] for cell in reading_order(found)]

    def animals_beside(self, cell: Cell) -> list[Cell]:
        """The neighbouring tiles holding animals, in reading order."""
        return reading_order(side for side in neighbours(cell) if side in self.animals)

    def open_cells(self) -> list[Cell]:
        """Where the next land tile may go: [0,0] first, then any empty cell sharing a side with
        a tile, in reading order."""
        if not self.tiles:
            return [(0, 0)]
        return reading_order(
            {side for cell in self.tiles for side in neighbours(cell) if side not in self.tiles}
        )

    def touches(self, cell: Cell) -> bool:
        return any(side in self.tiles for side in neighbours(cell))
