"""What the core knows of Carcassonne: The Dice Game, without importing its engine."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.games.manifest import Manifest, SimulatorKit

if TYPE_CHECKING:
    from companion.games.base import Game
    from companion.table.reader import ReaderMaker


def _engine() -> type[Game]:
    from companion.games.dicegame.engine import DiceGame

    return DiceGame


def _simulator() -> SimulatorKit:
    from companion.games.dicegame.sim import simulator_kit

    return simulator_kit()


def _reader() -> ReaderMaker:
    from companion.games.dicegame.reader.table import DiceGameReaderMaker

    return DiceGameReaderMaker()


def _commands() -> Callable[[Any], None]:
    from companion.games.dicegame.cli import add_commands

    return add_commands


def _default_faces() -> Any:
    """The default faces table (reading1, our approximation) as the phone's setup writes it."""
    tables = json.loads(Path(__file__).with_name("faces.json").read_text(encoding="utf-8"))["tables"]
    return tables["reading1"]


MANIFEST = Manifest(
    name="dicegame",
    title="Carcassonne: The Dice Game",
    players=(2, 5),
    colours=(),
    colour_rule="none",  # the game has no colours: players are told apart by name
    variants=("standard",),
    events=("roll", "aside", "keep", "score", "adjust", "end"),
    package="companion.games.dicegame",
    engine=_engine,
    simulator=_simulator,
    reader=_reader,
    commands=_commands,
    # the log's kinds in words, for the winner screen (a keep and the catapult win score 0, so
    # only cities and corrections show there; every kind is named all the same)
    score_kinds={
        "city": "cities",
        "knight": "knights kept",
        "catapults": "9 catapults",
        "adjust": "corrected by hand",
    },
    # the phone's setup writes the faces table into the record in full (templates/setup.html)
    setup_defaults={"faces": _default_faces()},
)
