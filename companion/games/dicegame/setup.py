"""Who plays the Dice Game, and with which dice: the record header (shared/spec/dicegame.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import FormatError, Player, Setup
from companion.games.dicegame.faces import DEFAULT_TABLE, FaceTable, named_tables, parse_faces
from companion.games.fields import check_object, get_list, get_name, get_str

GAME = "dicegame"
VARIANTS = ("standard",)
FEWEST, MOST = 2, 5
NAMES = ("Ana", "Ben", "Cara", "Dan", "Eva")  # the simulator's players


def parse_setup(header: Mapping[str, Any]) -> Setup:
    """2 to 5 players by name only (the game has no colours), in turn order; the faces table."""
    check_object(header, "the header", required=("record", "game", "players"), optional=("variant", "faces"))
    variant = get_str(header, "variant", "the header", VARIANTS) if "variant" in header else VARIANTS[0]
    raw = get_list(header, "players", "the header")
    if not FEWEST <= len(raw) <= MOST:
        raise FormatError(f"the Dice Game takes {FEWEST} to {MOST} players, the header lists {len(raw)}")
    players: list[Player] = []
    for number, obj in enumerate(raw, start=1):
        what = f"player {number} in the header"
        if isinstance(obj, Mapping) and "color" in obj:
            raise FormatError(f'{what} has "color", but the Dice Game has no colours: give the name only')
        check_object(obj, what, required=("name",))
        name = get_name(obj, "name", what)
        if any(other.name == name for other in players):
            raise FormatError(f'two players are called "{name}"; names must differ')
        players.append(Player(name, None, obj.get("meta")))
    options: dict[str, Any] = {}
    if "faces" in header:
        parse_faces(header["faces"])  # refused here, at line 1, when it is wrong
        options["faces"] = header["faces"]
    return Setup(GAME, variant, tuple(players), header.get("meta"), options)


def faces_of(setup: Setup) -> FaceTable:
    """The faces table a setup plays with: the header's, or ``reading1`` when it names none."""
    if "faces" in setup.options:
        return parse_faces(setup.options["faces"])
    return named_tables()[DEFAULT_TABLE]


def simulated_setup(players: int, variant: str) -> Setup:
    """The simulator's table: the first names, and the default faces written out in full, as
    the companion writes the table its dice reader knows."""
    if not FEWEST <= players <= MOST:
        raise ValueError(f"the Dice Game takes {FEWEST} to {MOST} players, not {players}")
    if variant not in VARIANTS:
        raise ValueError(f"the Dice Game has the variant standard only, not {variant!r}")
    table = named_tables()[DEFAULT_TABLE].to_json()
    return Setup(GAME, variant, tuple(Player(n, None) for n in NAMES[:players]), None, {"faces": table})
