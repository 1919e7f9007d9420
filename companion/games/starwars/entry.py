"""What the phone needs to enter, in taps, what the camera could not read: the board with the
cells a tile may go in, each tile of the box as it can lie, and where a meeple may stand."""

from __future__ import annotations

from functools import cache
from typing import Any

from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.drawing import board_svg
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.phase import Phase
from companion.games.starwars.setup import colour_of
from companion.games.starwars.spots import SPOT_XY
from companion.games.starwars.tiles import KIND_LABELS, PLANET, SIDES, Tile
from companion.games.starwars.words import tile_words

# Where a meeple's ring is drawn on a tile: beside its side, or on the planet.
RING = {**{side: SPOT_XY[side] for side in SIDES}, PLANET: (0.0, 0.0)}


@cache
def box_ways() -> tuple[dict[str, Any], ...]:
    """Each tile type of the box with its distinct ways of lying: the tile as a record writes
    it, in words and drawn (the same every game: worked out once)."""
    types = []
    for entry in load_catalog().tiles:
        ways = [
            {
                "rotation": quarter_turns,
                "tile": lying.to_json(),
                "words": tile_words(lying),
                "svg": board_svg({(0, 0): lying}, cell_px=48),
            }
            for quarter_turns, lying in entry.tile.distinct_rotations()
        ]
        types.append({"id": entry.id, "name": entry.name, "start": entry.start, "ways": ways})
    return tuple(types)


def entry_view(game: StarWarsGame) -> dict[str, Any]:
    """The fix page's Star Wars forms, for the moment ``game`` is at."""
    if game.finished:
        return {}
    legal: dict[str, dict[str, list[int]]] = {}  # cell -> type -> the rotations that fit
    for kind in box_ways():
        entry = load_catalog().get(kind["id"])
        assert entry is not None
        for cell, quarter_turns, _ in game.legal_placements(entry.tile):
            legal.setdefault(f"{cell[0]},{cell[1]}", {}).setdefault(kind["id"], []).append(quarter_turns)
    targets = [tuple(int(n) for n in key.split(",")) for key in legal]
    colour = {p.name: colour_of(p) for p in game.players}
    meeples = [(m.cell, m.feature_index, colour[m.player], m.size) for m in game.meeples_on_board()]
    board = board_svg(game.board.tiles, meeples, targets=[(c[0], c[1]) for c in targets])
    view: dict[str, Any] = {
        "board": board,
        "legal": legal,
        "types": list(box_ways()),
        "player": None if game.phase is Phase.START else game.next_player,
    }
    spots = game.legal_meeples()
    if spots:
        view["meeple"] = _meeple_view(game, spots)
    return view


def _meeple_view(game: StarWarsGame, spots: list[Any]) -> dict[str, Any]:
    """The tile just placed and the eight around it, a ring at each place a meeple may go."""
    player = spots[0].player
    centre = game.current_tile()
    around = {
        cell: tile
        for cell, tile in game.board.tiles.items()
        if abs(cell[0] - centre[0]) <= 1 and abs(cell[1] - centre[1]) <= 1
    }
    rings = sorted({(m.at, m.feature) for m in spots})
    svg = board_svg(around, spots=[(at, feature, RING[feature]) for at, feature in rings], highlight=[centre])
    sizes = {size: game.supply[player][size] for size in ("small", "large")}
    return {"player": player, "svg": svg, "sizes": sizes, "words": _ring_words(game, rings)}


def _ring_words(game: StarWarsGame, rings: list[tuple[tuple[int, int], str]]) -> dict[str, str]:
    """Each ring in words, for the button a screen reader reads: "the trade route"."""
    words = {}
    for at, feature in rings:
        tile: Tile = game.board.tiles[at]
        if feature == PLANET:
            said = "the planet" if at == game.current_tile() else "the planet beside it (an attack)"
        else:
            said = f"the {KIND_LABELS[tile.features[tile.side_feature[SIDES.index(feature)]].kind]}"
        words[f"{at[0]},{at[1]}/{feature}"] = said
    return words
