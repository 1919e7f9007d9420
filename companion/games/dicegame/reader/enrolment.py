"""The user's own dice, taught from photographs: the empty tray once, then each face once.

Every photograph is taken by the tray's camera, one die lying in the tray with the face to enrol
on top, turned any way. Each picture is named by its face: ``knight``, ``catapult``, and the four
city faces by the faces table's names (``cap``, ``corner``, ...). The ink of each city face says
which sides it touches (``ink_segments``); those are compared with the table, so that the table
is either confirmed by the user's real dice, or the table the photographs show is given instead,
to be written inline in the game's record. Nothing is guessed: a photograph that does not show
exactly one die is refused with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from companion.games.base import FormatError
from companion.games.dicegame.faces import (
    CATAPULT,
    KNIGHT,
    SIDE_BIT,
    FaceTable,
    parse_table,
    side_letters,
    turned,
)
from companion.vision.dice_bodies import Body, die_square, find_bodies, grey
from companion.vision.dice_faces import SEARCH_PX, SQUARE_PX, FaceMatcher, ink_segments
from companion.vision.dice_reading import FaceSet

DIE_SHARE = (0.02, 0.3)  # a die's side as a share of the picture's shorter side, at most and least


class EnrolmentError(ValueError):
    """A photograph cannot be enrolled; the message says which and what to do."""


@dataclass(frozen=True)
class FaceCheck:
    """One city face's photograph against the table."""

    name: str
    seen: tuple[str, ...]  # the segments its ink shows, as photographed
    matches: str | None  # the table's face it draws (its own name when the table agrees)
    rotation: int  # the quarter turns from the table's drawing to the photograph


@dataclass
class EnrolledDice:
    """What reading the user's dice needs: the empty tray, the dice's side, the faces."""

    empty: np.ndarray
    side: float
    table: FaceTable  # the table the dice are read with: the given one if confirmed
    confirmed: bool
    checks: list[FaceCheck] = field(default_factory=list)
    matcher: FaceMatcher | None = None

    @property
    def face_set(self) -> FaceSet:
        return FaceSet("dicegame", self.table.all_faces, turns=True)

    def report(self) -> str:
        """What the photographs say about the table, in words."""
        lines = []
        for check in self.checks:
            seen = ", ".join(check.seen) or "no side"
            if check.matches == check.name:
                lines.append(
                    f"{check.name}: city on {seen} as photographed: the table's {check.name}, "
                    f"turned {check.rotation}"
                )
            else:
                lines.append(f"{check.name}: city on {seen} as photographed: not the table's {check.name}")
        if self.confirmed:
            lines.append(f'the faces table "{self.table.name}" is confirmed by the photographs')
        else:
            lines.append(f"the photographs show this table instead: {self.table.to_json()}")
        return "\n".join(lines)


def one_die(picture: np.ndarray, empty: np.ndarray, name: str, side: float | None = None) -> Body:
    """The one die in an enrolment photograph, or EnrolmentError saying what is wrong."""
    if picture.shape != empty.shape:
        raise EnrolmentError(
            f"{name}: not the same size as the empty tray's picture; take both with the tray's camera"
        )
    guess = side if side is not None else 0.1 * min(picture.shape[:2])
    bodies = find_bodies(picture, empty, guess, split=False)
    if bodies.hand:
        raise EnrolmentError(f"{name}: a hand is over the tray; take the photograph again without it")
    if len(bodies.dice) != 1:
        raise EnrolmentError(f"{name}: {len(bodies.dice)} dice seen; lay one die, the {name} on top")
    body = bodies.dice[0]
    if body.on_edge:
        raise EnrolmentError(f"{name}: the die touches the edge of the picture; lay it in the middle")
    if side is None:
        share = body.side / min(picture.shape[:2])
        if not DIE_SHARE[0] <= share <= DIE_SHARE[1]:
            raise EnrolmentError(
                f"{name}: what was found is not the size of a die; is the tray empty "
                "but for one die, and its light on?"
            )
        # found again at its own size, so that the square is cut as tightly as a roll's dice
        return one_die(picture, empty, name, body.side)
    return body


def face_square(picture: np.ndarray, body: Body) -> np.ndarray:
    """The top face of ``body`` cut square, ``SQUARE_PX`` a side, turned square to the picture."""
    return die_square(picture, body, SQUARE_PX, 0)


def enrol(empty: np.ndarray, photos: Mapping[str, np.ndarray], table: FaceTable) -> EnrolledDice:
    """The user's dice from ``photos`` (face name -> photograph), checked against ``table``."""
    if grey(empty).std() < 1.0 and grey(empty).mean() < 12:
        raise EnrolmentError("the empty tray's picture is black: is the tray's light on?")
    wanted = {KNIGHT, CATAPULT, *table.city_faces}
    missing = sorted(wanted - set(photos))
    extra = sorted(set(photos) - wanted)
    if missing or extra:
        raise EnrolmentError(
            "one photograph per face is needed, named by the face: "
            + (f"missing {', '.join(missing)}" if missing else "")
            + ("; " if missing and extra else "")
            + (f"not a face of the table: {', '.join(extra)}" if extra else "")
        )
    bodies = {name: one_die(picture, empty, name) for name, picture in photos.items()}
    side = float(np.median([b.side for b in bodies.values()]))
    squares = {name: face_square(photos[name], body) for name, body in bodies.items()}
    checks = [_check(name, squares[name], table) for name in table.city_faces]
    confirmed = all(c.matches == c.name for c in checks)
    if confirmed:
        # each city face kept as the table draws it: the photograph turned back
        for check in checks:
            squares[check.name] = np.ascontiguousarray(np.rot90(squares[check.name], check.rotation))
        used = table
    else:
        used = _photographed_table(checks)
    turning = frozenset(used.city_faces)
    matcher = FaceMatcher(squares, turning, same=lambda face, k: smallest_same(used, face, k))
    return EnrolledDice(empty, side, used, confirmed, checks, matcher)


def smallest_same(table: FaceTable, face: str, rotation: int) -> int:
    """The smallest rotation of ``face`` that lays the same segments as ``rotation``."""
    wanted = sorted(table.turned_segments(face, rotation))
    return next(k for k in range(4) if sorted(table.turned_segments(face, k)) == wanted)


def _bits(segments: list[str] | tuple[str, ...]) -> list[int]:
    return sorted(sum(SIDE_BIT[s] for s in seg) for seg in segments)


def _check(name: str, square: np.ndarray, table: FaceTable) -> FaceCheck:
    seen = _bits(ink_segments(square))
    label = tuple(side_letters(b) for b in seen)
    for face in (name, *table.city_faces):
        for k in range(4):
            if sorted(turned(s, k) for s in table.segments[face]) == seen:
                return FaceCheck(name, label, face, k)
    return FaceCheck(name, label, None, 0)


def _photographed_table(checks: list[FaceCheck]) -> FaceTable:
    """The faces table the photographs show, each face as photographed (a new, unnamed table)."""
    try:
        return parse_table({c.name: list(c.seen) for c in checks}, None)
    except FormatError as error:
        raise EnrolmentError(f"the photographs do not make a faces table: {error.reason}") from None


def window(picture: np.ndarray, body: Body) -> np.ndarray:
    """A die's square with room around it to look for the face (what ``FaceMatcher`` reads)."""
    return die_square(picture, body, SQUARE_PX, SEARCH_PX)
