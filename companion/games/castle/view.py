"""The Castle's moment (what every page and the API read) and its pictures: the castle and the
score track drawn for the scoreboard, and the board behind one score."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.games.base import Cell, Moment, PlayerMoment, ScoreChange
from companion.games.castle.drawing import Piece, Track, board_svg, colour_of
from companion.games.castle.layout import TRACK
from companion.games.castle.setup import TILES
from companion.games.castle.tiles import COURTYARD
from companion.games.castle.turn import OPEN, OVER, SCORED, TILE
from companion.games.castle.words import due_words

if TYPE_CHECKING:
    from companion.games.castle.engine import CastleGame


def colours(game: CastleGame) -> dict[str, str]:
    return {p.name: colour_of(p.color, seat) for seat, p in enumerate(game.setup.players)}


def pieces(game: CastleGame) -> list[Piece]:
    hues = colours(game)
    found = []
    for follower in game.board.followers():
        kind = game.board.tiles[follower.cell].features[follower.feature].kind
        found.append(Piece(follower.cell, follower.feature, hues[follower.player], kind == COURTYARD))
    return found


def keep_flags(game: CastleGame) -> list[tuple[Cell, str]]:
    hues = colours(game)
    flags = []
    for name in game.players:
        keep = game.keep_of(name)
        if keep is not None and keep.cells:
            flags.append((keep.cells[0], hues[name]))
    return flags


def phase_words(game: CastleGame) -> str:

    if game.phase == OVER:
        return "game over"
    if game.phase == TILE:
        return f"{game.next_player} places the first tile against a start space"
    dues = game.dues_now()
    if dues:
        return f"{dues[0][0]} takes the wall tile on space {dues[0][1]}"
    if game.phase == OPEN:
        return f"{game.placer} may place a follower; the turn is scored with the next tile"
    assert game.phase == SCORED
    return f"{game.next_player} places a tile"


def moment(game: CastleGame) -> Moment:

    scores = game.scores()
    hues = colours(game)
    dues = game.dues_now()
    players = []
    extra_players = []
    for p in game.setup.players:
        name = p.name
        keep = game.keep_of(name)
        counters = {"followers left": game.supply[name], "wall tiles held": len(game.held[name])}
        players.append(PlayerMoment(name, p.color, scores[name], counters))
        extra_players.append(
            {
                "name": name,
                "colour": hues[name],
                "score": scores[name],
                "space": scores[name] % TRACK,
                "lap": scores[name] // TRACK + 1,
                "followers": game.supply[name],
                "held": sorted(game.held[name]),
                "played": list(game.played[name]),
                "keep": keep.to_json() if keep is not None else None,
            }
        )
    if dues:
        turn_of: str | None = dues[0][0]
    elif game.phase == OPEN:
        turn_of = game.placer
    else:
        turn_of = None if game.phase == OVER else game.next_player
    prompts = tuple(due_words(player, space) + ": which wall tile was under it?" for player, space in dues)
    markers = [(p.name, scores[p.name], hues[p.name]) for p in game.setup.players]
    extras: dict[str, Any] = {
        "phase": game.phase,
        "tiles_placed": game.placed,
        "tiles_left": max(0, TILES - game.placed),
        "next_player": None if game.finished else game.next_player,
        "placer": game.placer,
        "dues": [list(d) for d in dues],
        "players": extra_players,
        "corners_left": len(game.corners_left),
        # the castle with the score track on its wall, as the table shows it
        "board": board_svg(
            game.layout,
            game.board.tiles,
            pieces(game),
            keeps=keep_flags(game),
            track=Track(game.layout.corners, game.corners_left, markers),
        ),
    }
    return Moment(
        turn=game.placed if game.phase in (OPEN, OVER) else game.placed + 1,
        turn_of=turn_of,
        phase=phase_words(game),
        finished=game.finished,
        winners=tuple(game.winners()),
        prompts=prompts,
        players=tuple(players),
        extras=extras,
    )


def score_view(game: CastleGame, change: ScoreChange) -> dict[str, Any]:
    """The players' colours, so the score's page can name whose followers were counted."""
    return {"colours": colours(game)}


def picture(game: CastleGame, change: ScoreChange | None = None) -> str:
    """The board now; with a score, what it counted brought forward, with the followers that
    stood on it then (they have gone home since), or the keep and the empty area it scored."""
    if change is None:
        return board_svg(game.layout, game.board.tiles, pieces(game), keeps=keep_flags(game))
    detail = change.detail or {}
    hues = colours(game)
    shown = pieces(game)
    standing = detail.get("standing")
    if standing:
        shown = []
        for piece in standing:
            cell = (piece["at"][0], piece["at"][1])
            tile = game.board.tiles.get(cell)
            if tile is None or not 0 <= piece["feature"] < len(tile.features):
                continue
            lying = tile.features[piece["feature"]].kind == COURTYARD
            shown.append(Piece(cell, piece["feature"], hues.get(piece["player"], "#9e9e9e"), lying))
    highlight: list[Cell] = list(change.cells)
    empty: list[Cell] = []
    if change.kind == "keep":
        empty = [(c[0], c[1]) for c in detail.get("empty", [])]
        highlight = [(c[0], c[1]) for c in detail.get("keep_cells", [])] or highlight
    return board_svg(game.layout, game.board.tiles, shown, highlight=highlight or [(-99, -99)], targets=empty)
