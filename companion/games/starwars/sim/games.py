"""Random legal Star Wars games, for tests, benchmarks and the demo.

The engine lists what is legal; this module only chooses, with its own seeded generator, so a
seed always gives the same game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.base import Cell, Game, Player, Setup
from companion.games.manifest import Simulated, SimulatorKit
from companion.games.starwars.catalog import Catalog, load_catalog
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.events import DiceRolled, Event, GameEnded, TilePlaced
from companion.games.starwars.phase import Phase
from companion.games.starwars.setup import COLOURS
from companion.games.starwars.sim.people import meeple_choice, placement_weight
from companion.games.starwars.tiles import OFFSETS, PLANET, Tile

NAMES = ("Ana", "Ben", "Cid", "Dee", "Eli")
SNUG = 8  # how much more likely a cell touching one more tile is chosen
TEAM_SEATING = ("red", "black", "green", "white")  # teams alternate around the table


@dataclass
class SimulatedGame:
    setup: Setup
    events: list[Event]
    game: StarWarsGame
    discarded: int  # tiles that fitted nowhere and went back to the box


def _snugness(game: StarWarsGame, cell: tuple[int, int]) -> float:
    """Favour cells that touch several tiles: real tables grow compact, which closes domains."""
    touching = sum((cell[0] + dx, cell[1] + dy) in game.board.tiles for dx, dy in OFFSETS)
    return float(SNUG ** (touching - 1))


def simulated_setup(players: int, variant: str, rng: random.Random) -> Setup:
    if variant == "teams":
        if players != 4:
            raise ValueError("the team variant is for exactly 4 players")
        colours: list[str] = list(TEAM_SEATING)
    else:
        if not 2 <= players <= 5:
            raise ValueError("Star Wars takes 2 to 5 players")
        colours = rng.sample(COLOURS, players)
    return Setup("starwars", variant, tuple(Player(n, c) for n, c in zip(NAMES, colours, strict=False)))


def _on_planet(game: StarWarsGame, cell: Cell) -> int:
    planet = game.board.tiles[cell].planet_index
    return sum(1 for m in game.meeples_on_board() if m.cell == cell and m.feature_index == planet)


def simulate_game(
    players: int = 3,
    seed: int = 0,
    variant: str = "standard",
    meeple_chance: float = 0.6,
    catalog_ids: bool = False,
    bounds: tuple[int, int, int, int] | None = None,
    tiles: int | None = None,
    planet_room: int | None = None,
    people: bool = False,
    catalog: Catalog | None = None,
) -> SimulatedGame:
    """Play one whole random legal game (with ``people``: players who play as people do,
    ``people.py``; the same seed gives another game than without).

    ``meeple_chance`` is how often a player who may place a meeple does so. With
    ``catalog_ids`` tiles are written as catalog ids with a rotation; otherwise inline, as the
    camera would read them, so the record does not depend on our approximate catalog.
    ``bounds`` (min x, max x, min y, max y) keeps the board on a play mat: a tile that fits
    nowhere inside them goes back to the box. ``tiles`` ends the game early, after that many
    tiles (the start tile included): shorter games for slow tests. ``planet_room`` is how many
    meeples the simulated table can show on one planet: players attack no fuller planet.
    ``catalog``: the box dealt from (the shipped catalog by default).
    """
    rng = random.Random(seed)
    setup = simulated_setup(players, variant, rng)
    game = StarWarsGame(setup)
    catalog = catalog if catalog is not None else load_catalog()
    events: list[Event] = []

    def play(event: Event) -> None:
        game.apply(event)
        events.append(event)

    start = catalog.start
    play(TilePlaced(None, (0, 0), start.tile, start.id if catalog_ids else None, 0 if catalog_ids else None))
    bag = catalog.bag()
    rng.shuffle(bag)
    discarded = 0
    while bag and (tiles is None or len(game.board.tiles) < tiles):
        entry = catalog.get(bag.pop())
        assert entry is not None
        options = game.legal_placements(entry.tile)
        if bounds is not None:
            options = [
                o for o in options if bounds[0] <= o[0][0] <= bounds[1] and bounds[2] <= o[0][1] <= bounds[3]
            ]
        if not options:
            discarded += 1  # the rules: put it back in the box and draw another
            continue
        weights = [_snugness(game, cell) for cell, _, _ in options]
        if people:
            weights = [
                placement_weight(game, game.next_player, cell, lying, weight)
                for (cell, _, lying), weight in zip(options, weights, strict=True)
            ]
        cell, quarter_turns, lying = rng.choices(options, weights)[0]
        if catalog_ids:
            play(TilePlaced(game.next_player, cell, lying, entry.id, quarter_turns))
        else:
            play(TilePlaced(game.next_player, cell, lying))
        meeples = game.legal_meeples()
        if planet_room is not None:
            meeples = [m for m in meeples if m.feature != PLANET or _on_planet(game, m.at) < planet_room]
        if people:
            chosen = meeple_choice(game, meeples, rng)
            if chosen is not None:
                play(chosen)
        elif meeples and rng.random() < meeple_chance:
            play(rng.choice(meeples))
        while (battle := game.pending_battle()) is not None:
            fighter = battle.waiting_for()[0]
            roller = rng.choice(fighter.players)
            dice = tuple(rng.randint(1, 6) for _ in range(battle.dice[fighter.key]))
            play(DiceRolled(roller, dice))
    play(GameEnded())
    return SimulatedGame(setup, events, game, discarded)


class BoxChance:
    """The simulated table's chance for the random player: tiles drawn from the shuffled box
    (one that fits nowhere goes back and another is drawn), dice thrown for each battle, and
    the end once the box is empty. It favours compact boards, as ``simulate_game`` does."""

    def __init__(self, rng: random.Random) -> None:
        catalog = load_catalog()
        self._start = catalog.start.tile
        self._bag = [entry.tile for tile_id in catalog.bag() if (entry := catalog.get(tile_id)) is not None]
        rng.shuffle(self._bag)
        self._drawn: Tile | None = None

    def next(self, game: Game, rng: random.Random) -> tuple[Sequence[Any], Sequence[float] | None]:
        assert isinstance(game, StarWarsGame)
        battle = game.pending_battle()
        if battle is not None:
            fighter = battle.waiting_for()[0]
            dice = tuple(rng.randint(1, 6) for _ in range(battle.dice[fighter.key]))
            return game.legal_events(dice), None
        if game.phase is Phase.START:
            return game.legal_events(self._start), None
        if game.phase is Phase.MEEPLE and game.legal_meeples() and rng.random() < MEEPLE_CHANCE:
            return game.legal_meeples(), None
        while self._drawn is None and self._bag:
            tile = self._bag.pop()
            if game.legal_placements(tile):
                self._drawn = tile  # kept until it is placed: a meeple may come first
        if self._drawn is None:
            return [event for event in game.legal_events() if isinstance(event, GameEnded)], None
        options = [e for e in game.legal_events(self._drawn) if isinstance(e, TilePlaced)]
        self._drawn = None
        return options, [_snugness(game, event.at) for event in options]


MEEPLE_CHANCE = 0.6  # how often a player who may place a meeple does


def _seat(players: int, variant: str, rng: random.Random) -> Setup:
    return simulated_setup(players, variant, rng)


def _play(players: int, seed: int, variant: str, flags: frozenset[str]) -> Simulated:
    result = simulate_game(players, seed, variant, catalog_ids="catalog-ids" in flags)
    battles = len(result.game.battles)
    summary = f"{len(result.game.board.tiles)} tiles, {battles} battle{'' if battles == 1 else 's'}"
    return Simulated(result.setup, list(result.events), result.game, summary)


def simulator_kit() -> SimulatorKit:
    return SimulatorKit(setup=_seat, chance=lambda setup, rng: BoxChance(rng), play=_play)
