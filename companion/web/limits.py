"""What a person may type on a phone: short enough to travel in every live update, and names that
people can read and tell apart. A record read from a file keeps whatever records.md allows."""

from __future__ import annotations

import unicodedata
from typing import Any

from companion.games.base import FormatError

NAME_CHARACTERS = 40
REASON_CHARACTERS = 500
# the zero-width joiners: part of how some scripts and emoji are written, so kept in a name
JOINERS = {"\u200c", "\u200d"}
# invisible, yet part of how some emoji are written (a flag's tags, a variation selector): kept in
# a name, but not counted when two names are compared
TAGS = range(0xE0020, 0xE0080)
UNSEEN = {"\u034f", *map(chr, range(0xFE00, 0xFE10)), *map(chr, TAGS)} | JOINERS


def short_text(body: dict[str, Any], key: str, most: int) -> None:
    value = body.get(key)
    if isinstance(value, str) and len(value) > most:
        raise FormatError(f'"{key}" is {len(value)} characters: say it in {most} or fewer')


def visible_text(text: Any, what: str, most: int = NAME_CHARACTERS) -> None:
    """A name (a player's, a colour, a card's) as a phone may give it: visible, short, no spaces
    round it (else "Ana" and "Ana " would be two players), no control or invisible characters
    (else "Ana" and "Ana" with a zero-width space would be)."""
    if not isinstance(text, str):
        return  # the record's own check names the mistake
    if len(text) > most:
        raise FormatError(f"{what} is at most {most} characters, not {len(text)}")
    if text != text.strip():
        raise FormatError(f"{what} {text!r} has spaces before or after it")
    if text and not any(unicodedata.category(c)[0] in "LNPS" for c in text):
        raise FormatError(f"{what} {text!r} has nothing to see: use letters or digits")
    for character in text:
        category = unicodedata.category(character)
        if category in ("Cc", "Zl", "Zp") or (category == "Cf" and character not in UNSEEN):
            raise FormatError(
                f"{what} {text!r} holds a control or invisible character "
                f"(U+{ord(character):04X}): type it again"
            )


def seen_as(name: str) -> str:
    """A name as people see it: compatibility forms folded, runs of spaces as one, the characters
    that show nothing by themselves left out."""
    folded = unicodedata.normalize("NFKC", name)
    return " ".join("".join(c for c in folded if c not in UNSEEN).split())


def player_names(header: dict[str, Any]) -> None:
    """Every player's name and colour in a new game's header, as ``visible_text`` checks them, and
    no two names that look the same."""
    players = header.get("players")
    seen: dict[str, str] = {}
    for player in players if isinstance(players, list) else []:
        if not isinstance(player, dict):
            continue
        name = player.get("name")
        visible_text(name, "a player's name")
        visible_text(player.get("color"), "a player's colour")
        if isinstance(name, str):
            other = seen.setdefault(seen_as(name), name)
            if other != name:
                raise FormatError(f"the names {other!r} and {name!r} look the same: tell them apart")
