"""Who plays Star Wars: colours, factions, the team variant, and who fights for whom."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import FormatError, Player, Setup
from companion.games.fields import check_object, get_players, get_str
from companion.games.starwars.battle import Fighter

GAME = "starwars"
COLOURS = ("red", "green", "black", "white", "orange")
# The character cards fix each colour's faction (shared/FACTS.md).
FACTION_OF_COLOUR = {
    "red": "rebels",
    "green": "rebels",
    "black": "empire",
    "white": "empire",
    "orange": "bounty",
}
FACTION_NAMES = {"rebels": "Rebels", "empire": "Empire", "bounty": "Bounty Hunters"}
TEAM_COLOURS = {c for c, f in FACTION_OF_COLOUR.items() if f in ("rebels", "empire")}
VARIANTS = ("standard", "teams")
SUPPLY = {"small": 4, "large": 1}  # each player's meeples (the sixth marks the score track)
TILES_IN_BOX = 76  # with the start tile (shared/FACTS.md); which tiles they are is not public


def colour_of(player: Player) -> str:
    """A Star Wars player's colour (every header's player has one: ``parse_setup`` sees to it)."""
    return player.color or ""


def parse_setup(header: Mapping[str, Any]) -> Setup:
    """Check a Star Wars header: 2 to 5 players of distinct colours; 4 alternating for teams."""
    check_object(header, "the header", required=("record", "game", "players"), optional=("variant",))
    variant = "standard"
    if "variant" in header:
        variant = get_str(header, "variant", "the header", VARIANTS)
    players = get_players(header, COLOURS, 2, 5)
    if variant == "teams":
        if len(players) != 4 or {colour_of(p) for p in players} != TEAM_COLOURS:
            raise FormatError(
                "the team variant is for 4 players: red and green (Rebels) against black and white (Empire)"
            )
        factions = [FACTION_OF_COLOUR[colour_of(p)] for p in players]
        if factions[0] == factions[1] or factions[1] == factions[2]:
            order = ", ".join(f"{p.name} ({p.color})" for p in players)
            raise FormatError(
                "in the team variant team mates sit diagonally, so the teams alternate in "
                f"turn order; this header has {order}"
            )
    return Setup(GAME, variant, players, header.get("meta"))


def fighters(setup: Setup) -> dict[str, Fighter]:
    """Each player's fighter, in turn order: the player, or their team in the team variant."""
    fighter_of: dict[str, Fighter] = {}
    for player in setup.players:
        faction = FACTION_OF_COLOUR[colour_of(player)]
        if setup.variant != "teams":
            fighter_of[player.name] = Fighter(player.name, player.name, faction, (player.name,))
            continue
        members = tuple(p.name for p in setup.players if FACTION_OF_COLOUR[colour_of(p)] == faction)
        label = f"{FACTION_NAMES[faction]} ({', '.join(members)})"
        fighter_of[player.name] = Fighter(faction, label, faction, members)
    return fighter_of
