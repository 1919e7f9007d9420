"""The six faces of a Dice Game die: the knight, the catapult and four city faces whose shapes are
data (a faces table), named in ``faces.json`` or written inline in a record's header.

A city face is a list of segments; a segment is the set of sides (N, E, S, W) its city touches
when the face lies at rotation 0. Sides are kept as bits so that turning a face is a shift.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from companion.games.base import FormatError
from companion.games.fields import json_type, quote_list

KNIGHT = "knight"
CATAPULT = "catapult"
SIDES = "NESW"  # clockwise: a quarter turn moves each side to the next one
SIDE_BIT = {side: 1 << index for index, side in enumerate(SIDES)}
DEFAULT_TABLE = "reading1"
CITY_FACES = 4
FACE_NAME = re.compile(r"[a-z][a-z0-9-]*")
TABLES_FILE = Path(__file__).with_name("faces.json")


def turned(sides: int, rotation: int) -> int:
    """The sides ``sides`` (bits) occupy after ``rotation`` clockwise quarter turns."""
    rotation %= 4
    return ((sides << rotation) | (sides >> (4 - rotation))) & 0b1111


def side_letters(sides: int) -> str:
    """Bits as letters in N, E, S, W order: 0b0011 is "NE"."""
    return "".join(side for side in SIDES if sides & SIDE_BIT[side])


@dataclass(frozen=True, eq=False)
class FaceTable:
    """The four city faces of the dice: each face's segments (side bits) at rotation 0."""

    segments: Mapping[str, tuple[int, ...]]
    name: str | None = None  # the named table it came from; None when written inline
    # (face, rotation) -> its segments turned, worked out once
    _turned: dict[tuple[str, int], tuple[int, ...]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for face, segments in self.segments.items():
            for rotation in range(4):
                self._turned[(face, rotation)] = tuple(turned(s, rotation) for s in segments)

    @property
    def city_faces(self) -> tuple[str, ...]:
        return tuple(self.segments)

    @property
    def all_faces(self) -> tuple[str, ...]:
        """Every face a die shows: the knight, the catapult, then the city faces in table order."""
        return (KNIGHT, CATAPULT, *self.segments)

    def is_city(self, face: str) -> bool:
        return face in self.segments

    def turned_segments(self, face: str, rotation: int) -> tuple[int, ...]:
        """A city face's segments as it lies after ``rotation`` quarter turns."""
        return self._turned[(face, rotation)]

    def to_json(self) -> dict[str, list[str]]:
        """The table written inline, as a header holds it."""
        return {face: [side_letters(s) for s in segments] for face, segments in self.segments.items()}


@cache
def named_tables() -> dict[str, FaceTable]:
    """The faces tables the companion knows by name (our approximation, ``faces.json``)."""
    tables = json.loads(TABLES_FILE.read_text(encoding="utf-8"))["tables"]
    return {name: parse_table(table, name) for name, table in tables.items()}


def parse_faces(value: Any) -> FaceTable:
    """The header's ``faces``: the name of a known table, or a table written inline."""
    if isinstance(value, str):
        known = named_tables()
        if value not in known:
            raise FormatError(
                f'the header names the faces table "{value}", which the companion does not know '
                f"(it knows {quote_list(sorted(known))}); write the table inline instead"
            )
        return known[value]
    if isinstance(value, Mapping):
        return parse_table(value, None)
    raise FormatError(
        f'"faces" in the header must be the name of a faces table or a table written inline, '
        f"not {json_type(value)}"
    )


def parse_table(table: Mapping[str, Any], name: str | None) -> FaceTable:
    """A faces table, checked as the contract's Faces section asks (``meta`` is allowed, as on
    any object of a record, and ignored)."""
    if "meta" in table and not isinstance(table["meta"], Mapping):
        raise FormatError(f'"meta" in "faces" must be a JSON object, not {json_type(table["meta"])}')
    entries = {face: value for face, value in table.items() if face != "meta"}
    if len(entries) != CITY_FACES:
        raise FormatError(
            f'"faces" must list exactly {CITY_FACES} city faces, not {len(entries)}'
            + (f" ({quote_list(entries)})" if entries else "")
        )
    segments: dict[str, tuple[int, ...]] = {}
    for face, value in entries.items():
        if face in (KNIGHT, CATAPULT):
            raise FormatError(f'"{face}" cannot name a city face: a die already has a {face} face')
        if not FACE_NAME.fullmatch(face):
            raise FormatError(
                f'the face name "{face}" in "faces" must be lower-case letters, digits and "-", '
                "starting with a letter"
            )
        segments[face] = _parse_segments(face, value)
    return FaceTable(segments, name)


def _parse_segments(face: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise FormatError(
            f'the face "{face}" in "faces" must be a list of segments such as ["NE"], not {json_type(value)}'
        )
    if not value:
        raise FormatError(f'the face "{face}" in "faces" has no city segment: a city face shows city')
    used = 0
    segments: list[int] = []
    for text in value:
        if not text or any(side not in SIDES for side in text) or len(set(text)) != len(text):
            raise FormatError(
                f'the segment "{text}" of the face "{face}" must name sides N, E, S, W, '
                "at least one and each at most once"
            )
        bits = sum(SIDE_BIT[side] for side in text)
        if bits & used:
            raise FormatError(
                f'the face "{face}" has the side {side_letters(bits & used)[0]} in two segments: '
                "a side belongs to at most one"
            )
        used |= bits
        segments.append(bits)
    return tuple(segments)
