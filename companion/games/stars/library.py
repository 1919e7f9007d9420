"""The card library a table grows: every card entered (or enrolled) on a phone, kept by name, so
that next time it is picked, not typed again.

It is a convenience for entry and nothing more: a record always carries its cards inline, and
what a card means in a game is what that record says. The library is one JSON file in the
companion's state folder; a damaged entry is skipped, never fatal.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from companion.games.base import RecordError
from companion.games.stars.cards import Card, parse_card

FILE_NAME = "stars-cards.json"
MOST_CARDS = 500  # far more than the box's 116 location cards
log = logging.getLogger(__name__)
_lock = threading.Lock()


class CardLibrary:
    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / FILE_NAME

    def cards(self) -> list[Card]:
        """The cards kept, in the order they were first kept."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as error:
            log.warning("the card library %s cannot be read (%s); starting from none", self.path, error)
            return []
        kept = []
        for obj in raw.get("cards", []) if isinstance(raw, Mapping) else []:
            try:
                kept.append(parse_card(obj, "in the card library"))
            except RecordError as error:
                log.warning("a card of the library is skipped: %s", error.reason)
        return kept

    def keep(self, card: Card) -> list[Card]:
        """Add a card, or replace the one of its name (the newest reading wins)."""
        with _lock:
            cards = [c for c in self.cards() if c.name != card.name]
            if len(cards) >= MOST_CARDS:
                raise ValueError(f"the card library holds {MOST_CARDS} cards, the most it keeps")
            cards.append(card)
            text = json.dumps({"cards": [c.data() for c in cards]}, ensure_ascii=False, indent=1)
            partial = self.path.with_suffix(".tmp")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial.write_text(text + "\n", encoding="utf-8")
            os.replace(partial, self.path)  # whole or not at all
            return cards


def merged(game_cards: Iterable[Mapping[str, Any]], kept: Iterable[Card]) -> list[dict[str, Any]]:
    """The cards a phone offers: this game's first (its record fixes them), then the library's
    others, each name once."""
    offered = [dict(card) for card in game_cards]
    names = {card["name"] for card in offered}
    offered += [card.data() for card in kept if card.name not in names]
    return offered
