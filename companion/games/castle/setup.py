"""Who plays the Castle and in which castle: the header (castle.md, Header)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import FormatError, Player, Setup
from companion.games.castle.layout import STANDARD, parse_layout
from companion.games.fields import check_object, get_list, get_name, get_str

GAME = "castle"
VARIANTS = ("standard", "last-landing")
PLAYERS = 2
FOLLOWERS = 6  # of each player's 7, one marks the score on the wall (castle.md, reading 1)
TILES = 60  # castle tiles in the box (shared/FACTS.md)
# The colours are not public (castle.md): any word goes; these two are offered on the phone.
OFFERED_COLOURS = ("yellow", "blue")


def parse_setup(header: Mapping[str, Any]) -> Setup:
    """Check a Castle header: 2 players of different names and colours, a variant, a board."""
    check_object(header, "the header", required=("record", "game", "players", "board"), optional=("variant",))
    variant = get_str(header, "variant", "the header", VARIANTS) if "variant" in header else VARIANTS[0]
    raw = get_list(header, "players", "the header")
    if len(raw) != PLAYERS:
        raise FormatError(f"the Castle is a game for exactly {PLAYERS} players; the header lists {len(raw)}")
    players: list[Player] = []
    for number, obj in enumerate(raw, 1):
        what = f"player {number} in the header"
        check_object(obj, what, required=("name", "color"))
        name, colour = get_name(obj, "name", what), get_name(obj, "color", what)
        for other in players:
            if other.name == name:
                raise FormatError(f'both players are called "{name}"; names must differ')
            if other.color == colour:
                raise FormatError(f"{other.name} and {name} both play {colour}; colours must differ")
        players.append(Player(name, colour, obj.get("meta")))
    # The board is read (and refused if wrong) here, so a bad header names line 1.
    board = header["board"]
    parse_layout(board)
    return Setup(GAME, variant, tuple(players), header.get("meta"), {"board": board})


def standard_setup(names: tuple[str, str], colours: tuple[str, str], variant: str) -> Setup:
    players = tuple(Player(name, colour) for name, colour in zip(names, colours, strict=True))
    return Setup(GAME, variant, players, None, {"board": STANDARD})
