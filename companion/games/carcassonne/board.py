"""The board: placed tiles, the domains their features form, and where a tile may go.

Features join across facing parts when the rules say their kinds join (a union-find over
features), and a start segment joins like a placed tile. Every domain keeps what a game reads
at any moment: its cells, counted attributes, how many of its parts still face an empty space
a tile may take (``open``), its pieces, a stable key and an anchor cell.

A part is open while it faces an empty space that may take a tile. It is closed once it faces
a placed tile or a start segment (joined or not) or the wall (any cell outside a bounded board).
Legal placements stay fast because the board keeps a frontier: every empty space that may take
a tile, with what each placed neighbour or start segment demands of the side facing it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from companion.games.base import Cell
from companion.games.carcassonne.geometry import OFFSETS, SIDES, opposite
from companion.games.carcassonne.rules import TileRules
from companion.games.carcassonne.shape import BoardShape, StartSegment
from companion.games.carcassonne.tiles import PartFeature, Tile

PieceT = TypeVar("PieceT")
TileT = TypeVar("TileT", bound=Tile[Any])
DomainT = TypeVar("DomainT", bound="Domain[Any]")

ORIGIN: Cell = (0, 0)  # where the first tile of an unbounded board is offered


@dataclass(slots=True, eq=False)
class Domain(Generic[PieceT]):
    """One joined feature, as far as it reaches now."""

    # The first feature that formed it. When domains merge, the merged one keeps the oldest key
    # (and that feature's anchor), so a key names one domain at a time.
    key: int
    kind: str
    cells: set[Cell]  # the placed tiles it covers, each once
    counts: dict[str, int]  # counted attributes summed over its features
    open: int  # parts still facing an empty space that may take a tile
    pieces: list[PieceT]
    anchor: Cell  # the cell of the oldest feature (a start segment's: where it lies, on the wall)
    starts: frozenset[int] = frozenset()  # the start segments it covers, by index in the shape

    @property
    def complete(self) -> bool:
        return self.open == 0

    @property
    def tile_count(self) -> int:
        """Tiles it covers, a start segment counting as one."""
        return len(self.cells) + len(self.starts)


# What a start segment shows across its side, read like a placed tile: the feature on each part
# (indexed by the number of the part it faces), the union-find nodes of its features, and them.
_Across = tuple[Sequence[int], list[int], Sequence[PartFeature]]


class Board(Generic[TileT, DomainT]):
    def __init__(self, rules: TileRules, domain_type: type[DomainT], shape: BoardShape | None = None) -> None:
        self.rules = rules
        self.shape = shape
        self.tiles: dict[Cell, TileT] = {}  # in the order they were placed
        self._domain_type = domain_type
        self._interior = shape.interior if shape is not None else None
        self._nodes: dict[Cell, list[int]] = {}
        self._parent: list[int] = []
        self._domains: dict[int, DomainT] = {}
        # Empty spaces next to a tile or start segment, with the packed face each neighbour
        # demands of the side facing it (-1: nothing there, anything fits).
        self._frontier: dict[Cell, list[int]] = {}
        self._starts: dict[tuple[Cell, int], _Across] = {}
        self._start_nodes: list[list[int]] = []
        for index, start in enumerate(shape.starts if shape is not None else ()):
            self._lay_start(index, start)

    # --- reading -------------------------------------------------------------------------------

    def is_space(self, cell: Cell) -> bool:
        """Whether ``cell`` may ever hold a tile (every cell of an unbounded board may)."""
        return self._interior is None or cell in self._interior

    def domain(self, cell: Cell, feature: int) -> DomainT:
        return self._domains[self._find(self._nodes[cell][feature])]

    def start_domain(self, start: int, feature: int) -> DomainT:
        """The domain of feature ``feature`` of start segment ``start`` (its index in the shape)."""
        return self._domains[self._find(self._start_nodes[start][feature])]

    def domains(self) -> Iterator[DomainT]:
        return iter(self._domains.values())

    def domains_of_tile(self, cell: Cell) -> list[tuple[int, DomainT]]:
        """The domains a tile touches through its parts, each once with the first part (in part
        order) by which it does."""
        found: list[tuple[int, DomainT]] = []
        owner = self.tiles[cell].part_feature
        for part, index in enumerate(owner):
            if index >= 0:
                domain = self.domain(cell, index)
                if all(domain is not other for _, other in found):
                    found.append((part, domain))
        return found

    # --- placing -------------------------------------------------------------------------------

    def fit_error(self, cell: Cell, tile: TileT) -> str | None:
        """Why ``tile`` cannot lie at ``cell``, or None if it can."""
        if cell in self.tiles:
            return f"cell {list(cell)} already holds a tile"
        if self._interior is None:
            if not self.tiles:
                return None  # the first tile of an unbounded board goes anywhere
        elif cell not in self._interior:
            return f"cell {list(cell)} is not a space for a tile"
        demands = self._frontier.get(cell)
        if demands is None:
            if self._interior is None:
                return f"a tile at {list(cell)} would touch no placed tile"
            return f"a tile at {list(cell)} would have no full side against a placed tile or a start segment"
        side = misfit(demands, tile.faces)
        if side < 0:
            return None
        return self.misfit_reason(cell, tile, side, demands[side])

    def misfit_reason(self, cell: Cell, tile: TileT, side: int, demand: int) -> str:
        """Why side ``side`` of ``tile`` at ``cell`` does not fit (a game words it its own way)."""
        return f"side {SIDES[side]} of the tile at {list(cell)} does not fit what lies across it"

    def legal_placements(self, tile: TileT) -> list[tuple[Cell, int, TileT]]:
        """Every (cell, quarter turns, tile as it would lie) the rules allow, each look once."""
        turns = tile.distinct_rotations()
        if self._interior is None and not self.tiles:
            return [(ORIGIN, quarter_turns, turned) for quarter_turns, turned in turns]
        return [
            (cell, quarter_turns, turned)
            for cell, demands in self._frontier.items()
            for quarter_turns, turned in turns
            if fits(demands, turned.faces)
        ]

    def place(self, cell: Cell, tile: TileT) -> None:
        """Lay a tile that ``fit_error`` accepted, joining domains across its parts."""
        # Locals throughout: this runs for every tile of every replay and simulated game.
        side_parts, facing, joins = self.rules.side_part_numbers, self.rules.facing, self.rules.join_pairs
        owner, features, tile_demands = tile.part_feature, tile.features, tile.demands
        tiles, all_nodes, domains = self.tiles, self._nodes, self._domains
        interior, starts, frontier = self._interior, self._starts, self._frontier
        find = self._find
        # A domain for each feature, every part open: each that faces something closes below.
        parent, make = self._parent, self._domain_type
        nodes = []
        for feature in features:
            node = len(parent)
            parent.append(node)
            nodes.append(node)
            counts: dict[str, int] = {}
            for name, count in feature.counts:
                counts[name] = counts.get(name, 0) + count
            domains[node] = make(node, feature.kind, {cell}, counts, len(feature.parts), [], cell)
        tiles[cell] = tile
        all_nodes[cell] = nodes
        frontier.pop(cell, None)
        x, y = cell
        far_owner: Sequence[int]
        far_features: Sequence[PartFeature]
        for side in range(4):
            dx, dy = OFFSETS[side]
            other = (x + dx, y + dy)
            placed = tiles.get(other)
            if placed is not None:
                far_owner, far_nodes, far_features = placed.part_feature, all_nodes[other], placed.features
            elif starts and (cell, side) in starts:
                far_owner, far_nodes, far_features = starts[(cell, side)]
            elif interior is None or other in interior:
                frontier.setdefault(other, [-1, -1, -1, -1])[opposite(side)] = tile_demands[side]
                continue
            else:  # the wall: our parts on this side are closed for good
                for part in side_parts[side]:
                    if owner[part] >= 0:
                        domains[find(nodes[owner[part]])].open -= 1
                continue
            for part in side_parts[side]:
                theirs = far_owner[facing[part]]
                mine = owner[part]
                if theirs >= 0:
                    if mine >= 0 and (features[mine].kind, far_features[theirs].kind) in joins:
                        # Both parts close: they face each other.
                        domains[self._union(nodes[mine], far_nodes[theirs])].open -= 2
                        continue
                    # Their part faced an empty space until now.
                    domains[find(far_nodes[theirs])].open -= 1
                if mine >= 0:
                    domains[find(nodes[mine])].open -= 1

    # --- start segments ------------------------------------------------------------------------

    def _lay_start(self, index: int, start: StartSegment[Any]) -> None:
        rules = self.rules
        # The segment is read as the facing side of a tile lying across the edge, so a tile
        # placed at ``start.cell`` meets it exactly as it meets a placed neighbour.
        owner = [-1] * rules.part_count
        for number, feature in enumerate(start.features):
            for part in feature.parts:
                if rules.side_of(part) != start.side:
                    raise ValueError(
                        f"the start segment on side {SIDES[start.side]} of {list(start.cell)} may touch "
                        f"only that side's parts, not {rules.part_names[part]}"
                    )
                if owner[rules.facing[part]] >= 0:
                    raise ValueError(f"two features of a start segment touch {rules.part_names[part]}")
                owner[rules.facing[part]] = number
        # Its parts all face ``start.cell``, an empty space for now, so they start open. It
        # covers no cell (it counts through ``starts``) and is anchored where it lies.
        nodes = []
        for feature in start.features:
            node = len(self._parent)
            self._parent.append(node)
            nodes.append(node)
            counts: dict[str, int] = {}
            for name, count in feature.counts:
                counts[name] = counts.get(name, 0) + count
            self._domains[node] = self._domain_type(
                node, feature.kind, set(), counts, len(feature.parts), [], start.lies_at, frozenset((index,))
            )
        self._start_nodes.append(nodes)
        self._starts[(start.cell, start.side)] = (owner, nodes, start.features)
        _, demands = rules.signature(owner, start.features)
        self._frontier.setdefault(start.cell, [-1, -1, -1, -1])[start.side] = demands[opposite(start.side)]

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
        for name, count in gone.counts.items():
            keep.counts[name] = keep.counts.get(name, 0) + count
        keep.open += gone.open
        keep.pieces.extend(gone.pieces)
        if gone.starts:
            keep.starts = keep.starts | gone.starts
        if gone.key < keep.key:
            keep.key, keep.anchor = gone.key, gone.anchor
        del self._domains[root_b]
        return root_a


def fits(demands: Sequence[int], faces: tuple[int, int, int, int]) -> bool:
    """Whether every side shows what its neighbour demands (-1: anything). Unrolled: this runs
    for every frontier space and rotation of every tile asked about."""
    d = demands[0]
    if d >= 0 and d != faces[0]:
        return False
    d = demands[1]
    if d >= 0 and d != faces[1]:
        return False
    d = demands[2]
    if d >= 0 and d != faces[2]:
        return False
    d = demands[3]
    return d < 0 or d == faces[3]


def misfit(demands: Sequence[int], faces: tuple[int, int, int, int]) -> int:
    """The first side whose face differs from what the neighbour demands (-1: any), or -1."""
    for side in range(4):
        if demands[side] >= 0 and demands[side] != faces[side]:
            return side
    return -1
