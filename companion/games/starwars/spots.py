"""Where meeples stand on a Star Wars tile, as the camera sees it.

A meeple on a route or asteroid field stands near one of the sides that feature touches; on a
planet it stands on the planet, where two can stand side by side during a planet attack. These
six spots are what the camera reports; this module turns a spot into the record's feature letter.
"""

from __future__ import annotations

from companion.games.starwars.tiles import PLANET, SIDES, Tile

# Spot positions in tile widths from the tile's centre, x east and y south.
SPOTS: tuple[str, ...] = ("N", "E", "S", "W", "P1", "P2")
SPOT_XY: dict[str, tuple[float, float]] = {
    "N": (0.0, -0.3),
    "E": (0.3, 0.0),
    "S": (0.0, 0.3),
    "W": (-0.3, 0.0),
    # two meeples on one planet stand corner to corner: side by side they would overlap
    "P1": (-0.15, -0.15),
    "P2": (0.15, 0.15),
}
PLANET_SPOTS = ("P1", "P2")


def feature_letter(tile: Tile, spot: str) -> str | None:
    """The record's name for the feature a meeple at ``spot`` stands on: the first side (in N,
    E, S, W order) of that feature, or "planet". None when nothing there takes a meeple."""
    if spot in PLANET_SPOTS:
        return PLANET if tile.planet_index is not None else None
    index = tile.side_feature[SIDES.index(spot)]
    if index < 0:
        return None
    return SIDES[tile.features[index].sides[0]]


def spots_of(tile: Tile, feature: str) -> tuple[str, ...]:
    """Every spot where a meeple on ``feature`` (a side letter or "planet") may be seen."""
    if feature == PLANET:
        return PLANET_SPOTS if tile.planet_index is not None else ()
    index = tile.side_feature[SIDES.index(feature)]
    if index < 0:
        return ()
    return tuple(SIDES[side] for side in tile.features[index].sides)
