"""The record events every game shares: ``end`` and the score correction ``adjust``.

``end`` is the contract's (shared/spec/records.md); a game whose contract gives its ``end`` more
keys (Gaia's names who ended it) reads its own instead. ``adjust`` is this project's addition
(docs/records.md): a score corrected by hand on a phone, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import FormatError
from companion.games.fields import check_object, get_int, get_name

MAX_ADJUSTMENT = 1000
SHARED_EVENTS = ("adjust", "end")


@dataclass(frozen=True, slots=True)
class ScoreAdjusted:
    """A score corrected by hand."""

    player: str
    points: int
    reason: str
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class GameEnded:
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


SharedEvent = ScoreAdjusted | GameEnded


def parse_shared_event(kind: str, obj: Mapping[str, Any]) -> SharedEvent:
    """Read an ``adjust`` or ``end`` event (``kind`` is its "event" value)."""
    meta = obj.get("meta")
    if kind == "adjust":
        what = "an adjust event"
        check_object(obj, what, required=("event", "player", "points", "reason"))
        points = get_int(obj, "points", what, -MAX_ADJUSTMENT, MAX_ADJUSTMENT)
        if points == 0:
            raise FormatError('"points" in an adjust event must not be 0')
        return ScoreAdjusted(get_name(obj, "player", what), points, get_name(obj, "reason", what), meta)
    if kind == "end":
        check_object(obj, "an end event", required=("event",))
        return GameEnded(meta=meta)
    raise ValueError(f"not a shared event: {kind}")


def shared_event_to_json(event: SharedEvent) -> dict[str, Any]:
    obj: dict[str, Any]
    if isinstance(event, ScoreAdjusted):
        obj = {"event": "adjust", "player": event.player, "points": event.points, "reason": event.reason}
    else:
        obj = {"event": "end"}
    if event.meta is not None:
        obj["meta"] = dict(event.meta)
    return obj


def adjust_reason(event: ScoreAdjusted) -> str:
    """The log line of a score corrected by hand."""
    return f"score corrected by hand: {event.reason} = {event.points}"


def describe_shared(event: SharedEvent) -> str:
    if isinstance(event, ScoreAdjusted):
        return f"{event.player}'s score corrected by hand, {event.points:+d}: {event.reason}"
    return "The game ended: final scoring"
