"""A gallery's folder on disk: ``NAME.png`` or ``NAME.jpg`` beside ``NAME.json``
(``{"tile": inline tile as it lies in the picture}``), the form ``companion enroll`` reads and
the gallery keeps (gallery.py; each picture's vectors are kept beside it by gallery_cache.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from companion.games.base import FormatError
from companion.vision.mat import TILE_PX
from companion.vision.picture_file import UnreadablePicture, read_picture_file

PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg")
_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def cleaned_name(name: str) -> str:
    """A picture's name as the gallery keeps it: letters, digits, - and _ only."""
    return _NAME.sub("-", name)


def gallery_folder(state_dir: Path) -> Path:
    """Where the companion keeps the user's gallery."""
    return state_dir / "gallery"


T = TypeVar("T")


class BadPicture(ValueError):
    """A gallery picture or its label cannot be used; the message says which and why."""


def read_folder(
    folder: Path, parse: Callable[[Any, str], T]
) -> tuple[list[tuple[np.ndarray, T, str]], list[str]]:
    """Every usable ``NAME.png``/``NAME.jpg`` with its ``NAME.json`` in ``folder``, in name
    order, with the name the gallery keeps it by; and why each other picture cannot be used.
    ``parse`` reads a label's tile (the game's reader of an inline tile)."""
    found: list[tuple[np.ndarray, T, str]] = []
    bad: list[str] = []
    taken: dict[str, Path] = {}
    try:
        paths = sorted(folder.iterdir())
    except OSError as error:
        return found, [f"{folder}: cannot be read ({error.strerror or error})"]
    for path in paths:
        if path.suffix.lower() not in PICTURE_SUFFIXES:
            continue
        name = cleaned_name(path.stem)
        if name in taken:
            bad.append(f"{path}: {taken[name].name} has the same name; keep one picture per name")
            continue
        try:
            picture, tile = read_picture(path, parse)
        except BadPicture as error:
            bad.append(str(error))
            continue
        taken[name] = path
        found.append((picture, tile, name))
    return found, bad


def read_picture(path: Path, parse: Callable[[Any, str], T]) -> tuple[np.ndarray, T]:
    label = path.with_suffix(".json")
    if not label.is_file():
        raise BadPicture(f"{path}: no {label.name} beside it saying which tile it shows")
    try:
        picture = read_picture_file(path, TILE_PX // 2, "to read a tile from")
    except UnreadablePicture as error:
        raise BadPicture(str(error)) from None
    try:
        data = json.loads(label.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadPicture(f"{label}: not JSON ({error})") from None
    if not isinstance(data, dict) or "tile" not in data:
        raise BadPicture(f'{label}: expected {{"tile": {{"features": [...]}}}}, the tile as it lies')
    try:
        tile = parse(data["tile"], f"{label.name} tile")
    except FormatError as error:
        raise BadPicture(f"{label}: {error.reason}") from None
    return picture, tile
