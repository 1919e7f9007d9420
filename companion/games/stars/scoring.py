"""What a build, an ability, an objective and the end of the game score, with the reason a person
checks ("Holographic Display Area: 2 VP + 1 per adjacent location x 2 = 4").

Every function here reads a station and says what it is worth; none changes anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.base import Cell
from companion.games.stars.cards import Ability, Card
from companion.games.stars.setup import Objective
from companion.games.stars.station import CARD, Station

RULES = {
    "build": "A location scores its printed VP when built, and its immediate ability (white box) at once, "
    "counted on the station just after the build (seed l.96-100).",
    "ability": "An ability outside the companion's vocabulary is counted by a person and entered as its VP.",
    "remove": "At the end of a year a station beyond a card's MAX removes copies until it is valid, and "
    "loses the VP they scored when built; no credits come back (l.145-151).",
    "objective": "Each objective goes to the one player with the highest measure; if two or more share "
    "it, no one gets it (l.169, l.177).",
    "delayed": "A delayed ability (yellow box) is counted at the end, on the station as it is then (l.171).",
    "reactors": "At the end, 1 VP for each power reactor without energy cubes (l.173).",
    "credits": "At the end, 1 VP for every 3 credits left, rounded down (l.175).",
    "adjust": "A score corrected by hand on a phone, with the reason given.",
}


@dataclass(frozen=True)
class Scored:
    """Points with their reason and what was counted (for the score's page)."""

    points: int
    reason: str
    detail: Mapping[str, Any]


def where(cell: Cell) -> str:
    return f"[{cell[0]}, {cell[1]}]"


def ability_count(station: Station, at: Cell, ability: Ability) -> int | None:
    """How many things the ability counts at ``at`` now; None for abilities that give no VP by
    themselves (credits, manual)."""
    if ability.kind == "vp_flat":
        return 1
    if ability.kind == "vp_per_adjacent":
        near = station.adjacent_locations(at)
        if ability.type is None:
            return len(near)
        return sum(1 for slot in near if slot.kind == CARD and slot.card and slot.card.type == ability.type)
    if ability.kind == "vp_per_type_in_station":
        return station.of_type(ability.type or "")
    if ability.kind == "vp_per_adjacent_empty_reactor":
        return sum(1 for slot in station.adjacent_locations(at) if slot.is_reactor and slot.cubes == 0)
    return None


def _term(ability: Ability, count: int, first: bool) -> str:
    """One ability's part of a reason: "+ 1 per adjacent location x 2" (or first: "1 per ...")."""
    vp = ability.vp or 0
    words = ability.rule() if ability.kind != "vp_flat" else f"{abs(vp)} VP"
    counted = "" if ability.kind == "vp_flat" else f" x {count}"
    if first:
        return f"{'-' if vp < 0 else ''}{words}{counted}"
    return f"{'-' if vp < 0 else '+'} {words}{counted}"


def build_score(station: Station, at: Cell, card: Card) -> Scored:
    """A card just built at ``at`` (already placed, its cubes taken): printed VP and immediate ability."""
    ability = card.ability
    points, parts = card.vp, [f"{card.vp} VP"]
    detail: dict[str, Any] = {"card": card.data(), "at": list(at), "printed": card.vp, "rule": RULES["build"]}
    if ability is not None and ability.immediate:
        count = ability_count(station, at, ability)
        if count is not None:
            points += (ability.vp or 0) * count
            parts.append(_term(ability, count, first=False))
            detail.update(ability=ability.rule(), counted=count)
        elif ability.kind == "credits":
            parts[-1] += f" (+{ability.credits} credits)"
            detail["credits"] = ability.credits
        else:
            parts[-1] += ", its ability counted by hand next"
    elif ability is not None:
        parts[-1] += ", its ability counts at the end"
    return Scored(points, f"{card.name}: {' '.join(parts)} = {points}", detail)


def manual_score(card: Card, at: Cell, vp: int, delayed: bool) -> Scored:
    when = ", delayed" if delayed else ""
    detail = {"card": card.data(), "at": list(at), "counted_by_hand": vp, "rule": RULES["ability"]}
    return Scored(vp, f"{card.name} at {where(at)}{when}: ability counted by hand = {vp}", detail)


def delayed_score(station: Station, at: Cell, card: Card, manual_vp: int | None) -> Scored:
    """A delayed ability at the end, on the station as it is then."""
    ability = card.ability
    assert ability is not None and not ability.immediate
    if ability.manual:
        return manual_score(card, at, manual_vp or 0, delayed=True)
    count = ability_count(station, at, ability) or 0
    points = (ability.vp or 0) * count
    detail = {"card": card.data(), "at": list(at), "ability": ability.rule(), "counted": count}
    reason = f"{card.name} at {where(at)}, delayed: {_term(ability, count, first=True)} = {points}"
    return Scored(points, reason, {**detail, "rule": RULES["delayed"]})


def objective_scores(
    objective: Objective, measures: Mapping[str, int], order: Sequence[str]
) -> list[tuple[str, Scored]]:
    """The objective's bonus: to the one player with the highest measure, or a 0 for each of
    the players tied for it."""
    best = max(measures[name] for name in order)
    holders = [name for name in order if measures[name] == best]
    detail = {
        "objective": objective.name,
        "measures": {n: measures[n] for n in order},
        "rule": RULES["objective"],
    }
    head = f"objective {objective.name}: {objective.measure}"
    if len(holders) == 1:
        following = max(measures[name] for name in order if name != holders[0])
        reason = f"{head} {best}, the most (next {following}) = {objective.vp}"
        return [(holders[0], Scored(objective.vp, reason, detail))]
    tied = ", ".join(holders)
    reason = f"{head} tied at {best} ({tied}), no bonus = 0"
    return [(name, Scored(0, reason, detail)) for name in holders]


def measure(objective: Objective, station: Station) -> int:
    """An objective's measure of one station (not for manual objectives, which a person counts)."""
    if objective.kind == "most_type":
        return station.of_type(objective.type or "")
    if objective.kind == "most_locations":
        return station.location_cards()
    return len(station.power_reactors())


def reactors_score(station: Station) -> Scored | None:
    empty = sum(1 for slot in station.power_reactors() if slot.cubes == 0)
    if not empty:
        return None
    reason = f"{empty} power reactors without energy cubes x 1 = {empty}"
    return Scored(empty, reason, {"empty_power_reactors": empty, "rule": RULES["reactors"]})


def credits_score(credits: int) -> Scored | None:
    if credits < 3:
        return None
    points = credits // 3
    return Scored(
        points, f"{credits} credits left / 3 = {points}", {"credits": credits, "rule": RULES["credits"]}
    )
