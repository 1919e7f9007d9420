"""Star Wars record events (records.md): reading them strictly and writing them back."""

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
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.tiles import PLANET, SIDES, Tile, parse_tile

SIZES = ("small", "large")
MEEPLE_SPOTS = (*SIDES, PLANET)
EVENT_KINDS = ("tile", "meeple", "roll", "adjust", "end")


@dataclass(frozen=True, slots=True)
class TilePlaced:
    player: str | None  # None only for the start tile
    at: Cell
    tile: Tile  # as it lies on the table
    catalog_id: str | None = None  # kept so that the record is written back as it was read
    rotation: int | None = None
    meta: Mapping[str, Any] | None = field(default=None, compare=False)
    # The inline tile exactly as the record wrote it (its meta too), so writing back loses nothing.
    written_as: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class MeeplePlaced:
    player: str
    at: Cell
    feature: str  # a side letter, or "planet"
    size: str  # "small" or "large"
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class DiceRolled:
    player: str
    dice: tuple[int, ...]
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


__all__ = ["DiceRolled", "Event", "GameEnded", "MeeplePlaced", "ScoreAdjusted", "TilePlaced"]

Event = TilePlaced | MeeplePlaced | DiceRolled | ScoreAdjusted | GameEnded


def parse_event(obj: Any) -> Event:
    if not isinstance(obj, Mapping):
        raise FormatError(f"an event must be a JSON object, not {json_type(obj)}")
    if "event" not in obj:
        raise FormatError('an event needs an "event" key: "tile", "meeple", "roll", "adjust" or "end"')
    kind = get_str(obj, "event", "an event", EVENT_KINDS)
    meta = obj.get("meta")
    if kind == "tile":
        return _parse_tile_event(obj, meta)
    if kind == "meeple":
        what = "a meeple event"
        check_object(obj, what, required=("event", "player", "at", "feature", "size"))
        return MeeplePlaced(
            player=get_name(obj, "player", what),
            at=get_cell(obj, "at", what),
            feature=get_str(obj, "feature", what, MEEPLE_SPOTS),
            size=get_str(obj, "size", what, SIZES),
            meta=meta,
        )
    if kind == "roll":
        what = "a roll event"
        check_object(obj, what, required=("event", "player", "dice"))
        dice = get_list(obj, "dice", what)
        if not dice:
            raise FormatError("a roll event needs at least one die")
        for value in dice:
            if not is_int(value) or not 1 <= value <= 6:
                raise FormatError(f"a die shows 1 to 6, not {json_type(value)}")
        return DiceRolled(player=get_name(obj, "player", what), dice=tuple(dice), meta=meta)
    return parse_shared_event(kind, obj)


def _parse_tile_event(obj: Mapping[str, Any], meta: Any) -> TilePlaced:
    what = "a tile event"
    check_object(obj, what, required=("event", "player", "at", "tile"), optional=("rotation",))
    player = None if obj["player"] is None else get_name(obj, "player", what)
    at = get_cell(obj, "at", what)
    raw_tile = obj["tile"]
    if isinstance(raw_tile, str):
        entry = load_catalog().get(raw_tile)
        if entry is None:
            raise FormatError(f'tile "{raw_tile}" is not in the Star Wars catalog')
        if "rotation" not in obj:
            raise FormatError(f'tile "{raw_tile}" is a catalog id and needs "rotation": 0 to 3')
        rotation = get_int(obj, "rotation", what, 0, 3)
        return TilePlaced(player, at, entry.tile.rotated(rotation), raw_tile, rotation, meta)
    if "rotation" in obj:
        raise FormatError('an inline tile is written as it lies on the table and takes no "rotation"')
    if not isinstance(raw_tile, Mapping):
        raise FormatError(f'"tile" must be a catalog id or an inline tile object, not {json_type(raw_tile)}')
    return TilePlaced(player, at, parse_tile(raw_tile), meta=meta, written_as=raw_tile)


def event_to_json(event: Event) -> dict[str, Any]:
    obj: dict[str, Any]
    if isinstance(event, TilePlaced):
        obj = {"event": "tile", "player": event.player, "at": list(event.at)}
        if event.catalog_id is not None:
            obj["tile"] = event.catalog_id
            obj["rotation"] = event.rotation
        else:
            obj["tile"] = dict(event.written_as) if event.written_as is not None else event.tile.to_json()
    elif isinstance(event, MeeplePlaced):
        obj = {
            "event": "meeple",
            "player": event.player,
            "at": list(event.at),
            "feature": event.feature,
            "size": event.size,
        }
    elif isinstance(event, DiceRolled):
        obj = {"event": "roll", "player": event.player, "dice": list(event.dice)}
    else:
        return shared_event_to_json(event)
    if event.meta is not None:
        obj["meta"] = dict(event.meta)
    return obj
