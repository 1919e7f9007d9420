"""The Castle's events and features in words, for the timeline and the refusals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games.base import Cell
from companion.games.castle import events as ev
from companion.games.castle.board import CastleDomain
from companion.games.castle.tiles import ROLES, resolve, tile_words
from companion.games.shared_events import describe_shared

if TYPE_CHECKING:
    from companion.games.castle.engine import CastleGame

WALL_EFFECTS = {
    1: "an extra turn",
    2: "a tower scored double",
    3: "a house scored double",
    4: "an incomplete path scored",
    5: "an incomplete tower scored",
    6: "an incomplete house scored",
    7: "4 points a market in a courtyard",
    8: "the keep 2 tiles larger",
    9: "5 points",
}


def due_words(player: str, space: int) -> str:
    return f"{player}'s marker landed on space {space}, a corner with a wall tile"


def feature_at(domain: CastleDomain, at: Cell | None = None) -> str:
    """ "tower at [2, 1]": the feature's kind and a tile it covers (``at`` if given)."""
    if at is None:
        at = min(domain.cells) if domain.cells else None
    return f"{domain.kind} at {list(at)}" if at is not None else f"{domain.kind} on the wall"


def _named(game: CastleGame, at: Cell, name: str) -> str:
    """What a feature reference names, in words, as far as the board can say."""
    tile = game.board.tiles.get(at)
    if tile is None:
        return f"{name} at {list(at)}"
    index = resolve(tile, name)
    if isinstance(index, str):
        return f"{name} at {list(at)}"
    return f"{tile.features[index].kind} at {list(at)}"


def describe(game: CastleGame, event: ev.Event) -> str:
    if isinstance(event, ev.TilePlaced):
        return f"{event.player} placed a tile at {list(event.at)}: {tile_words(event.tile)}"
    if isinstance(event, ev.FollowerPlaced):
        tile = game.board.tiles.get(event.at)
        index = resolve(tile, event.feature) if tile is not None else "unknown"
        if tile is not None and not isinstance(index, str):
            kind = tile.features[index].kind
            return f"{event.player} placed a {ROLES[kind]} on the {kind} at {list(event.at)}"
        return f"{event.player} placed a follower on {event.feature} at {list(event.at)}"
    if isinstance(event, ev.ScoringOrdered):
        named = ", then ".join(_named(game, ref.at, ref.feature) for ref in event.features)
        return f"{event.player} chose the scoring order: {named or 'nothing'}"
    if isinstance(event, ev.WallTaken):
        return f"{event.player} took wall tile {event.wall} from space {event.space}"
    if isinstance(event, ev.WallPlayed):
        what = f"{event.player} played wall tile {event.wall} ({WALL_EFFECTS[event.wall]})"
        if event.target is not None:
            what += f" on the {_named(game, event.target.at, event.target.feature)}"
        return what
    return describe_shared(event)
