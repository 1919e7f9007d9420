"""The Castle's record events (castle.md): read strictly, written back as they were read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Cell, FormatError
from companion.games.castle.tiles import FEATURE_NAMES, CastleTile, parse_tile, tile_json
from companion.games.fields import check_object, get_cell, get_int, get_list, get_name, get_str, json_type
from companion.games.shared_events import (
    GameEnded,
    ScoreAdjusted,
    parse_shared_event,
    shared_event_to_json,
)

EVENT_KINDS = ("tile", "meeple", "order", "take", "use", "adjust", "end")
WALL_NUMBERS = range(1, 10)
# Wall tiles played on a feature: the rest (1, 8, 9) name none.
ON_A_FEATURE = frozenset(range(2, 8))
MOST_ORDERED = 200  # more features than a castle can complete in one turn: a guard only

Meta = Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class TilePlaced:
    player: str
    at: Cell
    tile: CastleTile
    # where each of the tile's features was listed in the record (the default scoring order)
    ranks: tuple[int, ...] = field(default=(), compare=False)
    meta: Meta = field(default=None, compare=False)
    # the tile exactly as the record wrote it, so writing back loses nothing
    written_as: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class FollowerPlaced:
    """The ``meeple`` event: its role follows from the feature."""

    player: str
    at: Cell
    feature: str
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class FeatureRef:
    at: Cell
    feature: str
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ScoringOrdered:
    player: str
    features: tuple[FeatureRef, ...]
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class WallTaken:
    player: str
    space: int
    wall: int
    meta: Meta = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class WallPlayed:
    player: str
    wall: int
    target: FeatureRef | None = None  # for wall tiles 2 to 7
    meta: Meta = field(default=None, compare=False)


Event = TilePlaced | FollowerPlaced | ScoringOrdered | WallTaken | WallPlayed | ScoreAdjusted | GameEnded

__all__ = [
    "Event",
    "FeatureRef",
    "FollowerPlaced",
    "GameEnded",
    "ScoreAdjusted",
    "ScoringOrdered",
    "TilePlaced",
    "WallPlayed",
    "WallTaken",
]


def parse_event(obj: Any) -> Event:
    if not isinstance(obj, Mapping):
        raise FormatError(f"an event must be a JSON object, not {json_type(obj)}")
    if "event" not in obj:
        names = ", ".join(f'"{k}"' for k in EVENT_KINDS)
        raise FormatError(f'an event needs an "event" key: one of {names}')
    kind = get_str(obj, "event", "an event", EVENT_KINDS)
    meta = obj.get("meta")
    if kind == "tile":
        what = "a tile event"
        check_object(obj, what, required=("event", "player", "at", "tile"))
        tile, ranks = parse_tile(obj["tile"], "the tile")
        return TilePlaced(
            get_name(obj, "player", what), get_cell(obj, "at", what), tile, ranks, meta, obj["tile"]
        )
    if kind == "meeple":
        what = "a meeple event"
        check_object(obj, what, required=("event", "player", "at", "feature"))
        return FollowerPlaced(
            get_name(obj, "player", what), get_cell(obj, "at", what), _feature_name(obj, what), meta
        )
    if kind == "order":
        what = "an order event"
        check_object(obj, what, required=("event", "player", "features"))
        raw = get_list(obj, "features", what)
        if len(raw) > MOST_ORDERED:
            raise FormatError(f"an order event names at most {MOST_ORDERED} features")
        refs = tuple(_reference(item, f"feature {n} of the order event") for n, item in enumerate(raw, 1))
        return ScoringOrdered(get_name(obj, "player", what), refs, meta)
    if kind == "take":
        what = "a take event"
        check_object(obj, what, required=("event", "player", "space", "wall"))
        return WallTaken(
            get_name(obj, "player", what),
            get_int(obj, "space", what, 0, 99),
            get_int(obj, "wall", what, 1, 9),
            meta,
        )
    if kind == "use":
        return _parse_use(obj, meta)
    return parse_shared_event(kind, obj)


def _parse_use(obj: Mapping[str, Any], meta: Meta) -> WallPlayed:
    what = "a use event"
    check_object(obj, what, required=("event", "player", "wall"), optional=("at", "feature"))
    wall = get_int(obj, "wall", what, 1, 9)
    player = get_name(obj, "player", what)
    if wall in ON_A_FEATURE:
        missing = [key for key in ("at", "feature") if key not in obj]
        if missing:
            raise FormatError(
                f'wall tile {wall} is played on a feature: the use event needs "at" and "feature"'
            )
        return WallPlayed(player, wall, FeatureRef(get_cell(obj, "at", what), _feature_name(obj, what)), meta)
    if "at" in obj or "feature" in obj:
        raise FormatError(
            f'wall tile {wall} is played on no feature: the use event takes no "at" or "feature"'
        )
    return WallPlayed(player, wall, None, meta)


def _reference(obj: Any, what: str) -> FeatureRef:
    check_object(obj, what, required=("at", "feature"))
    return FeatureRef(get_cell(obj, "at", what), _feature_name(obj, what), obj.get("meta"))


def _feature_name(obj: Mapping[str, Any], what: str) -> str:
    name = obj["feature"]
    if not isinstance(name, str) or name not in FEATURE_NAMES:
        shown = json_type(name)
        raise FormatError(
            f'"feature" in {what} names a half (Nw, En...), a side letter or a kind '
            f"(path, tower, house, courtyard), not {shown}"
        )
    return name


def _ref_json(ref: FeatureRef) -> dict[str, Any]:
    obj: dict[str, Any] = {"at": list(ref.at), "feature": ref.feature}
    if ref.meta is not None:
        obj["meta"] = dict(ref.meta)
    return obj


def event_to_json(event: Event) -> dict[str, Any]:
    obj: dict[str, Any]
    if isinstance(event, TilePlaced):
        tile = dict(event.written_as) if event.written_as is not None else tile_json(event.tile)
        obj = {"event": "tile", "player": event.player, "at": list(event.at), "tile": tile}
    elif isinstance(event, FollowerPlaced):
        obj = {"event": "meeple", "player": event.player, "at": list(event.at), "feature": event.feature}
    elif isinstance(event, ScoringOrdered):
        obj = {"event": "order", "player": event.player, "features": [_ref_json(r) for r in event.features]}
    elif isinstance(event, WallTaken):
        obj = {"event": "take", "player": event.player, "space": event.space, "wall": event.wall}
    elif isinstance(event, WallPlayed):
        obj = {"event": "use", "player": event.player, "wall": event.wall}
        if event.target is not None:
            obj["at"] = list(event.target.at)
            obj["feature"] = event.target.feature
    else:
        return shared_event_to_json(event)
    if event.meta is not None:
        obj["meta"] = dict(event.meta)
    return obj
