"""The Castle's tiles as a configuration of the Carcassonne core (shared/spec/castle.md).

Each side of a tile has three parts, clockwise: a half, the middle, the other half (``Nw N Ne``,
``En E Es``, ``Se S Sw``, ``Ws W Wn``). A path lies in the middles; towers, houses and
courtyards lie on halves, or inside the tile touching no side. Only the middles are checked
across an edge (a path must be continued), and each kind joins only itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from companion.games.base import FormatError
from companion.games.carcassonne.geometry import SIDES
from companion.games.carcassonne.rules import TileRules
from companion.games.carcassonne.tiles import Feature, Tile
from companion.games.fields import check_object, get_int, get_list, get_str, json_type

PATH, TOWER, HOUSE, COURTYARD = "path", "tower", "house", "courtyard"
KINDS = (PATH, TOWER, HOUSE, COURTYARD)
PART_NAMES = ("Nw", "N", "Ne", "En", "E", "Es", "Se", "S", "Sw", "Ws", "W", "Wn")
RULES = TileRules(part_names=PART_NAMES, kinds=KINDS, fit=(None, {PATH: 1}, None))
HALF_LETTERS = {"N": "we", "S": "we", "E": "ns", "W": "ns"}
HALVES = tuple(name for name in PART_NAMES if len(name) == 2)
# The follower's role on each kind, as the rules name them.
ROLES = {PATH: "herald", TOWER: "knight", HOUSE: "squire", COURTYARD: "merchant"}
FOUNTAIN, MARKETS = "fountain", "markets"
MOST_MARKETS = 1000  # far beyond any printed tile: only a guard against a typo's huge number


class CastleTile(Tile[Feature]):
    rules = RULES


def part(name: str) -> int:
    return RULES.part_index(name)


def middle(side: int) -> int:
    return side * 3 + 1


def halves_of(side: int) -> tuple[int, int]:
    return side * 3, side * 3 + 2


def is_middle(part_number: int) -> bool:
    return part_number % 3 == 1


def parse_edges(text: str, kind: str, what: str) -> tuple[int, ...]:
    """The parts an ``edges`` string names, for a feature of ``kind`` (a side letter is the
    middle for a path, both halves otherwise)."""
    parts = _edges(text, kind == PATH)
    if isinstance(parts, str):
        raise FormatError(parts.replace("{what}", what))
    return parts


@cache
def _edges(text: str, path: bool) -> tuple[int, ...] | str:
    """``parse_edges`` once for each text (a game writes the same few again and again): the
    parts, or why not, with {what} standing for the feature."""
    parts: list[int] = []
    position = 0
    for match in re.finditer(r"\s*([NESW])([a-z]?)\s*", text):
        if match.start() != position:
            break
        position = match.end()
        side_letter, half = match.group(1), match.group(2)
        side = SIDES.index(side_letter)
        if half:
            if half not in HALF_LETTERS[side_letter]:
                halves = " or ".join(side_letter + h for h in HALF_LETTERS[side_letter])
                return f'"{side_letter}{half}" in {{what}} is no edge name: side {side_letter} has {halves}'
            if path:
                return (
                    f'a path touches the middle of a side, never a half ("{side_letter}{half}" in {{what}})'
                )
            parts.append(part(side_letter + half))
        elif path:
            parts.append(middle(side))
        else:
            parts.extend(halves_of(side))
    if position != len(text) and text[position:].strip():
        bad = text[position:].strip()[:12]
        return f'"edges" in {{what}} holds "{bad}": edges are side letters N E S W, or halves like Nw, En'
    return tuple(sorted(set(parts)))


def parse_feature(obj: Any, what: str, allowed_parts: Sequence[int] | None = None) -> Feature:
    """One feature object of a tile or a start space."""
    check_object(obj, what, required=("kind",), optional=("edges", "fountain", "markets"))
    kind = get_str(obj, "kind", what, KINDS)
    edges = get_str(obj, "edges", what) if "edges" in obj else ""
    parts = parse_edges(edges, kind, what)
    if kind == PATH and not parts:
        raise FormatError(f"a path touches at least one side ({what})")
    counts: list[tuple[str, int]] = []
    if "fountain" in obj:
        if kind != PATH:
            raise FormatError(f'only a path has a "fountain" ({what} is a {kind})')
        if not isinstance(obj["fountain"], bool):
            raise FormatError(f'"fountain" in {what} must be true or false, not {json_type(obj["fountain"])}')
        if obj["fountain"]:
            counts.append((FOUNTAIN, 1))
    if "markets" in obj:
        if kind != COURTYARD:
            raise FormatError(f'only a courtyard has "markets" ({what} is a {kind})')
        markets = get_int(obj, "markets", what, 0, MOST_MARKETS)
        if markets:
            counts.append((MARKETS, markets))
    if allowed_parts is not None:
        outside = [PART_NAMES[p] for p in parts if p not in allowed_parts]
        if outside:
            raise FormatError(f"{what} touches {', '.join(outside)}, which is not on its side")
    return Feature(kind, parts, tuple(counts))


def parse_features(raw: Any, what: str, allowed_parts: Sequence[int] | None = None) -> list[Feature]:
    """A list of features on one tile (or one start space): each half and middle touched once."""
    if not isinstance(raw, list):
        raise FormatError(f'"features" of {what} must be a list, not {json_type(raw)}')
    features = [parse_feature(obj, f"feature {n} of {what}", allowed_parts) for n, obj in enumerate(raw, 1)]
    owner: dict[int, int] = {}
    for number, feature in enumerate(features, 1):
        for touched in feature.parts:
            if touched in owner:
                kind = "middle" if is_middle(touched) else "half"
                raise FormatError(
                    f"features {owner[touched]} and {number} of {what} both touch the {kind} "
                    f"{PART_NAMES[touched]}: each {kind} of a side holds one feature"
                )
            owner[touched] = number
    return features


def parse_tile(raw: Any, what: str = "the tile") -> tuple[CastleTile, tuple[int, ...]]:
    """An inline castle tile, and for each of its (canonically ordered) features the place it
    was listed at in the record: the default scoring order reads the listed order."""
    if isinstance(raw, str):
        raise FormatError(f"{what} must be written inline (catalog ids are not defined for the Castle)")
    key = _plain_key(raw)
    if key is not None and key in _PARSED:
        return _PARSED[key]
    check_object(raw, what, required=("features",))
    features = parse_features(get_list(raw, "features", what), what)
    tile = CastleTile(tuple(features))
    parsed = tile, listed_ranks(tile, features)
    if key is not None and len(_PARSED) < _MOST_PARSED:
        _PARSED[key] = parsed
    return parsed


# Tiles already read, by their plain form: a game repeats a few dozen shapes, and reading one
# again is a dictionary look-up (a replay reads every tile of the game).
_PARSED: dict[Any, tuple[CastleTile, tuple[int, ...]]] = {}
_MOST_PARSED = 4096


def forget_parsed() -> None:
    """Forget the tiles read so far (a benchmark reads them afresh)."""
    _PARSED.clear()
    _edges.cache_clear()


def _plain_key(raw: Any) -> Any:
    """A hashable copy of an inline tile written with plain values only (None otherwise: meta
    or anything nested is read the long way, and not kept)."""
    if not isinstance(raw, Mapping) or len(raw) != 1 or not isinstance(raw.get("features"), list):
        return None
    key = []
    for feature in raw["features"]:
        if not isinstance(feature, Mapping):
            return None
        items = []
        for name, value in feature.items():
            # type() and not isinstance: true and 1 must not share a key
            if type(value) not in (str, int, bool):
                return None
            items.append((name, type(value).__name__, value))
        key.append(tuple(sorted(items)))
    return tuple(key)


def listed_ranks(tile: CastleTile, listed: Sequence[Feature]) -> tuple[int, ...]:
    """For each feature of ``tile`` in its own order, where it stood in ``listed``."""
    taken: set[int] = set()
    ranks = []
    for feature in tile.features:
        rank = next(i for i, f in enumerate(listed) if f == feature and i not in taken)
        taken.add(rank)
        ranks.append(rank)
    return tuple(ranks)


def edges_text(feature: Feature) -> str:
    """A feature's ``edges`` as the contract writes them: a side letter for a whole side (a
    path's middle, or both halves), half names otherwise."""
    names = []
    parts = set(feature.parts)
    for side, letter in enumerate(SIDES):
        if feature.kind == PATH:
            if middle(side) in parts:
                names.append(letter)
            continue
        first, second = halves_of(side)
        if first in parts and second in parts:
            names.append(letter)
        else:
            names += [PART_NAMES[p] for p in (first, second) if p in parts]
    return " ".join(names)


def feature_json(feature: Feature) -> dict[str, Any]:
    obj: dict[str, Any] = {"kind": feature.kind, "edges": edges_text(feature)}
    counts = dict(feature.counts)
    if counts.get(FOUNTAIN):
        obj["fountain"] = True
    if counts.get(MARKETS):
        obj["markets"] = counts[MARKETS]
    return obj


def tile_json(tile: CastleTile) -> dict[str, Any]:
    return {"features": [feature_json(f) for f in tile.features]}


def feature_words(feature: Feature) -> str:
    """A feature in a few words: "path W E with a fountain", "courtyard S (2 markets)"."""
    counts = dict(feature.counts)
    where = edges_text(feature) or "in the middle"
    words = f"{feature.kind} {where}"
    if counts.get(FOUNTAIN):
        words += " with a fountain"
    markets = counts.get(MARKETS, 0)
    if markets:
        words += f" ({markets} market{'s' if markets != 1 else ''})"
    return words


def tile_words(tile: CastleTile) -> str:
    return ", ".join(feature_words(f) for f in tile.features) or "a tile with nothing on it"


# --- naming a feature on a placed tile (castle.md, "Naming a feature") --------------------------

FEATURE_NAMES = (*HALVES, *SIDES, *KINDS)


def resolve(tile: CastleTile, name: str) -> int | str:
    """The index of the feature ``name`` names on ``tile``, or why it names none or several."""
    owner = tile.part_feature
    if name in KINDS:
        found = [i for i, f in enumerate(tile.features) if f.kind == name]
        if len(found) == 1:
            return found[0]
        return (
            f"the tile has no {name}" if not found else f"the tile has {len(found)} features of kind {name}"
        )
    if len(name) == 2:
        index = owner[part(name)]
        return index if index >= 0 else f"nothing touches the half {name} of the tile"
    side = SIDES.index(name)
    if owner[middle(side)] >= 0:
        return owner[middle(side)]
    first, second = (owner[p] for p in halves_of(side))
    if first >= 0 and first == second:
        return first
    if first < 0 and second < 0:
        return f"nothing touches side {name} of the tile"
    return f"side {name} of the tile holds no path and no single feature across both halves"


def name_of(tile: CastleTile, index: int) -> str | None:
    """A name that resolves to feature ``index`` of ``tile`` (None: none does, as for one of two
    alike features inside the tile)."""
    feature = tile.features[index]
    candidates: list[str] = []
    for touched in feature.parts:
        if is_middle(touched):
            candidates.append(SIDES[touched // 3])
        else:
            candidates.append(PART_NAMES[touched])
    candidates.append(feature.kind)
    return next((c for c in candidates if resolve(tile, c) == index), None)


def feature_names(tile: CastleTile) -> dict[int, str]:
    """Each feature of the tile that can be named, by its index."""
    found = {}
    for index in range(len(tile.features)):
        name = name_of(tile, index)
        if name is not None:
            found[index] = name
    return found


def counts_of(counts: Mapping[str, int]) -> tuple[bool, int]:
    """(has a fountain, markets) of a domain's counted attributes."""
    return counts.get(FOUNTAIN, 0) > 0, counts.get(MARKETS, 0)
