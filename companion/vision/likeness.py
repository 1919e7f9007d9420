"""How alike two tiles look in their structure: the gallery's learnt comparison.

``models/starwars/gallery.onnx`` turns a tile's square (``TILE_PX`` a side, BGR) into a vector of unit
length. It was trained to put a camera's view of a tile nearest a clean picture of the same
tile, as it lies, from the same box, among the pictures of every other tile of that box
(models/starwars/gallery.md): what it compares is where routes, fields, planets and symbols lie, in the
colours and drawing of whichever box both pictures come from. The dot product of two vectors
is their likeness, -1 to 1.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

import numpy as np

from companion.vision.mat import TILE_PX
from companion.vision.onnx import open_session
from companion.vision.reader import ModelMissing


class Likeness:
    """The model, loaded once, run by onnxruntime on one thread."""

    def __init__(self, path: Path) -> None:
        """The likeness at ``path`` (a game's: ``models/<game>/gallery.onnx``)."""
        if not path.is_file():
            raise ModelMissing(f"the gallery's model is missing: {path} must exist (is the checkout whole?)")
        self._session = open_session(path)
        # what a vector kept on disk was worked out by (gallery_cache.py)
        self.fingerprint = hashlib.sha256(path.read_bytes()).hexdigest()
        problem = size_problem(self._session, path)
        if problem is not None:
            raise ModelMissing(problem)
        self._lock = threading.Lock()  # one run at a time: the phone's enrolment and the table share it

    def vectors(self, squares: np.ndarray) -> np.ndarray:
        """(N, TILE_PX, TILE_PX, 3) tile squares, BGR -> (N, D) float32 vectors of unit length."""
        if squares.ndim != 4 or squares.shape[1:] != (TILE_PX, TILE_PX, 3):
            raise ValueError(f"tile squares are (N, {TILE_PX}, {TILE_PX}, 3), not {squares.shape}")
        with self._lock:
            (out,) = self._session.run(None, {"squares": squares.astype(np.float32)})
        vectors: np.ndarray = out.astype(np.float32)
        return vectors


def size_problem(session: Any, path: Path) -> str | None:
    """Why an opened likeness model cannot serve the gallery, if it reads squares of another
    size than the gallery cuts (an experiment's model copied over the shipped one); None if it
    can. A model whose side is not fixed is taken as it is."""
    side = session.get_inputs()[0].shape[1]
    if not isinstance(side, int) or side == TILE_PX:
        return None
    return (
        f"{path} reads {side} px squares, the gallery cuts {TILE_PX} px ones: restore the "
        "shipped model (git checkout -- models/starwars/gallery.onnx)"
    )


_shared: dict[Path, Likeness] = {}
_shared_lock = threading.Lock()


def shared_likeness(path: Path) -> Likeness:
    """The one model at ``path`` that every gallery of this process uses (loaded on first use)."""
    with _shared_lock:
        if path not in _shared:
            _shared[path] = Likeness(path)
        return _shared[path]
