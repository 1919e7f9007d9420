"""The toy game's manifest (tests only): ``register(MANIFEST)`` serves it like any game."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games.manifest import Manifest, SimulatorKit

if TYPE_CHECKING:
    from companion.games.base import Game


def _engine() -> type[Game]:
    from toygame.engine import ToyGame

    return ToyGame


def _simulator() -> SimulatorKit:
    from toygame.engine import simulator_kit

    return simulator_kit()


MANIFEST = Manifest(
    name="toy",
    title="Toy dice race",
    players=(2, 4),
    colours=("red", "blue", "yellow", "green"),
    colour_rule="fixed",
    variants=("standard",),
    events=("throw", "adjust", "end"),
    package="toygame",
    engine=_engine,
    simulator=_simulator,
)
