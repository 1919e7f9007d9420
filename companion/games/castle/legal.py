"""The events the rules allow next (``CastleGame.legal_events``): for the simulator, and for a
camera reading narrowed to what may come.

Chance gives what a record cannot know beforehand: the tile drawn, and the number on the wall
tile under a corner a marker landed on. Pass a ``Draw`` (or just the tile, or just the number).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.games.castle import events as ev
from companion.games.castle.board import CastleDomain
from companion.games.castle.scoring import WALL_KIND, majority
from companion.games.castle.setup import TILES
from companion.games.castle.tiles import CastleTile, feature_names, name_of
from companion.games.castle.turn import OPEN, OVER, SCORED

if TYPE_CHECKING:
    from companion.games.castle.engine import CastleGame

MOST_ORDERS = 24  # orders listed only while the permutations stay few


@dataclass(frozen=True)
class Draw:
    """What chance gives now: the castle tile drawn, the wall tile under the corner landed on."""

    tile: CastleTile | None = None
    wall: int | None = None


def _draw(chance: Any) -> Draw:
    if isinstance(chance, Draw):
        return chance
    if isinstance(chance, CastleTile):
        return Draw(tile=chance)
    if isinstance(chance, int) and not isinstance(chance, bool):
        return Draw(wall=chance)
    return Draw()


def legal_events(game: CastleGame, chance: Any = None) -> list[Any]:

    draw = _draw(chance)
    if game.phase == OVER:
        return final_uses(game)
    events: list[Any] = []
    if game.phase == OPEN:
        events += followers(game) + orders(game) + doubles(game)
    dues = game.dues_now()
    if dues and draw.wall is not None and 1 <= draw.wall <= 9 and game.taken.get(draw.wall, 0) < 2:
        player, space = dues[0]
        events.append(ev.WallTaken(player, space, draw.wall))
    events += extra_turn(game)
    if not dues:
        if draw.tile is not None and game.placed < TILES:
            player = game.next_player
            events += [
                ev.TilePlaced(player, cell, lying)
                for cell, _, lying in game.board.legal_placements(draw.tile)
            ]
        events.append(ev.GameEnded())
    return events


def reference(game: CastleGame, domain: CastleDomain) -> ev.FeatureRef | None:
    """A way for a record to name ``domain``: a tile it covers and a name on that tile."""
    board = game.board
    for cell in sorted(domain.cells):
        tile = board.tiles[cell]
        for index in range(len(tile.features)):
            if board.domain(cell, index) is domain:
                name = name_of(tile, index)
                if name is not None:
                    return ev.FeatureRef(cell, name)
    return None


def followers(game: CastleGame) -> list[ev.FollowerPlaced]:
    """Where the player of the turn may place a follower now."""
    placer, cell = game.placer, game.current
    if placer is None or cell is None or game.since_tile or not game.supply[placer]:
        return []
    tile = game.board.tiles[cell]
    return [
        ev.FollowerPlaced(placer, cell, name)
        for index, name in feature_names(tile).items()
        if not game.board.domain(cell, index).pieces
    ]


def orders(game: CastleGame) -> list[ev.ScoringOrdered]:
    """Every scoring order the placer may choose, while there are few (none to choose: none)."""
    placer = game.placer
    if placer is None or game.order is not None:
        return []
    scoring = game.scoring_now()
    if len(scoring) < 2:
        return []
    groups = [
        [d for d in scoring if majority(d, game.players) == name]
        for name in (placer, next(p for p in game.players if p != placer))
    ]
    if math.prod(math.factorial(len(g)) for g in groups) > MOST_ORDERS:
        return []
    refs: dict[int, ev.FeatureRef] = {}
    for domain in scoring:
        ref = reference(game, domain)
        if ref is None:
            return []  # a feature no record can name (two alike inside one tile): no order listed
        refs[id(domain)] = ref
    found = []
    for first in itertools.permutations(groups[0]):
        for second in itertools.permutations(groups[1]):
            chosen = (*first, *second)
            found.append(ev.ScoringOrdered(placer, tuple(refs[id(d)] for d in chosen)))
    return found


def doubles(game: CastleGame) -> list[ev.WallPlayed]:
    """Wall tiles 2 and 3 the placer may play on what this turn's tile completes."""
    placer = game.placer
    if placer is None:
        return []
    found = []
    for wall in sorted({w for w in game.held[placer] if w in (2, 3)}):
        for domain in game.completed:
            if domain.kind != WALL_KIND[wall] or domain.key in game.doubled:
                continue
            if majority(domain, game.players) != placer:
                continue
            ref = reference(game, domain)
            if ref is not None:
                found.append(ev.WallPlayed(placer, wall, ref))
    return found


def extra_turn(game: CastleGame) -> list[ev.WallPlayed]:
    """Wall tile 1, when the placer holds it: after the turn's scoring and its takes."""
    placer = game.placer
    if placer is None or 1 not in game.held[placer] or game.phase not in (OPEN, SCORED):
        return []
    return [] if game.dues_now() else [ev.WallPlayed(placer, 1)]


def final_uses(game: CastleGame) -> list[ev.WallPlayed]:
    """Wall tiles 4 to 9 each player may play after ``end``."""
    found: list[ev.WallPlayed] = []
    used = [use.domain for use in game.final_uses]
    domains = list(game.board.domains())
    for player in game.players:
        for wall in sorted(set(game.held[player])):
            if wall == 9 or (wall == 8 and game.keeps[player] is not None):
                found.append(ev.WallPlayed(player, wall))
            if wall not in (4, 5, 6, 7):
                continue
            for domain in domains:
                if domain.kind != WALL_KIND[wall] or any(domain is u for u in used):
                    continue
                if (wall != 7 and domain.complete) or majority(domain, game.players) != player:
                    continue
                ref = reference(game, domain)
                if ref is not None:
                    found.append(ev.WallPlayed(player, wall, ref))
    return found
