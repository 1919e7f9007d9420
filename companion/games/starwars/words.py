"""Star Wars in words for the people at the table: what an event did and what a battle waits
for, without coordinates (the record's own error messages keep them: they are about a record)."""

from __future__ import annotations

from companion.games.starwars import events as ev
from companion.games.starwars.battle import Battle
from companion.games.starwars.board import Board
from companion.games.starwars.setup import FACTION_NAMES
from companion.games.starwars.tiles import ASTEROID, KIND_LABELS, PLANET, ROUTE, SIDES, Tile

NUMBERS = ("no", "a", "two", "three", "four")


def dice_word(count: int) -> str:
    return f"{count} die" if count == 1 else f"{count} dice"


def _counted(count: int, label: str) -> str:
    if count == 1:
        return f"{'an' if label[0] in 'aeiou' else 'a'} {label}"
    return f"{NUMBERS[count] if count < len(NUMBERS) else count} {label}s"


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def tile_words(tile: Tile) -> str:
    """What a tile shows: "two trade routes and a Rebel planet"; "open space" for none."""
    parts = []
    for kind in (ROUTE, ASTEROID):
        count = sum(1 for f in tile.features if f.kind == kind)
        if count:
            parts.append(_counted(count, KIND_LABELS[kind]))
    for feature in tile.features:
        if feature.kind == PLANET:
            faction = FACTION_NAMES[feature.symbols[0]] if feature.symbols else ""
            parts.append(f"{'an' if faction[:1] in 'AEIOU' else 'a'} {faction} planet".replace("  ", " "))
    symbols = sorted({s for f in tile.features if f.kind != PLANET for s in f.symbols})
    text = _joined(parts) if parts else "open space"
    if symbols:
        text += " with " + _joined([f"a {FACTION_NAMES[s]} symbol" for s in symbols])
    return text


def describe(event: ev.TilePlaced | ev.MeeplePlaced | ev.DiceRolled, board: Board) -> str:
    """One line for the timeline, in words."""
    if isinstance(event, ev.TilePlaced):
        if event.player is None:
            return f"The start tile: {tile_words(event.tile)}"
        return f"{event.player} placed a tile: {tile_words(event.tile)}"
    if isinstance(event, ev.MeeplePlaced):
        return f"{event.player} put a {event.size} meeple on {_feature_words(event, board)}"
    return f"{event.player} rolled {', '.join(map(str, event.dice))}"


def _feature_words(event: ev.MeeplePlaced, board: Board) -> str:
    if event.feature == PLANET:
        return "a planet"
    tile = board.tiles.get(event.at)
    if tile is None:
        return f"side {event.feature} of a tile"
    index = tile.side_feature[SIDES.index(event.feature)]
    return f"the {KIND_LABELS[tile.features[index].kind]}" if index >= 0 else "open space"


def battle_words(battle: Battle) -> str:
    """What a battle waits for: "A battle for the trade route: Ana rolls 2 dice, Ben rolls 1 die"."""
    waiting = ", ".join(f"{f.label} rolls {dice_word(battle.dice[f.key])}" for f in battle.waiting_for())
    round_words = f" (round {battle.round})" if battle.round > 1 else ""
    return f"A battle for the {battle.domain.label}{round_words}: {waiting}"
