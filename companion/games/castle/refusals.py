"""Why the rules refuse an event, checked against the game without changing anything
(castle.md, the checks of each event). The engine carries out what passes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games.base import Cell, IllegalEvent
from companion.games.castle import events as ev
from companion.games.castle.board import CastleDomain
from companion.games.castle.scoring import WALL_KIND, majority
from companion.games.castle.setup import TILES
from companion.games.castle.tiles import resolve
from companion.games.castle.turn import OPEN, OVER, TILE
from companion.games.castle.words import due_words, feature_at

if TYPE_CHECKING:
    from companion.games.castle.engine import CastleGame


def check_player(game: CastleGame, name: str) -> None:
    if name not in game.players:
        raise IllegalEvent(f'"{name}" is not a player in this game')


def check_no_due(game: CastleGame) -> None:
    dues = game.dues_now()
    if dues:
        raise IllegalEvent(due_words(*dues[0]) + ": a take event must say which")


def check_tile(game: CastleGame, event: ev.TilePlaced) -> None:
    check_no_due(game)
    check_player(game, event.player)
    if event.player != game.next_player:
        raise IllegalEvent(f"it is {game.next_player}'s turn to place a tile, not {event.player}'s")
    reason = game.board.place_error(event.at, event.tile)
    if reason is not None:
        raise IllegalEvent(reason)
    if game.placed >= TILES:
        raise IllegalEvent(f"all {TILES} castle tiles are placed")


def check_follower(game: CastleGame, event: ev.FollowerPlaced) -> tuple[int, CastleDomain]:
    check_player(game, event.player)
    if game.phase != OPEN or event.player != game.placer or game.since_tile:
        raise IllegalEvent(
            f"{event.player} may not place a follower now: it comes right after that player's own tile"
        )
    assert game.current is not None
    if event.at != game.current:
        raise IllegalEvent(
            f"a follower goes on the tile just placed at {list(game.current)}, not at {list(event.at)}"
        )
    index = resolve_at(game, event.at, event.feature)
    domain = game.board.domain(event.at, index)
    if domain.pieces:
        raise IllegalEvent("that feature already holds a follower")
    if game.supply[event.player] == 0:
        raise IllegalEvent(f"{event.player} has no follower left")
    return index, domain


def resolve_at(game: CastleGame, at: Cell, name: str) -> int:
    tile = game.board.tiles.get(at)
    if tile is None:
        raise IllegalEvent(f"there is no castle tile at {list(at)}")
    found = resolve(tile, name)
    if isinstance(found, str):
        raise IllegalEvent(f'"{name}" names no single feature at {list(at)}: {found}')
    return found


def check_order(game: CastleGame, event: ev.ScoringOrdered) -> list[CastleDomain]:
    check_player(game, event.player)
    if game.phase != OPEN:
        raise IllegalEvent("an order event comes in a turn, after its tile and before its scoring")
    if event.player != game.placer:
        raise IllegalEvent(f"only {game.placer}, who placed the tile, chooses the scoring order")
    if game.order is not None:
        raise IllegalEvent("the scoring order is already chosen this turn")
    scoring = game.scoring_now()
    chosen: list[CastleDomain] = []
    for ref in event.features:
        domain = game.board.domain(ref.at, resolve_at(game, ref.at, ref.feature))
        words = feature_at(domain, ref.at)
        if all(domain is not d for d in scoring):
            raise IllegalEvent(f"the {words} scores nothing this turn")
        if any(domain is d for d in chosen):
            raise IllegalEvent(f"the order names the {words} twice")
        chosen.append(domain)
    missing = [d for d in scoring if all(d is not c for c in chosen)]
    if missing:
        raise IllegalEvent(f"the order leaves out the {feature_at(missing[0])}, which scores this turn")
    owners = [majority(d, game.players) for d in chosen]
    placer_done = False
    for domain, owner in zip(chosen, owners, strict=True):
        if owner != game.placer:
            placer_done = True
        elif placer_done:
            raise IllegalEvent(
                f"{game.placer} placed the tile, so {game.placer}'s features score first "
                f"(the {feature_at(domain)} comes after the opponent's)"
            )
    return chosen


def check_take(game: CastleGame, event: ev.WallTaken) -> None:
    check_player(game, event.player)
    dues = game.dues_now()
    if not dues:
        raise IllegalEvent("no marker landed on a corner space with a wall tile this turn")
    player, space = dues[0]
    if (event.player, event.space) != (player, space):
        raise IllegalEvent(f"the next wall tile due is {player}'s, from space {space}")
    if game.taken.get(event.wall, 0) >= 2:
        raise IllegalEvent(f"both wall tiles {event.wall} have already been taken")


def check_use(game: CastleGame, event: ev.WallPlayed) -> CastleDomain | None:
    check_player(game, event.player)
    player, wall = event.player, event.wall
    if wall <= 3:
        if game.phase == OVER:
            raise IllegalEvent(f"wall tile {wall} is played during the game, not after end")
        if wall == 1 and (game.phase == TILE or player != game.placer):
            raise IllegalEvent(f"wall tile 1 is played in {player}'s own turn, after its scoring")
        if wall > 1 and (game.phase != OPEN or player != game.placer):
            raise IllegalEvent(
                f"wall tile {wall} is played in {player}'s own turn, before its scoring, on a "
                f"{WALL_KIND[wall]} that turn's tile completes"
            )
    elif game.phase != OVER:
        raise IllegalEvent(f"wall tile {wall} is played after end, at the final scoring")
    if wall not in game.held[player]:
        raise IllegalEvent(f"{player} holds no wall tile {wall}")
    if wall == 1:
        check_no_due(game)  # the turn's takes come before it (castle.md, "Events and the turn")
        return None
    if wall == 8 and game.keeps[player] is None:
        raise IllegalEvent(f"{player} has no keep: wall tile 8 enlarges a keep")
    domain = None
    if event.target is not None:
        domain = use_target(game, event, event.target)
    return domain


def use_target(game: CastleGame, event: ev.WallPlayed, ref: ev.FeatureRef) -> CastleDomain:
    wall, kind = event.wall, WALL_KIND[event.wall]
    domain = game.board.domain(ref.at, resolve_at(game, ref.at, ref.feature))
    if domain.kind != kind:
        raise IllegalEvent(f"wall tile {wall} is played on a {kind}, not on a {domain.kind}")
    if wall in (2, 3):
        if all(domain is not d for d in game.completed) or not domain.complete:
            raise IllegalEvent(f"wall tile {wall} doubles a {kind} this turn's tile completes")
        if domain.key in game.doubled:
            raise IllegalEvent(f"that {kind} already takes a wall tile")
    else:
        if wall != 7 and domain.complete:
            raise IllegalEvent(f"wall tile {wall} scores an incomplete {kind}; that {kind} was completed")
        if any(use.domain is domain for use in game.final_uses):
            raise IllegalEvent(f"that {kind} already takes a wall tile")
    if majority(domain, game.players) != event.player:
        raise IllegalEvent(f"{event.player} has no majority on that {kind}")
    return domain
