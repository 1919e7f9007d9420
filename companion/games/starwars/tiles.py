"""Star Wars tiles as data: features, the sides they touch, their symbols, rotation.

A tile is written as it lies on the table (records.md, "inline tile"). Sides are numbered
N=0, E=1, S=2, W=3; a clockwise quarter turn moves a feature on side i to side i+1.

Star Wars is one configuration of the Carcassonne core (``companion.games.carcassonne``): one
part per side, so a part's number is its side's, and every side must show what its neighbour
shows there (open space, a trade route or an asteroid field).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Cell, FormatError
from companion.games.carcassonne import tiles as core
from companion.games.carcassonne.geometry import OFFSETS as OFFSETS
from companion.games.carcassonne.geometry import SIDES as SIDES
from companion.games.carcassonne.geometry import neighbour as neighbour
from companion.games.carcassonne.geometry import opposite as opposite
from companion.games.carcassonne.rules import TileRules
from companion.games.fields import check_object, get_list, get_str, json_type

# The 8 cells around a planet, in reading order (north row west to east, then W, E, south row).
AROUND: tuple[Cell, ...] = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))

ROUTE = "route"
ASTEROID = "asteroid"
PLANET = "planet"
KINDS = (ROUTE, ASTEROID, PLANET)
FACTIONS = ("rebels", "empire", "bounty")

# What a side shows to its neighbour; sides must match kind for kind.
SPACE, ROUTE_SIDE, ASTEROID_SIDE = 0, 1, 2
SIDE_KIND_NAMES = ("open space", "trade route", "asteroid field")
KIND_LABELS = {ROUTE: "trade route", ASTEROID: "asteroid field", PLANET: "planet"}

# One part per side, checked whole: a side touched by nothing shows open space (0).
RULES = TileRules(part_names=tuple(SIDES), kinds=KINDS, fit=({ROUTE: ROUTE_SIDE, ASTEROID: ASTEROID_SIDE},))


@dataclass(frozen=True, slots=True)
class Feature:
    kind: str
    sides: tuple[int, ...]  # ascending side numbers; empty for a planet
    symbols: tuple[str, ...] = ()  # sorted, so equal features compare equal

    @property
    def parts(self) -> tuple[int, ...]:
        return self.sides  # one part per side, numbered as the side

    @property
    def counts(self) -> tuple[tuple[str, int], ...]:
        return tuple([(symbol, 1) for symbol in self.symbols]) if self.symbols else ()

    def with_parts(self, parts: tuple[int, ...]) -> Feature:
        return Feature(self.kind, parts, self.symbols)

    @property
    def edges(self) -> str:
        return "".join(SIDES[s] for s in self.sides)

    def rotated(self, quarter_turns: int) -> Feature:
        sides = tuple(sorted((s + quarter_turns) % 4 for s in self.sides))
        return Feature(self.kind, sides, self.symbols)

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"kind": self.kind}
        if self.kind != PLANET:
            obj["edges"] = self.edges
        if self.symbols:
            obj["symbols"] = list(self.symbols)
        return obj


@dataclass(frozen=True, slots=True)
class Tile(core.Tile[Feature]):
    """A tile as it lies. Features are kept in a canonical order so equal tiles compare equal."""

    rules = RULES
    planet_index: int | None = field(init=False, compare=False, repr=False)  # the planet feature

    def __post_init__(self) -> None:
        # Named, not super(): slotted dataclasses are rebuilt, which breaks the bare form.
        core.Tile.__post_init__(self)
        # The last planet (a tile has at most one); features touching no side sort last.
        features = self.features
        planet = None
        for index in range(len(features) - 1, -1, -1):
            if features[index].kind == PLANET:
                planet = index
                break
        object.__setattr__(self, "planet_index", planet)

    @staticmethod
    def feature_order(feature: Any) -> tuple[int, str, tuple[int, ...], tuple[str, ...]]:
        first_side = feature.sides[0] if feature.sides else 4
        return (first_side, feature.kind, feature.sides, feature.symbols)

    @property
    def side_kinds(self) -> tuple[int, int, int, int]:
        """What each side shows (SPACE, ROUTE_SIDE, ASTEROID_SIDE): the core's packed faces,
        which for one part per side are exactly these."""
        return self.faces

    @property
    def side_feature(self) -> tuple[int, ...]:
        """The feature touching each side (-1: none)."""
        return self.part_feature

    def to_json(self) -> dict[str, Any]:
        return {"features": [f.to_json() for f in self.features]}

    def describe(self) -> str:
        parts = []
        for f in self.features:
            label = KIND_LABELS[f.kind] + (f" {f.edges}" if f.edges else "")
            if f.symbols:
                label += " [" + ", ".join(f.symbols) + "]"
            parts.append(label)
        return "; ".join(parts) if parts else "open space"


def parse_tile(obj: Any, what: str = "inline tile") -> Tile:
    """Read an inline tile, refusing anything records.md does not allow, with the reason."""
    check_object(obj, what, required=("features",))
    raw_features = get_list(obj, "features", what)
    features = []
    touched: dict[int, int] = {}
    planets = 0
    for number, raw in enumerate(raw_features, start=1):
        where = f"feature {number} of the {what}"
        feature = _parse_feature(raw, where)
        for side in feature.sides:
            if side in touched:
                raise FormatError(
                    f"side {SIDES[side]} of the {what} is touched by features "
                    f"{touched[side]} and {number}; a side touches at most one feature"
                )
            touched[side] = number
        planets += feature.kind == PLANET
        features.append(feature)
    if planets > 1:
        raise FormatError(f"the {what} has {planets} planets; a tile has at most one, in its centre")
    return Tile(tuple(features))


def _parse_feature(raw: Any, where: str) -> Feature:
    check_object(raw, where, required=("kind",), optional=("edges", "symbols"))
    kind = get_str(raw, "kind", where, KINDS)
    edges = raw.get("edges", "")
    if not isinstance(edges, str):
        raise FormatError(f'"edges" in {where} must be a string of sides like "NE", not {json_type(edges)}')
    sides = []
    for letter in edges:
        if letter not in SIDES:
            raise FormatError(f'"edges" in {where} may hold only N, E, S and W, not "{letter}"')
        if SIDES.index(letter) in sides:
            raise FormatError(f'"edges" in {where} names side {letter} twice')
        sides.append(SIDES.index(letter))
    symbols = _parse_symbols(raw.get("symbols", []), where)
    if kind == PLANET:
        if sides:
            raise FormatError(f"a planet lies in the tile's centre and touches no side ({where})")
        if len(symbols) != 1:
            raise FormatError(f"a planet carries exactly one symbol, {where} has {len(symbols)}")
    elif kind == ROUTE and len(sides) not in (1, 2):
        raise FormatError(
            f"a trade route touches one side (it ends in the tile) or two (it runs through); "
            f"{where} touches {len(sides)}"
        )
    elif kind == ASTEROID and not sides:
        raise FormatError(f"an asteroid field touches at least one side ({where})")
    return Feature(kind, tuple(sorted(sides)), tuple(sorted(symbols)))


def _parse_symbols(raw: Any, where: str) -> list[str]:
    if not isinstance(raw, list):
        raise FormatError(f'"symbols" in {where} must be a list, not {json_type(raw)}')
    for symbol in raw:
        if symbol not in FACTIONS:
            shown = f'"{symbol}"' if isinstance(symbol, str) else json_type(symbol)
            raise FormatError(f'symbol {shown} in {where} is not one of "rebels", "empire", "bounty"')
    return list(raw)


def tile_from_mapping(obj: Mapping[str, Any]) -> Tile:
    """Build a tile from trusted data (the bundled catalog), still fully checked."""
    return parse_tile(obj, "catalog tile")
