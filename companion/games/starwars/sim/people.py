"""Simulated players who play as people do, for the demo: they lay tiles where their meeples
gain (a feature grows or closes), pick fights now and then by joining a rival's feature, put
meeples where a feature will close soon or on planets, and keep a meeple back for later.

The random players of ``simulate_game`` choose among what is legal with no aim; a newcomer
watching the demo should see points scored steadily and battles fought, as at a real table.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from companion.games.base import Cell
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.events import MeeplePlaced
from companion.games.starwars.tiles import PLANET, SIDES, Tile, neighbour, opposite

OWN_GROWS = 4.0  # a tile that adds to a feature holding the player's meeple
OWN_CLOSES = 12.0  # ... and closes it: points now
FIGHT = 3.0  # a tile that joins the player's feature to a rival's: a battle
KEEP_BACK = 1  # small meeples a player keeps for later, unless a feature is about to close


def placement_weight(game: StarWarsGame, player: str, cell: Cell, lying: Tile, snug: float) -> float:
    """How much a person would like laying ``lying`` at ``cell``, from what it touches."""
    weight = snug
    owners: list[set[str]] = []
    for side in range(4):
        feature = lying.side_feature[side]
        other_cell = neighbour(cell, side)
        other = game.board.tiles.get(other_cell)
        if feature < 0 or other is None:
            continue
        domain = game.board.domain(other_cell, other.side_feature[opposite(side)])
        players = {m.player for m in domain.meeples}
        owners.append(players)
        if player in players:
            weight *= OWN_CLOSES if domain.open <= 2 else OWN_GROWS
    rivals = {p for group in owners for p in group} - {player}
    if rivals and any(player in group for group in owners):
        weight *= FIGHT
    return weight


def meeple_choice(
    game: StarWarsGame, meeples: Sequence[MeeplePlaced], rng: random.Random
) -> MeeplePlaced | None:
    """The meeple a person would place now, or None to keep it: the feature nearest to closing,
    a planet gladly, and the last small meeples kept back for such a chance."""
    if not meeples:
        return None
    player = meeples[0].player
    supply = game.supply[player]
    best: tuple[float, MeeplePlaced] | None = None
    for meeple in meeples:
        value = _worth(game, meeple)
        if meeple.size == "large":
            value *= 1.3 if value > 0.5 else 0.6  # the large one for a fight worth having
        if best is None or value > best[0]:
            best = (value, meeple)
    assert best is not None
    value, meeple = best
    keeping = meeple.size == "small" and supply["small"] <= KEEP_BACK
    if keeping and value < 0.9:
        return None
    return meeple if rng.random() < min(0.95, 0.25 + value) else None


def _worth(game: StarWarsGame, meeple: MeeplePlaced) -> float:
    tile = game.board.tiles[meeple.at]
    if meeple.feature == PLANET:
        planet = game.board.planet_at(meeple.at)
        return 0.9 if planet is not None and planet.open <= 4 else 0.6
    domain = game.board.domain(meeple.at, tile.side_feature[SIDES.index(meeple.feature)])
    return 1.0 / (1 + domain.open) + 0.1 * domain.symbol_count()
