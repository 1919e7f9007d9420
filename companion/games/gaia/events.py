"""Gaia's record events (shared/spec/gaia.md): read strictly, written back as they were read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Cell, FormatError
from companion.games.fields import check_object, get_cell, get_list, get_name, get_str, json_type
from companion.games.gaia.rules import (
    CARD_KINDS,
    NEEDS,
    NEEDS_PER_CITY,
    POWER_REFUSED,
    SOURCES,
    STAR,
    TERRAINS,
)
from companion.games.shared_events import ScoreAdjusted, parse_shared_event, shared_event_to_json

EVENT_KINDS = ("draw", "discard", "tile", "animals", "city", "feed", "pawn", "objective", "end", "adjust")
Meta = Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """Action: a card of ``kind`` from the face-up ``market`` or the ``deck``."""

    player: str
    kind: str
    source: str  # "from" in the record
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CardDiscarded:
    """Follow-up of a draw that brought a hand to 7 cards."""

    player: str
    kind: str
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TileLaid:
    """Action: a Nature card played, and its land tile laid."""

    player: str
    at: Cell
    terrain: str
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class AnimalsPut:
    """Action: an animal Life card played, 4 animal tokens put on a free tile."""

    player: str
    at: Cell
    card_terrain: str  # a terrain, or "star" for any terrain (sea included)
    meta: Meta = field(default=None, compare=False)
    card_meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CityCard:
    terrain: str  # the corner icon: a terrain, or "star" for any terrain but sea
    needs: tuple[str, ...]  # the 4 needs at the bottom of the card, each a terrain or "animals"
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CityLaid:
    """Action: a city Life card laid on a free tile, with its owner's pawn (two in the advanced
    game when all 4 needs are met)."""

    player: str
    at: Cell
    card: CityCard
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CityFed:
    """Start of a turn: a hungry city eats one animal from a neighbouring tile."""

    player: str
    city: Cell
    source: Cell  # "from" in the record: the tile the animal is taken from
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class PawnPlaced:
    """Follow-up: a pawn owed on a city whose satisfaction the player's event raised."""

    player: str
    at: Cell
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ObjectiveClaimed:
    """Follow-up of a tile: the Nature cards in front of the player complete an objective."""

    player: str
    objective: str  # "id" in the record
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class DeckEmpty:
    """Action, in place of a draw: the player wants a card of ``kind`` and none is left. The
    record's ``end`` event."""

    player: str
    kind: str
    meta: Meta = field(default=None, compare=False)


Action = CardDrawn | TileLaid | AnimalsPut | CityLaid | DeckEmpty
FollowUp = CardDiscarded | PawnPlaced | ObjectiveClaimed
Event = Action | FollowUp | CityFed | ScoreAdjusted
ACTIONS = (CardDrawn, TileLaid, AnimalsPut, CityLaid, DeckEmpty)
FOLLOW_UPS = (CardDiscarded, PawnPlaced, ObjectiveClaimed)

__all__ = [
    "ACTIONS",
    "FOLLOW_UPS",
    "Action",
    "AnimalsPut",
    "CardDiscarded",
    "CardDrawn",
    "CityCard",
    "CityFed",
    "CityLaid",
    "DeckEmpty",
    "Event",
    "FollowUp",
    "ObjectiveClaimed",
    "PawnPlaced",
    "ScoreAdjusted",
    "TileLaid",
]


def _kind(obj: Mapping[str, Any], what: str) -> str:
    if obj["kind"] == "power":
        raise FormatError(POWER_REFUSED)
    return get_str(obj, "kind", what, CARD_KINDS)


def _meta(obj: Mapping[str, Any]) -> Meta:
    meta = obj.get("meta")
    return meta if isinstance(meta, Mapping) else None


def parse_event(obj: Any) -> Event:
    if not isinstance(obj, Mapping):
        raise FormatError(f"an event must be a JSON object, not {json_type(obj)}")
    if "event" not in obj:
        raise FormatError('an event needs an "event" key: ' + ", ".join(f'"{k}"' for k in EVENT_KINDS))
    kind = get_str(obj, "event", "an event", EVENT_KINDS)
    what = f"a {kind} event" if kind[0] not in "aeiou" else f"an {kind} event"
    if kind == "adjust":
        adjusted = parse_shared_event(kind, obj)
        assert isinstance(adjusted, ScoreAdjusted)
        return adjusted
    meta = _meta(obj)
    if kind == "draw":
        check_object(obj, what, required=("event", "player", "kind", "from"))
        return CardDrawn(
            get_name(obj, "player", what), _kind(obj, what), get_str(obj, "from", what, SOURCES), meta
        )
    if kind == "discard":
        check_object(obj, what, required=("event", "player", "kind"))
        return CardDiscarded(get_name(obj, "player", what), _kind(obj, what), meta)
    if kind == "end":
        check_object(obj, what, required=("event", "player", "kind"))
        return DeckEmpty(get_name(obj, "player", what), _kind(obj, what), meta)
    if kind == "tile":
        check_object(obj, what, required=("event", "player", "at", "terrain"))
        return TileLaid(
            get_name(obj, "player", what),
            get_cell(obj, "at", what),
            get_str(obj, "terrain", what, TERRAINS),
            meta,
        )
    if kind == "animals":
        check_object(obj, what, required=("event", "player", "at", "card"))
        card = obj["card"]
        check_object(card, "the card of an animals event", required=("terrain",))
        terrain = get_str(card, "terrain", "the card of an animals event", (*TERRAINS, STAR))
        return AnimalsPut(
            get_name(obj, "player", what), get_cell(obj, "at", what), terrain, meta, _meta(card)
        )
    if kind == "city":
        check_object(obj, what, required=("event", "player", "at", "card"))
        return CityLaid(
            get_name(obj, "player", what), get_cell(obj, "at", what), _city_card(obj["card"]), meta
        )
    if kind == "feed":
        check_object(obj, what, required=("event", "player", "city", "from"))
        return CityFed(
            get_name(obj, "player", what), get_cell(obj, "city", what), get_cell(obj, "from", what), meta
        )
    if kind == "pawn":
        check_object(obj, what, required=("event", "player", "at"))
        return PawnPlaced(get_name(obj, "player", what), get_cell(obj, "at", what), meta)
    check_object(obj, what, required=("event", "player", "id"))
    return ObjectiveClaimed(get_name(obj, "player", what), get_name(obj, "id", what), meta)


def _city_card(card: Any) -> CityCard:
    what = "the card of a city event"
    check_object(card, what, required=("terrain", "needs"))
    terrain = get_str(card, "terrain", what, (*TERRAINS, STAR))
    needs = get_list(card, "needs", what)
    if len(needs) != NEEDS_PER_CITY:
        raise FormatError(f'"needs" in {what} lists the {NEEDS_PER_CITY} needs of the card, not {len(needs)}')
    for need in needs:
        if need not in NEEDS:
            allowed = ", ".join(f'"{n}"' for n in NEEDS)
            raise FormatError(f"a city's need is one of {allowed}, not {json_type(need)}")
    return CityCard(terrain, tuple(needs), _meta(card))


def event_to_json(event: Event) -> dict[str, Any]:
    obj: dict[str, Any]
    if isinstance(event, ScoreAdjusted):
        return shared_event_to_json(event)
    if isinstance(event, CardDrawn):
        obj = {"event": "draw", "player": event.player, "kind": event.kind, "from": event.source}
    elif isinstance(event, CardDiscarded):
        obj = {"event": "discard", "player": event.player, "kind": event.kind}
    elif isinstance(event, DeckEmpty):
        obj = {"event": "end", "player": event.player, "kind": event.kind}
    elif isinstance(event, TileLaid):
        obj = {"event": "tile", "player": event.player, "at": list(event.at), "terrain": event.terrain}
    elif isinstance(event, AnimalsPut):
        card: dict[str, Any] = {"terrain": event.card_terrain}
        if event.card_meta is not None:
            card["meta"] = dict(event.card_meta)
        obj = {"event": "animals", "player": event.player, "at": list(event.at), "card": card}
    elif isinstance(event, CityLaid):
        city: dict[str, Any] = {"terrain": event.card.terrain, "needs": list(event.card.needs)}
        if event.card.meta is not None:
            city["meta"] = dict(event.card.meta)
        obj = {"event": "city", "player": event.player, "at": list(event.at), "card": city}
    elif isinstance(event, CityFed):
        obj = {"event": "feed", "player": event.player, "city": list(event.city), "from": list(event.source)}
    elif isinstance(event, PawnPlaced):
        obj = {"event": "pawn", "player": event.player, "at": list(event.at)}
    else:
        obj = {"event": "objective", "player": event.player, "id": event.objective}
    if event.meta is not None:
        obj["meta"] = dict(event.meta)
    return obj
