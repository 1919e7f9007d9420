"""A new meeple read from what changed on its tile, where the meeple model sees none.

On art the meeple model was never trained on (a real box's planets above all) it can miss a
meeple outright: the pair (now, bare) reads "nothing" where the picture plainly changed. What
changed since the tile lay bare is measured without knowing the art (``vision.meeples``
``changed_patches``), so a patch of a meeple's size and shape, at a spot where the player of
the turn may place a meeple, that appeared during this turn and that no meeple known on the
tile explains, is that meeple. Its size is read from the patch's area, where the two sizes lie
clearly apart; between them it is asked about. Knows the spots, not the rules: the tracker
says where a meeple may be placed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.games.base import Cell
from companion.games.starwars.spots import SPOT_XY, SPOTS, feature_letter
from companion.games.starwars.tiles import Tile
from companion.vision.reader import ChangePatch

# A meeple's patch at the mat's 48 px a tile. On the real art's first three games (seeds
# 9000-9002, models/training/evaluate.py --real-art) coloured meeples changed 94-145 px (small)
# and 171-225 px (large), each patch at most 20 px across; patches of a tile laid beside it or
# nudged are long and thin, or reach past the tile's edge.
MIN_AREA = 60
MAX_EXTENT = 24
MIN_FILL = 0.3  # area / extent², a compact blob (a nudged edge's line is far less)
INSIDE = 0.45  # its centre lies within this of the tile's centre, in tiles
# The size: the chance it is large rises with the area about the middle of the two sizes,
# 158 px, by e per 3 px; sure enough to record at 0.98 (small to 146 px, large from 170 px).
SIZE_MIDDLE = 158.0
SIZE_SCALE = 3.0
# A pale (white) meeple on pale art changes the picture less and its patch is cut smaller than
# the meeple, so its area does not tell its size (seen: 25-139 px, each colour channel 100 or
# more); nor does a faint patch's
PALE = 90
MIN_CONTRAST = 50.0
EXPLAINED = 0.15  # a patch this near a spot a known meeple holds (or the model reads) is that
NEAR_SPOT = 0.15  # the spot a new meeple stands at lies this near its patch's centre
SAME_PATCH = 0.08  # a patch seen again, in tiles


@dataclass(frozen=True)
class ChangedMeeple:
    """A meeple read from a patch: where, and how likely it is large (None: its size cannot be
    told from its patch)."""

    cell: Cell
    spot: str
    letter: str  # the record's feature name: a side letter or "planet"
    x: float  # the patch's centre, in tiles from the cell's
    y: float
    large_chance: float | None


def meeple_like(patch: ChangePatch) -> bool:
    return (
        patch.area >= MIN_AREA
        and patch.extent <= MAX_EXTENT
        and patch.area >= MIN_FILL * patch.extent**2
        and abs(patch.x) <= INSIDE
        and abs(patch.y) <= INSIDE
    )


def large_chance(patch: ChangePatch) -> float | None:
    """How likely the patch is a large meeple's; None when its area cannot tell."""
    if patch.contrast < MIN_CONTRAST or min(patch.colour) >= PALE:
        return None
    return 1.0 / (1.0 + math.exp(-(patch.area - SIZE_MIDDLE) / SIZE_SCALE))


def _near(patch: ChangePatch, spot: str, reach: float) -> bool:
    x, y = SPOT_XY[spot]
    return math.hypot(patch.x - x, patch.y - y) <= reach


def unexplained(
    cell: Cell, tile: Tile, patches: tuple[ChangePatch, ...], held: set[str]
) -> list[ChangedMeeple]:
    """The meeple-like patches of a cell that no spot in ``held`` (known meeples, and what the
    model reads) explains, each at the one spot of the tile that takes a meeple near it."""
    found = []
    for patch in patches:
        if not meeple_like(patch) or any(_near(patch, spot, EXPLAINED) for spot in held):
            continue
        spots = [s for s in SPOTS if feature_letter(tile, s) is not None and _near(patch, s, NEAR_SPOT)]
        if len(spots) != 1:
            continue
        letter = feature_letter(tile, spots[0])
        assert letter is not None
        found.append(ChangedMeeple(cell, spots[0], letter, patch.x, patch.y, large_chance(patch)))
    return found


class FirstSeen:
    """When each patch was first seen, by the number of tiles on the board then: a patch that
    appeared in an earlier turn (a meeple missed then) is never read as this turn's meeple."""

    def __init__(self) -> None:
        self._seen: dict[Cell, list[tuple[float, float, int]]] = {}

    def turn_of(self, cell: Cell, patch_xy: tuple[float, float], tiles_now: int) -> int:
        seen = self._seen.setdefault(cell, [])
        for x, y, tiles in seen:
            if math.hypot(x - patch_xy[0], y - patch_xy[1]) <= SAME_PATCH:
                return tiles
        seen.append((patch_xy[0], patch_xy[1], tiles_now))
        return tiles_now
