"""What the scoreboard shows of Gaia: the moment (whose turn, what is owed, the land as JSON for
the game's own partials) and one line per event for the timeline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.games.base import Moment, PlayerMoment
from companion.games.gaia import events as ev
from companion.games.gaia.legal import legal_events
from companion.games.gaia.refusals import feeding_text
from companion.games.gaia.rules import (
    ACTIONS_PER_TURN,
    HAND_LIMIT,
    STAR,
    at,
    card_word,
    pawn_words,
    reading_order,
)
from companion.games.shared_events import describe_shared

if TYPE_CHECKING:
    from companion.games.base import Cell
    from companion.games.gaia.engine import GaiaGame


def key(cell: Cell) -> str:
    """A cell as a JSON object key: "x,y"."""
    return f"{cell[0]},{cell[1]}"


def prompts(game: GaiaGame) -> list[str]:
    """What the rules wait for now, in words for the table."""
    if game.over:
        return []
    player = game.turn_player
    found = []
    if game.discard_owed:
        found.append(f"{player} must discard a card: {HAND_LIMIT + 1} in hand, {HAND_LIMIT} at most")
    for cell in reading_order(game.owed):
        owed = game.owed[cell]
        found.append(
            f"{player} owes {pawn_words(owed.pawns)} on the city at {at(cell)} "
            f"(its satisfaction rose from {owed.rose_from} to {owed.rose_to})"
        )
    for objective in game.complete_objectives(player):
        found.append(
            f"{player} claims objective {objective.id} ({', '.join(objective.cards)}): "
            f"the Nature cards in front of {player} include all its cards"
        )
    for city in game.still_hungry():
        found.append(f"{player} feeds {feeding_text(game, city)}: one animal, before any action")
    return found


def phase(game: GaiaGame) -> str:
    if game.over:
        return "game over"
    player = game.turn_player
    if game.discard_owed:
        return f"{player} discards down to {HAND_LIMIT} cards"
    if game.owed:
        return f"{player} places the pawns owed"
    if game.complete_objectives(player):
        return f"{player} claims an objective"
    if game.still_hungry():
        return f"{player} feeds the hungry cities"
    return f"{player}: action {game.actions + 1} of {ACTIONS_PER_TURN}"


def step(game: GaiaGame) -> str:
    """The phase as a code for the partials."""
    if game.over:
        return "over"
    if game.discard_owed:
        return "discard"
    if game.owed or game.complete_objectives(game.turn_player):
        return "owed"
    if game.still_hungry():
        return "feed"
    return "action"


def moment(game: GaiaGame) -> Moment:
    scores = game.scores()
    players = tuple(
        PlayerMoment(
            p.name,
            p.color,
            scores[p.name],
            {"pawns left": game.pawns_left[p.name], "cards in hand": sum(game.hands[p.name].values())},
        )
        for p in game.players
    )
    return Moment(
        turn=game.turn,
        turn_of=None if game.over else game.turn_player,
        phase=phase(game),
        finished=game.over,
        winners=tuple(game.winners()),
        prompts=tuple(prompts(game)),
        players=players,
        extras=extras(game),
    )


def extras(game: GaiaGame) -> dict[str, Any]:
    land = game.land
    hungry = {id(city) for city in game.still_hungry()}
    cells = [*land.tiles, *land.open_cells()]
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    return {
        "variant": game.setup.variant,
        "step": step(game),
        "turn_player": None if game.over else game.turn_player,
        "actions_done": game.actions,
        "pawns_each": game.pawns_each,
        "bounds": [min(xs), min(ys), max(xs), max(ys)],
        "tiles": {
            key(cell): {"terrain": terrain, "animals": land.animals.get(cell, 0)}
            for cell, terrain in land.tiles.items()
        },
        "cities": {
            key(city.at): {
                "terrain": city.terrain,
                "needs": list(city.needs),
                "met": list(city.met),
                "satisfaction": city.satisfaction,
                "pawns": dict(city.pawns),
                "hungry": id(city) in hungry,
            }
            for city in land.cities.values()
        },
        "open": [key(cell) for cell in land.open_cells()] if not game.over else [],
        "supply": dict(game.supply),
        "bank": game.bank,
        "objectives": [
            {"id": o.id, "cards": list(o.cards), "claimed_by": game.claimed.get(o.id)}
            for o in game.objectives
        ],
        "players": [
            {
                "name": p.name,
                "color": p.color,
                "hand": dict(game.hands[p.name]),
                "played": list(game.played[p.name]),
                "placed": game.placed(p.name),
                "left": game.pawns_left[p.name],
            }
            for p in game.players
        ],
        "owed": [{"at": list(cell), "pawns": game.owed[cell].pawns} for cell in reading_order(game.owed)],
        "choices": choices(game),
    }


def choices(game: GaiaGame) -> list[dict[str, Any]]:
    """The events a phone enters in one tap now (follow-ups, meals, draws, an empty deck), each
    with its words; tiles, animals and cities are entered on the land itself."""
    found = []
    for event in legal_events(game):
        if isinstance(event, ev.TileLaid | ev.AnimalsPut | ev.CityLaid):
            continue
        record = ev.event_to_json(event)
        found.append({"text": choice_text(event), "kind": record["event"], "event": record})
    # an empty deck ends the game: offered last, apart from the draws
    return sorted(found, key=lambda choice: choice["kind"] == "end")


def choice_text(event: ev.Event) -> str:
    if isinstance(event, ev.CardDrawn):
        return f"Draw a {card_word(event.kind)} card from the {event.source}"
    if isinstance(event, ev.CardDiscarded):
        return f"Discard a {card_word(event.kind)} card"
    if isinstance(event, ev.CityFed):
        return f"The city at {at(event.city)} eats from {at(event.source)}"
    if isinstance(event, ev.PawnPlaced):
        return f"{event.player} puts a pawn on the city at {at(event.at)}"
    if isinstance(event, ev.ObjectiveClaimed):
        return f"{event.player} claims objective {event.objective}"
    if isinstance(event, ev.DeckEmpty):
        return f"No {card_word(event.kind)} card is left: end the game"
    return describe(event)


def describe(event: ev.Event) -> str:
    if isinstance(event, ev.ScoreAdjusted):
        return describe_shared(event)
    who = event.player
    if isinstance(event, ev.CardDrawn):
        return f"{who} drew a {card_word(event.kind)} card from the {event.source}"
    if isinstance(event, ev.CardDiscarded):
        return f"{who} discarded a {card_word(event.kind)} card"
    if isinstance(event, ev.TileLaid):
        return f"{who} laid a {event.terrain} tile at {at(event.at)}"
    if isinstance(event, ev.AnimalsPut):
        card = (
            "a star animal card: any terrain"
            if event.card_terrain == STAR
            else f"a {event.card_terrain} animal card"
        )
        return f"{who} put 4 animals on the tile at {at(event.at)} ({card})"
    if isinstance(event, ev.CityLaid):
        icon = "star" if event.card.terrain == STAR else event.card.terrain
        return f"{who} laid a {icon} city at {at(event.at)} needing {', '.join(event.card.needs)}"
    if isinstance(event, ev.CityFed):
        return f"{who}'s city at {at(event.city)} ate an animal from the tile at {at(event.source)}"
    if isinstance(event, ev.PawnPlaced):
        return f"{who} put a pawn on the city at {at(event.at)}"
    if isinstance(event, ev.ObjectiveClaimed):
        return f"{who} claimed objective {event.objective}"
    return f"{who} wanted a {card_word(event.kind)} card and none was left: the game ends"
