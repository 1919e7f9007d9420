"""The events the rules allow next, for the simulator, the phones and a future table reader.

The record counts hands by kind only, so which Nature or Life card a player holds is chance, in
this game's terms a ``TableCards``: the cards in the hand of the player whose turn it is, and the
kinds of which no card is left. Without it the list holds every terrain a Nature card could show
and every icon an animal card could carry, but no city (a city card's needs are the table's to
say), and both draws and an empty deck for each kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.games.gaia import events as ev
from companion.games.gaia.rules import (
    ANIMALS_PER_CARD,
    CARD_KINDS,
    NEEDS_TO_LAY,
    SOURCES,
    STAR,
    TERRAINS,
    reading_order,
)

if TYPE_CHECKING:
    from companion.games.gaia.engine import GaiaGame


@dataclass(frozen=True)
class TableCards:
    """What the table knows and the record does not."""

    nature: tuple[str, ...] = ()  # the terrains of the Nature cards in hand
    animals: tuple[str, ...] = ()  # the icons of the animal cards in hand (a terrain or "star")
    cities: tuple[ev.CityCard, ...] = ()  # the city cards in hand
    empty: tuple[str, ...] = ()  # kinds with no card left, face up or face down


def legal_events(game: GaiaGame, chance: Any = None) -> list[ev.Event]:
    if game.over:
        return []
    player = game.turn_player
    hand = game.hands[player]
    if game.discard_owed:
        return [ev.CardDiscarded(player, kind) for kind in CARD_KINDS if hand[kind]]
    follow_ups: list[ev.Event] = [ev.PawnPlaced(player, cell) for cell in reading_order(game.owed)]
    follow_ups += [ev.ObjectiveClaimed(player, o.id) for o in game.complete_objectives(player)]
    if follow_ups:
        return follow_ups
    hungry = game.still_hungry()
    if hungry:
        return [ev.CityFed(player, c.at, tile) for c in hungry for tile in game.land.animals_beside(c.at)]
    cards = chance if isinstance(chance, TableCards) else None
    empty = cards.empty if cards is not None else ()
    events: list[ev.Event] = []
    for kind in CARD_KINDS:
        if kind not in empty:
            events += [ev.CardDrawn(player, kind, source) for source in SOURCES]
        if cards is None or kind in empty:
            events.append(ev.DeckEmpty(player, kind))
    events += _tiles(game, player, cards)
    events += _animals(game, player, cards)
    events += _cities(game, player, cards)
    return events


def _tiles(game: GaiaGame, player: str, cards: TableCards | None) -> list[ev.Event]:
    if not game.hands[player]["nature"]:
        return []
    terrains = TERRAINS if cards is None else tuple(dict.fromkeys(cards.nature))
    cells = game.land.open_cells()
    return [ev.TileLaid(player, cell, t) for t in terrains if game.supply[t] for cell in cells]


def _free_tiles(game: GaiaGame) -> list[tuple[int, int]]:
    return [cell for cell in reading_order(game.land.tiles) if game.land.is_free(cell)]


def _animals(game: GaiaGame, player: str, cards: TableCards | None) -> list[ev.Event]:
    if not game.hands[player]["life"] or game.bank < ANIMALS_PER_CARD:
        return []
    icons = (*TERRAINS, STAR) if cards is None else tuple(dict.fromkeys(cards.animals))
    return [
        ev.AnimalsPut(player, cell, icon)
        for cell in _free_tiles(game)
        for icon in icons
        if icon in (STAR, game.land.tiles[cell])
    ]


def _cities(game: GaiaGame, player: str, cards: TableCards | None) -> list[ev.Event]:
    if cards is None or not cards.cities or not game.hands[player]["life"]:
        return []
    found: list[ev.Event] = []
    for cell in _free_tiles(game):
        terrain = game.land.tiles[cell]
        for card in dict.fromkeys(cards.cities):
            fits = terrain != "sea" if card.terrain == STAR else card.terrain == terrain
            if fits and sum(game.land.needs_met(cell, card.needs)) >= NEEDS_TO_LAY:
                found.append(ev.CityLaid(player, cell, card))
    return found
