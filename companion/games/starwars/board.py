"""The Star Wars board: placed tiles, the domains they form, and where a tile may go.

Routes and asteroid fields grow by joining features across matching sides (a union-find over
features). A planet is a domain of its own: its tile plus the tiles around it. Every domain
keeps what the rules need to read at any moment: its tiles, symbols, how many ways it is still
open, and the meeples in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from companion.games.base import Cell
from companion.games.starwars.tiles import (
    AROUND,
    KIND_LABELS,
    PLANET,
    SIDE_KIND_NAMES,
    SIDES,
    Tile,
    neighbour,
    opposite,
)

DIRECTION_NAMES = ("north", "east", "south", "west")


@dataclass(slots=True)
class Meeple:
    id: int
    player: str
    size: str  # "small" or "large"
    cell: Cell  # the tile it stands on
    feature_index: int  # which feature of that tile


@dataclass(slots=True, eq=False)
class Domain:
    """A trade route, an asteroid field or a planet, as far as it reaches now."""

    # The first feature that formed it. When domains merge, the merged one keeps the oldest key,
    # so a key names one domain at a time; log entries also carry the cells it covered then.
    key: int
    kind: str
    cells: set[Cell]
    symbols: dict[str, int]  # faction -> how many symbols of it the domain holds
    open: int  # route/asteroid: sides still open; planet: empty cells around it
    meeples: list[Meeple]
    anchor: Cell  # route/asteroid: its first tile; planet: the planet's own tile

    @property
    def complete(self) -> bool:
        return self.open == 0

    @property
    def label(self) -> str:
        return KIND_LABELS[self.kind]

    def symbol_count(self) -> int:
        return sum(self.symbols.values())


class Board:
    def __init__(self) -> None:
        self.tiles: dict[Cell, Tile] = {}  # in the order they were placed
        self._nodes: dict[Cell, list[int]] = {}
        self._parent: list[int] = []
        self._domains: dict[int, Domain] = {}
        # Empty cells next to a tile, with the side kind each placed neighbour demands (-1: any).
        self._frontier: dict[Cell, list[int]] = {}

    # --- reading -------------------------------------------------------------------------------

    def domain(self, cell: Cell, feature: int) -> Domain:
        return self._domains[self._find(self._nodes[cell][feature])]

    def planet_at(self, cell: Cell) -> Domain | None:
        tile = self.tiles.get(cell)
        if tile is None or tile.planet_index is None:
            return None
        return self.domain(cell, tile.planet_index)

    def domains(self) -> Iterator[Domain]:
        return iter(self._domains.values())

    def domains_of_tile(self, cell: Cell) -> list[tuple[int, Domain]]:
        """The routes and fields a tile touches, each once with the first side (N, E, S, W order)
        by which it does."""
        found: list[tuple[int, Domain]] = []
        tile = self.tiles[cell]
        for side in range(4):
            if tile.side_feature[side] >= 0:
                domain = self.domain(cell, tile.side_feature[side])
                if all(domain is not other for _, other in found):
                    found.append((side, domain))
        return found

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

    def fit_error(self, cell: Cell, tile: Tile) -> str | None:
        """Why ``tile`` cannot lie at ``cell``, or None if it can."""
        if cell in self.tiles:
            return f"cell {list(cell)} already holds a tile"
        if not self.tiles:
            return None
        demands = self._frontier.get(cell)
        if demands is None:
            return f"a tile at {list(cell)} would touch no placed tile"
        side = _mismatch(demands, tile.side_kinds)
        if side < 0:
            return None
        return (
            f"side {SIDES[side]} of the tile at {list(cell)} shows "
            f"{SIDE_KIND_NAMES[tile.side_kinds[side]]}, but the tile to the "
            f"{DIRECTION_NAMES[side]} shows {SIDE_KIND_NAMES[demands[side]]} there"
        )

    def legal_placements(self, tile: Tile) -> list[tuple[Cell, int, Tile]]:
        """Every (cell, quarter turns, tile as it would lie) the rules allow, each look once."""
        turns = tile.distinct_rotations()
        if not self.tiles:
            return [((0, 0), quarter_turns, turned) for quarter_turns, turned in turns]
        return [
            (cell, quarter_turns, turned)
            for cell, demands in self._frontier.items()
            for quarter_turns, turned in turns
            if _mismatch(demands, turned.side_kinds) < 0
        ]

    def place(self, cell: Cell, tile: Tile) -> None:
        """Lay a tile that ``fit_error`` accepted, joining domains across its sides."""
        around = [(cell[0] + dx, cell[1] + dy) for dx, dy in AROUND]
        occupied_around = [c for c in around if c in self.tiles]
        nodes = []
        for feature in tile.features:
            node = len(self._parent)
            self._parent.append(node)
            nodes.append(node)
            if feature.kind == PLANET:
                cells = {cell, *occupied_around}
                open_count = 8 - len(occupied_around)
            else:
                cells = {cell}
                open_count = len(feature.sides)
            symbols: dict[str, int] = {}
            for symbol in feature.symbols:
                symbols[symbol] = symbols.get(symbol, 0) + 1
            self._domains[node] = Domain(node, feature.kind, cells, symbols, open_count, [], cell)
        self.tiles[cell] = tile
        self._nodes[cell] = nodes

        for side in range(4):
            own_feature = tile.side_feature[side]
            other_cell = neighbour(cell, side)
            other = self.tiles.get(other_cell)
            if own_feature < 0 or other is None:
                continue
            other_feature = other.side_feature[opposite(side)]
            root = self._union(nodes[own_feature], self._nodes[other_cell][other_feature])
            self._domains[root].open -= 2  # this side and the neighbour's side both close

        for other_cell in occupied_around:
            planet = self.planet_at(other_cell)
            if planet is not None:
                planet.open -= 1
                planet.cells.add(cell)

        self._frontier.pop(cell, None)
        for side in range(4):
            other_cell = neighbour(cell, side)
            if other_cell not in self.tiles:
                demands = self._frontier.setdefault(other_cell, [-1, -1, -1, -1])
                demands[opposite(side)] = tile.side_kinds[side]

    # --- union-find ----------------------------------------------------------------------------

    def _find(self, node: int) -> int:
        parent = self._parent
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def _union(self, a: int, b: int) -> int:
        root_a, root_b = self._find(a), self._find(b)
        if root_a == root_b:
            return root_a
        keep, gone = self._domains[root_a], self._domains[root_b]
        if len(gone.cells) > len(keep.cells):
            root_a, root_b, keep, gone = root_b, root_a, gone, keep
        self._parent[root_b] = root_a
        keep.cells |= gone.cells
        for symbol, count in gone.symbols.items():
            keep.symbols[symbol] = keep.symbols.get(symbol, 0) + count
        keep.open += gone.open
        keep.meeples.extend(gone.meeples)
        if gone.key < keep.key:
            keep.key, keep.anchor = gone.key, gone.anchor
        del self._domains[root_b]
        return root_a


def _mismatch(demands: list[int], side_kinds: tuple[int, int, int, int]) -> int:
    """The first side whose kind differs from what the neighbour demands (-1: any), or -1."""
    for side in range(4):
        if demands[side] >= 0 and demands[side] != side_kinds[side]:
            return side
    return -1
