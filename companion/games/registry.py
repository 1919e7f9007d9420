"""The games registry: the manifests of every game the companion can score.

The games are found, not listed: every package under ``companion/games/`` with a ``manifest``
module is a game, so adding a game changes nothing outside its package. A game kept elsewhere
(a test's toy game, a club's own) is added with ``register``.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import threading

from companion.games.base import FormatError, Game
from companion.games.manifest import Manifest

# The games the record contract names (shared/spec/records.md), in its order: a record naming
# one that has no package yet is refused as not supported, not as unknown.
RECORD_GAMES = ("starwars", "castle", "dicegame", "gaia", "stars")

_lock = threading.Lock()
_found: dict[str, Manifest] | None = None
_added: dict[str, Manifest] = {}


def _discover() -> dict[str, Manifest]:
    import companion.games as games_package

    found: dict[str, Manifest] = {}
    for module in pkgutil.iter_modules(games_package.__path__):
        if not module.ispkg:
            continue
        name = f"companion.games.{module.name}.manifest"
        if importlib.util.find_spec(name) is None:
            continue  # a library the games share (the Carcassonne core), not a game
        manifest: Manifest = importlib.import_module(name).MANIFEST
        found[manifest.name] = manifest
    return found


def _all() -> dict[str, Manifest]:
    global _found
    with _lock:
        if _found is None:
            _found = _discover()
        return {**_found, **_added}


def register(manifest: Manifest) -> None:
    """Add a game kept outside ``companion/games/`` (it replaces one of the same name)."""
    with _lock:
        _added[manifest.name] = manifest


def unregister(name: str) -> None:
    with _lock:
        _added.pop(name, None)


def manifests() -> list[Manifest]:
    """Every game, the contract's in its order first, then the others by name."""
    games = _all()
    order = {name: index for index, name in enumerate(RECORD_GAMES)}
    return sorted(games.values(), key=lambda m: (order.get(m.name, len(order)), m.name))


def manifest(name: str) -> Manifest:
    """The manifest of the game a record header names; FormatError with the reason otherwise."""
    games = _all()
    if name in games:
        return games[name]
    if name in RECORD_GAMES:
        raise FormatError(f'the game "{name}" is not supported yet')
    known = ", ".join(f'"{g}"' for g in dict.fromkeys([*RECORD_GAMES, *games]))
    raise FormatError(f'unknown game "{name}" (records name one of {known})')


def game_class(name: str) -> type[Game]:
    """The engine for a game named in a record header."""
    return manifest(name).engine()
