"""The bundled Star Wars tile catalog: our approximation, loaded from catalog.json.

The real tile list is not public (shared/FACTS.md); see the note in catalog.json. Nothing in
the rules depends on this module: it gives the simulator a bag of tiles and records a compact
way to name a tile.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from companion.games.starwars.tiles import Tile, tile_from_mapping


@dataclass(frozen=True, slots=True)
class CatalogTile:
    id: str
    name: str
    count: int
    tile: Tile  # as it lies at rotation 0
    start: bool = False


@dataclass(frozen=True, slots=True)
class Catalog:
    note: str
    tiles: tuple[CatalogTile, ...]

    def get(self, tile_id: str) -> CatalogTile | None:
        return _index(self).get(tile_id)

    @property
    def start(self) -> CatalogTile:
        return next(t for t in self.tiles if t.start)

    def bag(self) -> list[str]:
        """Every tile but the start tile, one id per physical tile, in catalog order."""
        return [t.id for t in self.tiles if not t.start for _ in range(t.count)]

    def total(self) -> int:
        return sum(t.count for t in self.tiles)


@cache
def _index(catalog: Catalog) -> dict[str, CatalogTile]:
    return {t.id: t for t in catalog.tiles}


@cache
def load_catalog() -> Catalog:
    text = resources.files(__package__).joinpath("catalog.json").read_text(encoding="utf-8")
    data = json.loads(text)
    tiles = tuple(
        CatalogTile(
            id=entry["id"],
            name=entry["name"],
            count=entry["count"],
            tile=tile_from_mapping({"features": entry["features"]}),
            start=entry.get("start", False),
        )
        for entry in data["tiles"]
    )
    catalog = Catalog(note=data["note"], tiles=tiles)
    if catalog.total() != data["total"] or sum(t.start for t in tiles) != 1:
        raise ValueError("catalog.json is inconsistent: check its total and its one start tile")
    return catalog
