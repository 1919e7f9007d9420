"""The Star Wars board: placed tiles, the domains they form, and where a tile may go.

Routes and asteroid fields are the Carcassonne core's domains (``companion.games.carcassonne``):
features joined across matching sides, on an unbounded board. What is Star Wars' own stays
here: a planet is a domain of its own, its tile plus the tiles around it, and the words a
player reads when a tile does not fit. Every domain keeps what the rules need to read at any
moment: its tiles, symbols, how many ways it is still open, and the meeples in it.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.base import Cell
from companion.games.carcassonne import board as core
from companion.games.starwars.tiles import AROUND, KIND_LABELS, RULES, SIDE_KIND_NAMES, SIDES, Tile

DIRECTION_NAMES = ("north", "east", "south", "west")


@dataclass(slots=True)
class Meeple:
    id: int
    player: str
    size: str  # "small" or "large"
    cell: Cell  # the tile it stands on
    feature_index: int  # which feature of that tile


class Domain(core.Domain[Meeple]):
    """A trade route, an asteroid field or a planet, as far as it reaches now.

    ``key``: the first feature that formed it; when domains merge, the merged one keeps the
    oldest key, so a key names one domain at a time (log entries also carry the cells it
    covered then). ``cells``: its tiles (a planet: its own and the occupied cells around it).
    ``open``: route/asteroid: sides still open; planet: empty cells around it. ``anchor``:
    route/asteroid: its first tile; planet: the planet's own tile.
    """

    __slots__ = ()

    @property
    def symbols(self) -> dict[str, int]:
        """faction -> how many symbols of it the domain holds (the core's counted attributes)."""
        return self.counts

    @property
    def meeples(self) -> list[Meeple]:
        return self.pieces

    @property
    def label(self) -> str:
        return KIND_LABELS[self.kind]

    def symbol_count(self) -> int:
        return sum(self.counts.values())


class Board(core.Board[Tile, Domain]):
    def __init__(self) -> None:
        super().__init__(RULES, Domain)

    # --- reading -------------------------------------------------------------------------------

    def planet_at(self, cell: Cell) -> Domain | None:
        tile = self.tiles.get(cell)
        if tile is None or tile.planet_index is None:
            return None
        return self.domain(cell, tile.planet_index)

    # ``domains_of_tile`` is the core's: with one part per side, the part it names is the side,
    # so it gives the routes and fields a tile touches, each once with the first side (N, E, S,
    # W order) by which it does.

    def planets_within_reach(self, cell: Cell) -> list[tuple[Cell, Domain]]:
        """Planets a meeple placed with the tile at ``cell`` may go on: the tile's own, then
        those on the 8 cells around it in reading order (NW, N, NE, W, E, SW, S, SE)."""
        found = []
        for dx, dy in ((0, 0), *AROUND):
            other = (cell[0] + dx, cell[1] + dy)
            planet = self.planet_at(other)
            if planet is not None:
                found.append((other, planet))
        return found

    # --- placing -------------------------------------------------------------------------------

    def misfit_reason(self, cell: Cell, tile: Tile, side: int, demand: int) -> str:
        return (
            f"side {SIDES[side]} of the tile at {list(cell)} shows "
            f"{SIDE_KIND_NAMES[tile.side_kinds[side]]}, but the tile to the "
            f"{DIRECTION_NAMES[side]} shows {SIDE_KIND_NAMES[demand]} there"
        )

    def place(self, cell: Cell, tile: Tile) -> None:
        """Lay a tile that ``fit_error`` accepted: the core joins routes and fields across its
        sides; the planets on it and around it take in the cells they now cover."""
        around = [(cell[0] + dx, cell[1] + dy) for dx, dy in AROUND]
        occupied_around = [c for c in around if c in self.tiles]
        super().place(cell, tile)
        if tile.planet_index is not None:
            planet = self.domain(cell, tile.planet_index)
            planet.cells.update(occupied_around)
            planet.open = 8 - len(occupied_around)
        for other_cell in occupied_around:
            planet_there = self.planet_at(other_cell)
            if planet_there is not None:
                planet_there.open -= 1
                planet_there.cells.add(cell)
