"""The Dice Game's record events (shared/spec/dicegame.md): read strictly, written back as read.

Reading checks the form only. Whether a face belongs to the header's faces table, and everything
the rules decide, is the engine's, so that each refusal names the rule it breaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Cell, FormatError
from companion.games.dicegame.faces import CATAPULT, KNIGHT
from companion.games.fields import check_object, get_cell, get_int, get_list, get_name, get_str, json_type
from companion.games.shared_events import (
    SHARED_EVENTS,
    GameEnded,
    ScoreAdjusted,
    parse_shared_event,
    shared_event_to_json,
)

DICE = 9
EVENT_KINDS = ("roll", "aside", "keep", "score", *SHARED_EVENTS)


@dataclass(frozen=True, slots=True)
class Rolled:
    """The faces of every die thrown, as they lay once still."""

    player: str
    dice: tuple[str, ...]
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class SetAside:
    """One die taken out of the tray: a knight, or a city face laid at once at ``at``."""

    player: str
    face: str
    at: Cell | None = None
    rotation: int | None = None
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class KnightKept:
    """The turn ends without a score; one knight is kept to double the player's next turn."""

    player: str
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TurnScored:
    """The turn ends and scores its largest closed city."""

    player: str
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


TurnEvent = Rolled | SetAside | KnightKept | TurnScored
Event = TurnEvent | ScoreAdjusted | GameEnded


def parse_event(obj: Any) -> Event:
    """One event of a record; FormatError names what is wrong with it."""
    if type(obj) is dict:
        quick = _well_formed(obj)
        if quick is not None:
            return quick
    return parse_strictly(obj)


# The keys each turn event may have; anything else goes the strict way, which names the problem.
_KEYS = {
    "roll": frozenset(("event", "player", "dice", "meta")),
    "aside": frozenset(("event", "player", "face", "at", "rotation", "meta")),
    "keep": frozenset(("event", "player", "meta")),
    "score": frozenset(("event", "player", "meta")),
}


def _well_formed(obj: dict[str, Any]) -> Event | None:
    """The event, when ``obj`` is plainly well formed; None to leave it to ``parse_strictly``.
    Replaying a long record reads thousands of events, nearly all of them well formed: this
    accepts only what ``parse_strictly`` accepts, and gives the same event (tests/test_dicegame.py)."""
    kind = obj.get("event")
    allowed = _KEYS.get(kind) if type(kind) is str else None
    if allowed is None or not allowed.issuperset(obj):
        return None
    player = obj.get("player")
    meta = obj.get("meta")
    if type(player) is not str or not player.strip() or (meta is not None and type(meta) is not dict):
        return None
    if "meta" in obj and meta is None:
        return None
    if kind == "aside":
        face = obj.get("face")
        if type(face) is not str or not face.strip():
            return None
        at, rotation = obj.get("at"), obj.get("rotation")
        if face == KNIGHT:
            return SetAside(player, face, meta=meta) if "at" not in obj and "rotation" not in obj else None
        if face == CATAPULT or type(at) is not list or len(at) != 2 or type(rotation) is not int:
            return None
        x, y = at
        if type(x) is not int or type(y) is not int or not 0 <= rotation <= 3:
            return None
        return SetAside(player, face, (x, y), rotation, meta)
    if kind == "roll":
        dice = obj.get("dice")
        if type(dice) is not list or len(dice) > DICE or any(type(f) is not str or not f for f in dice):
            return None
        return Rolled(player, tuple(dice), meta)
    if kind == "keep":
        return KnightKept(player, meta)
    return TurnScored(player, meta)


def parse_strictly(obj: Any) -> Event:
    """One event read key by key, every problem named (the way every odd event is read)."""
    if not isinstance(obj, Mapping):
        raise FormatError(f"an event must be a JSON object, not {json_type(obj)}")
    if "event" not in obj:
        raise FormatError('an event needs "event": one of "roll", "aside", "keep", "score", "adjust", "end"')
    kind = get_str(obj, "event", "an event", EVENT_KINDS)
    meta = obj.get("meta")
    if kind in SHARED_EVENTS:
        return parse_shared_event(kind, obj)
    what = f"a {kind} event" if kind != "aside" else "an aside event"
    if kind == "roll":
        check_object(obj, what, required=("event", "player", "dice"))
        return Rolled(get_name(obj, "player", what), _faces(get_list(obj, "dice", what)), meta)
    if kind == "aside":
        return _parse_aside(obj, what)
    check_object(obj, what, required=("event", "player"))
    if kind == "keep":
        return KnightKept(get_name(obj, "player", what), meta)
    return TurnScored(get_name(obj, "player", what), meta)


def _faces(dice: list[Any]) -> tuple[str, ...]:
    if len(dice) > DICE:
        raise FormatError(f'"dice" in a roll event lists {len(dice)} dice; the game has {DICE}')
    for number, face in enumerate(dice, start=1):
        if not isinstance(face, str) or not face:
            raise FormatError(
                f'die {number} of "dice" in a roll event must be a face\'s name, not {json_type(face)}'
            )
    return tuple(dice)


def _parse_aside(obj: Mapping[str, Any], what: str) -> SetAside:
    check_object(obj, what, required=("event", "player", "face"), optional=("at", "rotation"))
    player = get_name(obj, "player", what)
    face = get_name(obj, "face", what)
    placed = [key for key in ("at", "rotation") if key in obj]
    if face == KNIGHT and placed:
        raise FormatError('a knight is set aside without "at" or "rotation": it is not laid in the city')
    if face not in (KNIGHT, CATAPULT) and len(placed) < 2:
        raise FormatError(
            f'the {face} set aside needs "at" and "rotation": a city die is laid in the city at once'
        )
    # a catapult's place, if written, is read so that the engine can refuse the catapult itself
    at = get_cell(obj, "at", what) if "at" in obj else None
    rotation = get_int(obj, "rotation", what, 0, 3) if "rotation" in obj else None
    return SetAside(player, face, at, rotation, obj.get("meta"))


def event_to_json(event: Event) -> dict[str, Any]:
    if isinstance(event, ScoreAdjusted | GameEnded):
        return shared_event_to_json(event)
    record: dict[str, Any]
    if isinstance(event, Rolled):
        record = {"event": "roll", "player": event.player, "dice": list(event.dice)}
    elif isinstance(event, SetAside):
        record = {"event": "aside", "player": event.player, "face": event.face}
        if event.at is not None:
            record["at"] = list(event.at)
        if event.rotation is not None:
            record["rotation"] = event.rotation
    elif isinstance(event, KnightKept):
        record = {"event": "keep", "player": event.player}
    else:
        record = {"event": "score", "player": event.player}
    if event.meta is not None:
        record["meta"] = dict(event.meta)
    return record
