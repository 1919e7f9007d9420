"""Location cards as the record writes them inline, and their abilities (shared/spec/stars.md).

The real card list is not public, so a card is data: its printed name, type, cost, energy, VP,
MAX limit and an ability from a small vocabulary, or ``manual`` for any printed ability outside
it (a person counts its VP). Two cards are the same card when their data is equal; the printed
words (``text``) and ``meta`` are carried along but never compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import FormatError
from companion.games.fields import check_object, get_int, get_name, get_str, json_type

TIMINGS = ("immediate", "delayed")
# each ability kind and the keys it takes beyond "timing", "kind" and "text": (required, optional)
ABILITY_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "vp_flat": (("vp",), ()),
    "vp_per_adjacent": (("vp",), ("type",)),
    "vp_per_type_in_station": (("vp", "type"), ()),
    "vp_per_adjacent_empty_reactor": (("vp",), ()),
    "credits": (("credits",), ()),
    "manual": ((), ()),
}
ABILITY_VP = 99  # an ability's VP per thing counted: -99 to 99, never 0
MOST_CREDITS = 99


@dataclass(frozen=True, slots=True)
class Ability:
    timing: str  # "immediate" (scored when built) or "delayed" (scored at the end)
    kind: str
    vp: int | None = None
    type: str | None = None
    credits: int | None = None
    text: str | None = field(default=None, compare=False)  # the printed words, never read

    @property
    def immediate(self) -> bool:
        return self.timing == "immediate"

    @property
    def manual(self) -> bool:
        return self.kind == "manual"

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"timing": self.timing, "kind": self.kind}
        for key in ("vp", "type", "credits", "text"):
            value = getattr(self, key)
            if value is not None:
                obj[key] = value
        return obj

    def rule(self) -> str:
        """The ability in words, as the log and the phone say it: "1 per adjacent location"."""
        return ability_words(self)


@dataclass(frozen=True, slots=True)
class Card:
    name: str
    type: str
    cost: int
    vp: int
    energy: int = 0
    max: int | None = None
    ability: Ability | None = None
    # the card exactly as the record wrote it (its text and meta too), so writing back loses nothing
    written_as: Mapping[str, Any] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return dict(self.written_as) if self.written_as is not None else self.data()

    def data(self) -> dict[str, Any]:
        """The card's data as the phone offers it: written in full, without the record's meta."""
        obj: dict[str, Any] = {"name": self.name, "type": self.type, "cost": self.cost, "vp": self.vp}
        if self.energy:
            obj["energy"] = self.energy
        if self.max is not None:
            obj["max"] = self.max
        if self.ability is not None:
            obj["ability"] = self.ability.to_json()
        return obj

    def differences(self, other: Card) -> list[str]:
        """What differs between two reads of a card of the same name, in words."""
        found = []
        for key in ("type", "cost", "vp", "energy", "max"):
            mine, theirs = getattr(self, key), getattr(other, key)
            if mine != theirs:
                found.append(f"{key} {_shown(mine)}, not {_shown(theirs)}")
        if self.ability != other.ability:
            found.append(f"ability {_ability_shown(self.ability)}, not {_ability_shown(other.ability)}")
        return found


def _shown(value: Any) -> str:
    return "none" if value is None else str(value)


def _ability_shown(ability: Ability | None) -> str:
    return "none" if ability is None else f"{ability.timing} {ability.rule()}"


def parse_card(obj: Any, where: str) -> Card:
    """A card written inline; ``where`` says where it was read ("in a build event")."""
    what = f"the card {where}"
    if not isinstance(obj, Mapping):
        raise FormatError(f'"card" {where} must be a card object, not {json_type(obj)}')
    if isinstance(obj.get("name"), str) and obj["name"].strip():
        what = f'the card "{obj["name"]}"'
    check_object(obj, what, required=("name", "type", "cost", "vp"), optional=("energy", "max", "ability"))
    return Card(
        name=get_name(obj, "name", what),
        type=get_name(obj, "type", what),
        cost=get_int(obj, "cost", what, 0, 99),
        vp=get_int(obj, "vp", what, 0, 99),
        energy=get_int(obj, "energy", what, 0, 9) if "energy" in obj else 0,
        max=get_int(obj, "max", what, 1, 9) if "max" in obj else None,
        ability=parse_ability(obj["ability"], f"the ability of {what}") if "ability" in obj else None,
        written_as=obj,
    )


def parse_ability(obj: Any, what: str) -> Ability:
    if not isinstance(obj, Mapping):
        raise FormatError(f"{what} must be a JSON object, not {json_type(obj)}")
    for key in ("timing", "kind"):
        if key not in obj:
            raise FormatError(f'{what} is missing "{key}"')
    timing = get_str(obj, "timing", what, TIMINGS)
    kind = get_str(obj, "kind", what, tuple(ABILITY_KEYS))
    required, optional = ABILITY_KEYS[kind]
    check_object(obj, what, required=("timing", "kind", *required), optional=(*optional, "text"))
    vp = None
    if "vp" in obj:
        vp = get_int(obj, "vp", what, -ABILITY_VP, ABILITY_VP)
        if vp == 0:
            raise FormatError(f'"vp" in {what} must not be 0')
    credits = get_int(obj, "credits", what, 1, MOST_CREDITS) if "credits" in obj else None
    if kind == "credits" and timing != "immediate":
        raise FormatError(f'{what}: a "credits" ability is immediate only (the credits come with the build)')
    return Ability(
        timing=timing,
        kind=kind,
        vp=vp,
        type=get_name(obj, "type", what) if "type" in obj else None,
        credits=credits,
        text=get_str(obj, "text", what) if "text" in obj else None,
    )


def ability_words(ability: Ability) -> str:
    """What an ability counts, in the words of the log: "1 per adjacent scientific location"."""
    per = f"{abs(ability.vp or 0)} per"
    if ability.kind == "vp_flat":
        return f"{abs(ability.vp or 0)} VP"
    if ability.kind == "vp_per_adjacent":
        kind = f"{ability.type} location" if ability.type else "location"
        return f"{per} adjacent {kind}"
    if ability.kind == "vp_per_type_in_station":
        return f"{per} {ability.type} location in the station"
    if ability.kind == "vp_per_adjacent_empty_reactor":
        return f"{per} adjacent empty reactor"
    if ability.kind == "credits":
        return f"+{ability.credits} credits"
    return "counted by hand"
