"""The events the rules allow next, for the simulator (and, later, a camera's tracker).

Which card a player reveals is the table's chance (a draft the record cannot know beforehand),
and so is a number a person counts by hand: both come in a ``Draw``. Without one, only the
events that need neither are listed: power reactors and discards without a named card, the
year, removals and the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING, Any

from companion.games.base import Cell
from companion.games.stars import events as ev
from companion.games.stars.cards import Card
from companion.games.stars.checks import POWER_REACTORS, REACTOR_COST, YEARS
from companion.games.stars.station import Station

if TYPE_CHECKING:
    from companion.games.stars.engine import StarsGame


@dataclass(frozen=True)
class Draw:
    """What the table gives now: the cards each player may reveal, and the number a person
    counted for each player (a manual ability's VP, a manual objective's measure)."""

    hands: Mapping[str, Sequence[Card]] = field(default_factory=dict)
    counted: Mapping[str, int] = field(default_factory=dict)


def payments(station: Station, at: Cell, energy: int) -> list[tuple[Cell, ...]]:
    """Every way of paying ``energy`` cubes for a card at ``at``, each once (cells in order)."""
    if energy == 0:
        return [()]
    reach = station.reactors_in_reach(at)
    found = []
    for choice in combinations_with_replacement(sorted(reach), energy):
        if all(choice.count(cell) <= cubes for cell, cubes in reach.items()):
            found.append(choice)
    return found


def next_direction(game: StarsGame) -> str:
    """The way the cards pass in the coming year: the other way from the year before (l.70)."""
    before = game.directions.get(game.year)
    return "counterclockwise" if before == "clockwise" else "clockwise"


def legal_events(game: StarsGame, chance: Any = None) -> list[Any]:
    if game.ended:
        return []
    draw = chance if isinstance(chance, Draw) else Draw()
    if game.year == 0:
        return [ev.YearStarted(1, next_direction(game))]
    events: list[Any] = [
        ev.AbilityCounted(name, cell, draw.counted[name])
        for name, cell in game.pending.items()
        if name in draw.counted
    ]
    if not game.year_over():
        for name in game.may_act():
            events += _actions(game, name, draw.hands.get(name))
        return events
    if game.pending:
        return events
    removals = [
        ev.CardRemoved(name, cell)
        for name in game.names
        for _, cells in game.stations[name].max_breaks()
        for cell in cells
    ]
    if removals:
        return removals
    if game.year < YEARS:
        return [ev.YearStarted(game.year + 1, next_direction(game))]
    return _year_four_end(game, draw)


def _year_four_end(game: StarsGame, draw: Draw) -> list[Any]:
    events: list[Any] = []
    waiting = False
    for name in game.names:
        for cell, _ in game.stations[name].uncounted_delayed():
            waiting = True
            if name in draw.counted:
                events.append(ev.AbilityCounted(name, cell, draw.counted[name]))
    for objective in game.objectives:
        if objective.kind == "manual" and objective.name not in game.counted:
            waiting = True
            if all(name in draw.counted for name in game.names):
                counts = tuple((name, draw.counted[name]) for name in game.names)
                events.append(ev.ObjectiveCounted(objective.name, counts))
    if not waiting:
        events.append(ev.GameEnded())
    return events


def _actions(game: StarsGame, name: str, hand: Sequence[Card] | None) -> list[Any]:
    station = game.stations[name]
    credits = game.credits[name]
    cells = station.open_cells()
    reactors = credits >= REACTOR_COST and game.reactors_built < POWER_REACTORS
    if hand is None:
        return [*(ev.ReactorBuilt(name, cell) for cell in cells if reactors), ev.Discarded(name)]
    events: list[Any] = []
    for card in dict.fromkeys(hand):  # each card once, though a hand may hold two copies
        if game.card_problem(card) is not None:
            continue
        if credits >= card.cost:
            for cell in cells:
                events += [ev.Built(name, cell, card, paid) for paid in payments(station, cell, card.energy)]
        if reactors:
            events += [ev.ReactorBuilt(name, cell, card) for cell in cells]
        events.append(ev.Discarded(name, card))
    return events
