"""What the core knows of Carcassonne: Star Wars, without importing its engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.games.manifest import Manifest, SimulatorKit

if TYPE_CHECKING:
    from flask import Blueprint

    from companion.games.base import Game
    from companion.table.reader import ReaderMaker


def _engine() -> type[Game]:
    from companion.games.starwars.engine import StarWarsGame

    return StarWarsGame


def _simulator() -> SimulatorKit:
    from companion.games.starwars.sim.games import simulator_kit

    return simulator_kit()


def _reader() -> ReaderMaker:
    from companion.games.starwars.reader.maker import StarWarsReaderMaker

    return StarWarsReaderMaker()


def _pages() -> Blueprint:
    from companion.games.starwars.web import blueprint

    return blueprint()


def _commands() -> Callable[[Any], None]:
    from companion.games.starwars.cli import add_commands

    return add_commands


MANIFEST = Manifest(
    name="starwars",
    title="Carcassonne: Star Wars",
    players=(2, 5),
    # the character cards fix each colour's faction (shared/FACTS.md)
    colours=("red", "green", "black", "white", "orange"),
    colour_rule="fixed",
    variants=("standard", "teams"),
    events=("tile", "meeple", "roll", "adjust", "end"),
    package="companion.games.starwars",
    engine=_engine,
    simulator=_simulator,
    reader=_reader,
    pages=_pages,
    commands=_commands,
    models="starwars",
    model_files=("cells.onnx", "cells.labels.json", "meeples.onnx", "meeples.labels.json", "gallery.onnx"),
    score_kinds={
        "route": "trade routes",
        "asteroid": "asteroid fields",
        "planet": "planets",
        "battle": "battles",
        "adjust": "corrected by hand",
    },
    sim_flags={"catalog-ids": "write tiles as catalog ids with a rotation, not inline"},
)
