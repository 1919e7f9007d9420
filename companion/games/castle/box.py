"""The box of castle tiles: our approximation (``box.json``), since the real list of the 60 tiles
is not public. The simulator draws from it and the phone offers its shapes; nothing in scoring
reads it (every record writes its tiles as they lie)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from companion.games.castle.tiles import CastleTile, parse_tile


@dataclass(frozen=True)
class BoxShape:
    """One shape of the box (our approximation): how it lies as listed, how many there are."""

    id: str
    tile: CastleTile
    count: int
    written: dict[str, Any]


@cache
def box() -> tuple[BoxShape, ...]:
    data = json.loads(Path(__file__).with_name("box.json").read_text(encoding="utf-8"))
    shapes = []
    for entry in data["tiles"]:
        written = {"features": entry["features"]}
        tile, _ = parse_tile(written, f'the box\'s tile "{entry["id"]}"')
        shapes.append(BoxShape(entry["id"], tile, entry["count"], written))
    return tuple(shapes)
