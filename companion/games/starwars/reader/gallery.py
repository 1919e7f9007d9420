"""The user's gallery of Star Wars tiles: the generic gallery told how to read a tile's label and
what a tile shows but its badges."""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

from companion.games.starwars.models import likeness_path
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.gallery import Gallery, PieceKind
from companion.vision.likeness import Likeness


def structure(tile: Tile) -> Hashable:
    """What a tile shows but its badges: each feature's kind and the sides it touches."""
    return frozenset((feature.kind, feature.sides) for feature in tile.features)


TILES: PieceKind[Tile] = PieceKind(parse_tile, structure, likeness_path())


def tile_gallery(folder: Path | None = None, likeness: Likeness | None = None) -> Gallery[Tile]:
    """A gallery of Star Wars tiles: empty, or the one kept in ``folder``."""
    return Gallery(TILES, folder, likeness)
