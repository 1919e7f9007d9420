"""The vectors of a gallery folder's pictures, kept beside them so start-up need not work them out.

Each picture is kept as the mean of the likeness's vectors for several camera-like views of it
(gallery_views.py), nine runs of the model a way of lying where one picture took one: a folder
of 300 pictures took 14.7 s to read on one core where it took 1.6 s (benchmarks/README.md). So
``NAME.vectors.npz`` beside ``NAME.png`` keeps them, with what they were worked out from: a
hash of the picture, of the model, and the recipe of the views. Any of those changed, the file
is worked out again; a file that cannot be read or written is only a slower start.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import numpy as np

from companion.vision.gallery_views import SCALE, SHIFT_PX, TURN_DEGREES, VIEWS

SUFFIX = ".vectors.npz"
RECIPE = f"views {VIEWS}, shift {SHIFT_PX}, turn {TURN_DEGREES}, scale {SCALE}"


def cache_path(folder: Path, name: str) -> Path:
    return folder / f"{name}{SUFFIX}"


def picture_key(picture: np.ndarray, model: str) -> str:
    """What a picture's vectors were worked out from: its pixels, the model, the views' recipe."""
    digest = hashlib.sha256(np.ascontiguousarray(picture).tobytes())
    digest.update(repr((picture.shape, str(picture.dtype), model, RECIPE)).encode())
    return digest.hexdigest()


def load_vectors(path: Path, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The kept (templates, copies) of a picture, each (4, D), if ``path`` holds them for ``key``."""
    try:
        with np.load(path) as kept:
            if str(kept["key"]) != key:
                return None
            templates, copies = kept["templates"], kept["copies"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    if templates.shape != copies.shape or templates.ndim != 2 or len(templates) != 4:
        return None
    return templates.astype(np.float32), copies.astype(np.float32)


def save_vectors(path: Path, key: str, templates: np.ndarray, copies: np.ndarray) -> None:
    """Keep a picture's vectors beside it; a folder that cannot be written only costs time."""
    try:
        with path.open("wb") as out:
            np.savez(out, key=np.array(key), templates=templates, copies=copies)
    except OSError:
        path.unlink(missing_ok=True)
