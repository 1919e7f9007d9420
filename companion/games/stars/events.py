"""Among the Stars record events (shared/spec/stars.md): read strictly, written back as read.

What an event means at its moment of the game (whose station, which cards are there) is the
engine's to check; here only the form: the keys, their types and their ranges.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Cell, FormatError
from companion.games.fields import (
    check_object,
    get_cell,
    get_int,
    get_list,
    get_name,
    get_str,
    is_int,
    json_type,
)
from companion.games.shared_events import (
    GameEnded,
    ScoreAdjusted,
    parse_shared_event,
    shared_event_to_json,
)
from companion.games.stars.cards import Card, parse_card

EVENT_KINDS = ("year", "build", "reactor", "discard", "ability", "objective", "remove", "adjust", "end")
DIRECTIONS = ("clockwise", "counterclockwise")
YEARS = 4
MANUAL_VP = 1000  # the most VP a person may count for a manual ability, either way
MOST_COUNTED = 1_000_000  # a manual objective's measure for one player


@dataclass(frozen=True, slots=True)
class YearStarted:
    year: int
    direction: str | None = None  # the record's "pass": the way the cards go round this year
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Built:
    player: str
    at: Cell
    card: Card
    energy_from: tuple[Cell, ...] = ()  # one reactor cell per energy cube
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ReactorBuilt:
    player: str
    at: Cell
    card: Card | None = None  # the location card given up for it
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Discarded:
    player: str
    card: Card | None = None
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class AbilityCounted:
    player: str
    at: Cell
    vp: int
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ObjectiveCounted:
    name: str
    counts: tuple[tuple[str, int], ...]  # each player's measure, as the record lists them
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CardRemoved:
    player: str
    at: Cell
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


Action = Built | ReactorBuilt | Discarded
Event = (
    YearStarted
    | Built
    | ReactorBuilt
    | Discarded
    | AbilityCounted
    | ObjectiveCounted
    | CardRemoved
    | ScoreAdjusted
    | GameEnded
)
__all__ = [
    "AbilityCounted",
    "Action",
    "Built",
    "CardRemoved",
    "Discarded",
    "Event",
    "GameEnded",
    "ObjectiveCounted",
    "ReactorBuilt",
    "ScoreAdjusted",
    "YearStarted",
]


def parse_event(obj: Any) -> Event:
    if not isinstance(obj, Mapping):
        raise FormatError(f"an event must be a JSON object, not {json_type(obj)}")
    if "event" not in obj:
        raise FormatError(f'an event needs an "event" key: one of {", ".join(EVENT_KINDS)}')
    kind = get_str(obj, "event", "an event", EVENT_KINDS)
    meta = obj.get("meta")
    what = f"{'an' if kind[0] in 'aeio' else 'a'} {kind} event"
    if kind == "year":
        check_object(obj, what, required=("event", "year"), optional=("pass",))
        direction = get_str(obj, "pass", what, DIRECTIONS) if "pass" in obj else None
        return YearStarted(get_int(obj, "year", what, 1, YEARS), direction, meta)
    if kind == "build":
        check_object(obj, what, required=("event", "player", "at", "card"), optional=("energy_from",))
        energy = _cells(obj, "energy_from", what) if "energy_from" in obj else ()
        card = parse_card(obj["card"], f"in {what}")
        return Built(get_name(obj, "player", what), get_cell(obj, "at", what), card, energy, meta)
    if kind == "reactor":
        check_object(obj, what, required=("event", "player", "at"), optional=("card",))
        given = parse_card(obj["card"], f"in {what}") if "card" in obj else None
        return ReactorBuilt(get_name(obj, "player", what), get_cell(obj, "at", what), given, meta)
    if kind == "discard":
        check_object(obj, what, required=("event", "player"), optional=("card",))
        given = parse_card(obj["card"], f"in {what}") if "card" in obj else None
        return Discarded(get_name(obj, "player", what), given, meta)
    if kind == "ability":
        check_object(obj, what, required=("event", "player", "at", "vp"))
        vp = get_int(obj, "vp", what, -MANUAL_VP, MANUAL_VP)
        return AbilityCounted(get_name(obj, "player", what), get_cell(obj, "at", what), vp, meta)
    if kind == "objective":
        check_object(obj, what, required=("event", "name", "counts"))
        return ObjectiveCounted(get_name(obj, "name", what), _counts(obj, what), meta)
    if kind == "remove":
        check_object(obj, what, required=("event", "player", "at"))
        return CardRemoved(get_name(obj, "player", what), get_cell(obj, "at", what), meta)
    return parse_shared_event(kind, obj)


def _cells(obj: Mapping[str, Any], key: str, what: str) -> tuple[Cell, ...]:
    cells = []
    for value in get_list(obj, key, what):
        if not (isinstance(value, list) and len(value) == 2 and all(is_int(v) for v in value)):
            raise FormatError(f'"{key}" in {what} lists reactor cells [x, y], one per energy cube')
        cells.append((int(value[0]), int(value[1])))
    return tuple(cells)


def _counts(obj: Mapping[str, Any], what: str) -> tuple[tuple[str, int], ...]:
    counts = obj["counts"]
    if not isinstance(counts, Mapping):
        raise FormatError(f'"counts" in {what} must be an object, each player\'s name with a number')
    read = []
    for name, value in counts.items():
        if not is_int(value) or not 0 <= value <= MOST_COUNTED:
            raise FormatError(
                f'"counts" in {what}: {name}\'s count must be a whole number from 0 to {MOST_COUNTED}, '
                f"not {json_type(value)}"
            )
        read.append((name, int(value)))
    return tuple(read)


def event_to_json(event: Event) -> dict[str, Any]:
    obj: dict[str, Any]
    if isinstance(event, YearStarted):
        obj = {"event": "year", "year": event.year}
        if event.direction is not None:
            obj["pass"] = event.direction
    elif isinstance(event, Built):
        obj = {"event": "build", "player": event.player, "at": list(event.at), "card": event.card.to_json()}
        if event.energy_from:
            obj["energy_from"] = [list(cell) for cell in event.energy_from]
    elif isinstance(event, ReactorBuilt):
        obj = {"event": "reactor", "player": event.player, "at": list(event.at)}
        if event.card is not None:
            obj["card"] = event.card.to_json()
    elif isinstance(event, Discarded):
        obj = {"event": "discard", "player": event.player}
        if event.card is not None:
            obj["card"] = event.card.to_json()
    elif isinstance(event, AbilityCounted):
        obj = {"event": "ability", "player": event.player, "at": list(event.at), "vp": event.vp}
    elif isinstance(event, ObjectiveCounted):
        obj = {"event": "objective", "name": event.name, "counts": dict(event.counts)}
    elif isinstance(event, CardRemoved):
        obj = {"event": "remove", "player": event.player, "at": list(event.at)}
    else:
        return shared_event_to_json(event)
    if event.meta is not None:
        obj["meta"] = dict(event.meta)
    return obj
