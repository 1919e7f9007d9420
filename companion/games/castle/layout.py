"""The castle a record plays in: the interior's spaces, the start spaces on the wall and the
corner towers of the score track, read from the header's ``board`` (castle.md, BOARD).

``"standard"`` names the board this package ships (``board.json``), our approximation: the
real castle's interior, start spaces and corner spaces are not public.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from companion.games.base import Cell, FormatError
from companion.games.carcassonne.geometry import SIDES, neighbour
from companion.games.carcassonne.shape import BoardShape, StartSegment
from companion.games.carcassonne.tiles import Feature
from companion.games.castle.tiles import parse_features
from companion.games.fields import check_object, get_cell, get_list, get_str, is_int, json_type

STANDARD = "standard"
TRACK = 100  # spaces 0 to 99 on the wall
MOST_CORNERS = 18  # one face-down wall tile on each, and there are 18 wall tiles
MOST_SPACES = 400  # far beyond the real castle's 76: a guard against a runaway board


@dataclass(frozen=True, eq=False)
class Layout:
    """A castle: its shape for the core board, its rows (for drawing) and its corner towers."""

    rows: tuple[str, ...]
    shape: BoardShape
    corners: tuple[tuple[int, int], ...]
    corner_of_space: dict[int, int]  # track space -> its corner's index

    @property
    def starts(self) -> tuple[StartSegment[Feature], ...]:
        return self.shape.starts

    @property
    def interior(self) -> frozenset[Cell]:
        return self.shape.interior

    # shared, never changed: copies of a game share it
    def __deepcopy__(self, memo: dict[int, Any]) -> Layout:
        return self


def parse_layout(raw: Any) -> Layout:
    """The header's ``board``: "standard" or an inline board; FormatError with the reason."""
    if raw == STANDARD:
        return standard_layout()
    if isinstance(raw, str):
        raise FormatError(f'"board" in the header is "standard" or a board written inline, not "{raw}"')
    return _parse_inline(raw)


@cache
def standard_layout() -> Layout:
    return _parse_inline(standard_board_json())


@cache
def standard_board_json() -> dict[str, Any]:
    text = Path(__file__).with_name("board.json").read_text(encoding="utf-8")
    board: dict[str, Any] = json.loads(text)
    return board


def _parse_inline(raw: Any) -> Layout:
    what = '"board" in the header'
    check_object(raw, what, required=("interior", "starts", "corners"))
    rows = get_list(raw, "interior", what)
    if not rows:
        raise FormatError('"interior" of the board needs at least one row')
    interior: set[Cell] = set()
    for y, row in enumerate(rows):
        if not isinstance(row, str):
            raise FormatError(f'row {y} of the board\'s "interior" must be a string, not {json_type(row)}')
        for x, mark in enumerate(row):
            if mark == "#":
                interior.add((x, y))
            elif mark != ".":
                raise FormatError(
                    f'row {y} of the board\'s "interior" holds "{mark}": "#" is a space for a tile, "." none'
                )
    if not interior:
        raise FormatError('the board\'s "interior" has no space for a tile ("#")')
    if len(interior) > MOST_SPACES:
        raise FormatError(f"the board has {len(interior)} spaces; at most {MOST_SPACES} are allowed")
    starts = _parse_starts(get_list(raw, "starts", what), frozenset(interior))
    corners = _parse_corners(get_list(raw, "corners", what))
    corner_of_space = {space: index for index, pair in enumerate(corners) for space in pair}
    shape = BoardShape(frozenset(interior), tuple(starts))
    return Layout(tuple(rows), shape, tuple(corners), corner_of_space)


def _parse_starts(raw: list[Any], interior: frozenset[Cell]) -> list[StartSegment[Feature]]:
    if not raw:
        raise FormatError("the board needs at least one start space on the wall")
    starts: list[StartSegment[Feature]] = []
    seen: set[tuple[Cell, int]] = set()
    for number, obj in enumerate(raw, 1):
        what = f"start space {number} of the board"
        check_object(obj, what, required=("cell", "side", "features"))
        cell = get_cell(obj, "cell", what)
        side = SIDES.index(get_str(obj, "side", what, tuple(SIDES)))
        if cell not in interior:
            raise FormatError(f"{what} lies against {list(cell)}, which is not an interior space")
        if neighbour(cell, side) in interior:
            raise FormatError(
                f"{what} lies on side {SIDES[side]} of {list(cell)}, across which is an interior "
                "space: a start space is part of the wall"
            )
        if (cell, side) in seen:
            raise FormatError(f"{what} shares side {SIDES[side]} of {list(cell)} with another start space")
        seen.add((cell, side))
        own_parts = (side * 3, side * 3 + 1, side * 3 + 2)
        features = parse_features(obj["features"], what, own_parts)
        for index, feature in enumerate(features, 1):
            if not feature.parts:
                raise FormatError(
                    f"feature {index} of {what} touches nothing: it must touch side {SIDES[side]}"
                )
        starts.append(StartSegment(cell, side, tuple(features)))
    return starts


def _parse_corners(raw: list[Any]) -> list[tuple[int, int]]:
    if len(raw) > MOST_CORNERS:
        raise FormatError(
            f"the board lists {len(raw)} corner towers; there are only {MOST_CORNERS} wall tiles"
        )
    corners: list[tuple[int, int]] = []
    used: set[int] = set()
    for number, pair in enumerate(raw, 1):
        what = f"corner {number} of the board"
        if not (isinstance(pair, list) and len(pair) == 2 and all(is_int(v) for v in pair)):
            raise FormatError(f"{what} must be two neighbouring track spaces [a, a+1]")
        first, second = int(pair[0]), int(pair[1])
        if second != first + 1 or not 2 <= first <= TRACK - 2:
            raise FormatError(
                f"{what} is [{pair[0]}, {pair[1]}]: a corner is [a, a+1] with a from 2 to {TRACK - 2}"
            )
        for space in (first, second):
            if space in used:
                raise FormatError(f"track space {space} is in two corners of the board")
            used.add(space)
        corners.append((first, second))
    return corners
