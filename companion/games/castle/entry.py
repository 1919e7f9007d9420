"""What the phone needs to enter, in taps, what the camera cannot read yet: where a tile may go
and the box's shapes that fit there (each way they can lie), where a follower may stand, which
wall tile a marker landed on, the wall tiles a player may play, and the scoring order."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from companion.games.base import Cell
from companion.games.carcassonne.geometry import neighbour
from companion.games.castle import events as ev
from companion.games.castle.box import box
from companion.games.castle.drawing import board_svg, spot, tile_svg
from companion.games.castle.legal import doubles, extra_turn, final_uses, followers, reference
from companion.games.castle.scoring import majority
from companion.games.castle.setup import TILES
from companion.games.castle.tiles import ROLES, feature_names, resolve, tile_json, tile_words
from companion.games.castle.turn import OPEN, OVER, SCORED
from companion.games.castle.view import keep_flags, pieces
from companion.games.castle.words import WALL_EFFECTS, feature_at

if TYPE_CHECKING:
    from companion.games.castle.engine import CastleGame


@cache
def box_ways() -> tuple[dict[str, Any], ...]:
    """Each shape of the box (our approximation) with its distinct ways of lying, as a record
    writes the tile, in words and drawn (the same every game: worked out once)."""
    shapes = []
    for shape in box():
        ways = [
            {"rotation": turns, "tile": tile_json(lying), "words": tile_words(lying), "svg": tile_svg(lying)}
            for turns, lying in shape.tile.distinct_rotations()
        ]
        shapes.append({"id": shape.id, "ways": ways})
    return tuple(shapes)


def open_spaces(game: CastleGame) -> list[Cell]:
    """Empty spaces with a full side against a placed tile or a start space."""
    board = game.board
    found = []
    for cell in sorted(game.layout.interior - board.tiles.keys(), key=lambda c: (c[1], c[0])):
        if any(
            neighbour(cell, side) in board.tiles or board.start_at(cell, side) is not None
            for side in range(4)
        ):
            found.append(cell)
    return found


def entry_view(game: CastleGame) -> dict[str, Any]:
    """The Castle's forms on the fix page, for the moment ``game`` is at."""
    view: dict[str, Any] = {"names": tile_names(game)}
    dues = game.dues_now()
    if dues:
        player, space = dues[0]
        numbers = [n for n in range(1, 10) if game.taken.get(n, 0) < 2]
        view["take"] = {"player": player, "space": space, "numbers": numbers}
    uses = [use_view(game, use) for use in playable(game)]
    if uses:
        view["uses"] = uses
    if game.phase == OVER:
        return view
    if game.phase == OPEN:
        spots = followers(game)
        if spots:
            view["follower"] = follower_view(game, spots)
        order = order_view(game)
        if order:
            view["order"] = order
    if not dues and game.placed < TILES:
        view["tile"] = tile_view(game)
    view["turn_over"] = game.phase in (OPEN, SCORED)
    return view


def playable(game: CastleGame) -> list[ev.WallPlayed]:
    """The wall tiles that may be played now: 2 or 3 before the turn's scoring, 1 after it and
    its takes, 4 to 9 after ``end``."""

    if game.phase == OVER:
        return final_uses(game)
    return (doubles(game) if game.phase == OPEN else []) + extra_turn(game)


def use_view(game: CastleGame, use: ev.WallPlayed) -> dict[str, Any]:
    record = game.event_to_json(use)
    words = f"{use.player}: wall tile {use.wall}, {WALL_EFFECTS[use.wall]}"
    if use.target is not None:
        tile = game.board.tiles[use.target.at]
        index = resolve(tile, use.target.feature)
        assert isinstance(index, int)
        domain = game.board.domain(use.target.at, index)
        words += f", on the {feature_at(domain, use.target.at)} ({domain.tile_count} tiles)"
    return {"record": record, "words": words}


def tile_view(game: CastleGame) -> dict[str, Any]:
    """The board with the spaces a tile may go in, and for each space the box's shapes that fit
    there, with the turns that fit."""
    targets = open_spaces(game)
    legal: dict[str, dict[str, list[int]]] = {}
    for shape in box():
        for cell, turns, _ in game.board.legal_placements(shape.tile):
            legal.setdefault(f"{cell[0]},{cell[1]}", {}).setdefault(shape.id, []).append(turns)
    board = board_svg(game.layout, game.board.tiles, pieces(game), targets=targets, keeps=keep_flags(game))
    return {"player": game.next_player, "board": board, "legal": legal, "shapes": list(box_ways())}


def follower_view(game: CastleGame, spots: list[ev.FollowerPlaced]) -> dict[str, Any]:
    """The tile just placed and its neighbours, a ring on each feature a follower may stand on."""
    cell = game.current
    assert cell is not None
    tile = game.board.tiles[cell]
    rings = []
    words = {}
    for event in spots:
        index = resolve(tile, event.feature)
        assert isinstance(index, int)
        feature = tile.features[index]
        rings.append((cell, event.feature, spot(feature)))
        words[event.feature] = f"a {ROLES[feature.kind]} on the {feature.kind}"
    around = {neighbour(cell, side) for side in range(4)} | {cell}
    shown = around & game.layout.interior
    svg = board_svg(
        game.layout, game.board.tiles, pieces(game), highlight=[cell], spots=rings, only=shown, cell_px=90
    )
    return {
        "player": spots[0].player,
        "at": list(cell),
        "svg": svg,
        "words": words,
        "left": game.supply[spots[0].player],
    }


def order_view(game: CastleGame) -> dict[str, Any] | None:
    """The features this turn scores, when there is an order to choose: the placer's first (in
    any order among them), then the opponent's."""
    if game.order is not None:
        return None
    scoring = game.scoring_now()
    if len(scoring) < 2:
        return None
    features = []
    for domain in scoring:
        ref = reference(game, domain)
        if ref is None:
            return None
        owner = majority(domain, game.players)
        features.append(
            {
                "ref": {"at": list(ref.at), "feature": ref.feature},
                "owner": owner,
                "words": f"{owner}'s {feature_at(domain, ref.at)} ({domain.tile_count} tiles)",
            }
        )
    return {"player": game.placer, "features": features}


def tile_names(game: CastleGame) -> dict[str, list[list[str]]]:
    """For every placed tile, each feature a record can name there, in words: for the fields that
    correct a follower or a wall tile's feature."""
    names: dict[str, list[list[str]]] = {}
    for cell, tile in game.board.tiles.items():
        entries = []
        for index, name in feature_names(tile).items():
            entries.append([name, f"{tile.features[index].kind} ({name})"])
        names[f"{cell[0]},{cell[1]}"] = entries
    return names
