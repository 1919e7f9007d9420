"""One seeded random player for every game: it asks the engine for the legal events and picks.

Chance (the tile drawn, the dice thrown, the card turned over) is the simulated table's: each
game's simulator gives a ``Chance`` that turns it into the engine's legal events, with how much
the table favours each. A game with no chance of its own is played from the engine's legal
events alone, each as likely. The same seed always gives the same game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.games.base import Game, Setup
from companion.games.manifest import Chance, Manifest, Simulated

MAX_EVENTS = 5000  # a game that has not ended by then is a bug of its engine or its chance


class EngineChance:
    """The table of a game without chance: the engine's legal events, each as likely."""

    def next(self, game: Game, rng: random.Random) -> tuple[Sequence[Any], Sequence[float] | None]:
        return game.legal_events(), None


def play_random(manifest: Manifest, players: int, seed: int, variant: str | None = None) -> Simulated:
    """A whole random legal game of ``manifest``'s game, drawn by ``seed``."""
    if manifest.simulator is None:
        raise ValueError(f"{manifest.title} has no simulator")
    kit = manifest.simulator()
    rng = random.Random(seed)
    setup: Setup = kit.setup(players, variant or manifest.variants[0], rng)
    game = manifest.engine()(setup)
    chance: Chance = kit.chance(setup, rng) if kit.chance is not None else EngineChance()
    events: list[Any] = []
    while not game.finished:
        if len(events) >= MAX_EVENTS:
            raise RuntimeError(f"{manifest.title}: no end after {MAX_EVENTS} events (seed {seed})")
        options, weights = chance.next(game, rng)
        if not options:
            break  # the table can give nothing more: a game stopped where it stands
        event = rng.choices(list(options), list(weights) if weights is not None else None)[0]
        game.apply(event)
        events.append(event)
    return Simulated(setup, events, game, f"{len(events)} events")
