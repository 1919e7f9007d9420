"""The Among the Stars header: players, the location types the record names, the objectives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.base import FormatError, Player, Setup
from companion.games.fields import check_object, get_int, get_list, get_name, get_str, quote_list

GAME = "stars"
VARIANTS = ("peaceful",)
RESERVED_VARIANTS = ("aggressive",)  # named by the contract, refused until it is specified
FEWEST, MOST = 2, 4  # 4 main reactor cards and 4 markers in the box (seed l.11, l.21)
MOST_TYPES = 6  # the box's six colour-coded location types (seed l.86)
OBJECTIVE_KINDS = ("most_type", "most_locations", "most_power_reactors", "manual")
MEASURE_WORDS = {
    "most_locations": "locations",
    "most_power_reactors": "power reactors",
    "manual": "count",
}


@dataclass(frozen=True, slots=True)
class Objective:
    name: str
    kind: str
    vp: int
    type: str | None = None  # for most_type

    @property
    def measure(self) -> str:
        """What the objective counts, in words: "military locations", "power reactors"."""
        if self.kind == "most_type":
            return f"{self.type} locations"
        return MEASURE_WORDS[self.kind]


@dataclass(frozen=True, slots=True)
class Options:
    """What a Stars header adds to the shared one."""

    types: tuple[str, ...]
    objectives: tuple[Objective, ...]


def parse_setup(header: Mapping[str, Any]) -> Setup:
    """Check a Stars header; the types and objectives are kept as written in ``Setup.options``."""
    check_object(
        header,
        "the header",
        required=("record", "game", "players", "types"),
        optional=("variant", "objectives"),
    )
    variant = VARIANTS[0]
    if "variant" in header:
        variant = get_str(header, "variant", "the header")
        if variant in RESERVED_VARIANTS:
            raise FormatError(
                f'the variant "{variant}" is reserved and not specified yet: only "peaceful" is scored'
            )
        if variant not in VARIANTS:
            raise FormatError(f'"variant" in the header must be "peaceful", not "{variant}"')
    players = read_players(header)
    options: dict[str, Any] = {"types": header["types"]}
    if "objectives" in header:
        options["objectives"] = header["objectives"]
    read_options(options, len(players))
    return Setup(GAME, variant, players, header.get("meta"), options)


def read_players(header: Mapping[str, Any]) -> tuple[Player, ...]:
    raw = get_list(header, "players", "the header")
    if not FEWEST <= len(raw) <= MOST:
        raise FormatError(f"Among the Stars takes {FEWEST} to {MOST} players, the header lists {len(raw)}")
    players: list[Player] = []
    for number, obj in enumerate(raw, start=1):
        what = f"player {number} in the header"
        check_object(obj, what, required=("name",), optional=("color",))
        name = get_name(obj, "name", what)
        if any(other.name == name for other in players):
            raise FormatError(f'two players are called "{name}"; names must differ')
        color = get_name(obj, "color", what) if "color" in obj else None
        players.append(Player(name, color, obj.get("meta")))
    return tuple(players)


def read_options(options: Mapping[str, Any], players: int) -> Options:
    """The header's types and objectives (``Setup.options``), checked."""
    types = read_types(options)
    return Options(types, read_objectives(options, types, players))


def read_types(options: Mapping[str, Any]) -> tuple[str, ...]:
    raw = get_list(options, "types", "the header")
    if not 1 <= len(raw) <= MOST_TYPES:
        raise FormatError(f'"types" in the header names 1 to {MOST_TYPES} location types, not {len(raw)}')
    types: list[str] = []
    for value in raw:
        if not isinstance(value, str) or not value.strip():
            raise FormatError('"types" in the header must list the location types as names')
        if value in types:
            raise FormatError(f'"types" in the header names "{value}" twice')
        types.append(value)
    return tuple(types)


def read_objectives(options: Mapping[str, Any], types: Sequence[str], players: int) -> tuple[Objective, ...]:
    if "objectives" not in options:
        return ()
    raw = get_list(options, "objectives", "the header")
    if raw and len(raw) != players:
        raise FormatError(
            f"a game with objectives draws one per player: {players} objectives, not {len(raw)} "
            "(or none at all)"
        )
    objectives: list[Objective] = []
    for number, obj in enumerate(raw, start=1):
        what = f"objective {number} in the header"
        if not isinstance(obj, Mapping) or "kind" not in obj:
            check_object(obj, what, required=("name", "kind", "vp"), optional=("text",))
        kind = get_str(obj, "kind", what, OBJECTIVE_KINDS)
        extra = ("type",) if kind == "most_type" else ()
        check_object(obj, what, required=("name", "kind", "vp", *extra), optional=("text",))
        name = get_name(obj, "name", what)
        if any(other.name == name for other in objectives):
            raise FormatError(f'two objectives are called "{name}"; names must differ')
        if "text" in obj:
            get_str(obj, "text", what)
        kind_type = None
        if kind == "most_type":
            kind_type = get_name(obj, "type", what)
            if kind_type not in types:
                raise FormatError(
                    f'objective "{name}" counts "{kind_type}" locations, which is not one of the '
                    f"header's types ({quote_list(types)})"
                )
        objectives.append(Objective(name, kind, get_int(obj, "vp", what, 1, 99), kind_type))
    return tuple(objectives)
