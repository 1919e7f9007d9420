"""Reading a photo's tiles against the user's enrolled box: the gallery's likeness for each cell,
narrowed by the rules' fit with the cells around it.

Each cell the lattice holds is matched against every picture of the box turned the four ways.
The ways within ``CANDIDATE_WINDOW`` of its best are its candidates; a candidate that fits no
candidate of a neighbouring cell (route to route, asteroid to asteroid, space to space: the
rules of a tile's sides) is dropped, until nothing more drops. What is left decides: a cell is
read sure when its best candidate left is alike enough and far enough ahead of the next; any
other tile is a prompt with the choices left, never a guess. A cell no picture is like is not
a tile of the box (felt, a die, a hand).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from companion.games.base import Cell
from companion.games.carcassonne.geometry import OFFSETS
from companion.games.starwars.tiles import Tile
from companion.vision.gallery import Gallery
from companion.vision.gallery_match import CHOICES, GalleryMatch, SecondLook
from companion.vision.lattice import Lattice, crop, looks_printed

# Likeness bars (models/training/box_bars.py on tile-art-dev tables, docs/vision.md "Reading
# against your box"): a window less like every picture than ``not_a_tile`` holds no tile of the
# box; candidates are the ways within ``window`` of the best; a reading is sure when its best
# candidate left reaches ``sure_score`` and is ``sure_margin`` ahead of the next left, or, less far
# ahead, when a second look puts it ahead of each other candidate left: its grey picture and
# its colours each fit the window ``agreed_grey`` and ``agreed_colour`` better, or both fit
# better however little and the window is ``apart`` nearer it where the two pictures differ.
# These bars were set on the 12 tables the others were chosen on: there every close cell whose
# best was the tile laid had its grey at least 0.069 and its colours 0.053 ahead, or was at
# least 0.249 nearer where they differ; the one whose best was wrong had all three behind
# (-0.11, -0.05 and -0.07).


@dataclass(frozen=True)
class BoxBars:
    not_a_tile: float = 0.6
    window: float = 0.15
    sure_score: float = 0.7
    sure_margin: float = 0.08
    agreed_grey: float = 0.03
    agreed_colour: float = 0.03
    apart: float = 0.1

    def sure(self, score: float, margin: float) -> bool:
        """Whether a reading this alike, this far ahead of the next way left, is sure."""
        return score >= self.sure_score and margin >= self.sure_margin


SHIPPED = BoxBars()
MAX_CANDIDATES = 8


@dataclass(frozen=True)
class BoxReading:
    cell: Cell
    tile: Tile | None  # the reading, None when it is not sure
    score: float  # the likeness of the best candidate left
    margin: float  # how far it is ahead of the next candidate left (1.0 when it is the only one)
    choices: tuple[Tile, ...]  # the candidates left, likeliest first: what to offer a person
    fits_neighbours: bool  # False when no candidate fitted the cells around it
    in_box: bool = True  # False when something printed lies there like no picture of the box
    agreed: bool = False  # sure less far ahead, as the second look agrees (LookAgain)


# The box's second look at a cell's window (Gallery.second_look), the first of some ways of
# lying against the others: taken only of cells the likeness leaves close.
LookAgain = Callable[[Cell, Sequence[Tile]], SecondLook[Tile] | None]


def side_fits(tile: Tile, side: int, other: Tile) -> bool:
    """Whether ``other``, lying across side ``side`` of ``tile``, fits it by the rules."""
    return tile.demands[side] == other.faces[(side + 2) % 4]


def candidates_of(match: GalleryMatch[Tile], window: float) -> list[tuple[Tile, float]]:
    best = match.ranked[0][1]
    kept = [(tile, score) for tile, score in match.ranked if score >= best - window]
    return kept[:MAX_CANDIDATES]


def narrow(candidates: dict[Cell, list[tuple[Tile, float]]]) -> dict[Cell, bool]:
    """Drop every candidate that fits no candidate of some neighbouring cell, until none drops
    (arc consistency). A cell that would lose them all keeps them, and is marked as not
    fitting its neighbours (False); ``candidates`` is narrowed in place."""
    fits = dict.fromkeys(candidates, True)
    changed = True
    while changed:
        changed = False
        for cell, own in candidates.items():
            if not fits[cell]:
                continue
            kept = [
                (tile, score)
                for tile, score in own
                if all(
                    any(side_fits(tile, side, other) for other, _ in candidates[neighbour])
                    for side, neighbour in _neighbours(cell, candidates)
                    if fits[neighbour]
                )
            ]
            if not kept:
                fits[cell] = False
                changed = True
            elif len(kept) < len(own):
                candidates[cell] = kept
                changed = True
    return fits


def tile_type(tile: Tile) -> Tile:
    """The type of a tile whatever way it lies: the same one of its ways for all of them."""
    return min((lying for _, lying in tile.distinct_rotations()), key=lambda t: repr(t.to_json()))


def _sure(left: list[tuple[Tile, float]], bars: BoxBars) -> bool:
    score = left[0][1]
    return bars.sure(score, score - left[1][1] if len(left) > 1 else 1.0)


def _agreed(left: list[tuple[Tile, float]], look: SecondLook[Tile] | None, bars: BoxBars) -> bool:
    """Whether the second look puts the best candidate left ahead of every other one left:
    by its grey picture and its colours each by the bars, or by both however little and
    ``apart`` nearer where the two pictures differ."""
    if look is None:
        return False
    best = left[0][0]
    for rival, _ in left[1:]:
        grey = look.grey[best] - look.grey[rival]
        colour = look.colour[best] - look.colour[rival]
        both = grey >= bars.agreed_grey and colour >= bars.agreed_colour
        where_apart = grey > 0 and colour > 0 and look.nearer[rival] >= bars.apart
        if not (both or where_apart):
            return False
    return True


def _within_counts(
    candidates: dict[Cell, list[tuple[Tile, float]]],
    sure: dict[Cell, bool],
    fits: dict[Cell, bool],
    counts: Mapping[Tile, int],
    bars: BoxBars,
) -> None:
    """Narrow ``candidates`` and ``sure`` (in place) by what the box holds: a type read sure as
    often as the box has it is taken from the candidates of every cell not read sure, which may
    then be; a type read sure more often than that is asked about wherever it is read."""
    changed = True
    while changed:
        changed = False
        used: dict[Tile, list[Cell]] = {}
        for cell, left in candidates.items():
            if sure[cell]:
                used.setdefault(tile_type(left[0][0]), []).append(cell)
        for kind, cells in used.items():
            if len(cells) > counts.get(kind, len(cells)):
                for cell in cells:
                    sure[cell] = False
                changed = True
        gone = {kind for kind, cells in used.items() if len(cells) >= counts.get(kind, len(cells) + 1)}
        for cell, left in candidates.items():
            if sure[cell] or not fits[cell]:
                continue
            kept = [(tile, score) for tile, score in left if tile_type(tile) not in gone]
            if kept and len(kept) < len(left):
                candidates[cell] = kept
                sure[cell] = _sure(kept, bars)
                changed = changed or sure[cell]


def _neighbours(cell: Cell, cells: dict[Cell, list[tuple[Tile, float]]]) -> list[tuple[int, Cell]]:
    x, y = cell
    return [(side, (x + dx, y + dy)) for side, (dx, dy) in enumerate(OFFSETS) if (x + dx, y + dy) in cells]


def read_against_box(
    matches: dict[Cell, GalleryMatch[Tile] | None],
    bars: BoxBars = SHIPPED,
    printed: Collection[Cell] = (),
    counts: Mapping[Tile, int] | None = None,
    second_look: LookAgain | None = None,
) -> list[BoxReading]:
    """The readings of the cells whose windows the gallery matched. A cell no picture is like
    holds no tile of the box and is left out, unless it is among ``printed`` (cells where
    something printed lies, not felt): that is a tile the box's pictures do not show well, read
    as not sure, ``in_box`` False, with the likeliest ways to offer. ``counts``: how many tiles
    of each type the box holds (by ``tile_type``), where the user has said: a type whose
    copies are all read elsewhere is no longer a candidate, and more sure readings of a type
    than the box holds are all asked about. ``second_look``: how the candidates left of a cell
    alike enough but not far enough ahead fit by grey and colours; the cell is sure when both
    agree on its best (``BoxReading.agreed``)."""
    candidates = {
        cell: candidates_of(match, bars.window)
        for cell, match in matches.items()
        if match is not None and match.ranked and match.ranked[0][1] >= bars.not_a_tile
    }
    fits = narrow(candidates)
    sure = {cell: fits[cell] and _sure(left, bars) for cell, left in candidates.items()}
    agreed: set[Cell] = set()
    if second_look is not None:
        for cell, left in candidates.items():
            close = fits[cell] and not sure[cell] and len(left) > 1 and left[0][1] >= bars.sure_score
            if close and _agreed(left, second_look(cell, [tile for tile, _ in left]), bars):
                sure[cell] = True
                agreed.add(cell)
    if counts is not None:
        _within_counts(candidates, sure, fits, counts, bars)
    readings = []
    for cell, left in candidates.items():
        score = left[0][1]
        margin = score - left[1][1] if len(left) > 1 else 1.0
        readings.append(
            BoxReading(
                cell,
                left[0][0] if sure[cell] else None,
                score,
                margin,
                tuple(tile for tile, _ in left),
                fits[cell],
                agreed=cell in agreed and sure[cell],
            )
        )
    for cell in printed:
        match = matches.get(cell)
        if cell in candidates or match is None or not match.ranked:
            continue
        likeliest = tuple(tile for tile, _ in match.ranked[:CHOICES])
        readings.append(BoxReading(cell, None, match.ranked[0][1], 0.0, likeliest, True, in_box=False))
    return readings


def look_at_cells(
    box: Gallery[Tile], view: np.ndarray, lattice: Lattice, cells: list[Cell]
) -> tuple[dict[Cell, GalleryMatch[Tile] | None], set[Cell]]:
    """Each cell's window in the rectified ``view`` matched against the box, and the cells
    whose tile square is printed texture: what ``read_against_box`` reads."""
    windows = {cell: crop(view, lattice.centre(cell)) for cell in cells}
    matches = {cell: box.match(window, second_opinions=False) for cell, window in windows.items()}
    return matches, {cell for cell, window in windows.items() if looks_printed(window)}


def second_look_at(box: Gallery[Tile], view: np.ndarray, lattice: Lattice) -> LookAgain:
    """The box's second look at the cells of the rectified ``view`` (``LookAgain``)."""

    def look(cell: Cell, ways: Sequence[Tile]) -> SecondLook[Tile] | None:
        return box.second_look(crop(view, lattice.centre(cell)), ways)

    return look
