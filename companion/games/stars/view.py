"""The moment of an Among the Stars game as the pages read it: every station as a grid of cards
with their cubes, credits and VP; the year and turn; who has acted; what the table must enter."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.games.base import Moment, PlayerMoment, ScoreChange
from companion.games.stars.checks import POWER_REACTORS, TURNS, YEARS
from companion.games.stars.legal import next_direction
from companion.games.stars.scoring import where
from companion.games.stars.station import CARD

if TYPE_CHECKING:
    from companion.games.stars.engine import StarsGame


def station_json(game: StarsGame, name: str) -> dict[str, Any]:
    """One station for the pages: its cells, the empty cells a card may go to, and the box that
    holds them (``box``: the built cells; ``entry_box``: with the empty ones around them)."""
    station = game.stations[name]
    cells = []
    for cell, slot in sorted(station.cells.items(), key=lambda item: (item[0][1], item[0][0])):
        entry: dict[str, Any] = {"at": list(cell), "kind": slot.kind, "name": slot.label, "cubes": slot.cubes}
        if slot.card is not None:
            card = slot.card
            entry.update(type=card.type, scored=slot.scored, cost=card.cost, vp=card.vp, max=card.max)
            if card.ability is not None:
                entry.update(
                    ability=card.ability.rule(), timing=card.ability.timing, manual=card.ability.manual
                )
                if card.ability.manual:
                    entry["counted"] = slot.manual_vp
        cells.append(entry)
    open_cells = [list(cell) for cell in station.open_cells()]
    built = list(station.cells)
    return {
        "player": name,
        "credits": game.credits[name],
        "vp": game.points[name],
        "cubes": station.cubes(),
        "location_cards": station.location_cards(),
        "power_reactors": len(station.power_reactors()),
        "acted": name in game.acted and not (game.turn_complete() and not game.year_over()),
        "pending": list(game.pending[name]) if name in game.pending else None,
        "cells": cells,
        "open": open_cells,
        "box": _box(built),
        "entry_box": _box(built + [(x, y) for x, y in open_cells]),
    }


def _box(cells: list[tuple[int, int]]) -> dict[str, int]:
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    return {"x": min(xs), "y": min(ys), "columns": max(xs) - min(xs) + 1, "rows": max(ys) - min(ys) + 1}


def _waiting_counts(game: StarsGame) -> tuple[list[dict[str, Any]], list[str]]:
    """At the end of year 4: the delayed manual abilities and the manual objectives still to count."""
    abilities = []
    if game.year == YEARS and game.year_over() and not game.ended:
        for name in game.names:
            for cell, slot in game.stations[name].uncounted_delayed():
                abilities.append({"player": name, "at": list(cell), "card": slot.label})
    objectives = [
        o.name
        for o in game.objectives
        if o.kind == "manual" and o.name not in game.counted and game.year == YEARS and game.year_over()
    ]
    return abilities, ([] if game.ended else objectives)


def _breaks(game: StarsGame) -> list[dict[str, Any]]:
    found = []
    for name in game.names:
        for card, cells in game.stations[name].max_breaks():
            found.append(
                {
                    "player": name,
                    "card": card.name,
                    "max": card.max,
                    "cells": [list(cell) for cell in cells],
                    "remove": len(cells) - (card.max or 0),
                }
            )
    return found


def _phase(game: StarsGame, breaks: list[dict[str, Any]], counting: bool) -> str:
    if game.ended:
        return "game over"
    if game.year == 0:
        return "year 1 begins: every player takes 10 credits"
    if not game.year_over():
        names = game.may_act()
        if not names:
            return "waiting for the abilities counted by hand"
        waiting = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        return f"waiting for {waiting} to act"
    if breaks:
        return f"year {game.year} is over: remove the cards beyond their MAX"
    if game.year < YEARS:
        return f"year {game.year} is over: year {game.year + 1} next"
    if counting:
        return "year 4 is over: enter what is counted by hand, then end the game"
    return "year 4 is over: end the game for the final scoring"


def moment(game: StarsGame) -> Moment:
    breaks = _breaks(game) if game.year_over() else []
    abilities, objectives = _waiting_counts(game)
    prompts = [
        f"{name}: count the ability of {game.stations[name].cells[cell].label} at {where(cell)} "
        "and enter its VP"
        for name, cell in game.pending.items()
    ]
    prompts += [
        f"{b['player']}'s station has {len(b['cells'])} {b['card']}, beyond its MAX {b['max']}: "
        f"remove {b['remove']} before the year ends"
        for b in breaks
    ]
    prompts += [
        f"{a['player']}: count the delayed ability of {a['card']} at {where(tuple(a['at']))}"
        for a in abilities
    ]
    prompts += [f"count objective {name} for every player" for name in objectives]
    players = tuple(
        PlayerMoment(
            p.name,
            p.color,
            game.points[p.name],
            {
                "credits": game.credits[p.name],
                "energy cubes": game.stations[p.name].cubes(),
                "location cards": game.stations[p.name].location_cards(),
                "power reactors": len(game.stations[p.name].power_reactors()),
            },
        )
        for p in game.setup.players
    )
    between = game.year_over() or game.year == 0
    extras: dict[str, Any] = {
        "year": game.year,
        "turn": game.current_turn(),
        "years": YEARS,
        "turns": TURNS,
        "year_over": game.year_over(),
        "may_act": game.may_act(),
        "acted": [] if game.turn_complete() and not game.year_over() else list(game.acted),
        "next_year": game.year + 1
        if between and game.year < YEARS and not breaks and not game.pending
        else None,
        "pass_next": next_direction(game),
        "passing": game.directions.get(game.year),
        "can_end": game.year == YEARS
        and game.year_over()
        and not breaks
        and not game.pending
        and not abilities
        and not objectives
        and not game.ended,
        "pending": [
            {"player": n, "at": list(c), "card": game.stations[n].cells[c].label}
            for n, c in game.pending.items()
        ],
        "max_breaks": breaks,
        "delayed_to_count": abilities,
        "objectives_to_count": objectives,
        "objectives": [
            {
                "name": o.name,
                "kind": o.kind,
                "vp": o.vp,
                "measure": o.measure,
                "counted": o.name in game.counted,
            }
            for o in game.objectives
        ],
        "types": list(game.types),
        "reactors_left": POWER_REACTORS - game.reactors_built,
        "cards": [card.data() for card in game.cards_seen.values()],
        "stations": [station_json(game, name) for name in game.names],
    }
    return Moment(
        turn=game.current_turn(),
        turn_of=None,  # the players act at once: no one's turn in particular
        phase=_phase(game, breaks, bool(abilities or objectives)),
        finished=game.ended,
        winners=tuple(game.winners()),
        prompts=tuple(prompts),
        players=players,
        extras=extras,
    )


def score_view(game: StarsGame, change: ScoreChange) -> dict[str, Any]:
    """A score's page draws the player's station as it is now, the scored card brought forward."""
    if change.player is None or change.player not in game.stations:
        return {}
    at = (change.extra or {}).get("at")
    station = station_json(game, change.player)
    still = at is not None and any(c["at"] == at and c["kind"] == CARD for c in station["cells"])
    return {"station": station, "at": at, "still_there": still}
