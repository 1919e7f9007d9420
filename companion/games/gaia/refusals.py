"""Why an event is not allowed now: every check of the rules, made before anything changes.

``refusal`` reads the game and changes nothing; the engine applies an event only when it says
None, so an illegal event leaves the game exactly as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games.gaia import events as ev
from companion.games.gaia.rules import (
    ANIMALS,
    ANIMALS_PER_CARD,
    FIRST_CELL,
    HAND_LIMIT,
    LAND_TILES,
    NEEDS_PER_CITY,
    NEEDS_TO_LAY,
    STAR,
    are_neighbours,
    at,
    card_word,
    pawn_words,
)

if TYPE_CHECKING:
    from companion.games.gaia.engine import GaiaGame

GAIA_EVENTS = (*ev.ACTIONS, *ev.FOLLOW_UPS, ev.CityFed)


def refusal(game: GaiaGame, event: object) -> str | None:
    if isinstance(event, ev.ScoreAdjusted):
        return None if event.player in game.seat_of else f'"{event.player}" is not a player in this game'
    if not isinstance(event, GAIA_EVENTS):
        return f"not a Gaia event: {event!r}"
    if game.over:
        return "the game is over: nothing may follow its end but a score corrected by hand"
    player = event.player
    if player not in game.seat_of:
        return f'"{player}" is not a player in this game'
    turn_player = game.turn_player
    if isinstance(event, ev.FOLLOW_UPS):
        if player != turn_player:
            return f"it is {turn_player}'s turn, not {player}'s"
        return _follow_up(game, event)
    owing = owed_first(game)
    if owing is not None:
        return owing
    if player != turn_player:
        return f"it is {turn_player}'s turn, not {player}'s"
    if isinstance(event, ev.CityFed):
        return _feed(game, event)
    hungry = game.still_hungry()
    if hungry:
        return f"{player} must first feed {feeding_text(game, hungry[0])}"
    if isinstance(event, ev.TileLaid):
        return _tile(game, event)
    if isinstance(event, ev.AnimalsPut):
        return _animals(game, event)
    if isinstance(event, ev.CityLaid):
        return _city(game, event)
    return None  # a draw, or an end: the record takes the empty deck as observed


def feeding_text(game: GaiaGame, city: object) -> str:
    from companion.games.gaia.land import City

    assert isinstance(city, City)
    tiles = ", ".join(at(cell) for cell in game.land.animals_beside(city.at))
    return f"the city at {at(city.at)} (animals next to it at {tiles})"


def owed_first(game: GaiaGame) -> str | None:
    """What the turn's player still owes, first thing first, as the reason an action waits."""
    player = game.turn_player
    if game.discard_owed:
        return f"{player} must first discard a card: {HAND_LIMIT + 1} cards in hand, {HAND_LIMIT} at most"
    for cell in sorted(game.owed, key=lambda c: (c[1], c[0])):
        owed = game.owed[cell]
        return (
            f"{player} still owes {pawn_words(owed.pawns)} on the city at {at(cell)} "
            f"(its satisfaction rose from {owed.rose_from} to {owed.rose_to})"
        )
    for objective in game.complete_objectives(player):
        return (
            f"{player} still owes the claim of objective {objective.id}: the Nature cards in front of "
            f"{player} include all its cards ({', '.join(objective.cards)})"
        )
    return None


def _follow_up(game: GaiaGame, event: ev.FollowUp) -> str | None:
    player = event.player
    if isinstance(event, ev.CardDiscarded):
        if not game.discard_owed:
            held = sum(game.hands[player].values())
            return (
                f"a discard comes only straight after a draw that brings a hand to {HAND_LIMIT + 1} cards; "
                f"{player} holds {held}"
            )
        if not game.hands[player][event.kind]:
            return f"{player} holds no {card_word(event.kind)} card to discard"
        return None
    if game.discard_owed:
        return owed_first(game)
    if isinstance(event, ev.PawnPlaced):
        return _pawn(game, event)
    objective = game.objective_by_id.get(event.objective)
    if objective is None:
        ids = ", ".join(o.id for o in game.objectives)
        return f'there is no objective "{event.objective}" on the table (the header lays {ids})'
    if objective.id in game.claimed:
        return f"objective {objective.id} is already claimed by {game.claimed[objective.id]}"
    if objective not in game.complete_objectives(player):
        front = ", ".join(game.played[player]) or "none"
        return (
            f"the Nature cards in front of {player} ({front}) do not include every card of objective "
            f"{objective.id} ({', '.join(objective.cards)})"
        )
    return None


def _pawn(game: GaiaGame, event: ev.PawnPlaced) -> str | None:
    player, cell = event.player, event.at
    city = game.land.cities.get(cell)
    if city is None:
        return f"there is no city at {at(cell)}"
    if cell in game.owed:
        return None
    have = city.pawns_of(player)
    if have and not game.advanced:
        return f"{player} already has a pawn on the city at {at(cell)} (one pawn per player per city)"
    if have and game.advanced and (have == 2 or city.satisfaction < NEEDS_PER_CITY):
        return (
            f"{player} already has {pawn_words(have)} on the city at {at(cell)} "
            f"(one pawn per player per city, two when all {NEEDS_PER_CITY} needs are met)"
        )
    return (
        f"{player} owes no pawn on the city at {at(cell)}: a pawn goes on a city whose satisfaction "
        f"{player}'s own event has just raised"
    )


def _feed(game: GaiaGame, event: ev.CityFed) -> str | None:
    player = event.player
    if game.actions:
        return f"a city eats before the turn's first action, and {player} has taken an action this turn"
    city = game.land.cities.get(event.city)
    if city is None:
        return f"there is no city at {at(event.city)}"
    if not any(city is hungry for hungry in game.hungry):
        if ANIMALS not in city.needs:
            return f"the city at {at(city.at)} has no animals need: it never eats"
        return (
            f"the city at {at(city.at)} is not hungry on {player}'s turn: it carried no pawn of "
            f"{player}'s when the turn began"
        )
    if any(city is eaten for eaten in game.eaten):
        return f"the city at {at(city.at)} has already eaten this turn (one animal per city)"
    if not are_neighbours(city.at, event.source):
        return (
            f"the tile at {at(event.source)} is not next to the city at {at(city.at)} "
            "(diagonals do not count)"
        )
    if event.source not in game.land.tiles:
        return f"there is no land tile at {at(event.source)}"
    if event.source not in game.land.animals:
        return f"the tile at {at(event.source)} holds no animals"
    return None


def _tile(game: GaiaGame, event: ev.TileLaid) -> str | None:
    player, cell, terrain = event.player, event.at, event.terrain
    if not game.hands[player]["nature"]:
        return f"{player} holds no Nature card to play"
    if not game.supply[terrain]:
        return f"no {terrain} land tile is left: all {LAND_TILES[terrain]} are laid"
    land = game.land
    if not land.tiles:
        if cell != FIRST_CELL:
            return f"the first land tile of the game goes at {at(FIRST_CELL)}, not at {at(cell)}"
        return None
    if cell in land.tiles:
        return f"there is already a land tile at {at(cell)}"
    if not land.touches(cell):
        return f"the land tile at {at(cell)} touches no tile on a side (diagonals do not count)"
    return None


def _free_tile(game: GaiaGame, event: ev.AnimalsPut | ev.CityLaid, what: str) -> str | None:
    cell = event.at
    if cell not in game.land.tiles:
        return f"there is no land tile at {at(cell)}"
    if cell in game.land.cities:
        return f"the tile at {at(cell)} holds a city: {what} on a free tile"
    if cell in game.land.animals:
        return f"the tile at {at(cell)} holds animals: {what} on a free tile"
    return None


def _animals(game: GaiaGame, event: ev.AnimalsPut) -> str | None:
    player = event.player
    if not game.hands[player]["life"]:
        return f"{player} holds no Life card to play"
    taken = _free_tile(game, event, "animals go")
    if taken is not None:
        return taken
    terrain = game.land.tiles[event.at]
    if event.card_terrain not in (STAR, terrain):
        return (
            f"a {event.card_terrain} animal card puts its animals on a {event.card_terrain} tile; "
            f"the tile at {at(event.at)} is {terrain}"
        )
    if game.bank < ANIMALS_PER_CARD:
        return f"only {game.bank} animal tokens are left in the bank; an animal card needs {ANIMALS_PER_CARD}"
    return None


def _city(game: GaiaGame, event: ev.CityLaid) -> str | None:
    player, cell, card = event.player, event.at, event.card
    if not game.hands[player]["life"]:
        return f"{player} holds no Life card to play"
    taken = _free_tile(game, event, "a city goes")
    if taken is not None:
        return taken
    terrain = game.land.tiles[cell]
    if card.terrain == STAR and terrain == "sea":
        return f"a star city goes on any land tile but sea; the tile at {at(cell)} is sea"
    if card.terrain not in (STAR, terrain):
        return f"a {card.terrain} city goes on a {card.terrain} tile; the tile at {at(cell)} is {terrain}"
    met = game.land.needs_met(cell, card.needs)
    if sum(met) < NEEDS_TO_LAY:
        names = [need for need, ok in zip(card.needs, met, strict=True) if ok]
        listed = f" ({', '.join(names)})" if names else ""
        return (
            f"a city needs at least {NEEDS_TO_LAY} needs met to be laid; at {at(cell)} it meets "
            f"{sum(met)}{listed}"
        )
    return None
