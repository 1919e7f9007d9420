"""The Star Wars models, from ``models/starwars/``: the cell model (what lies in each cell), the
meeple model and the gallery's learnt likeness."""

from __future__ import annotations

from pathlib import Path

from companion.vision.likeness import Likeness, shared_likeness
from companion.vision.meeples import MeepleModel
from companion.vision.model_files import model_path
from companion.vision.reader import CellModel

FOLDER = "starwars"  # models/starwars/


def cells_path() -> Path:
    return model_path(FOLDER, "cells.onnx")


def meeples_path() -> Path:
    return model_path(FOLDER, "meeples.onnx")


def likeness_path() -> Path:
    return model_path(FOLDER, "gallery.onnx")


def cell_model(threads: int = 1) -> CellModel:
    return CellModel(cells_path(), threads)


def meeple_model(threads: int = 1) -> MeepleModel:
    return MeepleModel(meeples_path(), threads)


def likeness() -> Likeness:
    """The likeness every Star Wars gallery of this process shares."""
    return shared_likeness(likeness_path())
