"""Random legal Castle games (``companion simulate --game castle``).

The table's chance: castle tiles drawn from a box whose list is our approximation (``box.json``,
the real list is not public), and the 18 wall tiles (two of each of 1 to 9) shuffled face down
onto the board's corner towers. A drawn tile that fits nowhere goes back to the box and another
is drawn (the seed's rule). The random player picks among the engine's legal events; this
game's own player then plays the wall tiles 4 to 9 it holds after ``end``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.games.base import Game, Setup
from companion.games.castle import events as ev
from companion.games.castle.box import box
from companion.games.castle.engine import CastleGame
from companion.games.castle.layout import parse_layout
from companion.games.castle.legal import Draw
from companion.games.castle.setup import OFFERED_COLOURS, TILES, standard_setup
from companion.games.castle.tiles import CastleTile
from companion.games.manifest import Simulated, SimulatorKit
from companion.games.registry import manifest
from companion.sim.random_player import play_random

NAMES = ("Ana", "Ben")
WALL_TILES = tuple(n for n in range(1, 10) for _ in range(2))
# How much the simulated players favour each kind of event (a tile's places share one weight).
WEIGHTS = {"tile": 1.0, "meeple": 1.6, "order": 0.3, "use": 3.0, "take": 1.0, "end": 1.0}


class CastleChance:
    """The simulated table: the box's tiles face down, and a wall tile on each corner tower."""

    def __init__(self, setup: Setup, rng: random.Random) -> None:
        self.stack: list[CastleTile] = [s.tile for s in box() for _ in range(s.count)]
        rng.shuffle(self.stack)
        walls = list(WALL_TILES)
        rng.shuffle(walls)
        layout = parse_layout(setup.options["board"])
        self.corner_of_space = layout.corner_of_space
        # the first wall tiles go on the corners, the rest to the box unseen
        self.under = dict(enumerate(walls[: len(layout.corners)]))
        self.drawn: CastleTile | None = None
        self.drawn_at = -1  # the tiles placed when it was drawn: placing it uses it up

    def next(self, game: Game, rng: random.Random) -> tuple[Sequence[Any], Sequence[float] | None]:
        assert isinstance(game, CastleGame)
        if self.drawn is not None and game.placed != self.drawn_at:
            self.drawn = None
        if self.drawn is None:
            self._draw(game)
        dues = game.dues_now()
        wall = self.under[self.corner_of_space[dues[0][1]]] if dues else None
        events = game.legal_events(Draw(self.drawn, wall))
        tiles = sum(isinstance(e, ev.TilePlaced) for e in events)
        weights = []
        for event in events:
            if isinstance(event, ev.TilePlaced):
                weights.append(WEIGHTS["tile"] / tiles)
            elif isinstance(event, ev.GameEnded):
                # the game ends when the box is empty and no tile is waiting
                weights.append(WEIGHTS["end"] if self.drawn is None and not self.stack else 0.0)
            else:
                weights.append(WEIGHTS[game.event_to_json(event)["event"]])
        if not any(weights):
            return [], None
        return events, weights

    def _draw(self, game: CastleGame) -> None:
        while self.stack and self.drawn is None:
            tile = self.stack.pop()
            if game.placed < TILES and game.board.legal_placements(tile):
                self.drawn, self.drawn_at = tile, game.placed
            # else: it fits nowhere, and goes to the box


def _setup(players: int, variant: str, rng: random.Random) -> Setup:
    return standard_setup(NAMES, OFFERED_COLOURS, variant)


def play(players: int, seed: int, variant: str, flags: frozenset[str]) -> Simulated:
    """A random game to its end, then the wall tiles 4 to 9 its players hold, played."""
    played = play_random(manifest("castle"), players, seed, variant)
    game, events = played.game, list(played.events)
    rng = random.Random(seed * 7919 + 1)
    while game.finished:
        uses = game.legal_events()
        if not uses:
            break
        event = rng.choice(uses)
        game.apply(event)
        events.append(event)
    assert isinstance(game, CastleGame)
    summary = f"{game.placed} tiles, {len(events)} events"
    return Simulated(played.setup, events, game, summary)


def simulator_kit() -> SimulatorKit:
    return SimulatorKit(setup=_setup, chance=CastleChance, play=play)
