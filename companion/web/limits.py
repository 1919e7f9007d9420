"""What a person may type on a phone: short enough to travel in every live update, and names that
people can read and tell apart. A record read from a file keeps whatever records.md allows."""

from __future__ import annotations

import unicodedata
from typing import Any

from companion.games.base import FormatError

NAME_CHARACTERS = 40
REASON_CHARACTERS = 500


def short_text(body: dict[str, Any], key: str, most: int) -> None:
    value = body.get(key)
    if isinstance(value, str) and len(value) > most:
        raise FormatError(f'"{key}" is {len(value)} characters: say it in {most} or fewer')


def player_name(name: Any) -> None:
    """A name as a phone may give it: visible, short, no spaces round it (else "Ana" and
    "Ana " would be two players)."""
    if not isinstance(name, str):
        return  # the header's own check names the mistake
    if len(name) > NAME_CHARACTERS:
        raise FormatError(f"a player's name is at most {NAME_CHARACTERS} characters, not {len(name)}")
    if name != name.strip():
        raise FormatError(f"the name {name!r} has spaces before or after it")
    if name and not any(unicodedata.category(c)[0] in "LNPS" for c in name):
        raise FormatError(f"the name {name!r} has nothing to see: use letters or digits")


def player_names(header: dict[str, Any]) -> None:
    """Every player's name in a new game's header, as ``player_name`` checks it."""
    players = header.get("players")
    for player in players if isinstance(players, list) else []:
        if isinstance(player, dict):
            player_name(player.get("name"))
