"""The castle's board: the core board on a castle's shape, with followers as its pieces and the
Castle's words for a tile that does not fit."""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.base import Cell
from companion.games.carcassonne.board import Board, Domain
from companion.games.carcassonne.geometry import SIDES, neighbour
from companion.games.castle.layout import Layout
from companion.games.castle.tiles import RULES, CastleTile


@dataclass(frozen=True, slots=True)
class Follower:
    """A follower standing on feature ``feature`` (its index on the tile) of the tile at ``cell``:
    a herald, knight, squire or merchant by the feature's kind."""

    number: int  # in the order followers were placed, so two alike stay apart
    player: str
    cell: Cell
    feature: int


CastleDomain = Domain[Follower]


class CastleBoard(Board[CastleTile, CastleDomain]):
    def __init__(self, layout: Layout) -> None:
        super().__init__(RULES, Domain, layout.shape)
        self.layout = layout
        self._start_at = {(start.cell, start.side): index for index, start in enumerate(layout.starts)}

    def place_error(self, cell: Cell, tile: CastleTile) -> str | None:
        """Why ``tile`` cannot lie at ``cell``, in the Castle's words (None: it can)."""
        if cell not in self.layout.interior:
            return f"{list(cell)} is not a space for a tile inside the castle"
        if cell in self.tiles:
            return f"{list(cell)} already holds a tile"
        return self.fit_error(cell, tile)

    def fit_error(self, cell: Cell, tile: CastleTile) -> str | None:
        reason = super().fit_error(cell, tile)
        if reason is not None and "no full side" in reason:
            return (
                f"a tile at {list(cell)} needs a full side against a start space or a placed tile "
                "(corner to corner is not enough)"
            )
        return reason

    def misfit_reason(self, cell: Cell, tile: CastleTile, side: int, demand: int) -> str:
        return f"side {SIDES[side]}: a path must be continued across the edge"

    def start_at(self, cell: Cell, side: int) -> int | None:
        """The index of the start space on side ``side`` of ``cell``, if one lies there."""
        return self._start_at.get((cell, side))

    def followers(self) -> list[Follower]:
        """Every follower on the board, in the order they were placed."""
        found = [f for domain in self.domains() for f in domain.pieces]
        return sorted(found, key=lambda f: f.number)

    def touched_by(self, cell: Cell) -> list[CastleDomain]:
        """The domains the tile at ``cell`` touches or faces: its own features', and those of the
        tiles and start spaces across its sides (a tower's last open half closed by a courtyard is
        completed by this tile too). Each once, the tile's own first."""
        found: dict[int, CastleDomain] = {}
        tile = self.tiles[cell]
        for index in range(len(tile.features)):
            domain = self.domain(cell, index)
            found.setdefault(id(domain), domain)
        facing = RULES.facing
        for side in range(4):
            other = neighbour(cell, side)
            placed = self.tiles.get(other)
            if placed is not None:
                owner = placed.part_feature
                for own in (side * 3, side * 3 + 1, side * 3 + 2):
                    index = owner[facing[own]]
                    if index >= 0:
                        domain = self.domain(other, index)
                        found.setdefault(id(domain), domain)
                continue
            start = self.start_at(cell, side)
            if start is not None:
                for index in range(len(self.layout.starts[start].features)):
                    domain = self.start_domain(start, index)
                    found.setdefault(id(domain), domain)
        return list(found.values())
