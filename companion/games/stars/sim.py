"""Random legal Among the Stars games over a made-up card set (``sim_cards.json``, which says it is
made up: the box's card list is not public).

The simulated table is the draft: each year every player is dealt 6 cards; each turn one
waiting player reveals a card of their hand and acts with it, and once everyone has acted the
hands pass on, clockwise or counterclockwise as the year says. What a person would count by
hand is a small random number.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from companion.games.base import Game, Player, Setup
from companion.games.manifest import SimulatorKit
from companion.games.stars import events as ev
from companion.games.stars.cards import Card, parse_card
from companion.games.stars.engine import StarsGame
from companion.games.stars.legal import Draw

HERE = Path(__file__).parent
NAMES = ("Ana", "Ben", "Cleo", "Dan")
HAND = 6


@cache
def made_up() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HERE / "sim_cards.json").read_text(encoding="utf-8"))
    return data


@cache
def default_types() -> tuple[str, ...]:
    data = json.loads((HERE / "defaults.json").read_text(encoding="utf-8"))
    return tuple(data["types"])


@cache
def made_up_cards() -> tuple[Card, ...]:
    return tuple(parse_card(obj, "in sim_cards.json") for obj in made_up()["cards"])


def simulated_setup(players: int, variant: str, rng: random.Random) -> Setup:
    if not 2 <= players <= 4:
        raise ValueError(f"Among the Stars takes 2 to 4 players, not {players}")
    objectives = rng.sample(made_up()["objectives"], players)
    options = {"types": list(default_types()), "objectives": objectives}
    meta = {"simulated": "a random legal game over made-up cards and objectives, not the box's"}
    return Setup("stars", variant, tuple(Player(NAMES[i], None) for i in range(players)), meta, options)


class DraftTable:
    """The hands of a simulated draft, kept in step with the game."""

    def __init__(self, setup: Setup) -> None:
        self.seats = [p.name for p in setup.players]
        self.hands: dict[str, list[Card]] = {}
        self.year = 0
        self.used: set[tuple[int, str]] = set()  # (turn, player) whose revealed card has left the hand
        self.passed: set[int] = set()  # turns after which the hands went round

    def next(self, game: Game, rng: random.Random) -> tuple[Sequence[Any], Sequence[float] | None]:
        assert isinstance(game, StarsGame)
        if game.ended:
            return [], None
        self._follow(game, rng)
        waiting = game.may_act()
        hands = {}
        if waiting:
            who = rng.choice(waiting)
            hands = {who: self.hands.get(who, [])}
        counted = {name: rng.randint(0, 4) for name in game.names}
        events = game.legal_events(Draw(hands, counted))
        return events, [self._weight(game, event, hands) for event in events]

    def _follow(self, game: StarsGame, rng: random.Random) -> None:
        if game.year != self.year:
            cards = made_up_cards()
            self.hands = {name: [rng.choice(cards) for _ in range(HAND)] for name in self.seats}
            self.year, self.used, self.passed = game.year, set(), set()
        for name, action in game.acted.items():
            if (game.turn, name) in self.used:
                continue
            self.used.add((game.turn, name))
            if action.card is not None and action.card in self.hands[name]:
                self.hands[name].remove(action.card)
        if game.turn and game.turn_complete() and game.turn not in self.passed:
            self.passed.add(game.turn)
            step = -1 if game.directions.get(game.year) == "counterclockwise" else 1
            count = len(self.seats)
            self.hands = {
                self.seats[(i + step) % count]: self.hands[name] for i, name in enumerate(self.seats)
            }

    @staticmethod
    def _weight(game: StarsGame, event: Any, hands: dict[str, list[Card]]) -> float:
        if isinstance(event, ev.Built):
            return 8.0
        if isinstance(event, ev.ReactorBuilt | ev.Discarded):
            if event.card is None:
                return 0.0 if hands.get(event.player) else 1.0
            if isinstance(event, ev.ReactorBuilt):
                return 3.0 if game.stations[event.player].cubes() < 2 else 0.5
        return 1.0


def simulator_kit() -> SimulatorKit:
    return SimulatorKit(setup=simulated_setup, chance=lambda setup, rng: DraftTable(setup))
