"""What the core knows of Among the Stars, without importing its engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.games.manifest import Manifest, SimulatorKit

if TYPE_CHECKING:
    from flask import Blueprint

    from companion.games.base import Game


def _engine() -> type[Game]:
    from companion.games.stars.engine import StarsGame

    return StarsGame


def _simulator() -> SimulatorKit:
    from companion.games.stars.sim import simulator_kit

    return simulator_kit()


def _pages() -> Blueprint:
    from companion.games.stars.web import blueprint

    return blueprint()


def _setup_defaults() -> dict[str, Any]:
    """The setup page's first choices: the location types of defaults.json (our approximation:
    the seed does not name them) and no objectives."""
    defaults = json.loads((Path(__file__).parent / "defaults.json").read_text(encoding="utf-8"))
    return {"types": defaults["types"], "objectives": []}


MANIFEST = Manifest(
    name="stars",
    title="Among the Stars",
    players=(2, 4),
    colours=(),  # a marker's colour is free text, and may be left out (the seed names none)
    colour_rule="optional",
    variants=("peaceful",),  # "aggressive" is reserved by the contract, refused until specified
    events=("year", "build", "reactor", "discard", "ability", "objective", "remove", "adjust", "end"),
    package="companion.games.stars",
    engine=_engine,
    score_word="VP",
    simulator=_simulator,
    pages=_pages,
    # the log's kinds in words (the winner screen lists the kinds of the final scoring together)
    score_kinds={
        "build": "locations built",
        "ability": "abilities counted by hand",
        "remove": "cards removed beyond MAX",
        "objective": "objectives",
        "delayed": "delayed abilities",
        "reactors": "empty power reactors",
        "credits": "credits left",
        "adjust": "corrected by hand",
    },
    setup_defaults=_setup_defaults(),
)
