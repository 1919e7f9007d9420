"""The Gaia rules engine: a turn is the player's feeding, two actions, and what each action makes
them owe (a discard after a 7th card, a pawn on every city their event raised, an objective
their Nature cards complete).

Every check runs before anything changes (``refusals.py``): an illegal event leaves the game as
it was. What the rules decide by themselves (pawns going home, cities removed, the winner) is
worked out here and in ``effects.py``, and explained in the log, one entry each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from companion.games.base import Cell, Game, IllegalEvent, Moment, ScoreChange, Setup
from companion.games.gaia import events as ev
from companion.games.gaia.drawing import land_svg
from companion.games.gaia.effects import LandEffects, Owed
from companion.games.gaia.land import City, Land
from companion.games.gaia.legal import legal_events
from companion.games.gaia.refusals import refusal
from companion.games.gaia.rules import (
    ACTIONS_PER_TURN,
    ANIMAL_TOKENS,
    ANIMALS,
    GAME,
    HAND_LIMIT,
    LAND_TILES,
    TITLE,
    card_word,
    pawns_each,
)
from companion.games.gaia.setup import Objective, objectives_of, parse_setup, starting_hand
from companion.games.gaia.view import describe, moment
from companion.games.shared_events import adjust_reason


class GaiaGame(LandEffects, Game):
    name = GAME
    title = TITLE

    # --- the record form ---------------------------------------------------------------------

    @classmethod
    def parse_setup(cls, header: Mapping[str, Any]) -> Setup:
        return parse_setup(header)

    @classmethod
    def parse_event(cls, obj: Mapping[str, Any]) -> ev.Event:
        return ev.parse_event(obj)

    @classmethod
    def event_to_json(cls, event: ev.Event) -> dict[str, Any]:
        return ev.event_to_json(event)

    # --- state ---------------------------------------------------------------------------------

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.players = setup.players
        self.names = [p.name for p in setup.players]
        self.seat_of = {name: seat for seat, name in enumerate(self.names)}
        self.advanced = setup.variant == "advanced"
        self.objectives: tuple[Objective, ...] = objectives_of(setup)
        self.objective_by_id = {o.id: o for o in self.objectives}
        self._wanted = {o.id: Counter(o.cards) for o in self.objectives}  # each objective's cards
        self._complete: tuple[tuple[str, int, int], list[Objective]] | None = None
        self.claimed: dict[str, str] = {}  # objective id -> who claimed it
        self.land = Land()
        self.supply = dict(LAND_TILES)  # land tiles left, by terrain
        self.bank = ANIMAL_TOKENS
        self.hands = {p.name: starting_hand(p) for p in setup.players}
        self.played: dict[str, list[str]] = {name: [] for name in self.names}  # Nature cards in front
        self.pawns_each = pawns_each(len(self.names))
        self.pawns_left = dict.fromkeys(self.names, self.pawns_each)
        self.adjusted = dict.fromkeys(self.names, 0)
        self._log: list[ScoreChange] = []
        self.turn = 1
        self.seat = 0
        self.actions = 0  # actions taken in this turn
        self.hungry: list[City] = []  # the turn's player's hungry cities when the turn began
        self.eaten: list[City] = []  # those that have eaten this turn
        self.owed: dict[Cell, Owed] = {}  # pawns the turn's player owes, by city
        self.discard_owed = False
        self.over = False
        self.winner: str | None = None  # by placing every pawn
        self.ender: str | None = None  # who wanted a card from an empty deck
        self.history: list[ev.Event] = []  # every event applied, for a simulated table to follow

    @property
    def log(self) -> Sequence[ScoreChange]:
        return self._log

    @property
    def finished(self) -> bool:
        return self.over

    @property
    def turn_player(self) -> str:
        return self.names[self.seat]

    def placed(self, player: str) -> int:
        """Pawns on cities and objectives."""
        return self.pawns_each - self.pawns_left[player]

    def scores(self) -> dict[str, int]:
        return {name: self.placed(name) + self.adjusted[name] for name in self.names}

    def winners(self) -> list[str]:
        if self.winner is not None:
            return [self.winner]
        if self.ender is not None:
            return [self.deck_out_winner()[0]]
        return []

    def deck_out_winner(self) -> tuple[str, list[str]]:
        """Most pawns placed wins; among the tied, the first seated clockwise after the ender
        (the ender last). Returns the winner and the players tied for the most."""
        assert self.ender is not None
        scores = self.scores()
        best = max(scores.values())
        tied = [name for name in self.names if scores[name] == best]
        start = self.seat_of[self.ender]
        order = [self.names[(start + step) % len(self.names)] for step in range(1, len(self.names) + 1)]
        return next(name for name in order if name in tied), tied

    def complete_objectives(self, player: str) -> list[Objective]:
        """The unclaimed objectives whose every card (repeats counted) lies in front of ``player``."""
        front = self.played[player]
        if not front:
            return []
        # asked before and after every event: worked out again only when the cards in front or
        # the claims have changed (a Nature card played, an objective claimed)
        key = (player, len(front), len(self.claimed))
        if self._complete is None or self._complete[0] != key:
            held = Counter(front)
            found = [
                o
                for o in self.objectives
                if o.id not in self.claimed and all(held[card] >= n for card, n in self._wanted[o.id].items())
            ]
            self._complete = (key, found)
        return list(self._complete[1])

    def can_eat(self, city: City) -> bool:
        """A hungry city of this turn that has not eaten and has animals beside it."""
        return (
            self.land.cities.get(city.at) is city
            and not any(city is eaten for eaten in self.eaten)
            and bool(self.land.animals_beside(city.at))
        )

    def still_hungry(self) -> list[City]:
        if self.actions:
            return []
        return [city for city in self.hungry if self.can_eat(city)]

    # --- applying events -----------------------------------------------------------------------

    def check(self, event: Any) -> str | None:
        return refusal(self, event)

    def apply(self, event: ev.Event) -> list[ScoreChange]:
        reason = self.check(event)
        if reason is not None:
            raise IllegalEvent(reason)
        logged = len(self._log)
        self._execute(event)
        self.history.append(event)
        return self._log[logged:]

    def _execute(self, event: ev.Event) -> None:
        """Apply an event already checked: nothing here refuses."""
        if isinstance(event, ev.ScoreAdjusted):
            self.adjusted[event.player] += event.points
            self._add(event.player, event.points, adjust_reason(event), "adjust", None)
            return
        player = event.player
        if isinstance(event, ev.CardDrawn):
            self.hands[player][event.kind] += 1
            self.discard_owed = sum(self.hands[player].values()) > HAND_LIMIT
        elif isinstance(event, ev.CardDiscarded):
            self.hands[player][event.kind] -= 1
            self.discard_owed = False
        elif isinstance(event, ev.TileLaid):
            self.hands[player]["nature"] -= 1
            self.played[player].append(event.terrain)
            self.supply[event.terrain] -= 1
            self._lay_tile(player, event)
        elif isinstance(event, ev.AnimalsPut):
            self.hands[player]["life"] -= 1
            self._put_animals(player, event)
        elif isinstance(event, ev.CityLaid):
            self.hands[player]["life"] -= 1
            self._lay_city(player, event)
        elif isinstance(event, ev.CityFed):
            self._feed(player, event)
        elif isinstance(event, ev.PawnPlaced):
            self._place_pawn(player, self.land.cities[event.at])
        elif isinstance(event, ev.ObjectiveClaimed):
            self._claim(player, self.objective_by_id[event.objective])
        elif isinstance(event, ev.DeckEmpty):
            self._deck_out(player, event.kind)
        if isinstance(event, ev.ACTIONS):
            self.actions += 1
        if not self.over and self.pawns_left[player] == 0:
            self.over, self.winner = True, player
            self._add(
                player, 0, f"{player} has placed all {self.pawns_each} pawns: {player} wins", "end", None
            )
        if not self.over and self.actions == ACTIONS_PER_TURN and not self.owing():
            self._next_turn()

    def owing(self) -> bool:
        """Whether the turn's player still owes a discard, a pawn or an objective."""
        return self.discard_owed or bool(self.owed) or bool(self.complete_objectives(self.turn_player))

    def _next_turn(self) -> None:
        self.seat = (self.seat + 1) % len(self.names)
        self.turn += 1
        self.actions = 0
        self.eaten = []
        player = self.turn_player
        self.hungry = [c for c in self.land.cities.values() if ANIMALS in c.needs and c.pawns_of(player)]

    def _claim(self, player: str, objective: Objective) -> None:
        for card in objective.cards:
            self.played[player].remove(card)
        self.claimed[objective.id] = player
        self.pawns_left[player] -= 1
        reason = (
            f"objective {objective.id} ({', '.join(objective.cards)}): the Nature cards in front of "
            f"{player} complete it — {player} places a pawn"
        )
        self._add(player, 1, reason, "objective", None, extra={"objective": objective.id})

    def _deck_out(self, player: str, kind: str) -> None:
        self.over, self.ender = True, player
        winner, tied = self.deck_out_winner()
        scores = self.scores()
        placed = ", ".join(f"{name} {scores[name]}" for name in self.names)
        if len(tied) > 1:
            verdict = f"tie between {', '.join(tied)}, broken clockwise from {player}: {winner} wins"
        else:
            verdict = f"most pawns placed: {winner} wins"
        wanted = f"{player} wants a {card_word(kind)} card and none is left"
        reason = f"{wanted} — pawns placed: {placed}; {verdict}"
        self._add(winner, 0, reason, "end", None, extra={"ended_by": player})

    # --- what the core and the phones read -----------------------------------------------------

    def moment(self) -> Moment:
        return moment(self)

    def describe(self, event: ev.Event) -> str:
        return describe(event)

    def legal_events(self, chance: Any = None) -> list[Any]:
        return legal_events(self, chance)

    def picture(self, change: ScoreChange | None = None) -> str | None:
        return land_svg(self, change.cells if change is not None else ())
