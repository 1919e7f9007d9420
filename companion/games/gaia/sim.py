"""Random legal Gaia games: a simulated table (our approximate box, ``box.json``) deals and
draws real cards, and the one random player chooses among the engine's legal events.

The record hides which card a draw brings; the table knows, and tells the engine through
``TableCards`` what the player holds, so the player only lays the tiles, animals and cities
their cards allow. A game ends by a win or when a player wants a card from an empty deck.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Game, Setup
from companion.games.gaia import events as ev
from companion.games.gaia.box import load_box
from companion.games.gaia.engine import GaiaGame
from companion.games.gaia.legal import TableCards
from companion.games.gaia.rules import CARD_KINDS, COLOURS, FEWEST_PLAYERS, MOST_PLAYERS
from companion.games.gaia.setup import make_setup
from companion.games.manifest import SimulatorKit

NAMES = ("Ana", "Ben", "Cleo", "Dan", "Eva")
Card = str | ev.CityCard  # a Nature card's terrain, an animal card ("animals:" + icon), or a city card


def _animal(icon: str) -> str:
    return f"animals:{icon}"


def simulated_setup(players: int, variant: str, rng: random.Random) -> Setup:
    if not FEWEST_PLAYERS <= players <= MOST_PLAYERS:
        raise ValueError(f"Gaia takes {FEWEST_PLAYERS} to {MOST_PLAYERS} players, not {players}")
    box = load_box()
    colours = rng.sample(COLOURS, players)
    objectives = rng.sample(box.objectives, box.objectives_laid)
    seated = [(NAMES[i], colours[i], dict(box.deal)) for i in range(players)]
    return make_setup(variant, seated, sorted(objectives, key=lambda o: o.id))


@dataclass
class Hand:
    nature: list[str] = field(default_factory=list)
    life: list[Card] = field(default_factory=list)


class GaiaTable:
    """The simulated table: the decks, the face-up cards and every hand, kept in step with the
    game by reading the events it applied."""

    def __init__(self, setup: Setup, rng: random.Random) -> None:
        box = load_box()
        life: list[Card] = [_animal(icon) for icon in box.animals]
        life += list(box.cities)
        self.decks: dict[str, list[Card]] = {"nature": list(box.nature), "life": life}
        for deck in self.decks.values():
            rng.shuffle(deck)
        self.hands = {p.name: Hand() for p in setup.players}
        for player in setup.players:
            for kind in CARD_KINDS:
                for _ in range(int(player.extra["hand"][kind])):
                    self._cards(self.hands[player.name], kind).append(self._top(kind))
        self.market: dict[str, list[Card]] = {
            kind: [card for card in (self._top(kind) for _ in range(box.market[kind])) if card is not None]
            for kind in CARD_KINDS
        }
        self.followed = 0  # the game's events read so far

    def _top(self, kind: str) -> Any:
        deck = self.decks[kind]
        return deck.pop() if deck else None

    @staticmethod
    def _cards(hand: Hand, kind: str) -> list[Any]:
        return hand.nature if kind == "nature" else hand.life

    def empty(self, kind: str) -> bool:
        return not self.decks[kind] and not self.market[kind]

    def next(self, game: Game, rng: random.Random) -> tuple[Sequence[Any], Sequence[float] | None]:
        assert isinstance(game, GaiaGame)
        self._follow(game, rng)
        if game.over:
            return [], None
        hand = self.hands[game.turn_player]
        cards = TableCards(
            nature=tuple(hand.nature),
            animals=tuple(c.split(":")[1] for c in hand.life if isinstance(c, str)),
            cities=tuple(c for c in hand.life if isinstance(c, ev.CityCard)),
            empty=tuple(kind for kind in CARD_KINDS if self.empty(kind)),
        )
        events = game.legal_events(cards)
        return events, _weights(game, events, len(hand.nature) + len(hand.life))

    def _follow(self, game: GaiaGame, rng: random.Random) -> None:
        for event in game.history[self.followed :]:
            if isinstance(event, ev.ScoreAdjusted):
                continue
            hand = self.hands[event.player]
            if isinstance(event, ev.CardDrawn):
                market = self.market[event.kind]
                if market and (event.source == "market" or not self.decks[event.kind]):
                    card = market.pop(rng.randrange(len(market)))
                    refill = self._top(event.kind)
                    if refill is not None:
                        market.append(refill)
                else:
                    card = self._top(event.kind)
                self._cards(hand, event.kind).append(card)
            elif isinstance(event, ev.CardDiscarded):
                cards = self._cards(hand, event.kind)
                cards.pop(rng.randrange(len(cards)))
            elif isinstance(event, ev.TileLaid):
                hand.nature.remove(event.terrain)
            elif isinstance(event, ev.AnimalsPut):
                hand.life.remove(_animal(event.card_terrain))
            elif isinstance(event, ev.CityLaid):
                hand.life.remove(event.card)
        self.followed = len(game.history)


def _weights(game: GaiaGame, events: Sequence[ev.Event], held: int) -> list[float]:
    """How much the simulated players favour each event: cities, and tiles or animals that raise
    cities, most; drawing when the hand is short; an empty deck only now and then, so that play
    goes on with the other kind for a while. Tiles and animals share one weight between all their
    places, so that many places do not crowd out the other actions."""
    tiles = sum(1 for e in events if isinstance(e, ev.TileLaid))
    animals = sum(1 for e in events if isinstance(e, ev.AnimalsPut))
    weights = []
    for event in events:
        if isinstance(event, ev.CityLaid):
            weights.append(6.0)
        elif isinstance(event, ev.CardDrawn):
            weights.append(1.0 if held < 4 else 0.15)
        elif isinstance(event, ev.DeckEmpty):
            weights.append(0.1)
        elif isinstance(event, ev.TileLaid):
            weights.append(2.0 / tiles + 3.0 * _gain(game, event.at, event.terrain))
        elif isinstance(event, ev.AnimalsPut):
            weights.append(1.0 / animals + 3.0 * _gain(game, event.at, "animals"))
        else:
            weights.append(1.0)
    return weights


def _gain(game: GaiaGame, cell: tuple[int, int], offered: str) -> int:
    """How many unmet needs of the cities beside ``cell`` the thing offered would meet."""
    return sum(
        1
        for city in game.land.cities_beside([cell])
        for need, met in zip(city.needs, city.met, strict=True)
        if need == offered and not met
    )


def simulator_kit() -> SimulatorKit:
    return SimulatorKit(setup=simulated_setup, chance=lambda setup, rng: GaiaTable(setup, rng))
