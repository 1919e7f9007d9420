"""The game engines: one package per game, all behind the interface in ``base``."""

from __future__ import annotations

from importlib import import_module

from companion.games.base import FormatError, Game

# Every game a record may name (records.md), with its package once one exists.
GAMES: dict[str, str | None] = {
    "starwars": "companion.games.starwars:StarWarsGame",
    "castle": None,
    "dicegame": None,
    "gaia": None,
    "stars": None,
}


def game_class(name: str) -> type[Game]:
    """The engine for a game named in a record header."""
    if name not in GAMES:
        known = ", ".join(f'"{g}"' for g in GAMES)
        raise FormatError(f'unknown game "{name}" (records name one of {known})')
    target = GAMES[name]
    if target is None:
        raise FormatError(f'the game "{name}" is not supported yet')
    module, _, cls = target.partition(":")
    game: type[Game] = getattr(import_module(module), cls)
    return game
