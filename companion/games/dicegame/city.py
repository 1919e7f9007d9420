"""The city a turn lays from its dice: where each die lies, whether a die fits, and the cities.

Each turn starts an empty layout. A city die is laid at a cell with a rotation; every side that
touches a die already laid must match it (city meets city, white meets white), and a die may touch
nothing (a second city). A city is a set of segments joined where dice meet; it is closed when
every side of its segments meets another die. Its size is the number of dice it touches.

Sides are numbered in N, E, S, W order (``faces.SIDES``); the side facing back across side ``s``
is ``(s + 2) % 4``. Replaying a record lays thousands of dice, so the work is kept to lookups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from companion.games.base import Cell
from companion.games.dicegame.faces import SIDE_BIT, SIDES

# the neighbour across each side, by side number
STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))
STEP = dict(zip(SIDES, STEPS, strict=True))
FACING = {side: SIDES[(index + 2) % 4] for index, side in enumerate(SIDES)}


@dataclass(frozen=True, slots=True)
class LaidDie:
    face: str
    at: Cell
    rotation: int
    segments: tuple[int, ...]  # side bits of each city segment, as the die lies
    sides: int  # every side with city on it
    segment_at: tuple[int, int, int, int]  # by side number: the segment touching it, or -1

    @classmethod
    def make(cls, face: str, at: Cell, rotation: int, segments: tuple[int, ...]) -> LaidDie:
        return cls(face, at, rotation, segments, *_shape(segments))

    def has_city(self, side: str) -> bool:
        return bool(self.sides & SIDE_BIT[side])


@cache
def _shape(segments: tuple[int, ...]) -> tuple[int, tuple[int, int, int, int]]:
    """Every side with city, and for each side the segment touching it (-1: none)."""
    sides = 0
    for segment in segments:
        sides |= segment
    at = [next((n for n, segment in enumerate(segments) if segment & (1 << side)), -1) for side in range(4)]
    return sides, (at[0], at[1], at[2], at[3])


@dataclass(frozen=True, slots=True)
class City:
    dice: tuple[int, ...]  # the dice it touches, by laying order
    closed: bool
    open_sides: tuple[tuple[int, str], ...]  # (die, side) where its city meets no die

    @property
    def size(self) -> int:
        return len(self.dice)


def neighbour(at: Cell, side: str) -> Cell:
    dx, dy = STEP[side]
    return (at[0] + dx, at[1] + dy)


def cell_text(at: Cell) -> str:
    return f"[{at[0]}, {at[1]}]"


def misfit(dice: Sequence[LaidDie], where: Mapping[Cell, int], new: LaidDie) -> str | None:
    """Why ``new`` cannot be laid beside ``dice`` (``where``: cell -> die), or None if it fits."""
    x, y = new.at
    if new.at in where:
        held = dice[where[new.at]]
        return f"the cell {cell_text(new.at)} already holds the {held.face} laid this turn"
    mine = new.sides
    for side in range(4):
        dx, dy = STEPS[side]
        other = where.get((x + dx, y + dy))
        if other is None:
            continue
        theirs = dice[other]
        facing = (side + 2) % 4
        if bool(mine & (1 << side)) != bool(theirs.sides & (1 << facing)):
            return (
                f"the {new.face} at {cell_text(new.at)} (rotation {new.rotation}) "
                f"has {_city_or_not(mine, side)} on its {SIDES[side]} side, but the {theirs.face} at "
                f"{cell_text(theirs.at)} has {_city_or_not(theirs.sides, facing)} on its {SIDES[facing]} side"
            )
    return None


def fits(dice: Sequence[LaidDie], where: Mapping[Cell, int], at: Cell, sides: int) -> bool:
    """Whether city on ``sides`` (bits) at the empty cell ``at`` matches every die it touches."""
    x, y = at
    for side in range(4):
        dx, dy = STEPS[side]
        other = where.get((x + dx, y + dy))
        if other is not None and bool(sides & (1 << side)) != bool(
            dice[other].sides & (1 << ((side + 2) % 4))
        ):
            return False
    return True


def _city_or_not(sides: int, side: int) -> str:
    return "city" if sides & (1 << side) else "no city"


def cities(dice: Sequence[LaidDie]) -> list[City]:
    """Every city of a layout, in the order of its first die (then of that die's segments)."""
    where = {die.at: index for index, die in enumerate(dice)}
    # one node per segment, numbered die * 4 + segment; union-find joins segments that meet
    parent = list(range(4 * len(dice)))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    gaps: list[tuple[int, int, str]] = []  # (node, die, side) where a city meets no die
    for index, die in enumerate(dice):
        x, y = die.at
        for side, segment in enumerate(die.segment_at):
            if segment < 0:
                continue
            dx, dy = STEPS[side]
            other = where.get((x + dx, y + dy))
            if other is None:
                gaps.append((index * 4 + segment, index, SIDES[side]))
            elif other > index:  # each meeting once; laid dice match, so it has city facing back
                theirs = dice[other].segment_at[(side + 2) % 4]
                parent[root(index * 4 + segment)] = root(other * 4 + theirs)

    members: dict[int, list[int]] = {}
    for index, die in enumerate(dice):
        for segment in range(len(die.segments)):
            members.setdefault(root(index * 4 + segment), []).append(index * 4 + segment)
    open_of: dict[int, list[tuple[int, str]]] = {}
    for node, index, letter in gaps:
        open_of.setdefault(root(node), []).append((index, letter))
    found = []
    for group, nodes in members.items():
        touched = tuple(sorted({node // 4 for node in nodes}))
        gaps_here = tuple(sorted(open_of.get(group, ())))
        found.append((min(nodes), City(touched, not gaps_here, gaps_here)))
    found.sort(key=lambda pair: pair[0])
    return [city for _, city in found]


def candidate_cells(where: Mapping[Cell, int]) -> list[Cell]:
    """The empty cells next to a laid die, diagonals included; [0, 0] for an empty layout."""
    if not where:
        return [(0, 0)]
    found = {
        (x + dx, y + dy)
        for (x, y) in where
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        if (x + dx, y + dy) not in where
    }
    return sorted(found, key=lambda cell: (cell[1], cell[0]))


def largest_closed(found: Sequence[City]) -> City | None:
    """The largest closed city (the first such, on a tie), or None when no city is closed."""
    best: City | None = None
    for city in found:
        if city.closed and (best is None or city.size > best.size):
            best = city
    return best
