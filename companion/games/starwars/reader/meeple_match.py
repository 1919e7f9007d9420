"""Which of the meeples seen on a re-read tile the record already has, and which are new.

A tile is re-read whenever anything near it changes, so most meeples seen are ones the record
already has. Telling them from a new one matters most on a planet, where a second meeple may
join the first (a planet attack, or a player adding to their own): the camera may then see only
one of the two. A seen meeple is taken for a known one only when it could be that meeple: the
same feature, and not clearly another colour. (Sizes are not compared: the camera tells them
apart less surely than colours, and a misjudged size must not make a known meeple new.) When
it stands at another spot than that meeple was last seen at, the match is only a guess: the
tracker asks if a new meeple could have come in its place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.starwars.board import Meeple
from companion.vision.reader import SpotReading

CLEARLY = 0.9  # a colour this likely, among standing meeples, rules the others out


@dataclass
class CellMatch:
    known: list[tuple[SpotReading, Meeple]] = field(default_factory=list)  # seen where expected
    moved: list[tuple[SpotReading, Meeple]] = field(default_factory=list)  # seen, at another spot
    new: list[tuple[SpotReading, int | None]] = field(default_factory=list)  # none known explains
    unseen: list[Meeple] = field(default_factory=list)  # known meeples not seen


def clearly_other(spot: SpotReading, part: int, value: str) -> bool:
    """Whether what stands at ``spot`` is clearly not of this colour (``part`` 0) or size (1)."""
    totals = spot.standing_by(part)
    standing = sum(totals.values())
    if standing <= 0:
        return False
    return any(p / standing >= CLEARLY for key, p in totals.items() if key != value)


def match_cell(
    seen: list[tuple[SpotReading, int | None]],
    expected: list[Meeple],
    colour_of: dict[str, str],
    last_spot: dict[int, str],
) -> CellMatch:
    """Pair the meeples seen on one tile (each with the feature index its spot is on) with the
    meeples the record has there. A meeple seen at the spot it was last seen at is matched
    first; then one anywhere on its feature."""
    result = CellMatch()
    left = list(expected)
    unmatched: list[tuple[SpotReading, int | None]] = []

    def could_be(spot: SpotReading, index: int | None, meeple: Meeple) -> bool:
        return meeple.feature_index == index and not clearly_other(spot, 0, colour_of[meeple.player])

    for spot, index in seen:
        same = next((m for m in left if could_be(spot, index, m) and last_spot.get(m.id) == spot.spot), None)
        if same is None:
            unmatched.append((spot, index))
            continue
        left.remove(same)
        result.known.append((spot, same))
    for spot, index in unmatched:
        other = next((m for m in left if could_be(spot, index, m)), None)
        if other is None:
            result.new.append((spot, index))
            continue
        left.remove(other)
        if other.id in last_spot:
            result.moved.append((spot, other))
        else:  # entered on the phone, never seen: wherever it stands is where it is
            result.known.append((spot, other))
    result.unseen = left
    return result
