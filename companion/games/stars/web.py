"""Among the Stars' own web part: the card library the table grows.

``GET /api/stars/cards`` lists the cards a phone offers (this game's, then the library's);
``POST /api/stars/cards`` ``{"card": CARD}`` keeps a card in the library (CSRF token and PIN,
as every change). The game's partials call ``stars_cards(...)`` to draw the same list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flask import Blueprint, Response, jsonify

from companion.games.fields import check_object
from companion.games.stars.cards import parse_card
from companion.games.stars.library import CardLibrary, merged
from companion.web.api import guarded, object_body, problem, web
from companion.web.limits import visible_text

stars = Blueprint("stars", __name__)
CARD_NAME_CHARACTERS = 60  # the longest name a phone may give a card


def blueprint() -> Blueprint:
    return stars


def _library() -> CardLibrary:
    return CardLibrary(web().table.store.state_dir)


def _game_cards() -> list[Mapping[str, Any]]:
    state = web().table.state()
    if state.get("game") != "stars":
        return []
    cards: list[Mapping[str, Any]] = state.get("extras", {}).get("cards", [])
    return cards


def _game_types() -> list[str] | None:
    """The location types the game under way names; None when no Among the Stars game is."""
    state = web().table.state()
    if state.get("game") != "stars" or state.get("finished"):
        return None
    return list(state.get("extras", {}).get("types", []))


@stars.app_template_global("stars_cards")
def stars_cards(game_cards: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """For the partials: this game's cards, then the library's."""
    return merged(game_cards, _library().cards())


@stars.get("/api/stars/cards")
def cards() -> Response:
    return jsonify({"cards": merged(_game_cards(), _library().cards())})


@stars.post("/api/stars/cards")
@guarded
def keep() -> Response:
    request = object_body()
    check_object(request, "a card to keep", required=("card",))
    if isinstance(request["card"], dict):  # as typed: the card's own check takes any name
        visible_text(request["card"].get("name"), "a card's name", CARD_NAME_CHARACTERS)
    card = parse_card(request["card"], "to keep")
    types = _game_types()
    if types is not None and card.type not in types:
        return problem(422, f"the type {card.type!r} is not one of this game's: {', '.join(types)}")
    try:
        _library().keep(card)
    except ValueError as error:
        return problem(409, str(error))
    except OSError as error:
        return problem(507, f"the card library could not be written: {error.strerror or error}")
    return jsonify({"kept": card.name, "cards": merged(_game_cards(), _library().cards())})
