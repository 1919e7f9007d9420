"""The simulated Dice Game table: fair dice, and a player who picks among the legal events.

The table throws each die fairly (each of the six faces alike) and the engine lists what the rules
allow with those faces. The player is greedy with a little noise: it lays the city dice that join
the city and leave it fewer open sides, sets knights aside, keeps one when it has three and no
good city, rolls again while that may help, and scores a closed city worth having. Games are
played to 42 (or 9 catapults); a game still running after ``MAX_TURNS`` turns is stopped.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.games.base import Game, Setup
from companion.games.dicegame import events as ev
from companion.games.dicegame.city import cities, largest_closed, neighbour
from companion.games.dicegame.engine import DiceGame
from companion.games.dicegame.faces import KNIGHT, SIDE_BIT, SIDES, FaceTable
from companion.games.dicegame.scoring import KNIGHTS_TO_KEEP, city_points
from companion.games.dicegame.setup import faces_of, simulated_setup
from companion.games.manifest import SimulatorKit
from companion.games.shared_events import GameEnded

MAX_TURNS = 400
NOISE = 0.4  # how much chance there is in the player's choices


class DiceTable:
    """The chance of a simulated table, for the one random player (``companion simulate``)."""

    def __init__(self, faces: FaceTable) -> None:
        self.faces = faces

    def next(self, game: Game, rng: random.Random) -> tuple[Sequence[Any], Sequence[float] | None]:
        if not isinstance(game, DiceGame) or game.finished:
            return [], None
        if game.turn is None and game.turns_begun >= MAX_TURNS:
            return [GameEnded()], None
        count = game.dice_to_roll()
        thrown = tuple(rng.choice(self.faces.all_faces) for _ in range(count)) if count else None
        options = game.legal_events(thrown)
        sight = _Sight(game)
        worth = [sight.worth(option) + rng.uniform(0, NOISE) for option in options]
        best = max(range(len(options)), key=worth.__getitem__)
        return options, [1.0 if index == best else 0.0 for index in range(len(options))]


class _Sight:
    """What the simulated player sees of the turn, worked out once per choice."""

    def __init__(self, game: DiceGame) -> None:
        self.game = game
        self.turn = game.turn
        found = cities(self.turn.laid) if self.turn is not None else []
        best = largest_closed(found)
        self.points = city_points(best.size) if best else 0
        self.gaps = sum(len(c.open_sides) for c in found)  # open sides of the open cities
        self.can_roll = game.dice_to_roll() is not None

    def worth(self, option: Any) -> float:
        """How much the player likes an event (the highest, give or take the noise, is played)."""
        turn = self.turn
        if isinstance(option, GameEnded):
            return -100.0
        if isinstance(option, ev.Rolled):
            return 1.0
        assert turn is not None  # every other event belongs to a turn under way
        if isinstance(option, ev.TurnScored):
            if self.points:
                return 5.0  # a closed city grows no more: take it
            return 0.5 if not self.can_roll else -1.0
        if isinstance(option, ev.KnightKept):
            return 3.0 if not self.can_roll else 0.6
        if option.face == KNIGHT:
            # knights are only worth setting aside on the way to keeping one
            return 1.1 if turn.knights + turn.tray.count(KNIGHT) >= KNIGHTS_TO_KEEP else 0.1
        return self.placement_worth(option)

    def placement_worth(self, option: ev.SetAside) -> float:
        """Worth laying a city die where it joins the city and leaves it no more open sides than
        before; best of all where it closes it."""
        turn = self.turn
        assert turn is not None and option.at is not None and option.rotation is not None
        sides = 0
        for segment in self.game.faces.turned_segments(option.face, option.rotation):
            sides |= segment
        opened = sum(1 for side in SIDES if sides & SIDE_BIT[side])
        if not turn.laid:
            return 2.0 - 0.45 * opened  # a cap first, then a corner or a band, a three last
        joined = touching = 0
        for side in SIDES:
            beside = neighbour(option.at, side) in turn.where
            touching += beside
            if beside and sides & SIDE_BIT[side]:
                joined += 1
        opened -= joined
        if not joined:
            # a second city only once the first is closed
            return 0.7 if not touching and not self.gaps else -0.5
        closes = self.gaps - joined + opened == 0
        return 1.2 + (joined - opened) + (3.0 if closes else 0.0)


def _setup(players: int, variant: str, rng: random.Random) -> Setup:
    return simulated_setup(players, variant)


def _chance(setup: Setup, rng: random.Random) -> DiceTable:
    return DiceTable(faces_of(setup))


def simulator_kit() -> SimulatorKit:
    return SimulatorKit(setup=_setup, chance=_chance)
