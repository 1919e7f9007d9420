"""Where the model files are: installed with the companion (the package ``companion_models``,
which is the checkout's top-level ``models/`` folder), one folder per game and ``dice`` for
ordinary dice. ``COMPANION_MODELS_DIR`` points elsewhere (a model being tried, a copy on a USB
stick), with the same folders inside."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

MODELS_ENV = "COMPANION_MODELS_DIR"


def models_root() -> Path:
    configured = os.environ.get(MODELS_ENV)
    if configured:
        return Path(configured)
    return Path(str(resources.files("companion_models")))


def model_path(folder: str, name: str) -> Path:
    """``models/<folder>/<name>``: a game's model (``starwars``), or ordinary dice's (``dice``)."""
    return models_root() / folder / name
