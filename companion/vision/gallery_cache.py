"""The vectors of a gallery's pictures: worked out from camera-like views, and kept beside each
picture in the folder so that a start need not work them out again.

Each picture, each way it may lie, is kept as the mean of the likeness's vectors for several
camera-like views of it (gallery_views.py) and as its own vector: nine runs of the model a way
of lying where one picture took one. A folder of 300 pictures took 14.96 s to read on one core
where it took 1.55 s (benchmarks/README.md), so ``NAME.vectors.npz`` beside ``NAME.png`` keeps
them, with what they were worked out from: a hash of the picture, of the model, and of the code
that works them out (this file and gallery_views.py: any change there, even a comment, only
costs one slower start). A file that does
not fit is worked out again; one that cannot be read or written is only a slower start.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from companion.vision import gallery_views
from companion.vision.gallery_views import VIEWS, unit, views
from companion.vision.likeness import Likeness
from companion.vision.mat import TILE_PX

SUFFIX = ".vectors.npz"
# the code that works the vectors out: this file and the views'
RECIPE = (
    hashlib.sha256(Path(__file__).read_bytes() + Path(gallery_views.__file__).read_bytes()).hexdigest()
    + f" {TILE_PX} px"
)


def cache_path(folder: Path, name: str) -> Path:
    return folder / f"{name}{SUFFIX}"


def picture_key(picture: np.ndarray, model: str) -> str:
    """What a picture's vectors were worked out from: its pixels, the model, the views' code."""
    digest = hashlib.sha256(np.ascontiguousarray(picture).tobytes())
    digest.update(repr((picture.shape, str(picture.dtype), model, RECIPE)).encode())
    return digest.hexdigest()


def way_vectors(likeness: Likeness, squares: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """For each tile square, (N, D) each: the mean of its views' vectors, and its own vector."""
    own = likeness.vectors(np.stack(squares))
    seen = likeness.vectors(np.concatenate([views(square) for square in squares]))
    return unit(seen.reshape(len(squares), VIEWS, -1).mean(axis=1)), own


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
    """Keep a picture's vectors beside it, whole or not at all (written aside, then moved in);
    a folder that cannot be written only costs time at the next start."""
    spare = None
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False) as out:
            spare = Path(out.name)
            np.savez(out, key=np.array(key), templates=templates, copies=copies)
        os.chmod(spare, 0o644)  # as the picture beside it, not the temporary file's 0600
        os.replace(spare, path)
    except OSError:
        if spare is not None:
            with contextlib.suppress(OSError):
                spare.unlink()
