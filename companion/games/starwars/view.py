"""Star Wars' moment (what every page and the API read), the board behind one score, and a
battle's page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from companion.games.base import Moment, PlayerMoment, ScoreChange
from companion.games.starwars import words
from companion.games.starwars.battle import Battle
from companion.games.starwars.drawing import board_svg
from companion.games.starwars.phase import Phase
from companion.games.starwars.setup import FACTION_NAMES, FACTION_OF_COLOUR, TILES_IN_BOX, colour_of
from companion.games.starwars.tiles import PLANET, SIDES

if TYPE_CHECKING:
    from companion.games.starwars.engine import StarWarsGame


def picture(game: StarWarsGame, change: ScoreChange | None = None) -> str:
    """The board as it is now; a score's cells are brought forward, and its meeples replace the
    meeples now on it."""
    highlight = change.cells if change is not None else ()
    pieces: Sequence[Mapping[str, Any]] = ((change.detail or {}).get("meeples") or ()) if change else ()
    colour = {p.name: colour_of(p) for p in game.players}
    meeples = []
    if pieces:
        for piece in pieces:
            cell = (piece["at"][0], piece["at"][1])
            tile = game.board.tiles[cell]
            spot = piece["feature"]
            index = tile.planet_index if spot == PLANET else tile.side_feature[SIDES.index(spot)]
            if index is not None and index >= 0:
                meeples.append((cell, index, colour[piece["player"]], piece["size"]))
    else:
        meeples = [(m.cell, m.feature_index, colour[m.player], m.size) for m in game.meeples_on_board()]
    return board_svg(game.board.tiles, meeples, highlight)


def moment(game: StarWarsGame) -> Moment:
    """The scores, whose turn, the meeples each has left and the battle waiting for dice."""
    scores = game.scores()
    battle = game.pending_battle()
    prompts = (words.battle_words(battle),) if battle is not None else ()
    players = []
    extra_players = []
    for player in game.players:
        faction = FACTION_OF_COLOUR[colour_of(player)]
        supply = game.supply[player.name]
        players.append(
            PlayerMoment(
                player.name,
                player.color,
                scores[player.name],
                {"small meeples left": supply["small"], "large meeples left": supply["large"]},
                FACTION_NAMES[faction],
                game.team_of(player.name),
            )
        )
        entry: dict[str, Any] = {"name": player.name, "faction": faction, "meeples": dict(supply)}
        if game.teams:
            entry["team"] = game.team_of(player.name)
            entry["own_points"] = game.own_points(player.name)
        extra_players.append(entry)
    extras = {
        "phase": game.phase.value,
        # turns begun (tiles placed after the start tile) and who placed the latest tile: named so
        # that they are not taken for whose turn it is (``turn_of``)
        "turns_begun": game.turn,
        "tiles_placed": len(game.board.tiles),
        "tiles_left": max(0, TILES_IN_BOX - len(game.board.tiles)),
        "latest_tile_by": game.current_player,
        "next_player": None if game.finished else game.next_player,
        "players": extra_players,
        "battle": battle.to_json() if battle is not None else None,
    }
    return Moment(
        # the turn under way, or the one about to start: what players call "turn 8"
        turn=game.turn + (1 if game.phase is Phase.TILE else 0),
        turn_of=game.turn_of,
        phase=phase_words(game, battle),
        finished=game.finished,
        winners=tuple(game.winners()),
        prompts=prompts,
        players=tuple(players),
        extras=extras,
    )


def phase_words(game: StarWarsGame, battle: Battle | None) -> str:
    """What the game waits for, as the scoreboard says it."""
    if game.phase is Phase.START:
        return "the start tile goes down first"
    if game.phase is Phase.OVER:
        return "game over"
    if battle is not None:
        return f"a battle for the {battle.domain.label} waits for dice"
    if game.phase is Phase.MEEPLE:
        return f"{game.current_player} may place a meeple"
    return f"{game.next_player} places a tile"


def score_view(game: StarWarsGame, change: ScoreChange) -> dict[str, Any]:
    """A battle's page shows its rounds."""
    if change.kind != "battle":
        return {}
    battle = next(
        (b for b in game.battles if b["domain"] == change.domain and b["turn"] == change.turn), None
    )
    return {"battle": battle}
